// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads: shapes and sizes after rt-app's doc/examples (audio,
 * video playback, browser, camera use cases), written anew. Work sizes are
 * ms of CPU time at the calibrated speed (--scale multiplies them); this
 * table drives --list, --help and docs/workloads.md. Policies are
 * Android's for such threads: the fast mixer at SCHED_FIFO, the render
 * threads at nice -10 (display), codecs and camera processing at -16.
 */
#include <string.h>

#include "array_size.h"
#include "workload.h"

const struct workload workloads[] = {
	{
		.name = "audio",
		.desc = "audio playback: 0.3 ms of work every 4 ms (192 frames at 48 kHz) at SCHED_FIFO 2 as Android's fast mixer, done before the next period",
		.nr_threads = 1,
		.threads = {
			{ .comm = "audio-tick", .role = WL_PERIODIC,
			  .period_ms = 4.0, .deadline_ms = 4.0,
			  .offset_ms = 0, .work_ms = 0.3, .constraint = 0,
			  .fifo_prio = 2 },
		},
		.nr_constraints = 1,
		.constraints = {
			{ .name = "audio-tick deadline", .kind = WL_MISS_RATIO, .limit = 0.001,
			  .why = "a period not done before the next one is a glitch; the output buffer hides one in 1000" },
		},
	}, {
		.name = "video",
		.desc = "video playback: decode 5 ms per 33.3 ms frame, render 2.5 ms per 16.7 ms frame, each by its deadline",
		.nr_threads = 2,
		.threads = {
			{ .comm = "video-decode", .role = WL_PERIODIC,
			  .period_ms = 1000.0 / 30, .deadline_ms = 1000.0 / 30,
			  .offset_ms = 0, .work_ms = 5.0, .constraint = 0,
			  .nice = -16 },
			{ .comm = "video-render", .role = WL_PERIODIC,
			  .period_ms = 1000.0 / 60, .deadline_ms = 1000.0 / 60,
			  .offset_ms = 2.0, .work_ms = 2.5, .constraint = 1,
			  .nice = -10 },
		},
		.nr_constraints = 2,
		.constraints = {
			{ .name = "video-decode deadline", .kind = WL_MISS_RATIO, .limit = 0.01,
			  .why = "a frame decoded late is dropped" },
			{ .name = "video-render deadline", .kind = WL_MISS_RATIO, .limit = 0.01,
			  .why = "a frame rendered late is a visible stutter" },
		},
	}, {
		.name = "browse",
		.desc = "web browsing: page loads (60 ms of work on each of 3 threads) within 500 ms, then 90 scroll frames of 4 ms at 16.7 ms, then 1-2 s of reading",
		.nr_threads = 3,
		.threads = {
			{ .comm = "browse-render", .role = WL_PAGE_LOAD,
			  .period_ms = 1000.0 / 60, .deadline_ms = 1000.0 / 60,
			  .offset_ms = 0, .work_ms = 4.0, .constraint = 1,
			  .nice = -10 },
			{ .comm = "browse-load1", .role = WL_HELPER,
			  .period_ms = 0, .deadline_ms = 500,
			  .offset_ms = 0, .work_ms = 0, .constraint = 0 },
			{ .comm = "browse-load2", .role = WL_HELPER,
			  .period_ms = 0, .deadline_ms = 500,
			  .offset_ms = 0, .work_ms = 0, .constraint = 0 },
		},
		.nr_constraints = 2,
		.constraints = {
			{ .name = "page load", .kind = WL_MAX_RESPONSE_MS, .limit = 500,
			  .why = "a page must show within 500 ms of the tap" },
			{ .name = "scroll frames", .kind = WL_MISS_RATIO, .limit = 0.05,
			  .why = "a scroll frame late is a visible jank" },
		},
		.load_work_ms = 60,
		.scroll_frames = 90,
		.read_min_ms = 1000, .read_max_ms = 2000,
	}, {
		.name = "camera",
		.desc = "camera preview: preview 3 ms and processing 10 ms per 33.3 ms frame, each by the next frame",
		.nr_threads = 2,
		.threads = {
			{ .comm = "camera-preview", .role = WL_PERIODIC,
			  .period_ms = 1000.0 / 30, .deadline_ms = 1000.0 / 30,
			  .offset_ms = 0, .work_ms = 3.0, .constraint = 0,
			  .nice = -10 },
			{ .comm = "camera-process", .role = WL_PERIODIC,
			  .period_ms = 1000.0 / 30, .deadline_ms = 1000.0 / 30,
			  .offset_ms = 5.0, .work_ms = 10.0, .constraint = 1,
			  .nice = -16 },
		},
		.nr_constraints = 2,
		.constraints = {
			{ .name = "camera-preview deadline", .kind = WL_MISS_RATIO, .limit = 0.01,
			  .why = "a preview frame late freezes the viewfinder" },
			{ .name = "camera-process deadline", .kind = WL_MISS_RATIO, .limit = 0.01,
			  .why = "a frame not processed in time is lost" },
		},
	},
};
const size_t nr_workloads = ARRAY_SIZE(workloads);

const struct workload *workload_find(const char *name)
{
	for (size_t i = 0; i < nr_workloads; i++)
		if (!strcmp(workloads[i].name, name))
			return &workloads[i];
	return NULL;
}
