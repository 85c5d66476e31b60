# SPDX-License-Identifier: GPL-2.0
#
#   make            build schedtop (BPF objects, skeleton, libschedstat.a)
#   make check      build and run every test (root tests need root)
#   make bench      run the benchmarks under bench/ (root)
#   make docs       regenerate the column sections of docs/ from the tables
#   make V=1        show full commands
#   make install    schedtop, its man page and bash completion, libschedstat.a,
#                   include/schedstat.h, libschedstat.pc, the Perfetto config
#                   share/perfetto-sched.pbtx and the built-in workloads
#                   (rt-app files) under DESTDIR/PREFIX
#                   (PREFIX=/usr/local; BINDIR, LIBDIR, INCLUDEDIR, MANDIR,
#                   PKGCONFIGDIR, BASHCOMPDIR, DATADIR override one place each)
#   make uninstall  removes exactly those files
#   make ARCH=arm64 one static aarch64 binary in build-arm64/ (for phones and
#                   the arm64 test guest; needs gcc-aarch64-linux-gnu and the
#                   :arm64 -dev packages, see scripts/install-deps --arm64)

HOST_ARCH := $(shell uname -m)
ARCH ?= $(HOST_ARCH)
ifeq ($(filter $(ARCH),arm64 aarch64),$(ARCH))
ifneq ($(HOST_ARCH),aarch64)
CROSS ?= aarch64-linux-gnu-
OUT ?= build-arm64
STATIC ?= 1
CROSS_INC := -idirafter /usr/include/aarch64-linux-gnu
CROSS_LIB := -L/usr/lib/aarch64-linux-gnu
endif
endif

OUT ?= build
CC := $(CROSS)$(if $(filter default,$(origin CC)),gcc,$(CC))
AR := $(CROSS)$(if $(filter default,$(origin AR)),ar,$(AR))
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
# The target's libraries: a cross build asks the target's .pc files.
ifneq ($(CROSS),)
TARGET_PKG_CONFIG ?= PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig $(PKG_CONFIG)
else
TARGET_PKG_CONFIG ?= $(PKG_CONFIG)
endif

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
GIT_REV := $(shell git rev-parse --short HEAD 2>/dev/null)

# BPF target architecture macro for bpf_tracing.h (PT_REGS and friends).
BPF_ARCH := $(subst x86_64,x86,$(subst aarch64,arm64,$(ARCH)))
# BPF objects only need the host's uapi headers, whatever the target.
HOST_MULTIARCH := $(shell gcc -print-multiarch 2>/dev/null || echo $(HOST_ARCH)-linux-gnu)

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow \
	  -Wformat=2 -D_GNU_SOURCE -DSCHEDTOP_VERSION='"$(VERSION)"' \
	  -DSCHEDTOP_GIT_REV='"$(GIT_REV)"' $(CROSS_INC)
# The library sees its private headers, the BPF ABI and the skeleton; the
# front end sees the public header only (include/), as a program using the
# installed library does, and its own rooms. Tests and benchmarks may look
# inside (TEST_INC). libschedstat/ is in floors (base at the bottom, session
# at the top; docs/design.md, tests/integration/test_layers.py), schedtop/
# in rooms by what they own; each folder is on its include path.
LIB_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard libschedstat/*/*.[ch]))))
LIB_HDRS := $(wildcard $(addsuffix /*.h,$(LIB_DIRS)))
LIB_INC := -Iinclude $(addprefix -I,$(LIB_DIRS)) -Ibpf -I$(OUT)
APP_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard schedtop/*/*.[ch]))))
APP_HDRS := $(wildcard $(addsuffix /*.h,$(APP_DIRS)))
APP_INC := -Iinclude $(addprefix -I,$(APP_DIRS))
TEST_INC := $(LIB_INC) $(addprefix -I,$(APP_DIRS))
ifeq ($(STATIC),1)
# Static: no NSS, no shared libraries, nothing to install on the device.
LDFLAGS += -static $(CROSS_LIB)
NCURSES_LIBS := -lncursesw -ltinfo
else
NCURSES_LIBS := $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw -ltinfo)
endif
# The tracefs source (libschedstat/sources/tracefs_source.c): libtracefs and
# libtraceevent, static .a files in Debian's -dev packages for every arch.
TRACE_INC := $(shell $(TARGET_PKG_CONFIG) --cflags libtracefs libtraceevent 2>/dev/null || \
		echo -I/usr/include/tracefs -I/usr/include/traceevent)
LIB_INC += $(TRACE_INC)
# trace-cmd files (traces/trace_file_source.c): libtracecmd ships no static
# library, so static builds (ARCH=arm64) leave it out; TRACECMD=0 does too.
ifeq ($(STATIC),1)
TRACECMD ?= 0
else
TRACECMD ?= $(shell $(PKG_CONFIG) --exists libtracecmd && echo 1 || echo 0)
endif
ifeq ($(TRACECMD),1)
TRACECMD_INC := $(shell $(PKG_CONFIG) --cflags libtracecmd)
LIB_INC += -DHAVE_TRACECMD $(TRACECMD_INC)
LDLIBS += -ltracecmd
endif
# zlib and zstd: compressed trace.dat sections (trace_file_check.c inflates
# them as libtracecmd does) and Perfetto's compressed packets.
LDLIBS += -ltracefs -ltraceevent -lbpf -lelf -lzstd -lz $(NCURSES_LIBS) -ldl
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Ibpf \
	      -idirafter /usr/include/$(HOST_MULTIARCH) -Wall -Wno-unused-function

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

LIB_SRCS := $(wildcard $(addsuffix /*.c,$(LIB_DIRS)))
OBJ := $(OUT)/obj
LIB_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(LIB_SRCS))
APP_SRCS := $(wildcard schedtop/*.c $(addsuffix /*.c,$(APP_DIRS)))
# Terminal descriptions built into the binary (schedtop/terminal/terminfo_fallback.c):
# the first two must exist on the build host, the others are taken if there.
TERMINFO_REQUIRED := vt100 xterm-256color
TERMINFO_OPTIONAL := xterm linux screen screen-256color tmux-256color
# The built-in workloads, rt-app files built into the binary
# (schedtop/workload/workload_builtin.c) and installed, in --list order.
WORKLOADS := $(addprefix workloads/,audio.json video.json browse.json camera.json)
APP_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(APP_SRCS)) $(OBJ)/terminfo_data.o \
	    $(OBJ)/workloads_data.o
BPF_HDRS := $(wildcard bpf/*.h)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
# Helpers that integration tests run (not tests themselves); a tool's BPF
# side is NAME.bpf.c beside it, built into $(OUT)/tests/tools/NAME.bpf.o.
TOOL_SRCS := $(filter-out %.bpf.c,$(wildcard tests/tools/*.c))
TOOL_BINS := $(patsubst tests/tools/%.c,$(OUT)/tests/tools/%,$(TOOL_SRCS))
# Front-end sources a unit test may link (everything but main).
APP_TESTABLE := $(filter-out $(OBJ)/schedtop/main.o,$(APP_OBJS))

# Where make install puts things (libtracefs's and bcc's shape). DESTDIR is
# prepended to every path at install time only: the .pc file names the final
# places.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# Data: schedtop's Perfetto capture config (scripts/schedtop-adb perfetto).
DATADIR ?= $(PREFIX)/share/schedtop
WORKLOADDIR ?= $(DATADIR)/workloads
INSTALL ?= install
# What the library's code calls, as pkg-config names (libschedstat.pc.in).
PC_REQUIRES := libbpf libtracefs libtraceevent libzstd zlib$(if $(filter 1,$(TRACECMD)), libtracecmd)
# The completion is written by the binary itself; a cross-built one runs
# under qemu-user.
RUN_TARGET := $(if $(CROSS),qemu-aarch64-static)

.DELETE_ON_ERROR:
.PHONY: all check unit bench clean docs fuzz install uninstall mutants FORCE

all: $(OUT)/schedtop

$(OUT)/bpf/schedtop.bpf.o: bpf/schedtop.bpf.c $(BPF_HDRS) | $(OUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

$(OUT)/schedtop.skel.h: $(OUT)/bpf/schedtop.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name schedtop_bpf > $@

$(OBJ)/libschedstat/%.o: libschedstat/%.c $(LIB_HDRS) $(wildcard include/*.h) $(BPF_HDRS) $(OUT)/schedtop.skel.h
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LIB_INC) -c $< -o $@

$(OUT)/libschedstat.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OBJ)/schedtop/%.o: schedtop/%.c $(APP_HDRS) $(wildcard include/*.h)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(APP_INC) -c $< -o $@

# The version and commit built, rewritten only when they change: --version
# (commands/cmd_live.c) is compiled again with them, and nothing else is.
$(OUT)/version-stamp: FORCE | $(OBJ)/schedtop
	$(Q)echo '$(VERSION) $(GIT_REV)' | cmp -s - $@ || \
		echo '$(VERSION) $(GIT_REV)' >$@

$(OBJ)/schedtop/commands/cmd_live.o: $(OUT)/version-stamp

# Rewritten on every install: it names the PREFIX of that install.
$(OUT)/libschedstat.pc: libschedstat/libschedstat.pc.in FORCE
	$(call msg,GEN,$@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|; s|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|; s|@VERSION@|$(VERSION)|' \
		-e 's|@REQUIRES@|$(PC_REQUIRES)|' $< >$@

# Generated from the option and column tables (schedtop/commands/completion.c).
$(OUT)/schedtop.bash: $(OUT)/schedtop
	$(call msg,GEN,$@)
	$(Q)$(RUN_TARGET) $(OUT)/schedtop --bash-completion >$@

$(OUT)/terminfo_data.c: scripts/embed-terminfo | $(OBJ)/schedtop
	$(call msg,GEN,$@)
	$(Q)scripts/embed-terminfo $(TERMINFO_REQUIRED) -- $(TERMINFO_OPTIONAL) >$@

$(OBJ)/terminfo_data.o: $(OUT)/terminfo_data.c schedtop/terminal/terminfo_fallback.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(APP_INC) -c $< -o $@

$(OUT)/workloads_data.c: scripts/embed-workloads $(WORKLOADS) | $(OBJ)/schedtop
	$(call msg,GEN,$@)
	$(Q)scripts/embed-workloads $(WORKLOADS) >$@

$(OBJ)/workloads_data.o: $(OUT)/workloads_data.c schedtop/workload/workload.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(APP_INC) -c $< -o $@

$(OUT)/schedtop: $(APP_OBJS) $(OUT)/libschedstat.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(OUT)/tests/%: tests/unit/%.c $(OUT)/libschedstat.a $(APP_TESTABLE) | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(TEST_INC) -Itests/unit -o $@ $< $(APP_TESTABLE) \
		$(OUT)/libschedstat.a -lcmocka $(LDLIBS) -lm

$(OUT)/tests/tools/%: tests/tools/%.c $(OUT)/libschedstat.a | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(TEST_INC) -o $@ $< $(OUT)/libschedstat.a $(LDLIBS)

# kpelt's BPF object: the tests' own recorder of the kernel's PELT updates,
# apart from schedtop's programs (it has types and filters of its own).
$(OUT)/tests/tools/%.bpf.o: tests/tools/%.bpf.c | $(OUT)/tests
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUT)/tests/tools/kpelt: $(OUT)/tests/tools/kpelt.bpf.o

unit: $(UNIT_BINS) $(TOOL_BINS)

# Drives the live view in a pty: in the arm64 test guest (tests/vm/), and
# on this host with no terminfo (tests/integration/test_terminfo.py).
$(OUT)/ptyrun: tests/vm/ptyrun.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

check: $(OUT)/ptyrun

# Reads the kernel's own numbers around schedtop's samples, in the kernel
# matrix guests and on this host (tests/integration/test_vm_matrix.py).
$(OUT)/ktruth: tests/vm/ktruth.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

check: $(OUT)/ktruth

$(OUT)/bench/tui_render: bench/tui_render.c $(OUT)/libschedstat.a $(APP_TESTABLE)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(TEST_INC) -o $@ $< $(APP_TESTABLE) \
		$(OUT)/libschedstat.a $(LDLIBS) -lm

# The recording reader under libFuzzer, ASan and UBSan (clang); its own
# objects, as the library's are not instrumented.
FUZZ_LIB_SRCS := $(filter $(addprefix %/,record_codec.c record_reader.c \
	record_bytes.c record_rows.c record_topology.c record_regroup.c \
	record_reader_chunks.c record_reader_samples.c record_reader_pelt.c \
	model_derived.c model_migrations.c \
	record_pelt.c record_cpuhp.c record_clock.c cpuhp_names.c cpuhp_split.c \
	pelt_entity.c energy_model.c energy_estimate.c \
	topology.c spec.c cpu_sysfs.c detect.c cluster_names.c cpulist.c sysfs.c \
	snapshot.c util.c errors.c comm.c),$(LIB_SRCS))
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION \
	-std=gnu11 -D_GNU_SOURCE $(filter-out $(TRACE_INC) -DHAVE_TRACECMD $(TRACECMD_INC),$(LIB_INC))

$(OUT)/fuzz/fuzz_recording: tests/fuzz/fuzz_recording.c $(FUZZ_LIB_SRCS) $(LIB_HDRS) $(wildcard include/*.h)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_LIB_SRCS) -lz

fuzz: $(OUT)/fuzz/fuzz_recording

# Perfetto traces under libFuzzer: the reader and the trace driver over the
# engine and the model, all instrumented; no libtracecmd (the trace.dat
# reader is left out of the readers' table). The ftrace text reader's
# target (below) is built from the same sources.
FUZZ_PERFETTO_SRCS := $(filter $(addprefix %/,trace_source.c trace_readers.c \
	trace_merge.c perfetto_reader.c perfetto_tracks.c proto_reader.c tracepoints.c hash.c util.c \
	ftrace_text_reader.c ftrace_line.c text_stream.c \
	trace_marker_counter.c atrace.c atrace_values.c \
	errors.c comm.c signals.c),$(LIB_SRCS)) \
	$(wildcard libschedstat/engine/*.c libschedstat/model/*.c libschedstat/topology/*.c)

$(OUT)/fuzz/fuzz_perfetto: tests/fuzz/fuzz_perfetto.c $(FUZZ_PERFETTO_SRCS) $(LIB_HDRS) $(wildcard include/*.h)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_PERFETTO_SRCS) -lzstd -lz

fuzz: $(OUT)/fuzz/fuzz_perfetto

# The trace-file source under libFuzzer: libtracecmd and libtraceevent are
# the system's (not instrumented), schedtop's code from the sources is.
FUZZ_TRACE_SRCS := $(filter $(addprefix %/,trace_source.c trace_dat_reader.c \
	trace_readers.c trace_merge.c perfetto_reader.c perfetto_tracks.c proto_reader.c \
	ftrace_text_reader.c ftrace_line.c text_stream.c \
	trace_marker_counter.c atrace.c atrace_values.c \
	trace_file_check.c \
	trace_file_formats.c trace_file_pages.c trace_format_check.c tracepoints.c \
	sched_events.c pelt.c hash.c snapshot.c util.c errors.c comm.c signals.c),$(LIB_SRCS)) \
	$(wildcard libschedstat/engine/*.c libschedstat/model/model*.c \
		   libschedstat/topology/*.c)
FUZZ_TRACE_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION \
	-std=gnu11 -D_GNU_SOURCE $(LIB_INC)

$(OUT)/fuzz/fuzz_trace_file: tests/fuzz/fuzz_trace_file.c $(FUZZ_TRACE_SRCS) $(LIB_HDRS) $(wildcard include/*.h)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_TRACE_CFLAGS) -o $@ $< $(FUZZ_TRACE_SRCS) \
		-ltracecmd -ltracefs -ltraceevent -lzstd -lz

ifeq ($(TRACECMD),1)
fuzz: $(OUT)/fuzz/fuzz_trace_file
endif

# The ftrace text reader under libFuzzer, alone and through the driver
# every trace file takes; no libtracecmd (text needs none), so it is built
# wherever clang is.
$(OUT)/fuzz/fuzz_trace_text: tests/fuzz/fuzz_trace_text.c $(FUZZ_PERFETTO_SRCS) $(LIB_HDRS) $(wildcard include/*.h)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_PERFETTO_SRCS) -lzstd -lz

fuzz: $(OUT)/fuzz/fuzz_trace_text

# The rt-app use-case parser under libFuzzer (seed corpus: Debian's rt-app
# examples and the built-ins, tests/fuzz/workload-corpus).
FUZZ_WORKLOAD_SRCS := $(filter $(addprefix %/,rtapp_json.c rtapp_parse.c \
	workload_constraints.c workload.c util.c comm.c cpulist.c),$(LIB_SRCS))

$(OUT)/fuzz/fuzz_workload: tests/fuzz/fuzz_workload.c $(FUZZ_WORKLOAD_SRCS) $(LIB_HDRS) $(wildcard include/*.h)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_WORKLOAD_SRCS) -lz

fuzz: $(OUT)/fuzz/fuzz_workload

# tests/run tests the build in $(OUT), not build/.
check: all unit fuzz
	$(Q)SCHEDTOP_OUT=$(abspath $(OUT)) SCHEDTOP_BIN=$(abspath $(OUT))/schedtop tests/run

# Planted bugs (tests/mutants/*.patch): each applied to a scratch copy of
# the tree, built, and caught by an assertion of the tests it names, or this
# fails (docs/testing.md). MUTANTS_LOCK=FILE runs the kernel's tests under
# flock FILE.
mutants:
	$(Q)tests/mutants/run

bench: all $(OUT)/bench/tui_render
	$(Q)bench/run

# After changing a column: rewrite the generated parts of the docs, from
# the binary just built (run under qemu-user when cross-built).
docs: all
	$(Q)SCHEDTOP_BIN=$(abspath $(OUT))/schedtop SCHEDTOP_RUN='$(RUN_TARGET)' \
		scripts/regen-docs

install: all $(OUT)/libschedstat.pc $(OUT)/schedtop.bash
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DATADIR) \
		$(DESTDIR)$(WORKLOADDIR)
	$(Q)$(INSTALL) -m 755 $(OUT)/schedtop $(DESTDIR)$(BINDIR)/schedtop
	$(Q)$(INSTALL) -m 644 docs/schedtop.1 $(DESTDIR)$(MANDIR)/man1/schedtop.1
	$(Q)$(INSTALL) -m 644 $(OUT)/libschedstat.a $(DESTDIR)$(LIBDIR)/libschedstat.a
	$(Q)$(INSTALL) -m 644 include/schedstat.h $(DESTDIR)$(INCLUDEDIR)/schedstat.h
	$(Q)$(INSTALL) -m 644 $(OUT)/libschedstat.pc $(DESTDIR)$(PKGCONFIGDIR)/libschedstat.pc
	$(Q)$(INSTALL) -m 644 $(OUT)/schedtop.bash $(DESTDIR)$(BASHCOMPDIR)/schedtop
	$(Q)$(INSTALL) -m 644 share/perfetto-sched.pbtx $(DESTDIR)$(DATADIR)/perfetto-sched.pbtx
	$(Q)$(INSTALL) -m 644 $(WORKLOADS) $(DESTDIR)$(WORKLOADDIR)

# Files only: the directories may hold other packages' files.
uninstall:
	$(call msg,UNINST,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(BINDIR)/schedtop $(DESTDIR)$(MANDIR)/man1/schedtop.1 \
		$(DESTDIR)$(LIBDIR)/libschedstat.a $(DESTDIR)$(INCLUDEDIR)/schedstat.h \
		$(DESTDIR)$(PKGCONFIGDIR)/libschedstat.pc $(DESTDIR)$(BASHCOMPDIR)/schedtop \
		$(DESTDIR)$(DATADIR)/perfetto-sched.pbtx \
		$(addprefix $(DESTDIR)$(WORKLOADDIR)/,$(notdir $(WORKLOADS)))

$(OUT)/bpf $(OBJ)/schedtop $(OUT)/tests:
	$(Q)mkdir -p $@

clean:
	$(call msg,CLEAN,$(OUT))
	$(Q)rm -rf $(OUT)
