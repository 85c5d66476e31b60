// SPDX-License-Identifier: GPL-2.0
/*
 * What a trace file's session had to assume, one note each on standard
 * error (schedstat_trace_info): the head of each CPU, the clock before its
 * first cpu_frequency event, the clusters, lost events; and where a file
 * stopped making sense.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "recording.h"

/* "0,3-5" of the first 64 CPUs in @mask. */
void trace_cpu_mask_text(uint64_t mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int cpu = 0; cpu < 64 && len < size; cpu++) {
		int last = cpu;

		if (!(mask >> cpu & 1))
			continue;
		while (last < 63 && (mask >> (last + 1) & 1))
			last++;
		if (last > cpu)
			len += snprintf(buf + len, size - len, "%s%d-%d",
					len ? "," : "", cpu, last);
		else
			len += snprintf(buf + len, size - len, "%s%d",
					len ? "," : "", cpu);
		cpu = last;
	}
}

static const char *cpus_word(uint64_t mask)
{
	return mask & (mask - 1) ? "CPUs" : "CPU";
}

/* When the PELT scheme was assumed, and when maximum frequencies come from the trace. */
static void trace_pelt_note(const char *path, struct schedstat_session *s)
{
	struct schedstat_pelt_info info;
	char cpus[128], why[256] = "";
	bool assumed;

	if (schedstat_session_pelt_info(s, &info))
		return;
	assumed = !info.chosen && !info.release[0];
	if (!assumed && !info.max_freq_from_trace)
		return;
	if (assumed && info.evidence[0])
		snprintf(why, sizeof(why), "as kernels before 5.1 computed it "
			 "(the trace names no kernel, but holds the format of "
			 "%s, an EAS 4.x event; for a newer kernel give "
			 "--pelt-scheme 5.0)", info.evidence);
	else if (assumed)
		snprintf(why, sizeof(why), "as kernels from 5.1 compute it "
			 "(the trace names no kernel; for an older one give "
			 "--pelt-scheme 4.x)");
	trace_cpu_mask_text(info.max_freq_from_trace, cpus, sizeof(cpus));
	/* One line for both: what was assumed about the kernel's PELT. */
	fprintf(stderr, "schedtop: note: %s: PELT estimated %s%s%s%s\n", path,
		why, assumed && info.max_freq_from_trace ? ", " : "",
		info.max_freq_from_trace ? "with each CPU's maximum frequency "
					   "the highest the trace shows, on CPUs " : "",
		cpus);
}

static void cpu_range(char *buf, size_t size, int first, int last)
{
	if (first == last)
		snprintf(buf, size, "%d", first);
	else
		snprintf(buf, size, "%d-%d", first, last);
}

/* A session without a topology: its CPUs are one cluster; how to give the real ones. */
static void trace_topology_note(const char *path, struct schedstat_session *s)
{
	const struct schedstat_topology *topo = schedstat_session_topology(s);
	int n = schedstat_topology_nr_cpus(topo);
	char little[24], big[24];

	if (schedstat_topology_origin(topo) != SCHEDSTAT_TOPO_SINGLE)
		return;
	/* The example splits the trace's CPUs in two halves: "0", "1-3". */
	cpu_range(little, sizeof(little), 0, n > 1 ? n / 2 - 1 : 0);
	cpu_range(big, sizeof(big), n > 1 ? n / 2 : 0, n - 1);
	fprintf(stderr, "schedtop: note: %s: its %d CPUs shown as one cluster, of "
		"capacity 1024 each (a trace does not say its clusters): give them with --topology "
		"NAME:CPULIST[@CAPACITY],..., e.g. 'LITTLE:%s@446,big:%s@1024'\n",
		path, n, little, big);
}

/* Before each CPU's first switch: who ran, and who said so. */
static void head_note(const char *path, const struct schedstat_trace_info *ti)
{
	char a[128], b[128], c[128], line[640];
	size_t len;

	if (!ti->head_max_ns && !ti->head_unknown)
		return;
	trace_cpu_mask_text(ti->head_switch, a, sizeof(a));
	trace_cpu_mask_text(ti->head_event, b, sizeof(b));
	trace_cpu_mask_text(ti->head_unknown, c, sizeof(c));
	len = snprintf(line, sizeof(line), "the time before each CPU's first switch "
		       "(up to %.1f ms) is charged to the task on it then", ti->head_max_ns / 1e6);
	if (ti->head_switch)
		len += snprintf(line + len, sizeof(line) - len, ", as the switch names it on %s %s",
				cpus_word(ti->head_switch), a);
	if (ti->head_event && len < sizeof(line))
		len += snprintf(line + len, sizeof(line) - len, "%s as the events before it "
				"name it on %s %s (the switch names none)",
				ti->head_switch ? ", and" : ",", cpus_word(ti->head_event), b);
	if (ti->head_unknown && len < sizeof(line))
		snprintf(line + len, sizeof(line) - len, "; on %s %s nothing names it: "
			 "taken as idle", cpus_word(ti->head_unknown), c);
	fprintf(stderr, "schedtop: note: %s: %s\n", path, line);
}

/* Before a CPU's first cpu_frequency event its clock is not known. */
static void freq_note(const char *path, const struct schedstat_trace_info *ti)
{
	uint64_t all = ti->nr_cpus >= 64 ? ~0ULL : (1ULL << ti->nr_cpus) - 1;
	char cpus[128];

	if (ti->freq_unknown) {
		trace_cpu_mask_text(ti->freq_unknown, cpus, sizeof(cpus));
		fprintf(stderr, "schedtop: note: %s: %s %s: clock not known until "
			"the first cpu_frequency event (up to %.1f ms into the trace): "
			"PELT takes the maximum frequency there, and frequency "
			"residency starts at that event\n", path,
			cpus_word(ti->freq_unknown), cpus, ti->freq_unknown_max_ns / 1e6);
	}
	if ((ti->freq_never & all) == all) {
		fprintf(stderr, "schedtop: note: %s: no cpu_frequency events: no "
			"frequency residency, and PELT not scaled by frequency (record "
			"power/cpu_frequency too)\n", path);
	} else if (ti->freq_never & all) {
		trace_cpu_mask_text(ti->freq_never & all, cpus, sizeof(cpus));
		fprintf(stderr, "schedtop: note: %s: %s %s: no cpu_frequency event: "
			"no frequency residency, PELT not scaled by frequency there\n",
			path, cpus_word(ti->freq_never & all), cpus);
	}
}

static void lost_note(const char *path, const struct schedstat_trace_info *ti)
{
	char cpus[128], counted[48] = "", said[96] = "";

	if (!ti->lost_cpus)
		return;
	trace_cpu_mask_text(ti->lost_cpus, cpus, sizeof(cpus));
	if (ti->lost_events)
		snprintf(counted, sizeof(counted), "%" PRIu64 " counted", ti->lost_events);
	/* Perfetto's lost_events says some were lost, not how many. */
	if (ti->lost_uncounted)
		snprintf(said, sizeof(said), "%s%" PRIu64 " time%s said without a "
			 "count, each taken as one", counted[0] ? ", " : "",
			 ti->lost_uncounted, ti->lost_uncounted == 1 ? "" : "s");
	fprintf(stderr, "schedtop: note: %s: the trace lost events on %s %s (%s%s): "
		"the CPU rows' dropped column has them\n", path,
		cpus_word(ti->lost_cpus), cpus, counted, said);
}

void trace_notes(const char *path, struct schedstat_session *s,
		 const struct schedstat_trace_info *ti)
{
	trace_topology_note(path, s);
	if (ti->capacity_from_trace)
		fprintf(stderr, "schedtop: note: %s: clusters from the CPU capacities "
			"the trace gives (cpu_info); --topology gives others\n", path);
	/* schedtop's own export: no events, so nothing of the engine's to say. */
	if (ti->schedtop_export)
		return;
	trace_pelt_note(path, s);
	head_note(path, ti);
	freq_note(path, ti);
	lost_note(path, ti);
}

void trace_late_note(const char *path, const struct schedstat_trace_info *ti)
{
	if (ti->schedtop_export)
		fprintf(stderr, "schedtop: note: %s: schedtop's own export read back: "
			"%" PRIu64 " counter values taken as the values (%" PRIu64 " row "
			"values), a sample at each instant the export wrote one; columns "
			"it does not carry (state, prio, switches, idle, blocked_load; run "
			"time without --task-stats) are empty, and its slices (hotplug, "
			"activations, moves)%s "
			"are not read (docs/perfetto.md)%s\n", path, ti->atrace_counters,
			ti->atrace_values, ti->export_unread ? ", PELT updates and the "
			"overutilized flag" : "", ti->atrace_ignored ? "; some name no "
			"cluster of the trace: give its clusters with --topology" : "");
	else if (ti->atrace_counters)
		fprintf(stderr, "schedtop: note: %s: %" PRIu64 " counters of schedtop's "
			"--atrace taken as the values (%" PRIu64 " row values, each the "
			"latest at or before its row; pelt_estimated 0 where util_avg is one)%s\n",
			path, ti->atrace_counters, ti->atrace_values,
			ti->atrace_ignored ? "; some name no CPU or cluster of the trace: "
			"give its clusters with --topology" : "");
	if (ti->lost_switches)
		fprintf(stderr, "schedtop: note: %s: %" PRIu64 " switches out missing "
			"from the trace (a task switched in on one CPU while still on "
			"another): each such CPU is taken as idle from then\n", path,
			ti->lost_switches);
	if (ti->late_events)
		fprintf(stderr, "schedtop: note: %s: %" PRIu64 " events came more than "
			"2 s out of time order across CPUs: applied at the time reached\n",
			path, ti->late_events);
}

bool trace_damage_text(const char *path, const struct schedstat_trace_info *ti,
		       char *buf, size_t size)
{
	char where[48];

	if (!ti->damage[0])
		return false;
	if (ti->damage_line)
		snprintf(where, sizeof(where), "line %lu", ti->damage_line);
	else
		snprintf(where, sizeof(where), "offset %" PRIu64, ti->damage_offset);
	if (!ti->nr_events)
		snprintf(buf, size, "%s: damaged at %s: %s; no event before it",
			 path, where, ti->damage);
	else
		snprintf(buf, size, "%s: damaged at %s: %s; read up to there (%.3f s "
			 "of the trace, %" PRIu64 " events)", path, where, ti->damage,
			 (ti->last_ns - ti->first_ns) / 1e9, ti->nr_events);
	return true;
}
