// SPDX-License-Identifier: MIT
/*
 * Sanitizer probe (not a Check suite; check_sanitizers runs it in the
 * TSan and ASan builds, and its logs are the fixtures in tests/data/).
 * Each mode makes one known finding in functions with distinctive names,
 * so that the parsed signature can be asserted exactly:
 *
 *   race      two tasks ("racer-a", "racer-b") increment a plain global
 *             in racy_probe_writer_a() and racy_probe_writer_b(), one after
 *             the other, taking turns through a relaxed atomic: apart in
 *             time (TSan can miss accesses that truly overlap: its shadow
 *             updates race too) but with no happens-before between them,
 *             so one TSan data race, every time.
 *   many      the race above, then a second one on another global in
 *             racy_probe_writer_c() and racy_probe_writer_d(): two reports
 *             in one log (TSan with halt_on_error=0).
 *   uaf       racy_probe_use_after_free() reads what racy_probe_free()
 *             freed (racy_probe_alloc() allocated it): ASan.
 *   overflow  racy_probe_overflow() overflows a signed int: UBSan.
 *   leak      racy_probe_leak() drops its only pointer: LeakSanitizer.
 *   threadleak  racy_probe_spawn() starts a thread nobody joins: TSan's
 *             thread leak.
 *   signal    racy_probe_on_signal(), a signal handler, calls malloc():
 *             TSan's signal-unsafe call.
 *   locked    the race, racy_probe_writer_a() under two emulated locks
 *             (a spinlock_t of class page_table_lock and the PG_maplock
 *             bit lock of a page of mem_map) that racy_probe_writer_b()
 *             does not take: the report's mutexes, named by class
 *             (sanitizers/tsan_api.c).
 *   abba      racy_probe_lock_ab() takes the probe's spinlock, then a
 *             second one (class lru_lock); racy_probe_lock_ba(), in a later
 *             thread, the two the other way round: TSan's
 *             lock-order-inversion, its mutexes named by class (lockdep,
 *             which would report the inversion itself, is off).
 *   clean     the race with the turn taken by release/acquire: the writes
 *             are ordered, no finding.
 *
 * The tasks name their operation ("racy_write", ...), so the report hooks'
 * flight dump (sanitizers/hooks.c, linked in the sanitizer builds) shows
 * them. Exit status 0 unless the sanitizer decides otherwise.
 */
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "lockdep.h"
#include "page.h"
#include "page_alloc.h"
#include "spinlock.h"
#include "task.h"

static int racy_probe_counter;	/* the race: no lock, on purpose */
static int racy_probe_other;	/* the second race (mode many) */
static void *volatile racy_probe_sink;

/* Relaxed hand-shakes: they order nothing for TSan, so the race stays one. */
static int meet_ready[2], meet_mid[2], meet_done[2];
static int write_turn[2];	/* whose write is next, per global */
static const char *mode;
static spinlock_t racy_probe_lock;	/* modes locked, abba: page_table_lock's class */
static spinlock_t racy_probe_lock2;	/* mode abba: lru_lock's class */

/* Distinct bodies: identical ones could be folded into one function. */
__attribute__((noinline)) static void racy_probe_writer_a(void)
{
	racy_probe_counter += 1;
}

__attribute__((noinline)) static void racy_probe_writer_b(void)
{
	racy_probe_counter += 2;
}

__attribute__((noinline)) static void racy_probe_writer_c(void)
{
	racy_probe_other += 3;
}

__attribute__((noinline)) static void racy_probe_writer_d(void)
{
	racy_probe_other += 4;
}

/* racy_probe_writer_a() under the probe's spinlock and a page's PG_maplock. */
static void racy_probe_writer_locked(void)
{
	struct page *page = &mem_map[1];

	spin_lock(&racy_probe_lock);
	page_map_lock(page);
	racy_probe_writer_a();
	page_map_unlock(page);
	spin_unlock(&racy_probe_lock);
}

__attribute__((noinline)) static void *racy_probe_lock_ab(void *arg)
{
	spin_lock(&racy_probe_lock);
	spin_lock(&racy_probe_lock2);
	spin_unlock(&racy_probe_lock2);
	spin_unlock(&racy_probe_lock);
	return arg;
}

__attribute__((noinline)) static void *racy_probe_lock_ba(void *arg)
{
	spin_lock(&racy_probe_lock2);
	spin_lock(&racy_probe_lock);
	spin_unlock(&racy_probe_lock);
	spin_unlock(&racy_probe_lock2);
	return arg;
}

static void meet(int *flags, int idx)
{
	__atomic_store_n(&flags[idx], 1, __ATOMIC_RELAXED);
	while (!__atomic_load_n(&flags[!idx], __ATOMIC_RELAXED))
		sched_yield();
}

/*
 * Wait for @idx's turn at @turn, write, pass the turn on. Relaxed orders
 * nothing (the race); release/acquire (mode clean) orders the writes.
 */
static void take_turn(int *turn, int idx, void (*writer)(void))
{
	bool ordered = !strcmp(mode, "clean");

	while (__atomic_load_n(turn, ordered ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED) != idx)
		sched_yield();
	writer();
	/* In mode clean, the release pairs with the other racer's acquire above. */
	if (ordered)
		__atomic_store_n(turn, idx + 1, __ATOMIC_RELEASE);
	else
		__atomic_store_n(turn, idx + 1, __ATOMIC_RELAXED);
}

static void *racer(void *arg)
{
	int idx = (int)(intptr_t)arg;

	rt_task_attach(idx ? "racer-b" : "racer-a");
	rt_task_set_op("racy_write");
	meet(meet_ready, idx);
	take_turn(&write_turn[0], idx, idx ? racy_probe_writer_b :
		  !strcmp(mode, "locked") ? racy_probe_writer_locked : racy_probe_writer_a);
	if (!strcmp(mode, "many")) {
		rt_task_set_op("racy_write_other");
		meet(meet_mid, idx);
		take_turn(&write_turn[1], idx, idx ? racy_probe_writer_d : racy_probe_writer_c);
	}
	meet(meet_done, idx);
	rt_task_set_op(NULL);
	rt_task_detach();
	return NULL;
}

__attribute__((noinline)) static int *racy_probe_alloc(void)
{
	int *p = malloc(4 * sizeof(*p));

	if (!p)
		rt_die("malloc");
	p[0] = 42;
	return p;
}

__attribute__((noinline)) static void racy_probe_free(int *p)
{
	free(p);
	/* Not a tail call: this frame must be in ASan's "freed by" stack. */
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static int racy_probe_use_after_free(int *p)
{
	return *(volatile int *)p;
}

__attribute__((noinline)) static int racy_probe_overflow(int x)
{
	return x + 1;
}

__attribute__((noinline)) static void racy_probe_leak(void)
{
	racy_probe_sink = malloc(48);
	racy_probe_sink = NULL;
}

static void *racy_probe_idle(void *arg)
{
	return arg;
}

__attribute__((noinline)) static void racy_probe_spawn(void)
{
	pthread_t th;

	RT_PTHREAD(pthread_create(&th, NULL, racy_probe_idle, NULL));
	/* Let it finish, unjoined: a leak, not a running thread. */
	sched_yield();
	usleep(10000);
}

__attribute__((noinline)) static void racy_probe_on_signal(int sig)
{
	racy_probe_sink = malloc(16);
	free(racy_probe_sink);
	racy_probe_sink = NULL;
	(void)sig;
}

int main(int argc, char **argv)
{
	static const char *const modes[] = {
		"race", "many", "uaf", "overflow", "leak", "clean", "threadleak", "signal",
		"locked", "abba",
	};
	volatile int big = INT_MAX;
	bool known = false;

	mode = argc > 1 ? argv[1] : "race";
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		known |= !strcmp(mode, modes[i]);
	if (!known || argc > 2) {
		fprintf(stderr,
			"usage: %s [race|many|uaf|overflow|leak|clean|threadleak|signal|locked|abba]\n",
			argv[0]);
		return 2;
	}

	rt_task_attach("prober");
	if (!strcmp(mode, "uaf")) {
		int *p = racy_probe_alloc();

		rt_task_set_op("racy_uaf");
		racy_probe_free(p);
		printf("racy_probe uaf: read %d\n", racy_probe_use_after_free(p));
	} else if (!strcmp(mode, "overflow")) {
		rt_task_set_op("racy_overflow");
		printf("racy_probe overflow: %d\n", racy_probe_overflow(big));
	} else if (!strcmp(mode, "threadleak")) {
		rt_task_set_op("racy_threadleak");
		racy_probe_spawn();
		printf("racy_probe threadleak: left it\n");
	} else if (!strcmp(mode, "signal")) {
		rt_task_set_op("racy_signal");
		signal(SIGUSR1, racy_probe_on_signal);
		raise(SIGUSR1);
		printf("racy_probe signal: handled\n");
	} else if (!strcmp(mode, "abba")) {
		pthread_t th;

		rt_task_set_op("racy_abba");
		lockdep_set_enabled(false);
		spin_lock_init(&racy_probe_lock, LOCK_CLASS_PAGE_TABLE_LOCK);
		spin_lock_init(&racy_probe_lock2, LOCK_CLASS_LRU_LOCK);
		/* One after the other: a potential deadlock, never a real one. */
		RT_PTHREAD(pthread_create(&th, NULL, racy_probe_lock_ab, NULL));
		RT_PTHREAD(pthread_join(th, NULL));
		RT_PTHREAD(pthread_create(&th, NULL, racy_probe_lock_ba, NULL));
		RT_PTHREAD(pthread_join(th, NULL));
		printf("racy_probe abba: done\n");
	} else if (!strcmp(mode, "leak")) {
		rt_task_set_op("racy_leak");
		racy_probe_leak();
		printf("racy_probe leak: dropped it\n");
	} else {
		pthread_t th[2];

		if (!strcmp(mode, "locked")) {
			if (mem_init(MEM_MIN_PAGES))
				rt_die("mem_init");
			spin_lock_init(&racy_probe_lock, LOCK_CLASS_PAGE_TABLE_LOCK);
		}
		for (int i = 0; i < 2; i++)
			RT_PTHREAD(pthread_create(&th[i], NULL, racer, (void *)(intptr_t)i));
		for (int i = 0; i < 2; i++)
			RT_PTHREAD(pthread_join(th[i], NULL));
		if (!strcmp(mode, "locked"))
			mem_exit();
		printf("racy_probe %s: counter %d other %d\n", mode, racy_probe_counter,
		       racy_probe_other);
	}
	rt_task_set_op(NULL);
	rt_task_detach();
	return 0;
}
