/* SPDX-License-Identifier: MIT */
/*
 * The emulated task: one per pthread that touches the model. It carries
 * what the kernel keeps in task_struct and thread_info for locking:
 * preempt_count, the lockdep held-lock stack, per-class lock statistics
 * and the operation in flight (for hang and failure reports).
 *
 * Threads attach with rt_task_attach() (which also registers with RCU) and
 * detach before they exit. A thread that takes a lock without attaching is
 * attached on the spot, without RCU, and detached when it exits.
 */
#ifndef RT_CORE_TASK_H
#define RT_CORE_TASK_H

#include <stdbool.h>

#include "compiler.h"
#include "cover.h"
#include "flight.h"
#include "lockdep.h"
#include "pageset.h"
#include "percpu.h"

#define TASK_COMM_LEN	24
#define TASK_SLAB_ARRAYS	16	/* caches with per-task arrays at once (slab.c) */

/* task_struct.flags, as 2.6's current->flags. */
#define PF_MEMALLOC	0x1u	/* reclaiming: its allocations do not reclaim again */

struct array_cache;

struct task_struct {
	/* Written only by the owning thread; read by reports and the watchdog. */
	int preempt_count;		/* owner; raised by every spinlock */
	int lockdep_depth;		/* owner, READ_ONCE elsewhere */
	struct held_lock held_locks[MAX_LOCK_DEPTH];	/* owner, READ_ONCE elsewhere */
	const char *op;			/* operation in flight: owner */
	unsigned long op_events;	/* owner, relaxed: flight.head when @op began */
	bool rcu_registered;		/* owner */
	bool lazily_attached;		/* owner */
	char comm[TASK_COMM_LEN];	/* set at attach, then read-only */
	int id;				/* set at attach, then read-only */
	int sched_slot;			/* owner: deterministic scheduler slot, -1 none */
	unsigned int flags;		/* owner: PF_MEMALLOC */
	int tlb_cpu;			/* owner: its slot in tlbflush.c, -1 before its first access */
	/* slab.c: this task's array cache of each cache id (2.6's cachep->array[cpu]) */
	struct array_cache *slab_array[TASK_SLAB_ARRAYS];	/* owner; slab.c's slab_arrays_lock */

	/* Owner writes, relaxed; dumps read it racily (flight.h). */
	struct flight_ring flight;

	/* Owner, no lock: page_alloc.c's per-CPU page lists (pageset.h). */
	struct per_cpu_pageset pageset ____cacheline_aligned;

	/* Owner increments with relaxed atomics; lock_stats_read() sums. */
	struct lock_class_stats stats[LOCK_CLASS_MAX] ____cacheline_aligned;

	/* Owner stores, relaxed; rt_pcpu_sum() folds (percpu.h). */
	struct rt_pcpu pcpu ____cacheline_aligned;

	/* task_list_lock (a pthread mutex of the harness) */
	struct task_struct *next, *prev;
} ____cacheline_aligned;

extern _Thread_local struct task_struct *current_task
	__attribute__((tls_model("initial-exec")));

struct task_struct *_rt_task_attach_lazy(void);

static inline struct task_struct *get_current(void)
{
	struct task_struct *t = current_task;

	if (unlikely(!t))
		t = _rt_task_attach_lazy();
	return t;
}
#define current get_current()

/**
 * rt_task_attach() - make the calling thread an emulated task
 * @name: short name used in reports ("worker-3", "kswapd-0")
 *
 * Registers the thread with RCU. Must be paired with rt_task_detach().
 *
 * Context: a thread that holds no emulated lock. May sleep.
 * Return: the new task.
 */
struct task_struct *rt_task_attach(const char *name);

/**
 * rt_task_detach() - undo rt_task_attach() before the thread exits
 *
 * Folds the task's lock statistics into the exited totals, moves its
 * slab arrays to their caches (slab_task_exit()) and gives its per-CPU
 * pages back to the zone (page_alloc_task_exit()). BUGs if the task
 * still holds a lock or is inside an RCU read-side section.
 *
 * Context: holds no emulated lock. May sleep.
 */
void rt_task_detach(void);

/**
 * rt_task_offline() - the calling task's CPU goes offline
 *
 * Gives back what the task caches per CPU (its slab arrays and its
 * per-CPU page lists), as 2.6's CPU_DEAD notifiers did, taking the locks
 * that takes. rt_task_detach() does the same for whatever is left; a
 * scheduler calls this before a thread leaves a deterministic schedule,
 * so that those lock operations are decisions of the schedule rather
 * than events from outside it (which would make the rest of the
 * schedule depend on timing). Does nothing in a task that holds a lock
 * (one that oopsed: the model is abandoned around it).
 *
 * Context: an attached task. May sleep.
 */
void rt_task_offline(void);

/* Call @fn on every attached task, under the task list lock. */
void rt_task_for_each(void (*fn)(struct task_struct *t, void *arg), void *arg);
/* The same, unless the task list lock is busy: then false (report hooks). */
bool rt_task_for_each_try(void (*fn)(struct task_struct *t, void *arg), void *arg);


/*
 * Record a flight recorder event for the current task (flight.h); @what
 * is a static string (op, yield point or source file).
 */
static inline void flight_record(enum flight_event ev, const char *what, int line, long arg)
{
	if (likely(__atomic_load_n(&flight_enabled, __ATOMIC_RELAXED)))
		_flight_record(&current->flight, ev, what, line, arg);
}

/* Name the operation in flight; NULL when idle. */
static inline void rt_task_set_op(const char *op)
{
	struct task_struct *t = current;

	if (op) {
		flight_record(FL_OP, op, 0, 0);
		__atomic_store_n(&t->op_events, __atomic_load_n(&t->flight.head, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);
	}
	WRITE_ONCE(t->op, op);
	cover_op(op);
}

static inline void preempt_disable(void)
{
	struct task_struct *t = current;

	WRITE_ONCE(t->preempt_count, t->preempt_count + 1);
}

static inline void preempt_enable(void)
{
	struct task_struct *t = current;

	WRITE_ONCE(t->preempt_count, t->preempt_count - 1);
}

static inline bool in_atomic(void)
{
	return current->preempt_count != 0;
}

/*
 * Count one lock event in the task's own statistics (single writer,
 * relaxed). In the TSan build the counting is a call into code TSan does
 * not watch (RT_NOTSAN, task.c): the counters are harness bookkeeping
 * that no model code reads, written by their owner and summed on demand
 * with relaxed loads, so TSan could find no race of the model in them,
 * and relaxed atomics give it no happens-before edge to lose. Watched,
 * they cost two atomic calls into the TSan runtime per lock event.
 */
#if RT_TSAN
void __lock_stat_add(unsigned long *counter);
static inline void lock_stat_add(unsigned long *counter)
{
	__lock_stat_add(counter);
}
#else
static inline void lock_stat_add(unsigned long *counter)
{
	__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}
#endif

/**
 * _might_sleep() - report sleeping in atomic context
 * @what: the sleeping operation ("down(i_shared_sem)", "alloc_page(GFP_KERNEL)")
 * @file, @line: where it was called
 *
 * Emits VM_REPORT_ATOMIC_SLEEP with the held locks' names and sites when the
 * task's preempt_count is raised.
 *
 * Context: any.
 */
void _might_sleep(const char *what, const char *file, int line);
#define might_sleep(what) do {						\
	if (unlikely(in_atomic()))					\
		_might_sleep((what), __FILE__, __LINE__);		\
} while (0)

#endif /* RT_CORE_TASK_H */
