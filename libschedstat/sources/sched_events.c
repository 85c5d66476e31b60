// SPDX-License-Identifier: GPL-2.0
/*
 * Field access by name, resolved once per event format: the offsets differ
 * between kernels (comm became a __data_loc string in sched_migrate_task,
 * vendor PELT events name their fields freely).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "array_size.h"
#include "sched_events.h"
#include "trace_apply.h"
#include "tracepoints.h"

/*
 * The events read, in the order of the tracepoint table (tracepoints.h):
 * a kind is its row there, which names the event and the signals it gives.
 */
enum ev_kind {
	EV_SWITCH = TP_SCHED_SWITCH,
	EV_WAKING = TP_SCHED_WAKING,
	EV_WAKEUP = TP_SCHED_WAKEUP,
	EV_WAKEUP_NEW = TP_SCHED_WAKEUP_NEW,
	EV_MIGRATE = TP_SCHED_MIGRATE_TASK,
	EV_EXIT = TP_SCHED_PROCESS_EXIT,
	EV_FREQ = TP_CPU_FREQUENCY,
	EV_IDLE = TP_CPU_IDLE,
	EV_HP_ENTER = TP_CPUHP_ENTER,
	EV_HP_MULTI_ENTER = TP_CPUHP_MULTI_ENTER,
	EV_HP_EXIT = TP_CPUHP_EXIT,
	EV_STAT_RUNTIME = TP_SCHED_STAT_RUNTIME,
	/* EAS-era kernels and vendor modules: the kernel's own PELT values. */
	EV_PELT_SE = TP_SCHED_PELT_SE,
	EV_PELT_CFS = TP_SCHED_PELT_CFS,
	EV_LOAD_SE = TP_SCHED_LOAD_SE,
	EV_LOAD_AVG_TASK = TP_SCHED_LOAD_AVG_TASK,
	EV_LOAD_AVG_CPU = TP_SCHED_LOAD_AVG_CPU,
	EV_LOAD_CFS_RQ = TP_SCHED_LOAD_CFS_RQ,
	EV_LISA_PELT_SE = TP_LISA_PELT_SE,
	EV_LISA_PELT_CFS = TP_LISA_PELT_CFS,
	/* The root domain's overutilized flag, as EAS set it. */
	EV_OVERUTILIZED = TP_SCHED_OVERUTILIZED_EVENT,
	EV_LISA_OVERUTILIZED = TP_LISA_OVERUTILIZED,
	EV_RENAME = TP_TASK_RENAME,
	NR_EV_KINDS = TP_NR_EVENTS,
};

/*
 * Where each kind's fields sit in struct ev_fmt.f[], named as the event's
 * format names them (field_names[] below binds the two): code reads
 * f[SW_PREV_PID], never a position in the record.
 */
enum { SW_PREV_PID, SW_PREV_PRIO, SW_PREV_STATE, SW_PREV_COMM,	/* sched_switch */
       SW_NEXT_PID, SW_NEXT_PRIO, SW_NEXT_COMM };
enum { WK_PID, WK_PRIO, WK_TARGET_CPU, WK_COMM };	/* sched_waking, _wakeup(_new) */
enum { MG_PID, MG_PRIO, MG_ORIG_CPU, MG_DEST_CPU, MG_COMM };	/* sched_migrate_task */
enum { EX_PID, EX_PRIO, EX_COMM };			/* sched_process_exit */
enum { PW_STATE, PW_CPU_ID };				/* cpu_frequency, cpu_idle */
enum { HP_CPU, HP_TARGET, HP_IDX, HP_FUN };		/* cpuhp_enter, cpuhp_multi_enter */
enum { HPX_CPU, HPX_STATE, HPX_IDX, HPX_RET };		/* cpuhp_exit */
enum { RT_PID, RT_RUNTIME };				/* sched_stat_runtime */
enum { OU_OVERUTILIZED };				/* sched_overutilized */
enum { RN_PID, RN_NEWCOMM };				/* task_rename */
enum { PELT_PID, PELT_CPU, PELT_UTIL, PELT_LOAD,	/* vendor PELT events */
       PELT_RUNNABLE, PELT_PATH };
#define NR_F	8	/* slots: more than sched_switch, which uses the most (7) */

struct ev_fmt {
	struct tep_event *event;
	struct tep_format_field *f[NR_F];
};

/* A sched_switch prev_state bit of the trace's kernel, in the engine's terms. */
struct state_bit {
	uint64_t mask;
	uint64_t to;
};

struct sched_events {
	struct tep_handle *tep;
	struct engine *engine;
	struct ev_fmt ev[NR_EV_KINDS];
	/*
	 * prev_state as the kernel that wrote the events printed it: its
	 * bits, read from the event's print format (__print_flags), since
	 * the layout changed over the years (4.x: 64 was TASK_DEAD 'x', 2048
	 * preempted; today 64 is TASK_PARKED 'P', 256 preempted).
	 */
	struct state_bit state_bits[16];
	int nr_state_bits;
	uint64_t preempt_mask;	/* 0: the format did not say; as given */
	/* ftrace's print (trace_marker writes), for devlib's frequency lines. */
	struct tep_event *print;
	struct tep_format_field *print_buf;
	bool native;		/* the events' byte order is ours */
	/* Every cpuhp step, as SCHEDSTAT_EV_CPUHP (sched_events_on_cpuhp()). */
	schedstat_event_fn on_cpuhp;
	void *cpuhp_ctx;
	uint64_t kick_fn;
};

/* Today's TASK_REPORT letters (the engine's layout), and 'x': dead. */
static uint64_t state_letter_bits(const char *s)
{
	static const struct { const char *letter; uint64_t bits; } map[] = {
		{ .letter = "S", .bits = 0x1 }, { .letter = "D", .bits = 0x2 },
		{ .letter = "T", .bits = 0x4 }, { .letter = "t", .bits = 0x8 },
		{ .letter = "X", .bits = 0x10 }, { .letter = "Z", .bits = 0x20 },
		{ .letter = "P", .bits = 0x40 }, { .letter = "I", .bits = 0x80 },
		{ .letter = "x", .bits = MODEL_STATE_DEAD },
	};

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(s, map[i].letter))
			return map[i].bits;
	/* K (wakekill), W (waking), N (noload): no letter of their own. */
	return 0;
}

static bool arg_is_prev_state(const struct tep_print_arg *a)
{
	for (int depth = 0; a && depth < 8; depth++) {
		if (a->type == TEP_PRINT_FIELD)
			return a->field.name && !strcmp(a->field.name, "prev_state");
		if (a->type != TEP_PRINT_OP)
			return false;
		a = a->op.left;
	}
	return false;
}

/* The __print_flags() of prev_state anywhere in @a, or NULL. */
static const struct tep_print_arg *find_state_flags(const struct tep_print_arg *a,
						    int depth)
{
	const struct tep_print_arg *f;

	if (!a || depth > 16)
		return NULL;
	if (a->type == TEP_PRINT_FLAGS && arg_is_prev_state(a->flags.field))
		return a;
	if (a->type == TEP_PRINT_OP) {
		f = find_state_flags(a->op.left, depth + 1);
		return f ? f : find_state_flags(a->op.right, depth + 1);
	}
	return NULL;
}

/*
 * The kernel's own table of prev_state letters from the print format; the
 * preempted bit is the next one above them (TASK_REPORT_MAX), which the
 * format tests for "+". Without such a table, values are taken as they are.
 */
static void read_state_format(struct sched_events *se, struct tep_event *ev)
{
	const struct tep_print_arg *flags = NULL;
	uint64_t top = 0;

	for (const struct tep_print_arg *a = ev->print_fmt.args; a && !flags; a = a->next)
		flags = find_state_flags(a, 0);
	if (!flags)
		return;
	for (const struct tep_print_flag_sym *f = flags->flags.flags;
	     f && se->nr_state_bits < (int)ARRAY_SIZE(se->state_bits);
	     f = f->next) {
		uint64_t v = f->value ? strtoull(f->value, NULL, 0) : 0;

		if (!v || !f->str)
			continue;
		se->state_bits[se->nr_state_bits++] = (struct state_bit){
			v, state_letter_bits(f->str) };
		if (v > top)
			top = v;
	}
	if (se->nr_state_bits)
		se->preempt_mask = top << 1;
}

/* prev_state in the engine's (today's kernel's) layout. */
static uint64_t prev_state(const struct sched_events *se, uint64_t v)
{
	uint64_t out = 0;

	if (!se->nr_state_bits)
		return v;
	for (int i = 0; i < se->nr_state_bits; i++)
		if (v & se->state_bits[i].mask)
			out |= se->state_bits[i].to;
	/* Preempted: runnable, as today's TASK_REPORT_MAX says it. */
	if (!out && (v & se->preempt_mask))
		return 0x100;
	return out;
}

#define WAKE_FIELDS { [WK_PID] = "pid", [WK_PRIO] = "prio", \
		      [WK_TARGET_CPU] = "target_cpu", [WK_COMM] = "comm" }
#define HP_ENTER_FIELDS { [HP_CPU] = "cpu", [HP_TARGET] = "target", [HP_IDX] = "idx", \
			  [HP_FUN] = "fun" }
#define POWER_FIELDS { [PW_STATE] = "state", [PW_CPU_ID] = "cpu_id" }

static const char *const field_names[NR_EV_KINDS][NR_F] = {
	[EV_SWITCH] = { [SW_PREV_PID] = "prev_pid", [SW_PREV_PRIO] = "prev_prio",
			[SW_PREV_STATE] = "prev_state", [SW_PREV_COMM] = "prev_comm",
			[SW_NEXT_PID] = "next_pid", [SW_NEXT_PRIO] = "next_prio",
			[SW_NEXT_COMM] = "next_comm" },
	[EV_WAKING] = WAKE_FIELDS,
	[EV_WAKEUP] = WAKE_FIELDS,
	[EV_WAKEUP_NEW] = WAKE_FIELDS,
	[EV_MIGRATE] = { [MG_PID] = "pid", [MG_PRIO] = "prio", [MG_ORIG_CPU] = "orig_cpu",
			 [MG_DEST_CPU] = "dest_cpu", [MG_COMM] = "comm" },
	/* prio is not used, but an exit without it is not the event we know. */
	[EV_EXIT] = { [EX_PID] = "pid", [EX_PRIO] = "prio", [EX_COMM] = "comm" },
	[EV_FREQ] = POWER_FIELDS,
	[EV_IDLE] = POWER_FIELDS,
	[EV_HP_ENTER] = HP_ENTER_FIELDS,
	[EV_HP_MULTI_ENTER] = HP_ENTER_FIELDS,
	[EV_HP_EXIT] = { [HPX_CPU] = "cpu", [HPX_STATE] = "state", [HPX_IDX] = "idx",
			 [HPX_RET] = "ret" },
	[EV_STAT_RUNTIME] = { [RT_PID] = "pid", [RT_RUNTIME] = "runtime" },
	[EV_OVERUTILIZED] = { [OU_OVERUTILIZED] = "overutilized" },
	[EV_LISA_OVERUTILIZED] = { [OU_OVERUTILIZED] = "overutilized" },
	/*
	 * The task renamed, not the writer (a thread may rename a sibling):
	 * a format without pid (a 6.14 change) is not read.
	 */
	[EV_RENAME] = { [RN_PID] = "pid", [RN_NEWCOMM] = "newcomm" },
};

/*
 * Kernel PELT events: first of each list that the format has. Not
 * "rbl_load": before 5.7 that is runnable_load_avg, a load, not today's
 * runnable_avg; such events give util and load only.
 */
static const char *const pelt_pid[] = { "pid", NULL };
static const char *const pelt_cpu[] = { "cpu", NULL };
static const char *const pelt_util[] = { "util", "util_avg", NULL };
static const char *const pelt_load[] = { "load", "load_avg", NULL };
static const char *const pelt_runnable[] = { "runnable", "runnable_avg", NULL };
static const char *const pelt_path[] = { "path", NULL };

static struct tep_format_field *first_field(struct tep_event *ev,
					    const char *const *names)
{
	for (; *names; names++) {
		struct tep_format_field *f = tep_find_field(ev, *names);

		if (f)
			return f;
	}
	return NULL;
}

static bool is_pelt_kind(int k)
{
	return k >= EV_PELT_SE && k <= EV_LISA_PELT_CFS;
}

int sched_events_new(struct sched_events **out, struct tep_handle *tep,
		     struct engine *engine)
{
	struct sched_events *se = calloc(1, sizeof(*se));

	*out = NULL;
	if (!se)
		return -ENOMEM;
	se->engine = engine;
	se->tep = tep;
	se->native = tep_is_file_bigendian(tep) == tep_is_local_bigendian(tep);
	for (int k = 0; k < NR_EV_KINDS; k++) {
		struct ev_fmt *ef = &se->ev[k];

		ef->event = tep_find_event_by_name(tep, tp_table[k].system,
						   tp_table[k].name);
		if (!ef->event)
			continue;
		if (is_pelt_kind(k)) {
			ef->f[PELT_PID] = first_field(ef->event, pelt_pid);
			ef->f[PELT_CPU] = first_field(ef->event, pelt_cpu);
			ef->f[PELT_UTIL] = first_field(ef->event, pelt_util);
			ef->f[PELT_LOAD] = first_field(ef->event, pelt_load);
			ef->f[PELT_RUNNABLE] = first_field(ef->event, pelt_runnable);
			ef->f[PELT_PATH] = first_field(ef->event, pelt_path);
			/* Without a util value it tells us nothing. */
			if (!ef->f[PELT_UTIL])
				ef->event = NULL;
			continue;
		}
		for (int i = 0; i < NR_F; i++) {
			if (!field_names[k][i])
				continue;
			ef->f[i] = tep_find_field(ef->event, field_names[k][i]);
			/* comm is only a label; every number is needed. */
			if (!ef->f[i] && !strstr(field_names[k][i], "comm")) {
				ef->event = NULL;
				break;
			}
		}
	}
	if (se->ev[EV_SWITCH].event)
		read_state_format(se, se->ev[EV_SWITCH].event);
	se->print = tep_find_event_by_name(tep, "ftrace", "print");
	if (se->print)
		se->print_buf = tep_find_field(se->print, "buf");
	if (!se->print_buf)
		se->print = NULL;
	*out = se;
	return 0;
}

void sched_events_free(struct sched_events *se)
{
	free(se);
}

void sched_events_ignore(struct sched_events *se, const char *name)
{
	for (int k = 0; k < NR_EV_KINDS; k++)
		if (!strcmp(tp_table[k].name, name))
			se->ev[k].event = NULL;
}

bool sched_events_have(const struct sched_events *se, const char *name)
{
	for (int k = 0; k < NR_EV_KINDS; k++)
		if (se->ev[k].event && !strcmp(tp_table[k].name, name))
			return true;
	return false;
}

uint32_t sched_events_avail(const struct sched_events *se)
{
	uint32_t avail = 0;

	/*
	 * What each event read gives (tracepoints.c); sched_switch is always
	 * among them, or the sources refuse the trace. A kernel PELT event's
	 * format in the file says nothing about whether it fired (EAS
	 * kernels' trace.dat lists all their events): the rows whose values
	 * came from one say so themselves (engine_fill()).
	 */
	for (int k = 0; k < NR_EV_KINDS; k++)
		if (se->ev[k].event)
			avail |= tp_table[k].events_avail;
	return avail;
}

static int64_t num(const struct sched_events *se, const struct tep_format_field *f,
		   const struct tep_record *rec)
{
	unsigned long long v = 0;

	if (!f)
		return 0;
	if (se->native && f->offset + f->size <= rec->size) {
		/* The kernel's own byte order: a plain load, no library call. */
		const char *p = (const char *)rec->data + f->offset;

		switch (f->size) {
		case 1:
			return *(const uint8_t *)p;
		case 2: {
			uint16_t x;

			memcpy(&x, p, 2);
			return x;
		}
		case 4: {
			uint32_t x;

			memcpy(&x, p, 4);
			/* Sign-extend the 32-bit ints (pids, cpus, prios, -1 states). */
			if (f->flags & TEP_FIELD_IS_SIGNED)
				return (int32_t)x;
			return x;
		}
		case 8: {
			uint64_t x;

			memcpy(&x, p, 8);
			return x;
		}
		}
	}
	if (tep_read_number_field((struct tep_format_field *)f, rec->data, &v))
		return 0;
	if (f->size == 4 && (f->flags & TEP_FIELD_IS_SIGNED))
		return (int32_t)v;
	return v;
}

/* A fixed char[16] or a __data_loc string, copied NUL-terminated. */
static void str(const struct tep_format_field *f, const struct tep_record *rec,
		char *buf, size_t size)
{
	const char *data = rec->data;
	unsigned int off, len;

	buf[0] = '\0';
	if (!f)
		return;
	off = f->offset;
	len = f->size;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (f->offset + 4 > rec->size)
			return;
		memcpy(&loc, data + f->offset, 4);
		off = loc & 0xffff;
		len = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
	}
	if (off + len > (unsigned int)rec->size)
		return;
	if (len >= size)
		len = size - 1;
	memcpy(buf, data + off, len);
	buf[len] = '\0';
}

/*
 * A trace_marker line of devlib (ARM LISA's target library), which writes
 * each CPU's frequency when tracing starts, as cpufreq emits no event
 * until it next changes it: "cpu_frequency: state=KHZ cpu_id=CPU", later
 * "cpu_frequency_devlib: ...". LISA reads them as cpu_frequency events.
 */
bool sched_events_print_text(const struct sched_events *se,
			     const struct tep_record *rec, char *buf, size_t size)
{
	const struct tep_format_field *f = se->print_buf;
	unsigned int off, len;

	if (!se->print || tep_data_type(se->tep, (struct tep_record *)rec) != se->print->id)
		return false;
	off = f->offset;
	buf[0] = '\0';
	/* buf is char[] to the record's end (older) or a __data_loc string. */
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		str(f, rec, buf, size);
	} else {
		if (off >= (unsigned int)rec->size)
			return false;
		len = rec->size - off;
		if (len >= size)
			len = size - 1;
		memcpy(buf, (const char *)rec->data + off, len);
		buf[len] = '\0';
	}
	return true;
}

static bool marker_freq(const struct sched_events *se,
			const struct tep_record *rec, int *cpu, uint32_t *khz)
{
	char buf[96];
	int32_t k, c;

	if (!sched_events_print_text(se, rec, buf, sizeof(buf)) ||
	    !trace_marker_freq(buf, &c, &k))
		return false;
	*cpu = c;
	*khz = k;
	return true;
}

bool sched_events_freq(const struct sched_events *se,
		       const struct tep_record *rec, int *cpu, uint32_t *khz)
{
	const struct ev_fmt *ef = &se->ev[EV_FREQ];
	int type = tep_data_type(se->tep, (struct tep_record *)rec);

	if (se->print && type == se->print->id)
		return marker_freq(se, rec, cpu, khz);
	if (!ef->event || type != ef->event->id)
		return false;
	*cpu = num(se, ef->f[PW_CPU_ID], rec);
	*khz = num(se, ef->f[PW_STATE], rec);
	return true;
}

static bool root_cfs_rq(const struct ev_fmt *ef, const struct tep_record *rec)
{
	char path[64];

	if (!ef->f[PELT_PATH])
		return true;
	str(ef->f[PELT_PATH], rec, path, sizeof(path));
	return !strcmp(path, "/") || !path[0];
}

/*
 * The kernel's PELT values: a task's entity when the event names a pid
 * (a group entity's events have none, or pid -1), else a CPU's root
 * cfs_rq (path "/" where the event has one). Others are not read.
 */
static int kernel_pelt(const struct sched_events *se, const struct ev_fmt *ef,
		       int k, const struct tep_record *rec, struct trace_ev *ev)
{
	bool cfs = k == EV_PELT_CFS || k == EV_LOAD_AVG_CPU ||
		   k == EV_LOAD_CFS_RQ || k == EV_LISA_PELT_CFS;

	ev->pelt.util = num(se, ef->f[PELT_UTIL], rec);
	ev->pelt.load = num(se, ef->f[PELT_LOAD], rec);
	ev->pelt.runnable = num(se, ef->f[PELT_RUNNABLE], rec);
	ev->pelt.has_load = ef->f[PELT_LOAD];
	ev->pelt.has_runnable = ef->f[PELT_RUNNABLE];
	if (!cfs && ef->f[PELT_PID] && num(se, ef->f[PELT_PID], rec) > 0) {
		ev->pelt.pid = num(se, ef->f[PELT_PID], rec);
		return TRACE_EV_PELT_TASK;
	}
	if (cfs && ef->f[PELT_CPU] && root_cfs_rq(ef, rec)) {
		ev->pelt.cpu = num(se, ef->f[PELT_CPU], rec);
		return TRACE_EV_PELT_CPU;
	}
	return TRACE_EV_CURRENT;
}

void sched_events_on_cpuhp(struct sched_events *se, schedstat_event_fn fn,
			   void *ctx, uint64_t kick_fn)
{
	se->on_cpuhp = fn;
	se->cpuhp_ctx = ctx;
	se->kick_fn = kick_fn;
}

/* The kind of event @type is; NR_EV_KINDS for one we did not ask for. */
static int event_kind(const struct sched_events *se, int type)
{
	int k;

	for (k = 0; k < NR_EV_KINDS; k++)
		if (se->ev[k].event && se->ev[k].event->id == type)
			break;
	return k;
}

static void wake(const struct sched_events *se, const struct ev_fmt *ef,
		 const struct tep_record *rec, struct trace_ev *ev)
{
	ev->wake.pid = num(se, ef->f[WK_PID], rec);
	ev->wake.prio = num(se, ef->f[WK_PRIO], rec);
	ev->wake.target_cpu = num(se, ef->f[WK_TARGET_CPU], rec);
	str(ef->f[WK_COMM], rec, ev->wake.comm, sizeof(ev->wake.comm));
}

static int decode(const struct sched_events *se, const struct tep_record *rec,
		  int k, struct trace_ev *ev)
{
	const struct ev_fmt *ef = &se->ev[k];

	switch (k) {
	case EV_SWITCH:
		str(ef->f[SW_PREV_COMM], rec, ev->sw.prev_comm, sizeof(ev->sw.prev_comm));
		str(ef->f[SW_NEXT_COMM], rec, ev->sw.next_comm, sizeof(ev->sw.next_comm));
		ev->sw.prev_pid = num(se, ef->f[SW_PREV_PID], rec);
		ev->sw.prev_prio = num(se, ef->f[SW_PREV_PRIO], rec);
		ev->sw.prev_state = prev_state(se, num(se, ef->f[SW_PREV_STATE], rec));
		ev->sw.next_pid = num(se, ef->f[SW_NEXT_PID], rec);
		ev->sw.next_prio = num(se, ef->f[SW_NEXT_PRIO], rec);
		/* engine_switch() checks its prev itself. */
		ev->pid = -1;
		return TRACE_EV_SWITCH;
	case EV_WAKING:
		wake(se, ef, rec, ev);
		return TRACE_EV_WAKING;
	case EV_WAKEUP:
		wake(se, ef, rec, ev);
		return TRACE_EV_WAKEUP;
	case EV_WAKEUP_NEW:
		wake(se, ef, rec, ev);
		return TRACE_EV_WAKEUP_NEW;
	case EV_MIGRATE:
		str(ef->f[MG_COMM], rec, ev->migrate.comm, sizeof(ev->migrate.comm));
		ev->migrate.pid = num(se, ef->f[MG_PID], rec);
		ev->migrate.prio = num(se, ef->f[MG_PRIO], rec);
		ev->migrate.orig_cpu = num(se, ef->f[MG_ORIG_CPU], rec);
		ev->migrate.dest_cpu = num(se, ef->f[MG_DEST_CPU], rec);
		return TRACE_EV_MIGRATE;
	case EV_EXIT:
		str(ef->f[EX_COMM], rec, ev->task.comm, sizeof(ev->task.comm));
		ev->task.pid = num(se, ef->f[EX_PID], rec);
		return TRACE_EV_EXIT;
	case EV_RENAME:
		str(ef->f[RN_NEWCOMM], rec, ev->task.comm, sizeof(ev->task.comm));
		ev->task.pid = num(se, ef->f[RN_PID], rec);
		return TRACE_EV_RENAME;
	case EV_FREQ:
	case EV_IDLE:
		ev->power.cpu = num(se, ef->f[PW_CPU_ID], rec);
		/* PWR_EVENT_EXIT is (u32)-1: as a signed state, -1. */
		ev->power.state = (int32_t)num(se, ef->f[PW_STATE], rec);
		return k == EV_FREQ ? TRACE_EV_FREQ : TRACE_EV_IDLE;
	case EV_HP_ENTER:
	case EV_HP_MULTI_ENTER:
		ev->hp.cpu = num(se, ef->f[HP_CPU], rec);
		ev->hp.target = num(se, ef->f[HP_TARGET], rec);
		ev->hp.idx = num(se, ef->f[HP_IDX], rec);
		ev->hp.fun = num(se, ef->f[HP_FUN], rec);
		return k == EV_HP_ENTER ? TRACE_EV_CPUHP_ENTER : TRACE_EV_CPUHP_MULTI_ENTER;
	case EV_HP_EXIT:
		ev->hp.cpu = num(se, ef->f[HPX_CPU], rec);
		ev->hp.target = num(se, ef->f[HPX_STATE], rec);
		ev->hp.idx = num(se, ef->f[HPX_IDX], rec);
		ev->hp.ret = num(se, ef->f[HPX_RET], rec);
		return TRACE_EV_CPUHP_EXIT;
	case EV_STAT_RUNTIME:
		ev->runtime.pid = num(se, ef->f[RT_PID], rec);
		ev->runtime.runtime_ns = num(se, ef->f[RT_RUNTIME], rec);
		return TRACE_EV_RUNTIME;
	case EV_OVERUTILIZED:
	case EV_LISA_OVERUTILIZED:
		ev->overutilized.on = num(se, ef->f[OU_OVERUTILIZED], rec) != 0;
		return TRACE_EV_OVERUTILIZED;
	default:
		return kernel_pelt(se, ef, k, rec, ev);
	}
}

int sched_events_decode(const struct sched_events *se,
			const struct tep_record *rec, struct trace_ev *ev)
{
	int type = tep_data_type(se->tep, (struct tep_record *)rec);
	int k = event_kind(se, type);

	memset(ev, 0, offsetof(struct trace_ev, sw));
	ev->ts = rec->ts;
	ev->cpu = rec->cpu;
	ev->pid = tep_data_pid(se->tep, (struct tep_record *)rec);
	if (k == NR_EV_KINDS && se->print && type == se->print->id) {
		int cpu;
		uint32_t khz;

		if (!marker_freq(se, rec, &cpu, &khz))
			return ev->kind = TRACE_EV_CURRENT;
		/* A marker's writer is no evidence of what the engine tracks. */
		ev->pid = -1;
		ev->power.cpu = cpu;
		ev->power.state = khz;
		return ev->kind = TRACE_EV_FREQ;
	}
	if (k == NR_EV_KINDS)
		return ev->kind = TRACE_EV_CURRENT;
	ev->kind = decode(se, rec, k, ev);
	if (ev->kind == TRACE_EV_CPUHP_ENTER || ev->kind == TRACE_EV_CPUHP_MULTI_ENTER ||
	    ev->kind == TRACE_EV_CPUHP_EXIT)
		ev->pid = -1;
	return ev->kind;
}

int sched_events_handle(struct sched_events *se, struct tep_record *rec)
{
	struct trace_apply a = {
		.engine = se->engine,
		.have_waking = se->ev[EV_WAKING].event,
		.on_cpuhp = se->on_cpuhp,
		.cpuhp_ctx = se->cpuhp_ctx,
		.kick_fn = se->kick_fn,
	};
	struct trace_ev ev;

	switch (sched_events_decode(se, rec, &ev)) {
	case TRACE_EV_CURRENT:
		/* An event read but not used (a group entity's PELT) still
		 * names the task current on its CPU; others are ignored. */
		if (event_kind(se, tep_data_type(se->tep, rec)) != NR_EV_KINDS)
			return engine_current(se->engine, ev.ts, ev.cpu, ev.pid);
		return 0;
	default:
		return trace_apply(&a, &ev);
	}
}
