// SPDX-License-Identifier: MIT
/*
 * sdet32: SDET-style fork/exec/exit churn over shared library mappings.
 *
 * Race:
 *   dup_mm and exit_mmap of many short-lived processes against reclaim
 *   walking the libraries' i_mmap lists and the pages' chains
 * Invariant:
 *   mapcount and must-find-all on library pages shared by every process;
 *   nothing leaks at exit
 * Recalls:
 *   SDET, the benchmark that showed rmap's fork/exit cost on 2.5/2.6
 *   (pte_chain setup and teardown)
 */
#include "workload.h"

const struct rt_scenario wl_sdet32 = {
	.name = "sdet32",
	.summary = "SDET-style fork/exec/exit churn over shared library mappings",
	.race = "dup_mm and exit_mmap of many short-lived processes against reclaim walking the libraries' i_mmap lists and the pages' chains",
	.invariant = "mapcount and must-find-all on library pages shared by every process; nothing leaks at exit",
	.recalls = "SDET, the benchmark that showed rmap's fork/exit cost on 2.5/2.6 (pte_chain setup and teardown)",
	.default_threads = 32,
	.default_reclaim_threads = 1,
	.weights = {
		[WL_READ] = 30,
		[WL_WRITE] = 20,
		[WL_MMAP_ANON] = 5,
		[WL_MUNMAP] = 5,
		[WL_FORK] = 10,
		[WL_EXEC] = 10,
		[WL_EXIT] = 10,
		[WL_STACK] = 2,
	},
	.params = {
		.pages = 4096,
		.swap_slots = 4096,
		.procs_initial = 4,
		.procs_max = 32,
		.nr_libs = 4,
		.lib_pages = 64,
		.nr_files = 0,
		.file_pages = 0,
		.map_pages_max = 8,
		.heap_pages = 8,
		.stack_pages = 4,
		.max_vmas = 32,
		.shm_pages = 0,
		.vmas_per_proc = 0,
		/* SDET's scripts: each CPU forks, execs and reaps its own. */
		.cpu_affine = true,
	},
};
