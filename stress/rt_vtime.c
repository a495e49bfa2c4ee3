// SPDX-License-Identifier: MIT
/*
 * --sched vtime (rt_vtime.h): virtual clocks, the lock bookkeeping of a
 * discrete-event schedule, and what it measured. What a segment costs is
 * rt_vtime_model.c's (rt_vtime-internal.h).
 *
 * Only the baton holder of rt_sched.c runs, so one thread at a time
 * changes this state; as in rt_sched.c every shared field is still
 * accessed with relaxed atomics, because the hand-off gives TSan no
 * happens-before edge (on purpose) and a plain access would be a race in
 * its eyes. The held-lock list of a CPU is its own (touched only by its
 * thread).
 */
#include "rt_vtime-internal.h"

#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "task.h"

#define RLX(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SET(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define ADD(x, v)	SET(x, RLX(x) + (v))

#define NR_HELD		32
/*
 * A waiter not woken by a release re-checks after a virtual backoff,
 * 1 us doubling to 64 us: a release the hooks do not see (a bit cleared
 * without a lock operation, a holder outside the run) costs at most that
 * much extra wait, and no CPU is ever left behind while others run on.
 */
#define BACKOFF_MIN_NS	1000
#define BACKOFF_MAX_NS	64000

struct held {
	const void *lock;
	int cls;
	uint64_t since;
};

struct vcpu {
	uint64_t clock;		/* virtual ns */
	uint64_t seq;		/* tie-break: when it last became ready */
	const void *wait_lock;	/* SP_WAIT: what it waits for (NULL: unnamed) */
	int wait_cls;
	int waiting;		/* stuck at SP_WAIT, not woken yet */
	int woken;		/* a release woke it: eligible again */
	uint64_t wait_start;	/* clock when this stint began */
	uint64_t wait_until;	/* not woken by then: re-check anyway */
	uint64_t backoff;	/* the re-check interval, doubled per stint */
	uint64_t ops, last_op;	/* worker ops done by the end, clock of the last */
	uint64_t xfer;		/* --vtime-transfer: owed by this segment, charged at its end */
	int exited;
	/* Owner only: locks taken and not yet released, with their time. */
	struct held held[NR_HELD];
	unsigned int held_next;
} ____cacheline_aligned;

static struct {
	struct rt_vtime_config cfg;
	int nr;
	struct vcpu *cpu;
	uint64_t seq;
	unsigned long outside, outside_seen;
	uint64_t busy, idle, other_wait, points;
	struct rt_vtime_class cls[LOCK_CLASS_MAX];
	uint64_t elapsed;	/* set at the virtual end */
	int ended;
	struct rt_vtime_result last;
	/*
	 * --vtime-transfer: which CPU wrote each line last (open addressing,
	 * by line number + 1: 0 is a free entry), and the lines that moved,
	 * by kind (their sum is the result's transfers).
	 */
	struct owner { uintptr_t line; int cpu; } *owners;
	uint64_t by_kind[LINE_NR_KINDS], untracked;
} V;

#define NR_OWNERS	(1u << 20)

/* The entry of @line (a free one if none yet); NULL when the table is full. */
static struct owner *owner_of(uintptr_t line)
{
	uint64_t h = (uint64_t)line * 0x9e3779b97f4a7c15ULL;

	for (unsigned int i = 0, k = (unsigned int)(h >> 44); i < 64; i++, k++) {
		struct owner *o = &V.owners[k % NR_OWNERS];
		uintptr_t l = RLX(o->line);

		if (l == line || !l)
			return o;
	}
	return NULL;
}

/*
 * CPU @me writes the line of @addr, which holds @kind: when
 * another CPU wrote it last, the line comes over, and the segment owes
 * the transfer. A line first written by no worker CPU (set-up, or a
 * thread outside the schedule) moves to nobody's account.
 */
static void line_written(int me, const void *addr, enum line_kind kind)
{
	uintptr_t line = (uintptr_t)addr / SMP_CACHE_BYTES + 1;
	struct owner *o = owner_of(line);

	if (!o) {
		ADD(V.untracked, 1);
		return;
	}
	if (RLX(o->line) == line && RLX(o->cpu) != me) {
		ADD(V.cpu[me].xfer, V.cfg.transfer_ns);
		ADD(V.by_kind[kind], 1);
	}
	SET(o->line, line);
	SET(o->cpu, me);
}

void rt_vtime_line(int me, const void *addr, enum line_kind kind)
{
	if (V.owners)
		line_written(me, addr, kind);
}

const char *rt_vtime_cost_name(enum rt_vtime_cost c)
{
	switch (c) {
	case RT_VTIME_MODEL: return "model";
	case RT_VTIME_MEASURED: return "measured";
	case RT_VTIME_EXPLICIT: return "explicit";
	}
	return "?";
}

int rt_vtime_cost_by_name(const char *name)
{
	for (int c = RT_VTIME_MODEL; c <= RT_VTIME_EXPLICIT; c++)
		if (!strcmp(name, rt_vtime_cost_name((enum rt_vtime_cost)c)))
			return c;
	return -1;
}

bool rt_vtime_class_sleeps(int cls)
{
	return cls == LOCK_CLASS_I_SEM || cls == LOCK_CLASS_MMAP_SEM ||
	       cls == LOCK_CLASS_PG_LOCKED || cls == LOCK_CLASS_I_SHARED_SEM;
}

void rt_vtime_init(const struct rt_vtime_config *cfg, int nr)
{
	free(V.cpu);
	free(V.owners);
	memset(&V, 0, sizeof(V));
	V.cfg = *cfg;
	V.nr = nr;
	V.cpu = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*V.cpu) * (size_t)nr);
	memset(V.cpu, 0, sizeof(*V.cpu) * (size_t)nr);
	rt_vtime_model_init(cfg);
	if (cfg->transfer_ns)
		V.owners = rt_calloc(NR_OWNERS, sizeof(*V.owners));
}

void rt_vtime_fini(void)
{
	struct rt_vtime_result *r = &V.last;

	memset(r, 0, sizeof(*r));
	r->on = true;
	r->cost = V.cfg.cost;
	r->nr_cpus = V.nr;
	r->nr_workers = V.cfg.nr_workers;
	for (int i = 0; i < V.nr; i++) {
		struct vcpu *v = &V.cpu[i];

		if (RLX(v->clock) > r->max_clock_ns)
			r->max_clock_ns = RLX(v->clock);
		if (i < V.cfg.nr_workers) {
			r->ops += RLX(v->ops);
			if (!V.ended && RLX(v->last_op) > r->elapsed_ns)
				r->elapsed_ns = RLX(v->last_op);
		}
	}
	if (V.ended)
		r->elapsed_ns = RLX(V.elapsed);
	r->busy_ns = RLX(V.busy);
	r->idle_ns = RLX(V.idle);
	r->other_wait_ns = RLX(V.other_wait);
	r->points = RLX(V.points);
	for (int k = 0; k < LINE_NR_KINDS; k++) {
		r->transfers_by_kind[k] = RLX(V.by_kind[k]);
		r->transfers += r->transfers_by_kind[k];
	}
	r->transfers_untracked = RLX(V.untracked);
	for (int c = 0; c < LOCK_CLASS_MAX; c++) {
		r->cls[c].wait_spin_ns = RLX(V.cls[c].wait_spin_ns);
		r->cls[c].wait_sleep_ns = RLX(V.cls[c].wait_sleep_ns);
		r->cls[c].hold_ns = RLX(V.cls[c].hold_ns);
		r->cls[c].waits = RLX(V.cls[c].waits);
		r->cls[c].holds = RLX(V.cls[c].holds);
	}
	rt_vtime_model_fini();
}

void rt_vtime_result_read(struct rt_vtime_result *r)
{
	*r = V.last;
}

double rt_vtime_ops_per_sec(const struct rt_vtime_result *r)
{
	return r->elapsed_ns ? (double)r->ops * 1e9 / (double)r->elapsed_ns : 0.0;
}

int rt_vtime_dominant_wait(const struct rt_vtime_result *r, double *share)
{
	uint64_t best = 0;
	int top = -1;

	for (int c = 0; c < LOCK_CLASS_MAX; c++) {
		uint64_t w = r->cls[c].wait_spin_ns + r->cls[c].wait_sleep_ns;

		if (w > best) {
			best = w;
			top = c;
		}
	}
	if (share)
		*share = r->elapsed_ns && r->nr_cpus ?
			 (double)best / ((double)r->elapsed_ns * r->nr_cpus) : 0.0;
	return top;
}

/* ---- the points ---- */

/*
 * The part of [a, b) inside the measured window [0, end): what a CPU
 * does after the virtual end (finishing its operation, waiting for a
 * lock to do so) is not part of the figures.
 */
static uint64_t in_window(uint64_t a, uint64_t b)
{
	uint64_t e = V.cfg.end_ns ? V.cfg.end_ns : UINT64_MAX;

	if (b > e)
		b = e;
	if (a > b)
		a = b;
	return b - a;
}

static struct held *held_find(struct vcpu *v, const void *lock)
{
	for (int i = 0; i < NR_HELD; i++)
		if (v->held[i].lock == lock)
			return &v->held[i];
	return NULL;
}

/*
 * A lock is about to be taken at the current clock. A trylock that then
 * fails leaves its entry behind: entries are reused oldest first, and a
 * later acquisition of the same lock overwrites it.
 */
static void held_note(struct vcpu *v, const void *lock, int cls, uint64_t t)
{
	struct held *h = held_find(v, lock);

	if (!h) {
		h = &v->held[v->held_next % NR_HELD];
		v->held_next++;
	}
	*h = (struct held){ lock, cls, t };
}

/* Wake the CPUs waiting for @lock (or for an unnamed event): released at @t. */
static void wake_waiters(const void *lock, uint64_t t)
{
	for (int i = 0; i < V.nr; i++) {
		struct vcpu *w = &V.cpu[i];

		if (!RLX(w->waiting) || RLX(w->wait_lock) != lock)
			continue;
		if (RLX(w->clock) < t)
			SET(w->clock, t);
		SET(w->waiting, 0);
		SET(w->woken, 1);
	}
}

void rt_vtime_point(int me, enum sched_point_kind kind, const void *lock, int cls)
{
	struct vcpu *v = &V.cpu[me];
	uint64_t c = rt_vtime_segment_cost(me, kind, cls) + RLX(v->xfer), t;

	SET(v->xfer, 0);
	if (cls >= LOCK_CLASS_MAX)
		cls = -1;
	t = RLX(v->clock) + c;
	ADD(V.busy, in_window(t - c, t));
	SET(v->clock, t);
	ADD(V.points, 1);
	SET(V.seq, RLX(V.seq) + 1);
	if (kind != SP_WAIT)
		SET(v->backoff, 0);
	switch (kind) {
	case SP_LOCK:
		if (lock)
			held_note(v, lock, cls, t);
		/* Its line comes over from the CPU that wrote it last. */
		if (lock && V.owners)
			line_written(me, lock, LINE_LOCK);
		SET(v->seq, RLX(V.seq));
		break;
	case SP_WAIT: {
		/* Ready again when what it waits for is released, or to re-check. */
		uint64_t b = RLX(v->backoff);

		b = !b ? BACKOFF_MIN_NS : b * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : b * 2;
		SET(v->backoff, b);
		SET(v->wait_lock, lock);
		SET(v->wait_cls, cls);
		SET(v->wait_start, t);
		SET(v->wait_until, t + b);
		SET(v->woken, 0);
		SET(v->waiting, 1);
		SET(v->seq, RLX(V.seq));
		return;
	}
	case SP_UNLOCK:
		/* Whoever began waiting since the release point: it is free now. */
		wake_waiters(lock, t);
		SET(v->seq, RLX(V.seq));
		break;
	case SP_RELEASE: {
		/*
		 * The release happens now, at t: the store follows before this
		 * CPU's next point, so the waiters woken here (at t or later)
		 * find the lock free. At equal clocks a release comes first: a
		 * hold is [a, u).
		 */
		struct held *h = lock ? held_find(v, lock) : NULL;

		if (h && cls >= 0) {
			ADD(V.cls[cls].hold_ns, in_window(h->since, t));
			ADD(V.cls[cls].holds, 1);
			h->lock = NULL;
		}
		wake_waiters(lock, t);
		SET(v->seq, 0);
		break;
	}
	default:
		SET(v->seq, RLX(V.seq));
		break;
	}
}

void rt_vtime_resume(int me)
{
	struct vcpu *v = &V.cpu[me];

	if (RLX(v->woken) || RLX(v->waiting)) {
		/* The wait is over (woken, or let through to re-check). */
		uint64_t w = in_window(RLX(v->wait_start), RLX(v->clock));
		int cls = RLX(v->wait_cls);
		const void *lock = RLX(v->wait_lock);

		if (cls >= 0) {
			if (rt_vtime_class_sleeps(cls))
				ADD(V.cls[cls].wait_sleep_ns, w);
			else
				ADD(V.cls[cls].wait_spin_ns, w);
			ADD(V.cls[cls].waits, 1);
		} else {
			ADD(V.other_wait, w);
		}
		/* A lock taken after the wait is held from now on. */
		if (lock) {
			struct held *h = held_find(v, lock);

			if (h)
				h->since = RLX(v->clock);
		}
		SET(v->woken, 0);
		SET(v->waiting, 0);
	}
	rt_vtime_segment_start();
}

bool rt_vtime_woken(int i)
{
	return RLX(V.cpu[i].woken) != 0;
}

uint64_t rt_vtime_clock(int i)
{
	return RLX(V.cpu[i].clock);
}

uint64_t rt_vtime_next(int i)
{
	const struct vcpu *v = &V.cpu[i];

	return RLX(v->waiting) ? RLX(v->wait_until) : RLX(v->clock);
}

void rt_vtime_recheck(int i)
{
	struct vcpu *v = &V.cpu[i];

	if (!RLX(v->waiting))
		return;
	SET(v->clock, RLX(v->wait_until));
	SET(v->waiting, 0);
	SET(v->woken, 1);
}

uint64_t rt_vtime_seq(int i)
{
	return RLX(V.cpu[i].seq);
}

void rt_vtime_wake_all(uint64_t at)
{
	for (int i = 0; i < V.nr; i++) {
		struct vcpu *w = &V.cpu[i];

		if (!RLX(w->waiting))
			continue;
		if (RLX(w->clock) < at)
			SET(w->clock, at);
		SET(w->waiting, 0);
		SET(w->woken, 1);
	}
}

void rt_vtime_outside_release(void)
{
	__atomic_fetch_add(&V.outside, 1, __ATOMIC_RELAXED);
}

bool rt_vtime_outside_pending(void)
{
	unsigned long o = __atomic_load_n(&V.outside, __ATOMIC_RELAXED);

	if (o == RLX(V.outside_seen))
		return false;
	SET(V.outside_seen, o);
	return true;
}

void rt_vtime_exit(int me)
{
	SET(V.cpu[me].exited, 1);
}

bool rt_vtime_past_end(uint64_t clock)
{
	if (!V.cfg.end_ns || clock < V.cfg.end_ns)
		return false;
	if (!RLX(V.ended)) {
		SET(V.ended, 1);
		SET(V.elapsed, V.cfg.end_ns);
	}
	return true;
}

/* ---- for the engine and the tests ---- */

static struct vcpu *my_vcpu(void)
{
	int me = current->sched_slot;

	return me >= 0 && V.cpu && me < V.nr ? &V.cpu[me] : NULL;
}

void rt_vtime_charge(uint64_t ns)
{
	struct vcpu *v = my_vcpu();

	if (!v)
		return;
	ADD(V.busy, in_window(RLX(v->clock), RLX(v->clock) + ns));
	SET(v->clock, RLX(v->clock) + ns);
}

void rt_vtime_idle(uint64_t ns)
{
	struct vcpu *v = my_vcpu();

	if (!v)
		return;
	ADD(V.idle, in_window(RLX(v->clock), RLX(v->clock) + ns));
	SET(v->clock, RLX(v->clock) + ns);
}

void rt_vtime_op_done(void)
{
	int me = current->sched_slot;
	struct vcpu *v = my_vcpu();
	uint64_t t;

	if (!v || me >= V.cfg.nr_workers)
		return;
	t = RLX(v->clock);
	/* Operations that end past the virtual end do not count. */
	if (V.cfg.end_ns && t > V.cfg.end_ns)
		return;
	ADD(v->ops, 1);
	SET(v->last_op, t);
}
