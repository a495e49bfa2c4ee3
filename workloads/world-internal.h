/* SPDX-License-Identifier: MIT */
/*
 * Between world.c (the world: its process and file tables, how an
 * operation finds its target, the audit and teardown) and world_ops.c
 * (the operations of enum wl_op, each a short sequence of the model's
 * system calls on such a target).
 */
#ifndef RT_WORKLOADS_WORLD_INTERNAL_H
#define RT_WORKLOADS_WORLD_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "fs.h"
#include "mm.h"
#include "workload.h"

#define WL_DIO_HASH	64

struct wl_world {
	const struct rt_scenario *s;
	struct wl_params p;
	unsigned int weight_total;
	/* RCU-published; writers under slot_lock (a harness mutex). */
	struct mm_struct **procs;
	int *home;				/* per worker % procs_max; read-only after create */
	struct address_space **libs;		/* read-only after create */
	/* RCU-published; writers (unlink) under slot_lock. */
	struct address_space **files;
	bool shared_targets;			/* set before any worker runs */
	/* Written by fork, exit, exec and unlink: off the lines every op reads. */
	pthread_mutex_t slot_lock ____cacheline_aligned;
	int nr_procs;				/* slot_lock */
	unsigned long file_generation;		/* slot_lock */
	unsigned long swapoff_calls;		/* atomic: WL_SWAPOFF draws */
	/* Shared targets: the first fork's parent and child slots, or -1. */
	int family[2];				/* slot_lock; read RCU */
	/*
	 * The user's side of direct I/O (WL_GUP), per mm hashed by id: the
	 * transfers in flight and the layout changes (munmap, mprotect,
	 * mlock, mremap, fork) in flight, each backing off from the other
	 * (user_busy_enter() in world_ops.c). Atomics, seq_cst. A line per
	 * hash: two CPUs working on two mms do not bump the same line.
	 */
	struct wl_user_busy {
		int dio, layout;
	} ____cacheline_aligned busy[WL_DIO_HASH];
};

static inline unsigned long rnd_below(uint64_t *rng, unsigned long n)
{
	return n ? (unsigned long)(rt_rand(rng) % n) : 0;
}

/*
 * The data file in @slot, with a reference (iput() it), or NULL when
 * the lookup met a file on its way out (its last reference gone after
 * an unlink replaced it: the caller skips).
 */
static inline struct address_space *world_file(struct wl_world *w, int slot)
{
	return file_lookup(&w->files[slot]);
}

/* The process table (world.c). */
/* exec: a fresh image, plus the scenario's shared mappings; NULL: no memory. */
struct mm_struct *world_new_image(struct wl_world *w);
/* A live process with a user reference (mmput() it), or NULL. Context: takes rcu_read_lock(). */
struct mm_struct *world_get_proc(struct wl_world *w, uint64_t *rng, int worker);
/* Put @mm into a free slot; false when the table is full. Context: takes slot_lock. */
bool world_publish_proc(struct wl_world *w, struct mm_struct *mm, uint64_t *rng,
			struct mm_struct *parent, int worker);
/*
 * Take a process out of the table with the table's reference (mmput() it),
 * or NULL when only @keep are left. Context: takes slot_lock.
 */
struct mm_struct *world_unpublish_proc(struct wl_world *w, uint64_t *rng, int keep,
				       int worker);

/* An operation's target in one process (world.c). Context: mmap_sem held. */
/* A random vma with all of @need flags and none of @refuse, or NULL. */
struct vm_area_struct *world_pick_vma(const struct wl_world *w, struct mm_struct *mm,
				      uint64_t *rng, unsigned long need, unsigned long refuse);
/* A random page of @v. */
unsigned long world_pick_page(struct vm_area_struct *v, uint64_t *rng);
/* A random sub-range of a random vma: [*start, *start + *len). */
struct vm_area_struct *world_pick_range(const struct wl_world *w, struct mm_struct *mm,
					uint64_t *rng, unsigned long refuse,
					unsigned long *start, unsigned long *len);

#endif /* RT_WORKLOADS_WORLD_INTERNAL_H */
