/* SPDX-License-Identifier: MIT */
/*
 * Per-CPU statistics and id batches. The model's CPU is a task (task.h):
 * every counter that an operation bumps lives in the bumping task's own
 * cache lines, written by that task alone with relaxed stores, and summed
 * by a reader over the live tasks plus the totals of the exited ones
 * (rt_task_detach() folds a task's counts in, as 2.6's CPU-hotplug
 * notifier drains a dead CPU). As 2.6's per-CPU page_state:
 * mod_page_state() / get_page_state() in include/linux/page-flags.h and
 * mm/page_alloc.c. A gauge (live vmas, mms, files, bytes) is a sum of
 * signed deltas: one task may allocate and another free.
 *
 * Ids that must stay unique (vma, mm, file) come from a global counter in
 * per-task batches, so the counter's line moves once per batch, not once
 * per object. A task's batch depends only on what that task did and on
 * the order of refills, so a deterministic schedule keeps giving the same
 * ids.
 */
#ifndef RT_CORE_PERCPU_H
#define RT_CORE_PERCPU_H

#include "compiler.h"

/* Room for rmap.h's FB_NR_SITES and tlbflush.h's TLB_FLUSH_NR_KINDS (checked there). */
#define RT_PCPU_FALLBACK_SITES	16
#define RT_PCPU_TLB_KINDS	4
#define RT_PCPU_RECLAIM_STATS	16

/* One counter per item, per task. */
enum rt_pcpu_item {
	/* gauges: live objects (mmap.c, filemap.c) */
	PCPU_NR_VMAS,
	PCPU_NR_MMS,
	PCPU_NR_FILES,
	/* rcu.c: call_rcu()s, and those of them handed to liburcu */
	PCPU_RCU_QUEUED,
	PCPU_RCU_LIB_QUEUED,
	/* pgtable.c */
	PCPU_PGTABLE_BYTES,
	PCPU_PGTABLE_ALLOC,
	PCPU_PGTABLE_FREE,
	/* tlbflush.c: flushes made and entries dropped, per kind; waits */
	PCPU_TLB_FLUSHES,
	PCPU_TLB_DROPS = PCPU_TLB_FLUSHES + RT_PCPU_TLB_KINDS,
	PCPU_TLB_FLUSH_WAITS = PCPU_TLB_DROPS + RT_PCPU_TLB_KINDS,
	/* rmap.c: bytes of pte_chains, anon_vmas and per-vma rmap fields (gauges) */
	PCPU_RMAP_PTE_CHAIN_BYTES,
	PCPU_RMAP_ANON_VMA_BYTES,
	PCPU_RMAP_VMA_EXTRA_BYTES,
	/* rmap.c: failed trylocks, by site */
	PCPU_RMAP_FALLBACKS,
	/* vmscan.c: struct reclaim_stats, field by field */
	PCPU_RECLAIM = PCPU_RMAP_FALLBACKS + RT_PCPU_FALLBACK_SITES,
	NR_PCPU_ITEMS = PCPU_RECLAIM + RT_PCPU_RECLAIM_STATS,
};

/* Unique ids handed out in per-task batches. */
enum rt_pcpu_id {
	PCPU_ID_VMA,
	PCPU_ID_MM,
	PCPU_ID_FILE,
	NR_PCPU_IDS,
};

struct rt_pcpu_id_batch {
	unsigned long next, end;	/* owner only */
};

/*
 * A task's counters: the owner writes with relaxed stores, readers load
 * racily (relaxed) under the task list lock. In struct task_struct, on
 * lines of its own.
 */
struct rt_pcpu {
	long count[NR_PCPU_ITEMS];
	struct rt_pcpu_id_batch ids[NR_PCPU_IDS];
};

struct task_struct;

#if RT_TSAN
void __rt_pcpu_store(long *counter, long v);
#else
static inline void __rt_pcpu_store(long *counter, long v)
{
	__atomic_store_n(counter, v, __ATOMIC_RELAXED);
}
#endif

/* The calling task's counters; NULL until its first use (owner only). */
extern _Thread_local struct rt_pcpu *rt_pcpu_this
	__attribute__((tls_model("initial-exec")));

/**
 * __rt_pcpu_attach() - find the calling task's counters
 *
 * Context: any; attaches the calling thread if it is not attached yet.
 * Return: the counters.
 */
struct rt_pcpu *__rt_pcpu_attach(void);

/* The calling task's counters, which only the calling thread may write. */
static inline struct rt_pcpu *rt_pcpu_counters(void)
{
	struct rt_pcpu *p = rt_pcpu_this;

	if (unlikely(!p))
		p = __rt_pcpu_attach();
	return p;
}

/**
 * rt_pcpu_mod() - add @delta to the calling task's @item
 * @item: the counter
 * @delta: signed: a gauge goes down on another task than the one that
 *	raised it
 *
 * As 2.6's mod_page_state(): no lock, no shared line.
 * Context: any; lock-free.
 * Return: the task's own new value of @item (not the sum).
 */
static inline long rt_pcpu_mod(enum rt_pcpu_item item, long delta)
{
	long *c = &rt_pcpu_counters()->count[item];
	long v = __atomic_load_n(c, __ATOMIC_RELAXED) + delta;

	__rt_pcpu_store(c, v);
	return v;
}

static inline void rt_pcpu_inc(enum rt_pcpu_item item)
{
	rt_pcpu_mod(item, 1);
}

static inline void rt_pcpu_dec(enum rt_pcpu_item item)
{
	rt_pcpu_mod(item, -1);
}

/**
 * rt_pcpu_sum() - @item summed over every task, live and exited, since
 * the last rt_pcpu_reset() of it
 * @item: the counter
 *
 * As 2.6's get_page_state(): exact only when no task is changing @item.
 * Context: takes the task list lock; no emulated lock needed.
 * Return: the sum (a gauge's may be read as unsigned).
 */
long rt_pcpu_sum(enum rt_pcpu_item item);

/**
 * rt_pcpu_reset() - make rt_pcpu_sum() of @nr items from @first count from 0
 * @first: the first item
 * @nr: how many
 *
 * Records the current sums as a base; no task's counter is written, so
 * nothing racing the reset is lost.
 * Context: takes the task list lock.
 */
void rt_pcpu_reset(enum rt_pcpu_item first, int nr);

/**
 * rt_pcpu_task_exit() - fold @t's counters into the exited totals
 * @t: the detaching task
 *
 * Context: rt_task_detach(), by the detaching task, under the task list lock.
 */
void rt_pcpu_task_exit(struct task_struct *t);

/**
 * rt_pcpu_id_refill() - a new batch of @nr ids from @global
 * @b: the calling task's batch of @kind
 * @global: the global counter (atomic)
 * @nr: batch size
 *
 * Context: any; lock-free.
 */
void rt_pcpu_id_refill(struct rt_pcpu_id_batch *b, unsigned long *global, unsigned long nr);

/**
 * rt_pcpu_id() - a unique id of @kind, from the calling task's batch
 * @kind: the id space
 * @global: its global counter (atomic), moved @nr at a time
 * @nr: batch size
 *
 * Context: any; lock-free.
 * Return: an id no other call with the same @global returns.
 */
static inline unsigned long rt_pcpu_id(enum rt_pcpu_id kind, unsigned long *global,
				       unsigned long nr)
{
	struct rt_pcpu_id_batch *b = &rt_pcpu_counters()->ids[kind];

	if (unlikely(b->next == b->end))
		rt_pcpu_id_refill(b, global, nr);
	return b->next++;
}

#endif /* RT_CORE_PERCPU_H */
