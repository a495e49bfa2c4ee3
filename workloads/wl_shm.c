// SPDX-License-Identifier: MIT
/*
 * shm: many processes sharing one large MAP_SHARED file mapping (the Oracle case).
 *
 * Race:
 *   faults and dirtying through many page tables against reclaim's
 *   page_referenced/try_to_unmap of pages mapped by every process
 * Invariant:
 *   mapcount = sharers; data written through one mapping is read through
 *   every other
 * Recalls:
 *   the article's Oracle SGA: 2.7 GB mapped per task by hundreds of tasks,
 *   whose pte_chains exhausted low memory
 */
#include "workload.h"

const struct rt_scenario wl_shm = {
	.name = "shm",
	.summary = "many processes sharing one large MAP_SHARED file mapping (the Oracle case)",
	.race = "faults and dirtying through many page tables against reclaim's page_referenced/try_to_unmap of pages mapped by every process",
	.invariant = "mapcount = sharers; data written through one mapping is read through every other",
	.recalls = "the article's Oracle SGA: 2.7 GB mapped per task by hundreds of tasks, whose pte_chains exhausted low memory",
	.default_threads = 32,
	.default_reclaim_threads = 2,
	.weights = {
		[WL_READ] = 55,
		[WL_WRITE] = 40,
		[WL_MPROTECT] = 1,
		[WL_MLOCK] = 1,
		[WL_STACK] = 3,
	},
	.params = {
		.pages = 4096,
		.swap_slots = 2048,
		.procs_initial = 16,
		.procs_max = 16,
		.nr_libs = 1,
		.lib_pages = 16,
		.nr_files = 1,
		.file_pages = 1024,
		.map_pages_max = 8,
		.heap_pages = 4,
		.stack_pages = 4,
		.max_vmas = 32,
		.shm_pages = 1024,
		.vmas_per_proc = 0,
	},
};
