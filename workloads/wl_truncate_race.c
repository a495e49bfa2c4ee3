// SPDX-License-Identifier: MIT
/*
 * truncate-race: truncate and extend of mapped files against faults, forks and reclaim.
 *
 * Race:
 *   do_no_page's page lookup against truncate's unmap_mapping_range and
 *   page-cache removal; reclaim and faults against a file unlinked under
 *   them (the last iput's truncate_inode_pages, then the free); mremap
 *   moving a file vma's ptes while truncate walks the file's vmas
 * Invariant:
 *   after a truncate completes no pte maps a page beyond i_size or outside
 *   the page cache
 * Recalls:
 *   the do_no_page/truncate race closed in 2.6.8 with
 *   mapping->truncate_count
 */
#include "workload.h"

const struct rt_scenario wl_truncate_race = {
	.name = "truncate-race",
	.summary = "truncate and extend of mapped files against faults, forks and reclaim",
	.race = "do_no_page's page lookup against truncate's unmap_mapping_range and page-cache removal; reclaim and faults against a file unlinked under them (the last iput's truncate_inode_pages, then the free); mremap moving a file vma's ptes while truncate walks the file's vmas",
	.invariant = "after a truncate completes no pte maps a page beyond i_size or outside the page cache",
	.recalls = "the do_no_page/truncate race closed in 2.6.8 with mapping->truncate_count",
	.default_threads = 32,
	.default_reclaim_threads = 1,
	.weights = {
		[WL_READ] = 30,
		[WL_WRITE] = 25,
		[WL_MMAP_FILE] = 5,
		[WL_MMAP_SHARED] = 10,
		[WL_MUNMAP] = 5,
		[WL_FORK] = 2,
		[WL_EXIT] = 2,
		[WL_TRUNCATE] = 20,
		[WL_REMAP] = 1,
		[WL_UNLINK] = 3,
		[WL_MREMAP] = 10,
	},
	.params = {
		.pages = 4096,
		.swap_slots = 4096,
		.procs_initial = 8,
		.procs_max = 16,
		.nr_libs = 1,
		.lib_pages = 8,
		.nr_files = 2,
		.file_pages = 32,
		.map_pages_max = 16,
		.heap_pages = 4,
		.stack_pages = 4,
		.max_vmas = 48,
		.shm_pages = 32,
		.vmas_per_proc = 0,
	},
};
