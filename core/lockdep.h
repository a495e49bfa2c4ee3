/* SPDX-License-Identifier: MIT */
/*
 * lockdep - lock classes, per-task held-lock stacks, the dependency graph
 * and per-class lock statistics.
 *
 * Every emulated lock belongs to a class. A blocking acquisition of class B
 * while holding class A adds the edge A -> B; a trylock adds none (that is
 * how reclaim goes against the order). A new edge that closes a cycle, or
 * that contradicts the documented order (the tree at the top of lockdep.c),
 * is reported with the sites of both acquisitions. Releasing a lock the
 * task does not hold is reported too.
 *
 * Statistics (acquisitions, contended acquisitions, trylock attempts and
 * failures) are counted per task, in the task's own cache lines, and summed
 * on demand; they stay on when lockdep is switched off.
 */
#ifndef RT_CORE_LOCKDEP_H
#define RT_CORE_LOCKDEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

enum lock_class_id {
	LOCK_CLASS_I_SEM,		/* inode->i_sem: truncate/extend */
	LOCK_CLASS_MMAP_SEM,		/* mm->mmap_sem */
	LOCK_CLASS_PG_LOCKED,		/* lock_page() */
	LOCK_CLASS_I_SHARED_SEM,	/* mapping->i_shared_sem */
	LOCK_CLASS_PAGE_TABLE_LOCK,	/* mm->page_table_lock */
	LOCK_CLASS_PG_CHAINLOCK,	/* pte_chain_lock(): ptechain, objfile anon */
	LOCK_CLASS_PG_MAPLOCK,		/* page_map_lock(): anonvma */
	LOCK_CLASS_ANON_VMA_LOCK,	/* anon_vma->lock */
	LOCK_CLASS_LRU_LOCK,		/* zone->lru_lock */
	LOCK_CLASS_SWAP_LOCK,		/* swap_lock */
	LOCK_CLASS_TREE_LOCK,		/* mapping->tree_lock */
	LOCK_CLASS_I_MMAP_LOCK,		/* mapping->i_mmap_lock: mainline designs */
	LOCK_CLASS_ZONE_LOCK,		/* zone->lock (buddy free lists) */
	LOCK_CLASS_SLAB_LOCK,		/* kmem_cache->lock */
	LOCK_CLASS_MMLIST_LOCK,		/* mmlist_lock: the list of every mm, for swapoff */
	LOCK_CLASS_NR_STATIC,
	/* Classes registered at run time (tests, demos) follow. */
	LOCK_CLASS_MAX = 40,
};

/* Nesting levels for two locks of one class held at once (fork's two mms). */
#define SINGLE_DEPTH_NESTING	1
#define LOCKDEP_MAX_SUBCLASS	2

/*
 * Most locks one task may hold at once. TSan's deadlock detector tracks at
 * most 64 per thread; the deepest real path (reclaim in anonvma) holds 6.
 */
#define MAX_LOCK_DEPTH		24

/* What every lock embeds: its class. */
struct lockdep_map {
	uint16_t class_id;
};

struct held_lock {
	const void *instance;	/* the lock; for bit locks the word + bit */
	const char *file;
	int line;
	uint16_t class_id;
	uint8_t subclass;
	uint8_t flags;		/* HELD_TRYLOCK, HELD_READ */
};
#define HELD_TRYLOCK	0x1
#define HELD_READ	0x2

/* Per-class counters of one task; single writer, relaxed atomics. */
struct lock_class_stats {
	unsigned long acquired;
	unsigned long contended;
	unsigned long try_attempts;
	unsigned long try_failures;
};

/* Acquisition modes for lock_acquire(). */
enum lock_acquire_mode {
	LOCK_ACQ_BLOCKING,
	LOCK_ACQ_TRY,
};

/* Switch the validator (not the statistics) on or off; on by default. */
void lockdep_set_enabled(bool on);
bool lockdep_enabled(void);

/**
 * lockdep_register_class() - add a run-time lock class
 * @name: printed in reports and statistics; the string must stay alive
 * @parent: class that must be held outside this one in the documented
 *	order, or -1 for a class outside the documented order (only cycles
 *	are then reported)
 *
 * Context: any; classes are never unregistered.
 * Return: the class id, or -1 when the class table is full.
 */
int lockdep_register_class(const char *name, int parent);
const char *lock_class_name(int class_id);
int lock_class_count(void);
int lock_class_by_name(const char *name);

/*
 * True when the documented order allows taking @inner (blocking) while
 * holding @outer: @outer is a proper ancestor of @inner in the order tree.
 */
bool lockdep_order_allows(int outer, int inner);
/* Parent of @class_id in the documented order tree, or -1. */
int lockdep_order_parent(int class_id);
/* All documented parents of @class_id, as a mask of class bits. */
uint64_t lockdep_order_parents_mask(int class_id);

/* Which documented order lockdep enforces: the tree at the top of lockdep.c, or 2.6.9's. */
enum lockdep_order {
	LOCKDEP_ORDER_DEFAULT,
	LOCKDEP_ORDER_2_6_9,	/* mainline9: anon_vma->lock outside page_table_lock */
};

/**
 * lockdep_set_order() - enforce @order from now on; a change forgets the
 * dependency graph learnt so far
 * @order: the order
 *
 * Context: before any thread takes an emulated lock (rmap_select()).
 */
void lockdep_set_order(enum lockdep_order order);

/**
 * lock_acquire() - record an acquisition in the task's held-lock stack
 * @instance: the lock (a distinct address per lock)
 * @class_id, @subclass: its class and nesting level
 * @mode: blocking, or trylock (adds no dependency edge)
 * @read: shared acquisition of an rwsem
 * @file, @line: the acquisition site
 *
 * Called after the lock is held. Adds and validates the dependency edges
 * from every held lock to this one (blocking mode only).
 *
 * Context: any; takes no emulated lock.
 */
void lock_acquire(const void *instance, int class_id, int subclass,
		  enum lock_acquire_mode mode, bool read,
		  const char *file, int line);

/**
 * lock_check_order() - validate a blocking acquisition before its wait
 * @class_id, @subclass: the lock's class and nesting level
 * @file, @line: the acquisition site
 *
 * What lock_acquire() checks for a blocking acquisition, without recording
 * it: the dependency edges from every held lock to this one, reported if
 * one closes a cycle or breaks the documented order. Called when the lock
 * is found busy, so that an inversion that deadlocks is still reported.
 *
 * Context: any; takes no emulated lock.
 */
void lock_check_order(int class_id, int subclass, const char *file, int line);

/**
 * lock_release() - remove @instance from the task's held-lock stack
 * Context: any. Reports VM_REPORT_LOCKDEP_UNHELD when it is not there.
 */
void lock_release(const void *instance, int class_id,
		  const char *file, int line);

/* True when the current task holds @instance. */
bool lock_is_held(const void *instance);
/* Number of locks the current task holds. */
int lockdep_depth(void);

/* Forget every dependency edge and reported pair (tests). */
void lockdep_reset_graph(void);
/* True when the dependency edge @a -> @b has been recorded. */
bool lockdep_has_edge(int a, int b);

/*
 * Naming a lock from its address alone, as ThreadSanitizer's reports know
 * it (sanitizers/tsan_api.c). Lock objects (spinlock_t, rw_semaphore,
 * semaphore) are noted when they are initialised; bit locks are found
 * from the arrays of objects whose words hold them (mem_map's page bit
 * locks, page_lock_key()). A lock freed and its memory reused for another
 * lock is named by the newest; the table keeps the most recent of many.
 */

/**
 * lockdep_note_lock() - remember that the lock at @key is of class @class_id
 * @key: the lock's identity (its address; lock_events.h)
 * @size: the lock object's size (sizeof(spinlock_t), ...), for
 *	lockdep_class_within(); at most 32 bytes count
 * @class_id: its class
 *
 * Only while the table is kept (lockdep_names_enable()): by default in
 * the TSan build alone, whose report hook reads it; elsewhere lock
 * initialisation writes no shared table, as the kernel's without lockdep.
 *
 * Context: any; lock-free, takes no lock.
 */
void lockdep_note_lock(const void *key, size_t size, int class_id);

/* lockdep_note_lock() whether or not the table is kept: statically initialised locks. */
void lockdep_note_static_lock(const void *key, size_t size, int class_id);

/*
 * Keep the address -> class table from now on (@on), or stop adding to
 * it. Default: on in the TSan build only. Context: before the locks to be
 * named are initialised (tests; the TSan build needs no call).
 */
void lockdep_names_enable(bool on);

/* A bit lock of each object of a lock array: its key's offset in the object. */
struct lockdep_array_key {
	size_t offset;		/* page_lock_key(obj, bit) - obj */
	int class_id;
};

#define LOCKDEP_ARRAY_MAX_KEYS	4

/**
 * lockdep_register_lock_array() - name the bit locks of @nr objects at @base
 * @base, @nr, @stride: the array (mem_map: struct page each)
 * @keys, @nr_keys: each bit lock's key offset in an object and its class
 *	(at most LOCKDEP_ARRAY_MAX_KEYS)
 *
 * Context: before threads take the array's locks (mem_init()).
 * Return: 0, or -ENOSPC when every slot for arrays is taken.
 */
int lockdep_register_lock_array(const void *base, size_t nr, size_t stride,
				const struct lockdep_array_key *keys, int nr_keys);
/* Forget the array at @base (mem_exit()). Context: after its last use. */
void lockdep_unregister_lock_array(const void *base);

/**
 * lockdep_class_of() - the class of the lock whose key is @key
 * @key: an address, perhaps of no lock at all
 *
 * Context: any, a sanitizer's report hook included: no lock, no
 * allocation, reads only lockdep's tables.
 * Return: the class id, or -1 when @key is no lock lockdep was told of.
 */
int lockdep_class_of(const void *key);

/**
 * lockdep_class_within() - the class of the lock object that holds @addr
 * @addr: an address inside a lock object (its dep_map, say), or anywhere
 *
 * For a memory access TSan reports on a lock's own memory. A lock object
 * freed and its memory reused keeps its entry until a lock is noted there
 * again: call it only for an access that a lock primitive made.
 *
 * Context: as lockdep_class_of().
 * Return: the class id, or -1.
 */
int lockdep_class_within(const void *addr);

/* Sum of every task's statistics for @class_id, live and exited. */
void lock_stats_read(int class_id, struct lock_class_stats *out);
void lock_stats_reset(void);

#endif /* RT_CORE_LOCKDEP_H */
