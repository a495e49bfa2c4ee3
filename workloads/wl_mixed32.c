// SPDX-License-Identifier: MIT
/*
 * mixed32: everything at once: 32 CPUs, 2 kswapds, every operation of the model.
 *
 * Race:
 *   every race of the model at once: faults against reclaim's trylock walks,
 *   fork's copy against truncate, mremap and munmap splits against rmap
 *   walks, remap_file_pages against reclaim
 * Invariant:
 *   every invariant of the audit, and no lockdep, TSan or ASan report
 * Recalls:
 *   the 32-way boxes of 2004 on which the rmap debate was measured
 */
#include "workload.h"

const struct rt_scenario wl_mixed32 = {
	.name = "mixed32",
	.summary = "everything at once: 32 CPUs, 2 kswapds, every operation of the model",
	.race = "every race of the model at once: faults against reclaim's trylock walks, fork's copy against truncate, mremap and munmap splits against rmap walks, remap_file_pages against reclaim",
	.invariant = "every invariant of the audit, and no lockdep, TSan or ASan report",
	.recalls = "the 32-way boxes of 2004 on which the rmap debate was measured",
	.default_threads = 32,
	.default_reclaim_threads = 2,
	.weights = {
		[WL_READ] = 30,
		[WL_WRITE] = 30,
		[WL_MMAP_ANON] = 4,
		[WL_MMAP_FILE] = 3,
		[WL_MMAP_SHARED] = 3,
		[WL_MUNMAP] = 4,
		[WL_MPROTECT] = 2,
		[WL_MLOCK] = 1,
		[WL_MREMAP] = 3,
		[WL_FORK] = 2,
		[WL_EXEC] = 1,
		[WL_EXIT] = 2,
		[WL_TRUNCATE] = 2,
		[WL_REMAP] = 2,
		[WL_STACK] = 2,
		[WL_UNLINK] = 1,
		[WL_GUP] = 2,
		[WL_SWAPOFF] = 1,
	},
	.params = {
		.pages = 4096,
		.swap_slots = 8192,
		.procs_initial = 8,
		.procs_max = 24,
		.nr_libs = 2,
		.lib_pages = 32,
		.nr_files = 2,
		.file_pages = 64,
		.map_pages_max = 16,
		.heap_pages = 16,
		.stack_pages = 4,
		.max_vmas = 64,
		.shm_pages = 0,
		.vmas_per_proc = 0,
	},
};
