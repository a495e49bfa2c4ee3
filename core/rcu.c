// SPDX-License-Identifier: MIT
/*
 * RCU: the kernel's API (rcu.h) over liburcu's urcu-memb flavour.
 *
 * Outside TSan builds core is compiled with _LGPL_SOURCE, so the read side
 * below inlines liburcu's (two TLS stores and a compiler barrier, with
 * sys_membarrier on the update side). The TSan build calls the library
 * instead and annotates grace periods (STYLE.md, "liburcu under TSan"):
 *
 *   reader: ... accesses ...; tsan_release(&rcu_gp_token); liburcu unlock
 *   updater: synchronize_rcu(); tsan_acquire(&rcu_gp_token); free
 *            call_rcu(): tsan_release(head) -> callback thread:
 *            tsan_acquire(head); tsan_acquire(&rcu_gp_token); func(head)
 *   rcu_barrier(): callbacks tsan_release(&rcu_cb_token) after func;
 *            the barrier's caller tsan_acquire(&rcu_cb_token) on return
 *   local callbacks (rt_rcu_set_local_callbacks()): call_rcu():
 *            tsan_release(head) -> rcu_barrier()'s caller: grace period,
 *            tsan_acquire(&rcu_gp_token); tsan_acquire(head); func(head)
 *
 * liburcu's own struct rcu_head and its rcu_read_lock()-style API mapping
 * clash with the kernel names of rcu.h, so liburcu's head is renamed while
 * its headers are read, and only the urcu_memb_* symbols are used.
 */
#define rcu_head urcu_lib_rcu_head
#include <urcu/urcu-memb.h>
#undef rcu_head
/* liburcu's publish/subscribe macros: rcu.h defines the kernel's own. */
#undef rcu_dereference
#undef rcu_assign_pointer
#undef rcu_cmpxchg_pointer
#undef rcu_xchg_pointer
#undef rcu_set_pointer

#include "rcu.h"

#include <pthread.h>
#include <stdalign.h>

#include "bug.h"
#include "compiler.h"
#include "die.h"
#include "percpu.h"
#include "task.h"

_Static_assert(sizeof(struct urcu_lib_rcu_head) <= sizeof(((struct rcu_head *)0)->__urcu),
	       "liburcu's rcu_head does not fit in struct rcu_head");
_Static_assert(alignof(struct urcu_lib_rcu_head) <= alignof(struct rcu_head),
	       "liburcu's rcu_head is more aligned than struct rcu_head");

_Thread_local bool __rt_rcu_registered __attribute__((tls_model("initial-exec")));
_Thread_local unsigned int __rt_rcu_depth __attribute__((tls_model("initial-exec")));
/* True while this thread runs an RCU callback (liburcu's call_rcu thread). */
static _Thread_local bool rcu_in_callback;

/*
 * TSan synchronisation objects only; never read or written. rcu_gp_token:
 * read-side unlocks -> grace-period waiters. rcu_cb_token: callbacks ->
 * rcu_barrier() callers.
 */
static char rcu_gp_token;
static char rcu_cb_token;

/*
 * Statistics: relaxed atomics. Callbacks queued, and those handed to
 * liburcu, are counted by the queuing task in its own counters
 * (percpu.h: PCPU_RCU_QUEUED, PCPU_RCU_LIB_QUEUED): every call_rcu() of
 * every CPU would otherwise bump one line. The invoked counts are bumped
 * by liburcu's call_rcu thread, on a line of their own.
 */
static unsigned long nr_grace_periods;
static unsigned long nr_barriers;
static unsigned long nr_registered;
static struct {
	unsigned long callbacks;
	/* Callbacks handed to liburcu that have returned. */
	unsigned long lib;
} nr_invoked ____cacheline_aligned;

/*
 * Local callbacks (rt_rcu_set_local_callbacks()): while rcu_local is set,
 * call_rcu() queues here instead of in liburcu, linked through the
 * otherwise unused __urcu[0], and rcu_barrier() runs them itself after a
 * grace period of its own.
 */
static bool rcu_local;
static pthread_mutex_t rcu_local_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcu_head *rcu_local_head;			/* rcu_local_lock */
static struct rcu_head **rcu_local_tail = &rcu_local_head;	/* rcu_local_lock */

static inline void stat_inc(unsigned long *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static inline struct urcu_lib_rcu_head *lib_head(struct rcu_head *head)
{
	return (struct urcu_lib_rcu_head *)(void *)head->__urcu;
}

void _rt_rcu_read_lock(void)
{
	urcu_memb_read_lock();
}

void _rt_rcu_read_unlock(void)
{
	/*
	 * Everything this section read happens before any grace period that
	 * waited for it: pairs with the acquire in synchronize_rcu() and in
	 * rcu_callback_trampoline().
	 */
	tsan_release(&rcu_gp_token);
	urcu_memb_read_unlock();
}

void synchronize_rcu(void)
{
	BUG_ON(rcu_read_lock_held());
	BUG_ON(rcu_in_callback);
	might_sleep("synchronize_rcu()");
	urcu_memb_synchronize_rcu();
	/* Pairs with the release in _rt_rcu_read_unlock(). */
	tsan_acquire(&rcu_gp_token);
	stat_inc(&nr_grace_periods);
}

/* Runs every call_rcu() callback, in liburcu's call_rcu thread. */
static void rcu_callback_trampoline(struct urcu_lib_rcu_head *lh)
{
	struct rcu_head *head = container_of((void *)lh, struct rcu_head, __urcu);

	/*
	 * liburcu registered its call_rcu thread: let callbacks use
	 * rcu_read_lock() and call_rcu() through this wrapper too.
	 */
	__rt_rcu_registered = true;
	/* Pairs with the release in call_rcu(): the caller's accesses. */
	tsan_acquire(head);
	/* Pairs with the release in _rt_rcu_read_unlock(): the readers'. */
	tsan_acquire(&rcu_gp_token);
	rcu_in_callback = true;
	head->func(head);
	rcu_in_callback = false;
	BUG_ON(rcu_read_lock_held());
	/* Pairs with the acquire in rcu_barrier(). */
	tsan_release(&rcu_cb_token);
	stat_inc(&nr_invoked.callbacks);
	/* Pairs with the acquire in lib_pending(): func's accesses. */
	__atomic_fetch_add(&nr_invoked.lib, 1, __ATOMIC_RELEASE);
}

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	bool tmp_registered = false;

	head->func = func;
	rt_pcpu_inc(PCPU_RCU_QUEUED);
	/* Pairs with the acquire in rcu_callback_trampoline(). */
	tsan_release(head);
	/* Pairs with the release in rt_rcu_set_local_callbacks(). */
	if (__atomic_load_n(&rcu_local, __ATOMIC_ACQUIRE)) {
		RT_PTHREAD(pthread_mutex_lock(&rcu_local_lock));
		head->__urcu[0] = NULL;
		*rcu_local_tail = head;
		rcu_local_tail = (struct rcu_head **)&head->__urcu[0];
		RT_PTHREAD(pthread_mutex_unlock(&rcu_local_lock));
		return;
	}
	rt_pcpu_inc(PCPU_RCU_LIB_QUEUED);
	/*
	 * liburcu's call_rcu() enters a read-side section of its own to pick
	 * the per-thread/per-CPU queue, so it needs a registered thread.
	 */
	if (unlikely(!__rt_rcu_registered)) {
		urcu_memb_register_thread();
		tmp_registered = true;
	}
	urcu_memb_call_rcu(lib_head(head), rcu_callback_trampoline);
	if (unlikely(tmp_registered))
		urcu_memb_unregister_thread();
}

/*
 * Has a callback handed to liburcu not yet returned? False means every one
 * queued before the call has, and (acquire, pairing with the release in
 * rcu_callback_trampoline()) happens before the caller's next access.
 */
static bool lib_pending(void)
{
	unsigned long queued = (unsigned long)rt_pcpu_sum(PCPU_RCU_LIB_QUEUED);

	return __atomic_load_n(&nr_invoked.lib, __ATOMIC_ACQUIRE) != queued;
}

/*
 * Run the local callbacks queued so far, after a grace period that began
 * after they were queued. Return: false when there were none.
 */
static bool flush_local_once(void)
{
	struct rcu_head *head, *next;
	bool tmp_registered = false;

	RT_PTHREAD(pthread_mutex_lock(&rcu_local_lock));
	head = rcu_local_head;
	rcu_local_head = NULL;
	rcu_local_tail = &rcu_local_head;
	RT_PTHREAD(pthread_mutex_unlock(&rcu_local_lock));
	if (!head)
		return false;
	/* Callbacks may use rcu_read_lock() and call_rcu(). */
	if (!__rt_rcu_registered) {
		urcu_memb_register_thread();
		__rt_rcu_registered = true;
		tmp_registered = true;
	}
	urcu_memb_synchronize_rcu();
	/* Pairs with the release in _rt_rcu_read_unlock(). */
	tsan_acquire(&rcu_gp_token);
	stat_inc(&nr_grace_periods);
	for (; head; head = next) {
		next = head->__urcu[0];
		/* Pairs with the release in call_rcu(): the caller's accesses. */
		tsan_acquire(head);
		rcu_in_callback = true;
		head->func(head);
		rcu_in_callback = false;
		BUG_ON(rcu_read_lock_held());
		stat_inc(&nr_invoked.callbacks);
	}
	if (tmp_registered) {
		urcu_memb_unregister_thread();
		__rt_rcu_registered = false;
	}
	return true;
}

void rcu_barrier(void)
{
	BUG_ON(rcu_read_lock_held());
	BUG_ON(rcu_in_callback);
	might_sleep("rcu_barrier()");
	/*
	 * Callbacks of either queue may queue more on either: until both
	 * are empty. liburcu's barrier sleeps (its callback thread batches
	 * for 10 ms), so it is skipped when liburcu holds nothing.
	 */
	do {
		if (lib_pending())
			urcu_memb_barrier();
	} while (flush_local_once());
	/* Pairs with the release in rcu_callback_trampoline(). */
	tsan_acquire(&rcu_cb_token);
	stat_inc(&nr_barriers);
}

void rt_rcu_set_local_callbacks(bool on)
{
	if (__atomic_load_n(&rcu_local, __ATOMIC_RELAXED) == on)
		return;
	if (!on)
		rcu_barrier();
	/* Pairs with the acquire in call_rcu(). */
	__atomic_store_n(&rcu_local, on, __ATOMIC_RELEASE);
	if (!on)
		rcu_barrier();	/* what was queued locally meanwhile */
}

void rt_rcu_register_thread(void)
{
	BUG_ON(__rt_rcu_registered);
	urcu_memb_register_thread();
	__rt_rcu_registered = true;
	stat_inc(&nr_registered);
}

void rt_rcu_unregister_thread(void)
{
	BUG_ON(!__rt_rcu_registered);
	BUG_ON(rcu_read_lock_held());
	urcu_memb_unregister_thread();
	__rt_rcu_registered = false;
	__atomic_fetch_sub(&nr_registered, 1, __ATOMIC_RELAXED);
}

void rcu_stats(struct rcu_stats *out)
{
	out->grace_periods = __atomic_load_n(&nr_grace_periods, __ATOMIC_RELAXED);
	out->callbacks_queued = (unsigned long)rt_pcpu_sum(PCPU_RCU_QUEUED);
	out->callbacks_invoked = __atomic_load_n(&nr_invoked.callbacks, __ATOMIC_RELAXED);
	out->barriers = __atomic_load_n(&nr_barriers, __ATOMIC_RELAXED);
	out->registered_threads = __atomic_load_n(&nr_registered, __ATOMIC_RELAXED);
}
