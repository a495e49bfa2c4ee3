// SPDX-License-Identifier: MIT
/*
 * The deterministic scheduler's pickers (rt_sched.c holds the baton and
 * its hand-off): which thread runs next under random, pct and cover
 * (priorities, their change points, cover's steering and the tick that
 * drops a spinning thread), vtime (the earliest virtual clock) and
 * explore (the given decisions, then the running thread; each decision
 * recorded for rt_sched_trace()).
 *
 * As in rt_sched.c, only the baton holder calls in here, and every
 * shared field is accessed with relaxed atomics.
 */
#include <stdint.h>
#include <time.h>

#include "cover.h"
#include "rt_sched-internal.h"

struct rt_sched_trace_buf rt_sched_t;

/*
 * explore: a thread that kept the CPU through so many decisions in a row
 * spins for another (a trylock loop): the default hands the CPU over.
 */
#define EXPLORE_FAIR_RUN	256

/*
 * pct, cover: a thread that took so many decisions inside one operation
 * drops below everyone, as a timer tick would preempt it. PCT assumes
 * every thread finishes on its own, but the model has loops that wait,
 * without a lock the scheduler could see, for work of a lower-priority
 * thread (try_to_unuse() rescans the swap map until kswapd's in-flight
 * swap-out lets go of its slot): with strict priorities the loop would
 * run for good. The bound is 2.6 times the longest operation seen in
 * one-second pct runs of every scenario and design (about 100,000
 * decisions), swapoff's long scans aside (up to 460,000: preempted then,
 * as a long kernel loop would be), so PCT's own change points still
 * decide nearly every schedule that ends on its own; the run's summary
 * prints its longest operation and the drops.
 */
#define PCT_TICK_STEPS		(1UL << 18)

_Static_assert(RT_SCHED_SEG_OBJS == COVER_SEG_OBJS, "a decision holds what cover reports");

static bool eligible(int i)
{
	struct slot *s = &S.slots[i];
	int st = RLX(s->state);

	if (S.cfg.kind == RT_SCHED_VTIME)
		return st == SLOT_RUNNABLE || (st == SLOT_WAITING && rt_vtime_woken(i));
	return st == SLOT_RUNNABLE || (st == SLOT_WAITING && RLX(s->wait_epoch) != RLX(S.epoch));
}

const struct rt_sched_decision *rt_sched_trace(unsigned long *nr)
{
	*nr = __atomic_load_n(&T.nr, __ATOMIC_ACQUIRE);
	return T.d;
}

/*
 * vtime: the thread with the smallest virtual clock runs; a waiter not
 * woken by a release counts at the time it re-checks (rt_vtime.c). Ties
 * go to the one ready longest (a FIFO run queue among equals; a release
 * first), then to the lowest slot. Parked threads (an audit) do not run
 * but hold the virtual end back: the run ends when every thread still in
 * it has reached it.
 */
static bool workers_left(void)
{
	for (int i = 0; i < S.cfg.vtime.nr_workers && i < S.nr; i++)
		if (RLX(S.slots[i].state) != SLOT_EXITED)
			return true;
	return false;
}

static int pick_vtime(uint64_t *min_all)
{
	int best = -1;
	uint64_t bk = 0;

	*min_all = UINT64_MAX;
	if (rt_vtime_outside_pending())
		rt_vtime_wake_all(0);
	for (int i = 0; i < S.nr; i++) {
		int st = RLX(S.slots[i].state);
		uint64_t k;

		if (st == SLOT_EXITED)
			continue;
		k = st == SLOT_WAITING && !rt_vtime_woken(i) ? rt_vtime_next(i) : rt_vtime_clock(i);
		if (k < *min_all)
			*min_all = k;
		if (st == SLOT_PARKED)
			continue;
		if (best < 0 || k < bk || (k == bk && rt_vtime_seq(i) < rt_vtime_seq(best))) {
			best = i;
			bk = k;
		}
	}
	if (best >= 0 && RLX(S.slots[best].state) == SLOT_WAITING && !rt_vtime_woken(best))
		rt_vtime_recheck(best);
	return best;
}

/*
 * Record @d. Relaxed stores: the next holder appends with no
 * happens-before edge (sched.h); main reads after the join, or, when a
 * BUG or a hang abandoned the run and a thread may still append (an
 * oopsed task's rt_sched_exit() picks the next), the entries below the
 * count it acquires: the count is stored with release. Harness
 * bookkeeping, out of TSan (RT_NOTSAN, as the coverage layer's): the
 * appenders hand the baton on with no happens-before edge on purpose, so
 * that TSan sees the model's races; so an entry one holder wrote reaches
 * main's read of an abandoned run through a later holder's release,
 * which TSan cannot chain. In fact the hand-off is a futex wake, a full
 * barrier. Decisions past the capacity are not recorded (rt_explore.h
 * treats them as forced).
 */
static __attribute__((noinline)) RT_NOTSAN void trace_add(const struct rt_sched_decision *d)
{
	unsigned long n = RLX(T.nr);
	struct rt_sched_decision *e = &T.d[n];

	if (n >= T.cap)
		return;
	SET(e->me, d->me);
	SET(e->me_enabled, d->me_enabled);
	SET(e->enabled, d->enabled);
	SET(e->chosen, d->chosen);
	SET(e->site, d->site);
	SET(e->point, d->point);
	SET(e->point_cls, d->point_cls);
	SET(e->nr_objs, d->nr_objs);
	for (int i = 0; i < RT_SCHED_SEG_OBJS; i++)
		SET(e->objs[i], d->objs[i]);
	/* Release pairs with the acquire in rt_sched_trace(). */
	__atomic_store_n(&T.nr, n + 1, __ATOMIC_RELEASE);
}

/*
 * explore: the given decision while there is one (and its thread can
 * run), else the running thread if it can go on, else the next slot
 * after it that can. Those that can: the eligible ones, or when none is,
 * the waiters (as rt_sched_pick_next()).
 */
static int pick_explore(void)
{
	struct rt_sched_decision d = { .me = RLX(S.cur), .chosen = -1, .site = -1 };
	unsigned int ok = 0, wait = 0;
	unsigned long i = RLX(T.nr);

	for (int s = 0; s < S.nr && s < 32; s++) {
		int st = RLX(S.slots[s].state);

		if (st == SLOT_PARKED || st == SLOT_EXITED)
			continue;
		if (eligible(s))
			ok |= 1u << s;
		else
			wait |= 1u << s;
	}
	d.enabled = ok ? ok : wait;
	if (!d.enabled)
		return -1;
	if (!ok)
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);
	d.me_enabled = d.me >= 0 && (ok & (1u << d.me));
	d.point = -1;
	d.point_cls = -1;
	if (d.me >= 0 && d.me < S.nr) {
		d.point = RLX(S.slots[d.me].point_kind);
		d.point_cls = RLX(S.slots[d.me].point_cls);
	}
	if (d.me >= 0 && __atomic_load_n(&cover_enabled, __ATOMIC_RELAXED)) {
		struct cover_last l;

		cover_take_last(&l);
		d.site = l.site;
		d.nr_objs = l.nr_objs;
		for (int k = 0; k < l.nr_objs && k < RT_SCHED_SEG_OBJS; k++)
			d.objs[k] = l.objs[k];
	}
	if (i < S.cfg.nr_decisions && S.cfg.decisions[i] >= 0 && S.cfg.decisions[i] < 32 &&
	    (d.enabled & (1u << S.cfg.decisions[i]))) {
		d.chosen = S.cfg.decisions[i];
	} else if (d.me_enabled && (RLX(S.run_len) < EXPLORE_FAIR_RUN || d.enabled == 1u << d.me)) {
		d.chosen = d.me;
	} else {
		for (int k = 1; k <= S.nr && d.chosen < 0; k++) {
			int s = ((d.me < 0 ? -1 : d.me) + k) % S.nr;

			if (d.enabled & (1u << s))
				d.chosen = s;
		}
	}
	SET(S.run_len, d.chosen == d.me ? RLX(S.run_len) + 1 : 0u);
	trace_add(&d);
	return d.chosen;
}

int rt_sched_pick_next(void)
{
	int nr_ok = 0, nr_wait = 0, best = -1, best_wait = -1, k;
	bool pct = S.cfg.kind == RT_SCHED_PCT || S.cfg.kind == RT_SCHED_COVER, waiters;

	if (S.cfg.kind == RT_SCHED_VTIME) {
		uint64_t min_all;

		k = pick_vtime(&min_all);
		/*
		 * The run ends when every CPU still in it reached the virtual
		 * end, or (--ops) when no worker is left: kswapd alone would
		 * go on idling and scanning until main noticed, in real time.
		 */
		if (k >= 0 && !RLX(S.stop) && (rt_vtime_past_end(min_all) || !workers_left())) {
			SET(S.stop_step, RLX(S.steps));
			SET(S.stop, 1);
		}
		return k;
	}
	if (S.cfg.kind == RT_SCHED_EXPLORE)
		return pick_explore();

	for (int i = 0; i < S.nr; i++) {
		int st = RLX(S.slots[i].state);
		long prio = RLX(S.slots[i].prio);

		if (st == SLOT_PARKED || st == SLOT_EXITED)
			continue;
		if (eligible(i)) {
			nr_ok++;
			if (best < 0 || prio > RLX(S.slots[best].prio))
				best = i;
		} else {
			nr_wait++;
			if (best_wait < 0 || prio > RLX(S.slots[best_wait].prio))
				best_wait = i;
		}
	}
	if (!nr_ok && !nr_wait)
		return -1;
	waiters = !nr_ok;
	if (waiters)
		nanosleep(&(struct timespec){ 0, 20000 }, NULL);
	if (pct)
		return waiters ? best_wait : best;
	/* random: the k-th thread of the class chosen from. */
	k = (int)(sched_rand() % (uint64_t)(waiters ? nr_wait : nr_ok));
	for (int i = 0; i < S.nr; i++) {
		int st = RLX(S.slots[i].state);

		if (st == SLOT_PARKED || st == SLOT_EXITED || eligible(i) == waiters)
			continue;
		if (k-- == 0)
			return i;
	}
	return -1;
}

/* The running thread drops below everyone (a PCT change point). */
static void demote(int me)
{
	SET(S.slots[me].prio, RLX(S.low_prio));
	SET(S.low_prio, RLX(S.low_prio) - 1);
}

/*
 * cover: a change point where the coverage says a window worth holding
 * open was just opened (rt_sched.h). Reads only the running thread's own
 * last event, so it is a function of the run so far.
 */
void rt_sched_cover_steer(int me)
{
	struct cover_last l;
	bool drop = false;

	cover_take_last(&l);
	/*
	 * Switch points in a row with no site between them: the thread
	 * spins (a TLB flush waiting for another CPU's access, ...) for
	 * something a lower-priority thread must do. Drop it, or PCT's
	 * priorities would let it spin for good.
	 */
	if (l.site < 0) {
		SET(S.slots[me].idle, RLX(S.slots[me].idle) + 1);
		if (RLX(S.slots[me].idle) >= 4)
			drop = true;
	} else {
		SET(S.slots[me].idle, 0u);
	}
	if (l.site >= 0 && l.site < COVER_MAX_SITES) {
		unsigned int *tries = &S.site_tries[l.site];

		if (l.new_pair)
			SET(*tries, 0u);
		if (l.uncovered > 0 &&
		    sched_rand() % (uint64_t)(2 + RLX(*tries) / 8) == 0) {
			SET(*tries, RLX(*tries) + 1);
			drop = true;
		}
	}
	if (!drop && sched_rand() % 64 == 0)
		drop = true;
	if (drop) {
		SET(S.slots[me].idle, 0u);
		demote(me);
		SET(S.cover_drops, RLX(S.cover_drops) + 1);
	}
}

/* pct, cover: count @me's decisions in its operation; drop it at the bound. */
void rt_sched_tick(int me)
{
	unsigned long n = RLX(S.slots[me].op_steps) + 1;

	if (n > RLX(S.longest_op))
		SET(S.longest_op, n);
	if (n >= PCT_TICK_STEPS) {
		demote(me);
		SET(S.tick_drops, RLX(S.tick_drops) + 1);
		n = 0;
	}
	SET(S.slots[me].op_steps, n);
}
