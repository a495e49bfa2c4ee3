// SPDX-License-Identifier: MIT
/*
 * nonlinear: remap_file_pages windows on shared files under reclaim and truncate.
 *
 * Race:
 *   install of out-of-place pages (objfile's page_convert_anon) against
 *   reclaim and truncate
 * Invariant:
 *   nonlinear pages are found by reclaim in every design; data follows the
 *   file offset
 * Recalls:
 *   objrmap's nonlinear problem: find_pte cannot compute their address (seed
 *   001 converts them)
 */
#include "workload.h"

const struct rt_scenario wl_nonlinear = {
	.name = "nonlinear",
	.summary = "remap_file_pages windows on shared files under reclaim and truncate",
	.race = "install of out-of-place pages (objfile's page_convert_anon) against reclaim and truncate",
	.invariant = "nonlinear pages are found by reclaim in every design; data follows the file offset",
	.recalls = "objrmap's nonlinear problem: find_pte cannot compute their address (seed 001 converts them)",
	.default_threads = 32,
	.default_reclaim_threads = 2,
	.weights = {
		[WL_READ] = 30,
		[WL_WRITE] = 30,
		[WL_MMAP_SHARED] = 8,
		[WL_MUNMAP] = 3,
		[WL_REMAP] = 25,
		[WL_TRUNCATE] = 4,
		[WL_UNLINK] = 2,
	},
	.params = {
		.pages = 4096,
		.swap_slots = 2048,
		.procs_initial = 8,
		.procs_max = 8,
		.nr_libs = 1,
		.lib_pages = 8,
		.nr_files = 2,
		.file_pages = 128,
		.map_pages_max = 16,
		.heap_pages = 4,
		.stack_pages = 4,
		.max_vmas = 48,
		.shm_pages = 64,
		.vmas_per_proc = 0,
	},
};
