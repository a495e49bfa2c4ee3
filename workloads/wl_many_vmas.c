// SPDX-License-Identifier: MIT
/*
 * many-vmas: thousands of small vmas on one file: objrmap's worst case.
 *
 * Race:
 *   reclaim walking i_mmap lists thousands long, with trylocks, against
 *   mmap/munmap of those vmas; a quarter of the new vmas sit alone in a
 *   page table, which their munmap frees (free_pgtables) under reclaim
 * Invariant:
 *   must-find-all through long i_mmap lists; no walk misses a pte; no
 *   walk reaches a freed page table
 * Recalls:
 *   Ingo Molnar's objection: unmapping one page walks every vma of the file,
 *   O(vmas)
 */
#include "workload.h"

const struct rt_scenario wl_many_vmas = {
	.name = "many-vmas",
	.summary = "thousands of small vmas on one file: objrmap's worst case",
	.race = "reclaim walking i_mmap lists thousands long, with trylocks, against mmap/munmap of those vmas",
	.invariant = "must-find-all through long i_mmap lists; no walk misses a pte",
	.recalls = "Ingo Molnar's objection: unmapping one page walks every vma of the file, O(vmas)",
	.default_threads = 16,
	.default_reclaim_threads = 2,
	.weights = {
		/*
		 * The vma churn is the point: mmap and munmap take
		 * i_shared_sem. Few accesses leave most mapped pages without
		 * a young pte, so reclaim gets past page_referenced() to
		 * try_to_unmap() (about 550 calls per 2 s run against 200
		 * with read 20 / write 10), where another CPU taking
		 * i_shared_sem in between is try_to_unmap_obj's fallback.
		 */
		[WL_READ] = 10,
		[WL_WRITE] = 2,
		[WL_MMAP_FILE] = 5,
		[WL_MMAP_SHARED] = 30,
		[WL_MUNMAP] = 30,
		[WL_TRUNCATE] = 2,
		[WL_FORK] = 1,
		[WL_EXIT] = 1,
	},
	.params = {
		.pages = 4096,
		.swap_slots = 4096,
		.procs_initial = 8,
		.procs_max = 12,
		.nr_libs = 1,
		.lib_pages = 8,
		.nr_files = 1,
		.file_pages = 256,
		.map_pages_max = 4,
		.heap_pages = 4,
		.stack_pages = 4,
		.max_vmas = 400,
		.shm_pages = 0,
		.vmas_per_proc = 250,
		.far_spans = 64,
	},
};
