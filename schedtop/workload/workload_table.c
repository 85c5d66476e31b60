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
			{ "audio-tick", WL_PERIODIC, 4.0, 4.0, 0, 0.3, 0, .fifo_prio = 2 },
		},
		.nr_constraints = 1,
		.constraints = {
			{ "audio-tick deadline", WL_MISS_RATIO, 0.001,
			  "a period not done before the next one is a glitch; the output buffer hides one in 1000" },
		},
	}, {
		.name = "video",
		.desc = "video playback: decode 5 ms per 33.3 ms frame, render 2.5 ms per 16.7 ms frame, each by its deadline",
		.nr_threads = 2,
		.threads = {
			{ "video-decode", WL_PERIODIC, 1000.0 / 30, 1000.0 / 30, 0, 5.0, 0, .nice = -16 },
			{ "video-render", WL_PERIODIC, 1000.0 / 60, 1000.0 / 60, 2.0, 2.5, 1, .nice = -10 },
		},
		.nr_constraints = 2,
		.constraints = {
			{ "video-decode deadline", WL_MISS_RATIO, 0.01,
			  "a frame decoded late is dropped" },
			{ "video-render deadline", WL_MISS_RATIO, 0.01,
			  "a frame rendered late is a visible stutter" },
		},
	}, {
		.name = "browse",
		.desc = "web browsing: page loads (60 ms of work on each of 3 threads) within 500 ms, then 90 scroll frames of 4 ms at 16.7 ms, then 1-2 s of reading",
		.nr_threads = 3,
		.threads = {
			{ "browse-render", WL_PAGE_LOAD, 1000.0 / 60, 1000.0 / 60, 0, 4.0, 1, .nice = -10 },
			{ "browse-load1", WL_HELPER, 0, 500, 0, 0, 0 },
			{ "browse-load2", WL_HELPER, 0, 500, 0, 0, 0 },
		},
		.nr_constraints = 2,
		.constraints = {
			{ "page load", WL_MAX_RESPONSE_MS, 500,
			  "a page must show within 500 ms of the tap" },
			{ "scroll frames", WL_MISS_RATIO, 0.05,
			  "a scroll frame late is a visible jank" },
		},
		.load_work_ms = 60,
		.scroll_frames = 90,
		.read_min_ms = 1000, .read_max_ms = 2000,
	}, {
		.name = "camera",
		.desc = "camera preview: preview 3 ms and processing 10 ms per 33.3 ms frame, each by the next frame",
		.nr_threads = 2,
		.threads = {
			{ "camera-preview", WL_PERIODIC, 1000.0 / 30, 1000.0 / 30, 0, 3.0, 0, .nice = -10 },
			{ "camera-process", WL_PERIODIC, 1000.0 / 30, 1000.0 / 30, 5.0, 10.0, 1, .nice = -16 },
		},
		.nr_constraints = 2,
		.constraints = {
			{ "camera-preview deadline", WL_MISS_RATIO, 0.01,
			  "a preview frame late freezes the viewfinder" },
			{ "camera-process deadline", WL_MISS_RATIO, 0.01,
			  "a frame not processed in time is lost" },
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
