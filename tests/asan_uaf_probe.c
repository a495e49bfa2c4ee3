// SPDX-License-Identifier: MIT
/*
 * ASan probe (not a Check suite; check_rcu runs it in the ASan build).
 *
 * The race it stages, deterministically: a reader inside rcu_read_lock()
 * holds a pointer to a published object; the updater unpublishes it and
 * frees it. Without a grace period (no argument) the free happens while
 * the reader still holds the pointer, and the reader's next load is a
 * heap-use-after-free in probe_reader(), which ASan must report (non-zero
 * exit). With "--grace" the updater waits in synchronize_rcu(), which
 * cannot return before the reader leaves its section: the load is valid,
 * the probe exits 0 and ASan stays silent.
 *
 * The bug it recalls: an anon_vma freed without the RCU grace period while
 * page_lock_anon_vma() still reads it (the seeded bug of the same name).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "rcu.h"
#include "task.h"

#define PROBE_MAGIC	0x0bad5eedcafef00dUL

struct probe_obj {
	unsigned long magic;
	unsigned long payload[7];
};

static struct probe_obj *probe_slot;	/* RCU; written by main only */

/* 1: the reader holds its pointer; 2: the updater has unpublished (and freed). */
static int probe_step;
static unsigned long probe_seen;	/* the reader's last load; main reads after join */

static void wait_step(int step)
{
	/* Acquire pairs with the release in set_step(). */
	while (__atomic_load_n(&probe_step, __ATOMIC_ACQUIRE) < step)
		sched_yield();
}

static void set_step(int step)
{
	/* Release pairs with the acquire in wait_step(). */
	__atomic_store_n(&probe_step, step, __ATOMIC_RELEASE);
}

__attribute__((noinline))
static void *probe_reader(void *arg)
{
	struct probe_obj *p;

	(void)arg;
	rt_task_attach("probe-reader");
	rcu_read_lock();
	p = rcu_dereference(probe_slot);
	set_step(1);
	wait_step(2);
	/* Without a grace period, this load is the use after free. */
	probe_seen = *(volatile unsigned long *)&p->magic;
	rcu_read_unlock();
	rt_task_detach();
	return NULL;
}

int main(int argc, char **argv)
{
	bool grace = argc > 1 && strcmp(argv[1], "--grace") == 0;
	struct probe_obj *p = rt_malloc(sizeof(*p));
	pthread_t th;

	if (argc > 1 && !grace) {
		fprintf(stderr, "usage: %s [--grace]\n", argv[0]);
		return 2;
	}
	memset(p, 0, sizeof(*p));
	p->magic = PROBE_MAGIC;
	rcu_assign_pointer(probe_slot, p);

	RT_PTHREAD(pthread_create(&th, NULL, probe_reader, NULL));
	wait_step(1);
	rcu_assign_pointer(probe_slot, NULL);
	if (grace) {
		set_step(2);
		synchronize_rcu();
		free(p);
	} else {
		free(p);	/* the bug: no grace period */
		set_step(2);
	}
	RT_PTHREAD(pthread_join(th, NULL));

	if (probe_seen != PROBE_MAGIC) {
		fprintf(stderr, "asan_uaf_probe: reader saw %#lx, not the magic\n", probe_seen);
		return 1;
	}
	printf("asan_uaf_probe: %s: reader saw the object intact\n",
	       grace ? "grace period" : "no grace period");
	return 0;
}
