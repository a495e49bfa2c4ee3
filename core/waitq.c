// SPDX-License-Identifier: MIT
/*
 * The wait queues' buckets and their futex calls (waitq.h says why).
 */
#include "waitq.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bug.h"

struct waitq waitq_table[WAITQ_NR];

void __waitq_wake(struct waitq *q)
{
	/* Relaxed: the wake orders nothing; the lock's own release does. */
	__atomic_fetch_add(&q->seq, 1, __ATOMIC_RELAXED);
	syscall(SYS_futex, &q->seq, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

unsigned int waitq_register(struct waitq *q)
{
	/* An RMW: on x86 it also orders the caller's next look at its lock. */
	__atomic_fetch_add(&q->sleepers, 1, __ATOMIC_RELAXED);
	return __atomic_load_n(&q->seq, __ATOMIC_RELAXED);
}

unsigned int waitq_sleep(struct waitq *q, unsigned int seq, long ns)
{
	struct timespec ts = { 0, ns };

	/* EAGAIN (the word moved on), a wake, a timeout, a signal: all return. */
	syscall(SYS_futex, &q->seq, FUTEX_WAIT_PRIVATE, seq, &ts, NULL, 0);
	return __atomic_load_n(&q->seq, __ATOMIC_RELAXED);
}

void waitq_unregister(struct waitq *q)
{
	unsigned int old = __atomic_fetch_sub(&q->sleepers, 1, __ATOMIC_RELAXED);

	BUG_ON(old == 0);
}

bool waitq_idle(void)
{
	for (unsigned int i = 0; i < WAITQ_NR; i++)
		if (__atomic_load_n(&waitq_table[i].sleepers, __ATOMIC_RELAXED))
			return false;
	return true;
}
