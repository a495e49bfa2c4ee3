// SPDX-License-Identifier: MIT
/*
 * The deterministic scheduler (sched.h).
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

#include "cover.h"
#include "die.h"
#include "perturb.h"
#include "random.h"
#include "task.h"

enum slot_state {
	SLOT_RUNNABLE,
	SLOT_WAITING,		/* for a lock: runnable again after a release */
	SLOT_PARKED,		/* at an operation boundary, for the audit */
	SLOT_EXITED,
};

struct slot {
	unsigned int word;	/* futex: bumped at every hand-off to this slot */
	int state;		/* enum slot_state; baton holder */
	unsigned long wait_epoch;	/* S.epoch when it started waiting */
	long prio;		/* pct: higher runs first */
	unsigned int idle;	/* cover: decisions in a row with no coverage event */
	unsigned long op_steps;	/* pct, cover: its decisions since its last operation boundary */
	int point_kind;		/* baton holder: the switch point it stands at (enum */
	int point_cls;		/*   sched_point_kind) and its lock class, or -1 */
} ____cacheline_aligned;

#define RLX(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SET(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

static struct {
	struct rt_sched_config cfg;
	int nr;
	struct slot *slots;
	int cur;			/* the slot holding the baton */
	unsigned int entered;		/* futex: threads that called rt_sched_enter() */
	unsigned int exits;		/* futex, release/acquire: rt_sched_exit() calls */
	unsigned long steps;		/* decisions taken */
	unsigned long epoch;		/* lock releases */
	uint64_t rng;
	unsigned long *change;		/* pct: sorted change points */
	int nr_change, next_change;
	long low_prio;			/* pct, cover: next priority below everyone */
	unsigned int *site_tries;	/* cover: drops at each site since its last new pair */
	unsigned long cover_drops;	/* cover: change points taken */
	unsigned long tick_drops;	/* pct, cover: threads dropped by PCT_TICK_STEPS */
	unsigned long longest_op;	/* pct, cover: most decisions one thread took in one operation */
	int parking;			/* an audit is due */
	int stop;			/* decided: the run ends */
	int request_stop;		/* main asked for the end */
	unsigned long stop_step;
	unsigned long park_gen;		/* acquire/release: audits done */
	void (*audit)(void *);
	void *audit_arg;
	unsigned int run_len;		/* explore: decisions in a row the holder kept the CPU */
} S;

/*
 * explore: the decisions of the last schedule (baton holder writes; main
 * reads after the join). Outside S, so that rt_sched_fini() keeps it.
 */
static struct {
	struct rt_sched_decision *d;
	unsigned long nr, cap;
} T;

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

static uint64_t sched_rand(void)
{
	uint64_t r = RLX(S.rng);
	uint64_t v = rt_rand(&r);

	SET(S.rng, r);
	return v;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static bool sched_hook_fn_impl(enum sched_point_kind kind, const void *lock, int cls);
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
}

const struct rt_sched_decision *rt_sched_trace(unsigned long *nr)
{
	*nr = __atomic_load_n(&T.nr, __ATOMIC_ACQUIRE);
	return T.d;
}

void rt_sched_fini(void)
{
	/* Every thread of the run has been joined: nobody looks at S any more. */
	__atomic_store_n(&sched_hook, NULL, __ATOMIC_RELAXED);
	if (S.cfg.kind == RT_SCHED_VTIME)
		rt_vtime_fini();
	free(S.slots);
	free(S.change);
	free(S.site_tries);
	S.slots = NULL;
	S.change = NULL;
	S.site_tries = NULL;
}

static bool eligible(int i)
{
	struct slot *s = &S.slots[i];
	int st = RLX(s->state);

	if (S.cfg.kind == RT_SCHED_VTIME)
		return st == SLOT_RUNNABLE || (st == SLOT_WAITING && rt_vtime_woken(i));
	return st == SLOT_RUNNABLE || (st == SLOT_WAITING && RLX(s->wait_epoch) != RLX(S.epoch));
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
 * the waiters (as pick_next()).
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

static int pick_next(void)
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
static void cover_steer(int me)
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
static void tick(int me)
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
		cover_steer(me);
	if (me >= 0 && (S.cfg.kind == RT_SCHED_PCT || S.cfg.kind == RT_SCHED_COVER))
		tick(me);
	next = pick_next();
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
	next = pick_next();
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
