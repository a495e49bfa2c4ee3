// SPDX-License-Identifier: MIT
/*
 * The deterministic scheduler (sched.h): the baton, its hand-off, the
 * switch points and parking for an audit. Which thread runs next, under
 * each kind, is rt_sched_pick.c's.
 *
 * Only the thread holding the baton (S.cur) changes the scheduler's
 * state, so every decision is a function of the seed and of what the run
 * did before it. Every shared field is still accessed with relaxed
 * atomics: the threads hand the baton over without any happens-before
 * edge (on purpose, see sched.h), so TSan must see no plain access here.
 * The one exception is parking for an audit, which orders on purpose
 * (acquire/release on S.park_gen): the audit reads the whole model.
 */
#include "rt_sched.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cacheline.h"
#include "cover.h"
#include "die.h"
#include "perturb.h"
#include "random.h"
#include "rt_sched-internal.h"
#include "task.h"

struct rt_sched_state rt_sched_s;

static long futex(unsigned int *uaddr, int op, unsigned int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* FUTEX_WAIT for at most @ns. Return: false once @ns are over. */
static bool futex_wait_ns(unsigned int *uaddr, unsigned int val, long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	return syscall(SYS_futex, uaddr, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0) == 0 ||
	       errno != ETIMEDOUT;
}

const char *rt_sched_name(enum rt_sched_kind kind)
{
	switch (kind) {
	case RT_SCHED_FREE: return "free";
	case RT_SCHED_RANDOM: return "random";
	case RT_SCHED_PCT: return "pct";
	case RT_SCHED_VTIME: return "vtime";
	case RT_SCHED_COVER: return "cover";
	case RT_SCHED_EXPLORE: return "explore";
	}
	return "?";
}

int rt_sched_by_name(const char *name)
{
	for (int k = RT_SCHED_FREE; k <= RT_SCHED_EXPLORE; k++)
		if (!strcmp(name, rt_sched_name((enum rt_sched_kind)k)))
			return k;
	return -1;
}

double rt_sched_pct_bound(int nr_threads, unsigned long steps, int depth)
{
	return 1.0 / ((double)nr_threads * pow((double)(steps ? steps : 1), depth - 1));
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static bool sched_hook_fn_impl(enum sched_point_kind kind, const void *lock, int cls);

/*
 * The line_hook_fn under vtime with a transfer cost: a worker or kswapd
 * of the schedule (the baton holder: nobody else of the run is running)
 * writes a line. Set-up, teardown and threads outside the schedule are
 * not priced. current_task, not current: no lazy attach of a harness
 * thread that merely uses a list.
 */
static void line_hook_fn_impl(const void *addr, enum line_kind kind)
{
	struct task_struct *t = current_task;

	if (t && t->sched_slot >= 0)
		rt_vtime_line(t->sched_slot, addr, kind);
}
static bool all_parked(void);
static void finish_parking(unsigned long gen);

void rt_sched_init(const struct rt_sched_config *cfg, int nr, void (*audit)(void *), void *arg)
{
	memset(&S, 0, sizeof(S));
	S.cfg = *cfg;
	S.nr = nr;
	S.slots = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*S.slots) * (size_t)nr);
	memset(S.slots, 0, sizeof(*S.slots) * (size_t)nr);
	S.rng = cfg->seed * 0xd1342543de82ef95ULL + 0x632be59bd9b4e019ULL;
	S.cur = -1;
	S.audit = audit;
	S.audit_arg = arg;
	if (cfg->kind == RT_SCHED_PCT || cfg->kind == RT_SCHED_COVER) {
		int d = cfg->kind == RT_SCHED_COVER ? 1 : cfg->pct_depth > 0 ? cfg->pct_depth : 1;
		long *perm = rt_calloc((size_t)nr, sizeof(*perm));

		/* Distinct random priorities d..d+nr-1: a shuffled range. */
		for (int i = 0; i < nr; i++)
			perm[i] = d + i;
		for (int i = nr - 1; i > 0; i--) {
			int j = (int)(sched_rand() % (uint64_t)(i + 1));
			long tmp = perm[i];

			perm[i] = perm[j];
			perm[j] = tmp;
		}
		for (int i = 0; i < nr; i++)
			S.slots[i].prio = perm[i];
		free(perm);
		S.nr_change = d - 1;
		S.change = rt_calloc((size_t)(S.nr_change + 1), sizeof(*S.change));
		for (int i = 0; i < S.nr_change; i++)
			S.change[i] = 1 + sched_rand() % (cfg->pct_steps ? cfg->pct_steps : 1);
		qsort(S.change, (size_t)S.nr_change, sizeof(*S.change), cmp_ulong);
		S.low_prio = d - 1;
	}
	if (cfg->kind == RT_SCHED_COVER)
		S.site_tries = rt_calloc(COVER_MAX_SITES, sizeof(*S.site_tries));
	if (cfg->kind == RT_SCHED_VTIME)
		rt_vtime_init(&cfg->vtime, nr);
	T.nr = 0;
	if (cfg->kind == RT_SCHED_EXPLORE && !T.d) {
		T.cap = RT_SCHED_TRACE_MAX;
		T.d = rt_calloc(T.cap, sizeof(*T.d));
	}
	__atomic_store_n(&sched_hook, sched_hook_fn_impl, __ATOMIC_RELAXED);
	__atomic_store_n(&line_hook, cfg->kind == RT_SCHED_VTIME && cfg->vtime.transfer_ns ?
			 line_hook_fn_impl : NULL, __ATOMIC_RELAXED);
}

void rt_sched_fini(void)
{
	/* Every thread of the run has been joined: nobody looks at S any more. */
	__atomic_store_n(&sched_hook, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&line_hook, NULL, __ATOMIC_RELAXED);
	if (S.cfg.kind == RT_SCHED_VTIME)
		rt_vtime_fini();
	free(S.slots);
	free(S.change);
	free(S.site_tries);
	S.slots = NULL;
	S.change = NULL;
	S.site_tries = NULL;
}

/* Give the baton to @next and wait until it comes back to @me. */
static void switch_to(int me, int next)
{
	struct slot *n = &S.slots[next];

	SET(S.cur, next);
	__atomic_fetch_add(&n->word, 1, __ATOMIC_RELAXED);
	futex(&n->word, FUTEX_WAKE_PRIVATE, 1);
	if (me < 0)
		return;
	for (;;) {
		unsigned int w = RLX(S.slots[me].word);

		if (RLX(S.cur) == me)
			break;
		futex(&S.slots[me].word, FUTEX_WAIT_PRIVATE, w);
	}
}

/* One decision by the baton holder @me (or by main when @me < 0). */
static void decide(int me)
{
	unsigned long step = RLX(S.steps) + 1;
	int next;

	SET(S.steps, step);
	if (!RLX(S.stop) && (RLX(S.request_stop) ||
			     (S.cfg.max_steps && step >= S.cfg.max_steps))) {
		SET(S.stop_step, step);
		SET(S.stop, 1);
	}
	if (S.cfg.audit_steps && step % S.cfg.audit_steps == 0 && !RLX(S.stop))
		SET(S.parking, 1);
	if (me >= 0 && RLX(S.next_change) < S.nr_change && step >= S.change[RLX(S.next_change)]) {
		/* A change point: the running thread drops below everyone. */
		SET(S.slots[me].prio, RLX(S.low_prio));
		SET(S.low_prio, RLX(S.low_prio) - 1);
		SET(S.next_change, RLX(S.next_change) + 1);
	}
	if (me >= 0 && S.cfg.kind == RT_SCHED_COVER)
		rt_sched_cover_steer(me);
	if (me >= 0 && (S.cfg.kind == RT_SCHED_PCT || S.cfg.kind == RT_SCHED_COVER))
		rt_sched_tick(me);
	next = rt_sched_pick_next();
	if (next < 0 || next == me)
		return;
	switch_to(me, next);
	if (me >= 0)
		flight_record(FL_SCHED, NULL, 0, (long)RLX(S.steps));
}

/* vtime: charge the segment, do the lock bookkeeping, run the earliest CPU. */
static bool vtime_point(int me, enum sched_point_kind kind, const void *lock, int cls)
{
	struct slot *s = &S.slots[me];

	rt_vtime_point(me, kind, lock, cls);
	/*
	 * After a release nobody earlier than this CPU can be ready (the
	 * waiters it woke are at its clock or later): no decision needed.
	 */
	if (kind == SP_UNLOCK) {
		rt_vtime_resume(me);
		return true;
	}
	if (kind == SP_WAIT)
		SET(s->state, SLOT_WAITING);
	decide(me);
	SET(s->state, SLOT_RUNNABLE);
	rt_vtime_resume(me);
	return true;
}

/*
 * The sched_hook_fn. Which lock (@lock, @cls) does not enter random's or
 * pct's choice; vtime keeps its holds and waits by it.
 */
static bool sched_hook_fn_impl(enum sched_point_kind kind, const void *lock, int cls)
{
	struct task_struct *t = current;
	int me = t->sched_slot;
	struct slot *s;

	if (me < 0) {
		if (kind == SP_UNLOCK && S.cfg.kind == RT_SCHED_VTIME)
			rt_vtime_outside_release();
		return false;
	}
	if (S.cfg.kind == RT_SCHED_VTIME)
		return vtime_point(me, kind, lock, cls);
	/* Only vtime decides before a release: the others' schedules stay. */
	if (kind == SP_RELEASE)
		return true;
	s = &S.slots[me];
	if (kind == SP_UNLOCK)
		SET(S.epoch, RLX(S.epoch) + 1);
	if (kind == SP_WAIT) {
		SET(s->wait_epoch, RLX(S.epoch));
		SET(s->state, SLOT_WAITING);
	}
	SET(s->point_kind, (int)kind);
	SET(s->point_cls, cls);
	decide(me);
	SET(s->state, SLOT_RUNNABLE);
	return true;
}

void rt_sched_enter(int slot)
{
	struct task_struct *t = current;

	t->sched_slot = slot;
	SET(S.slots[slot].point_kind, -1);
	SET(S.slots[slot].state, SLOT_RUNNABLE);
	/* The last one in wakes main in rt_sched_start(). */
	if (__atomic_add_fetch(&S.entered, 1, __ATOMIC_RELAXED) == (unsigned int)S.nr)
		futex(&S.entered, FUTEX_WAKE_PRIVATE, 1);
	for (;;) {
		unsigned int w = RLX(S.slots[slot].word);

		if (RLX(S.cur) == slot)
			break;
		futex(&S.slots[slot].word, FUTEX_WAIT_PRIVATE, w);
	}
	if (S.cfg.kind == RT_SCHED_VTIME)
		rt_vtime_resume(slot);		/* its first segment starts now */
	flight_record(FL_SCHED, NULL, 0, (long)RLX(S.steps));
}

void rt_sched_exit(void)
{
	struct task_struct *t = current;
	int me = t->sched_slot;
	int next;

	if (me < 0)
		return;
	/* Its drains' lock operations: still decisions of the schedule. */
	rt_task_offline();
	if (S.cfg.kind == RT_SCHED_VTIME)
		rt_vtime_exit(me);
	/* Release: what this thread did happens before any later audit. */
	__atomic_fetch_add(&S.park_gen, 0, __ATOMIC_RELEASE);
	SET(S.slots[me].state, SLOT_EXITED);
	if (RLX(S.parking) && all_parked()) {
		/* The others parked for an audit; this thread was the last. */
		t->sched_slot = -1;
		finish_parking(__atomic_load_n(&S.park_gen, __ATOMIC_ACQUIRE));
	}
	t->sched_slot = -1;
	SET(S.steps, RLX(S.steps) + 1);
	next = rt_sched_pick_next();
	if (next >= 0)
		switch_to(-1, next);
	/* Release pairs with the acquire in rt_sched_wait_exit(). */
	__atomic_fetch_add(&S.exits, 1, __ATOMIC_RELEASE);
	futex(&S.exits, FUTEX_WAKE_PRIVATE, INT_MAX);
}

void rt_sched_start(void)
{
	unsigned int n;

	/* Woken by the last rt_sched_enter(); no polling, no fixed delay. */
	while ((n = RLX(S.entered)) < (unsigned int)S.nr)
		futex(&S.entered, FUTEX_WAIT_PRIVATE, n);
	decide(-1);
}

unsigned int rt_sched_exits(void)
{
	/* Acquire pairs with the release in rt_sched_exit(). */
	return __atomic_load_n(&S.exits, __ATOMIC_ACQUIRE);
}

bool rt_sched_wait_exit(unsigned int seen, long ns)
{
	while (rt_sched_exits() == seen)
		if (!futex_wait_ns(&S.exits, seen, ns))
			return rt_sched_exits() != seen;
	return true;
}

static bool all_parked(void)
{
	for (int i = 0; i < S.nr; i++) {
		int st = RLX(S.slots[i].state);

		if (st != SLOT_PARKED && st != SLOT_EXITED)
			return false;
	}
	return true;
}

/*
 * Every thread is parked or gone: audit, then let them run again.
 * Context: the baton holder, unscheduled (sched_slot -1) meanwhile.
 */
static void finish_parking(unsigned long gen)
{
	/* Acquire pairs with the parkers' release increments of park_gen. */
	__atomic_fetch_add(&S.park_gen, 0, __ATOMIC_ACQUIRE);
	S.audit(S.audit_arg);
	SET(S.parking, 0);
	for (int i = 0; i < S.nr; i++)
		if (RLX(S.slots[i].state) == SLOT_PARKED)
			SET(S.slots[i].state, SLOT_RUNNABLE);
	/* Release: the audit happens before what the others do next. */
	__atomic_store_n(&S.park_gen, gen + 1, __ATOMIC_RELEASE);
}

void rt_sched_park_point(void)
{
	struct task_struct *t = current;
	int me = t->sched_slot;
	unsigned long gen;

	if (me < 0)
		return;
	SET(S.slots[me].op_steps, 0UL);		/* an operation boundary */
	if (!RLX(S.parking))
		return;
	gen = __atomic_load_n(&S.park_gen, __ATOMIC_RELAXED);
	SET(S.slots[me].state, SLOT_PARKED);
	if (all_parked()) {
		/* The last to arrive audits. */
		t->sched_slot = -1;		/* the audit runs unscheduled */
		finish_parking(gen);
		t->sched_slot = me;
		SET(S.slots[me].state, SLOT_RUNNABLE);
		return;
	}
	/* Release: what this thread did happens before the audit. */
	__atomic_fetch_add(&S.park_gen, 0, __ATOMIC_RELEASE);
	SET(S.slots[me].point_kind, -1);
	decide(me);
	/* Acquire pairs with the release after the audit. */
	(void)__atomic_load_n(&S.park_gen, __ATOMIC_ACQUIRE);
	SET(S.slots[me].state, SLOT_RUNNABLE);
}

bool rt_sched_idle(uint64_t ns)
{
	int me = current->sched_slot;

	if (me < 0 || !__atomic_load_n(&sched_hook, __ATOMIC_RELAXED))
		return false;
	if (S.cfg.kind != RT_SCHED_VTIME)
		return sched_point(SP_WAIT, NULL, -1);
	rt_vtime_idle(ns);
	return vtime_point(me, SP_YIELD, NULL, -1);
}

bool rt_sched_running(void)
{
	if (!__atomic_load_n(&sched_hook, __ATOMIC_RELAXED) || RLX(S.entered) < (unsigned int)S.nr)
		return false;
	for (int i = 0; i < S.nr; i++)
		if (RLX(S.slots[i].state) != SLOT_EXITED)
			return true;
	return false;
}

bool rt_sched_stopped(void)
{
	return RLX(S.stop) != 0;
}

void rt_sched_request_stop(void)
{
	SET(S.request_stop, 1);
}

unsigned long rt_sched_steps(void)
{
	return RLX(S.steps);
}

unsigned long rt_sched_tick_drops(void)
{
	return RLX(S.tick_drops);
}

unsigned long rt_sched_longest_op(void)
{
	return RLX(S.longest_op);
}

unsigned long rt_sched_stop_step(void)
{
	return RLX(S.stop_step);
}
