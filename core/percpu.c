// SPDX-License-Identifier: MIT
/*
 * Per-CPU (per-task) statistics and id batches: see percpu.h. The exited
 * totals and the reset bases live in task.c, under its task list lock,
 * next to the lock statistics they resemble.
 */
#include "percpu.h"

#include "task.h"

_Thread_local struct rt_pcpu *rt_pcpu_this
	__attribute__((tls_model("initial-exec")));

struct rt_pcpu *__rt_pcpu_attach(void)
{
	rt_pcpu_this = &current->pcpu;
	return rt_pcpu_this;
}

void rt_pcpu_id_refill(struct rt_pcpu_id_batch *b, unsigned long *global, unsigned long nr)
{
	/* Relaxed: uniqueness needs only the atomicity of the add. */
	b->next = __atomic_fetch_add(global, nr, __ATOMIC_RELAXED);
	b->end = b->next + nr;
}

#if RT_TSAN
/*
 * percpu.h: the owner's store, not watched by TSan, as task.c's
 * __lock_stat_add(): harness bookkeeping no model code reads.
 */
RT_NOTSAN void __rt_pcpu_store(long *counter, long v)
{
	__atomic_store_n(counter, v, __ATOMIC_RELAXED);
}
#endif
