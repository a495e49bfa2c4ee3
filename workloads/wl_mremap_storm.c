// SPDX-License-Identifier: MIT
/*
 * mremap-storm: mremap moving and resizing (forked) anonymous and file mappings under reclaim.
 *
 * Race:
 *   move_page_tables against reclaim's walks: the pte moves, the page must
 *   still be found
 * Invariant:
 *   must-find-all after every move; anonymous page->index stays relative to
 *   vm_pgoff
 * Recalls:
 *   anobjrmap's absolute anonymous page->index, which mremap broke (seed 002
 *   fixes it)
 */
#include "workload.h"

const struct rt_scenario wl_mremap_storm = {
	.name = "mremap-storm",
	.summary = "mremap moving and resizing (forked) anonymous and file mappings under reclaim",
	.race = "move_page_tables against reclaim's walks: the pte moves, the page must still be found",
	.invariant = "must-find-all after every move; anonymous page->index stays relative to vm_pgoff",
	.recalls = "anobjrmap's absolute anonymous page->index, which mremap broke (seed 002 fixes it)",
	.default_threads = 32,
	.default_reclaim_threads = 2,
	.weights = {
		[WL_READ] = 20,
		[WL_WRITE] = 30,
		[WL_MMAP_ANON] = 6,
		[WL_MMAP_FILE] = 2,
		[WL_MUNMAP] = 5,
		[WL_MREMAP] = 35,
		[WL_FORK] = 2,
		[WL_EXIT] = 2,
	},
	.params = {
		.pages = 4096,
		.swap_slots = 8192,
		.procs_initial = 8,
		.procs_max = 16,
		.nr_libs = 1,
		.lib_pages = 8,
		.nr_files = 1,
		.file_pages = 64,
		.map_pages_max = 16,
		.heap_pages = 16,
		.stack_pages = 4,
		.max_vmas = 48,
		.shm_pages = 0,
		.vmas_per_proc = 0,
	},
};
