/* SPDX-License-Identifier: MIT */
/*
 * RCU for the emulated kernel: the one wrapper over liburcu (urcu-memb)
 * that the rest of core uses, with the kernel's names.
 *
 * Publish and subscribe are C11 atomics: rcu_assign_pointer() is a release
 * store and rcu_dereference() an acquire load, so ThreadSanitizer sees the
 * pairing. Grace periods are invisible to TSan (liburcu's atomics are
 * inline assembly in an uninstrumented library), so rcu.c tells it about
 * them: every outermost rcu_read_unlock() releases a grace-period token,
 * and every call_rcu() callback and every return from synchronize_rcu()
 * acquires it. An access made after rcu_read_unlock() is invisible to that
 * annotation; the ASan build, where objects are really freed, catches it.
 *
 * This header deliberately includes no liburcu header: liburcu has its own
 * struct rcu_head and maps rcu_read_lock() etc. onto its flavour. Only
 * rcu.c sees liburcu.
 *
 * Every thread that enters a read-side critical section must be registered
 * (rt_task_attach() does it); rcu_read_lock() BUGs otherwise.
 */
#ifndef RT_CORE_RCU_H
#define RT_CORE_RCU_H

#include <stdbool.h>

#include "bug.h"
#include "compiler.h"

/*
 * struct rcu_head - what call_rcu() needs, embedded in the object it frees
 * @__urcu: liburcu's own head (queue link and its callback), opaque here;
 *	rcu.c checks at compile time that it fits
 * @func: the callback call_rcu() was given
 */
struct rcu_head {
	void *__urcu[2];
	void (*func)(struct rcu_head *head);
};

/* Per-thread state, owner only. Exposed for the inline read side. */
extern _Thread_local bool __rt_rcu_registered
	__attribute__((tls_model("initial-exec")));
extern _Thread_local unsigned int __rt_rcu_depth
	__attribute__((tls_model("initial-exec")));

/* Enter/leave liburcu's read side (outermost level only). */
void _rt_rcu_read_lock(void);
void _rt_rcu_read_unlock(void);

/**
 * rcu_read_lock() - enter an RCU read-side critical section
 *
 * Sections nest; only the outermost one reaches liburcu. Objects reached
 * through rcu_dereference() stay allocated until the matching
 * rcu_read_unlock() (or, in a SLAB_DESTROY_BY_RCU cache, stay of their
 * type: see slab.h).
 *
 * Context: a thread registered with rt_rcu_register_thread() (BUGs
 * otherwise). Any lock may be held. Must not sleep for long, and must not
 * call synchronize_rcu() or rcu_barrier() before rcu_read_unlock().
 */
static inline void rcu_read_lock(void)
{
	BUG_ON(!__rt_rcu_registered);
	if (__rt_rcu_depth++ == 0)
		_rt_rcu_read_lock();
}

/**
 * rcu_read_unlock() - leave an RCU read-side critical section
 *
 * Context: inside a section entered by this thread (BUGs otherwise).
 */
static inline void rcu_read_unlock(void)
{
	BUG_ON(__rt_rcu_depth == 0);
	if (--__rt_rcu_depth == 0)
		_rt_rcu_read_unlock();
}

/**
 * rcu_read_lock_held() - is the calling thread inside a read-side section?
 *
 * For assertions (BUG_ON(!rcu_read_lock_held())).
 *
 * Context: any.
 * Return: true when this thread's rcu_read_lock() nesting depth is non-zero.
 */
static inline bool rcu_read_lock_held(void)
{
	return __rt_rcu_depth != 0;
}

/**
 * rcu_dereference() - fetch an RCU-protected pointer for reading
 * @p: the pointer field (an lvalue), e.g. page->as.anon_vma
 *
 * An acquire load: pairs with the release store of rcu_assign_pointer()
 * that published the object, so its initialisation is visible.
 *
 * Context: inside rcu_read_lock(), or holding the lock that writers of
 * @p take.
 * Return: the pointer value.
 */
#define rcu_dereference(p)	__atomic_load_n(&(p), __ATOMIC_ACQUIRE)

/**
 * rcu_dereference_protected() - fetch @p where updates cannot happen
 * @p: the pointer field (an lvalue)
 * @c: a condition that proves it (e.g. lock_is_held(&mapping->lock)); BUGs
 *	when false
 *
 * A relaxed load: the caller's lock orders it.
 *
 * Return: the pointer value.
 */
#define rcu_dereference_protected(p, c) ({				\
	BUG_ON(!(c));							\
	__atomic_load_n(&(p), __ATOMIC_RELAXED);			\
})

/**
 * rcu_access_pointer() - read @p's value without dereferencing it
 * @p: the pointer field (an lvalue)
 *
 * For comparisons against NULL or another pointer only.
 *
 * Return: the pointer value.
 */
#define rcu_access_pointer(p)	__atomic_load_n(&(p), __ATOMIC_RELAXED)

/**
 * rcu_assign_pointer() - publish @v in the RCU-protected field @p
 * @p: the pointer field (an lvalue)
 * @v: the new value; its pointee must be fully initialised
 *
 * A release store: pairs with the acquire load of rcu_dereference() in
 * the readers.
 *
 * Context: holding the lock that serialises writers of @p.
 * Return: @v.
 */
#define rcu_assign_pointer(p, v) ({					\
	__typeof__(p) __rcu_v = (v);					\
	__atomic_store_n(&(p), __rcu_v, __ATOMIC_RELEASE);		\
	__rcu_v;							\
})

/**
 * RCU_INIT_POINTER() - store @v in @p without ordering
 * @p: the pointer field (an lvalue)
 * @v: NULL, or an object readers cannot yet reach or that was already
 *	published (so there is nothing to order)
 *
 * Context: as rcu_assign_pointer().
 */
#define RCU_INIT_POINTER(p, v) do {					\
	__typeof__(p) __rcu_v = (v);					\
	__atomic_store_n(&(p), __rcu_v, __ATOMIC_RELAXED);		\
} while (0)

/**
 * synchronize_rcu() - wait for a grace period
 *
 * Returns after every read-side critical section that was in progress
 * when it was called has ended. Afterwards (also for TSan) everything those
 * readers did happens before the caller's next access.
 *
 * Context: may sleep. Must not hold a lock readers take (the readers would
 * never finish), must not be inside rcu_read_lock() (BUGs), must not be
 * called from an RCU callback (BUGs). Reported in atomic context.
 */
void synchronize_rcu(void);

/**
 * call_rcu() - run @func(@head) after a grace period
 * @head: embedded in the object to reclaim; untouched by the caller until
 *	@func runs
 * @func: the callback, typically container_of() and free
 *
 * @func runs in liburcu's call_rcu thread, after every read-side critical
 * section in progress at the call has ended, and happens after (also for
 * TSan) those readers and the caller's accesses before call_rcu().
 * Callbacks may take spinlocks, call call_rcu() and rcu_read_lock(), but
 * must not sleep, call synchronize_rcu() or rcu_barrier().
 *
 * With rt_rcu_set_local_callbacks(true), @func runs instead in the next
 * rcu_barrier()'s caller, still after a grace period that began after
 * this call.
 *
 * Context: any, including inside rcu_read_lock() and under spinlocks.
 * A thread not registered with RCU is registered for the call (slow).
 */
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));

/**
 * rcu_barrier() - wait for every call_rcu() callback queued so far to finish
 *
 * For teardown: after it, no callback queued before the call is pending,
 * and everything the callbacks did happens before the caller's next access.
 * Callbacks queued locally (rt_rcu_set_local_callbacks()) run in the
 * caller, after a grace period of their own; liburcu's barrier (which
 * sleeps about 10 ms) is skipped when liburcu holds no callback.
 *
 * Context: may sleep. Not inside rcu_read_lock(), not from an RCU callback
 * (both BUG), must not hold a lock a callback takes.
 */
void rcu_barrier(void);

/**
 * rt_rcu_set_local_callbacks() - defer call_rcu() callbacks to rcu_barrier()
 * @on: true: from now on call_rcu() queues on the wrapper's own list, and
 *	only rcu_barrier() runs those callbacks (after a grace period);
 *	false: back to liburcu's call_rcu thread, after a rcu_barrier()
 *
 * For a harness that runs many short runs, each ending in rcu_barrier()
 * (explore): the callbacks run at a point of the run fixed by the run
 * itself rather than by liburcu's thread, and rcu_barrier() does not wait
 * for that thread's 10 ms batching. Objects are still freed only after a
 * grace period, so a use after a grace period stays visible to ASan.
 *
 * Context: outside rcu_read_lock(); with @on false, as rcu_barrier(), and
 * with no call_rcu() running concurrently (a quiescent harness: one racing
 * the switch could queue locally after the last flush).
 */
void rt_rcu_set_local_callbacks(bool on);

/**
 * rt_rcu_register_thread() - register the calling thread with liburcu
 *
 * rt_task_attach() calls it; code outside a task need it only to use
 * rcu_read_lock() directly.
 *
 * Context: a thread not yet registered (BUGs otherwise). May sleep.
 */
void rt_rcu_register_thread(void);

/**
 * rt_rcu_unregister_thread() - undo rt_rcu_register_thread()
 *
 * Context: a registered thread outside any read-side section (BUGs
 * otherwise). May sleep.
 */
void rt_rcu_unregister_thread(void);

/**
 * rt_rcu_thread_registered() - is the calling thread registered?
 *
 * Context: any.
 * Return: true between rt_rcu_register_thread() and
 * rt_rcu_unregister_thread() (and in liburcu's call_rcu thread).
 */
static inline bool rt_rcu_thread_registered(void)
{
	return __rt_rcu_registered;
}

/* Counters since start; relaxed atomics, exact only when quiescent. */
struct rcu_stats {
	unsigned long grace_periods;	/* synchronize_rcu() calls completed */
	unsigned long callbacks_queued;	/* call_rcu() calls */
	unsigned long callbacks_invoked;	/* callbacks that have returned */
	unsigned long barriers;		/* rcu_barrier() calls completed */
	unsigned long registered_threads;	/* registered now (ours, not liburcu's) */
};

/**
 * rcu_stats() - read the RCU counters
 * @out: filled in
 *
 * callbacks_queued - callbacks_invoked is the number still pending.
 *
 * Context: any.
 */
void rcu_stats(struct rcu_stats *out);

#endif /* RT_CORE_RCU_H */
