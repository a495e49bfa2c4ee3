/* SPDX-License-Identifier: MIT */
/*
 * Workloads: the scenarios and the operations they are made of. A
 * scenario is a declarative table: the weight of each operation, the
 * process and file population, mapping sizes, thread roles and default
 * sizes. The engine (stress/) sees a workload only through this header:
 * it creates a world, has its threads call wl_do_op() with their own
 * PRNG, parks them to audit, and destroys the world.
 */
#ifndef RT_WORKLOADS_WORKLOAD_H
#define RT_WORKLOADS_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "random.h"	/* rng: an rt_rand() state */

enum wl_op {
	WL_READ,	/* a load at a random mapped address (faults as needed) */
	WL_WRITE,	/* a store (anonymous fault, COW, dirtying file pages) */
	WL_MMAP_ANON,	/* a new private anonymous mapping */
	WL_MMAP_FILE,	/* a new private file mapping */
	WL_MMAP_SHARED,	/* a new MAP_SHARED file mapping */
	WL_MUNMAP,	/* unmap a piece of a mapping (splits) */
	WL_MPROTECT,	/* write-protect / unprotect a range (splits) */
	WL_MLOCK,	/* mlock / munlock a range */
	WL_MREMAP,	/* grow (in place or moving) or shrink a mapping */
	WL_FORK,	/* fork a process: copy-on-write */
	WL_EXEC,	/* replace a process's mm with a fresh exec image */
	WL_EXIT,	/* a process exits */
	WL_TRUNCATE,	/* truncate a shared file, then extend it back */
	WL_REMAP,	/* remap_file_pages on a shared mapping */
	WL_STACK,	/* touch below the stack: expand_stack */
	WL_UNLINK,	/* unlink a data file (it dies with its last mapping), create its successor */
	WL_GUP,		/* direct I/O: get_user_pages() pins, the transfer, put_page() */
	WL_SWAPOFF,	/* swapoff: every swapped-out page back in, then swapon */
	WL_NR_OPS,
};

/* What an operation did. */
enum wl_result {
	WL_DONE,	/* the operation ran */
	WL_SKIPPED,	/* nothing to do it on (no process, no mapping, table full) */
	WL_OOM,		/* memory ran out: the operation backed off */
	WL_CORRUPT,	/* a read saw the wrong data (reported) */
};

struct wl_params {
	unsigned long pages;		/* emulated memory */
	unsigned long swap_slots;
	int procs_initial;		/* processes at start */
	int procs_max;			/* fork stops here, exit stops at 1 */
	int nr_libs;			/* shared library files mapped by exec */
	unsigned long lib_pages;
	int nr_files;			/* data files for mmap/truncate */
	unsigned long file_pages;
	unsigned long map_pages_max;	/* a new mapping's size: 1..this */
	unsigned long heap_pages, stack_pages;	/* exec image */
	int max_vmas;			/* mmap stops when a process has this many */
	unsigned long shm_pages;	/* exec maps the first data file shared, this long */
	int vmas_per_proc;		/* exec maps this many 1-page windows of it too */
	/*
	 * One mmap in four goes to the start of one of this many pgd
	 * entries (4 MiB each) far above the packed mappings, where it is
	 * alone: its munmap frees the page table (free_pgtables). 0: never.
	 */
	int far_spans;
	/*
	 * A worker's processes stay with it, as 2.6's sched_fork() started a
	 * child on its parent's CPU (an SDET script's processes lived and
	 * died on one CPU): the workers' home slots spread around the table,
	 * a child lands at or after its forker's home, and exit and exec
	 * mostly take the worker's own. Off: homes are consecutive and
	 * children land anywhere, so workers often share a process (the
	 * threads of one process). world.c: own_slot().
	 */
	bool cpu_affine;
};

struct rt_scenario {
	const char *name;
	const char *summary;		/* one line for `list` */
	const char *race;		/* the race it provokes */
	const char *invariant;		/* what must hold */
	const char *recalls;		/* the real bug, if any */
	int default_threads;
	int default_reclaim_threads;
	unsigned int weights[WL_NR_OPS];
	struct wl_params params;
};

/* Every scenario, NULL-terminated, in `list` order. */
extern const struct rt_scenario *const wl_scenarios[];
/* The scenario named @name, or NULL. */
const struct rt_scenario *wl_find(const char *name);
const char *wl_op_name(enum wl_op op);
/* The operation called @name ("fork", "truncate"), or -1. */
int wl_op_by_name(const char *name);

/* The smallest emulated memory @params can run in (pages). */
unsigned long wl_min_pages(const struct wl_params *params);

struct wl_world;

/**
 * wl_world_create() - files and initial processes for @s with @params
 * Context: the model is set up (mem_init, swap_init, rmap_select); the
 * calling thread is attached.
 * Return: the world, or NULL when memory ran out.
 */
struct wl_world *wl_world_create(const struct rt_scenario *s,
				 const struct wl_params *params, uint64_t seed);

/**
 * wl_do_op() - run one operation @op, choosing its target with @rng
 * @worker: the calling worker's index (threads of one process: workers
 *	that share a process index share its mm)
 * Context: an attached worker thread; no lock held; may sleep.
 */
enum wl_result wl_do_op(struct wl_world *w, enum wl_op op, uint64_t *rng, int worker);

/* Pick an operation by the scenario's weights. */
enum wl_op wl_pick_op(const struct wl_world *w, uint64_t *rng);

/**
 * wl_world_audit() - run the invariant audit on every live process and file
 * Context: quiescent: every worker and reclaim thread is parked.
 * @mapped_pages: out (may be NULL): pages mapped by at least one pte
 * Return: the number of violations (each reported).
 */
unsigned long wl_world_audit(struct wl_world *w, unsigned long *mapped_pages);

/**
 * wl_world_share_targets() - make workers given one stream meet on one
 * object (explore's two CPUs): the process by the stream (one process,
 * or the first fork's parent and child, whose layouts match), a vma by
 * one draw over all of them (the first that fits at or after it), then
 * the page or size, so that their draws line up across operations
 * @w: the world
 * Context: before any worker runs.
 */
void wl_world_share_targets(struct wl_world *w);

/* Live processes now (for progress). */
int wl_world_nr_procs(const struct wl_world *w);

/**
 * wl_world_destroy() - exit every process, drop every file, drain caches
 * Context: no worker runs.
 * Return: the teardown check's violations (each reported).
 */
unsigned long wl_world_destroy(struct wl_world *w);

#endif /* RT_WORKLOADS_WORKLOAD_H */
