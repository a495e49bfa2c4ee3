// SPDX-License-Identifier: MIT
/*
 * --sched vtime (rt_vtime.h): virtual clocks, segment costs, the lock
 * bookkeeping of a discrete-event schedule, and what it measured.
 *
 * Only the baton holder of rt_sched.c runs, so one thread at a time
 * changes this state; as in rt_sched.c every shared field is still
 * accessed with relaxed atomics, because the hand-off gives TSan no
 * happens-before edge (on purpose) and a plain access would be a race in
 * its eyes. The held-lock list of a CPU and its segment start are its
 * own (thread-local or touched only by its thread).
 */
#include "rt_vtime.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "rmap.h"
#include "task.h"
#include "workload.h"

#define RLX(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SET(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define ADD(x, v)	SET(x, RLX(x) + (v))

/* The model's keys: operation in flight, point kind, lock class. */
#define OP_SHRINK	WL_NR_OPS		/* kswapd's shrink_zone */
#define OP_OTHER	(WL_NR_OPS + 1)		/* none, audit, a test */
#define NR_OPK		(WL_NR_OPS + 2)
#define NR_KINDS	8			/* > every enum sched_point_kind */
#define NR_CLS		(LOCK_CLASS_MAX + 1)	/* class + 1: 0 is "no lock" */
#define MODEL_DEFAULT_NS	100		/* no calibration at all */
#define CALIB_MAX_NS	1000000			/* a longer segment is an outlier */
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
	uint64_t xfer;		/* --vtime-transfer: owed to the next segment */
	int exited;
	/* Owner only: locks taken and not yet released, with their time. */
	struct held held[NR_HELD];
	unsigned int held_next;
} ____cacheline_aligned;

struct cost_key {
	uint64_t sum, n;
};

static struct {
	struct rt_vtime_config cfg;
	int nr;
	struct vcpu *cpu;
	uint64_t seq;
	unsigned long outside, outside_seen;
	uint64_t busy, idle, other_wait, points;
	struct rt_vtime_class cls[LOCK_CLASS_MAX];
	uint64_t elapsed;	/* set at the virtual end */
	uint64_t clock_cost;	/* measured: what reading the clock adds to a segment */
	int ended;
	struct cost_key *calib;	/* measured + calibrate: [design][op][kind][cls] */
	uint32_t *model;	/* [op][kind][cls] for cfg.design, fallbacks folded in */
	struct rt_vtime_result last;
	/* --vtime-transfer: which CPU held each lock last (open addressing). */
	struct owner { const void *lock; int cpu; } *owners;
	uint64_t transfers;
} V;

#define NR_OWNERS	(1u << 18)

/* The entry of @lock (a free one if none yet); NULL when the table is full. */
static struct owner *owner_of(const void *lock)
{
	uint64_t h = (uint64_t)(uintptr_t)lock * 0x9e3779b97f4a7c15ULL;

	for (unsigned int i = 0, k = (unsigned int)(h >> 46); i < 64; i++, k++) {
		struct owner *o = &V.owners[k % NR_OWNERS];

		if (o->lock == lock || !o->lock)
			return o;
	}
	return NULL;
}

static _Thread_local uint64_t seg_start;	/* measured: thread CPU time */
static _Thread_local const char *op_ptr;	/* cache of the op name's index */
static _Thread_local int op_idx = OP_OTHER;

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

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The model's operation index of the name @op (a static string). */
static int op_index_of(const char *op)
{
	if (!op)
		return OP_OTHER;
	if (op == op_ptr)
		return op_idx;
	op_ptr = op;
	op_idx = OP_OTHER;
	for (int k = 0; k < WL_NR_OPS; k++)
		if (!strcmp(op, wl_op_name((enum wl_op)k)))
			op_idx = k;
	if (!strcmp(op, "shrink_zone"))
		op_idx = OP_SHRINK;
	return op_idx;
}

static const char *op_index_name(int i)
{
	return i < WL_NR_OPS ? wl_op_name((enum wl_op)i) : i == OP_SHRINK ? "shrink_zone" : "other";
}

static const char *const kind_names[NR_KINDS] = {
	[SP_LOCK] = "lock", [SP_UNLOCK] = "unlock", [SP_WAIT] = "wait", [SP_YIELD] = "yield",
	[SP_RELEASE] = "release",
};

static int kind_by_name(const char *s)
{
	for (int k = 0; k < NR_KINDS; k++)
		if (kind_names[k] && !strcmp(s, kind_names[k]))
			return k;
	return -1;
}

static size_t key3(int op, int kind, int cls1)
{
	return ((size_t)op * NR_KINDS + (size_t)kind) * NR_CLS + (size_t)cls1;
}

/*
 * The model for design @d: every (op, kind, class) seen in calibration
 * gets its mean; an unseen one the mean of its (kind, class) over all
 * operations, else of its kind, else the design's overall mean.
 */
static void model_build(int d)
{
	static struct cost_key by_kc[NR_KINDS][NR_CLS], by_k[NR_KINDS], all;
	size_t n = key3(NR_OPK, 0, 0);
	struct cost_key *exact = rt_calloc(n, sizeof(*exact));

	memset(by_kc, 0, sizeof(by_kc));
	memset(by_k, 0, sizeof(by_k));
	memset(&all, 0, sizeof(all));
	V.model = rt_calloc(n, sizeof(*V.model));
	for (int i = 0; i < rt_vtime_nr_cost_rows; i++) {
		const struct rt_vtime_cost_row *r = &rt_vtime_cost_rows[i];
		int op = OP_OTHER, kind = kind_by_name(r->kind), cls = -1;

		if (strcmp(r->design, rmap_mode_name((enum rmap_mode)d)) || kind < 0)
			continue;
		for (int k = 0; k < NR_OPK; k++)
			if (!strcmp(r->op, op_index_name(k)))
				op = k;
		if (strcmp(r->cls, "-")) {
			cls = lock_class_by_name(r->cls);
			if (cls < 0)
				continue;
		}
		exact[key3(op, kind, cls + 1)].sum += r->sum_ns;
		exact[key3(op, kind, cls + 1)].n += r->count;
		by_kc[kind][cls + 1].sum += r->sum_ns;
		by_kc[kind][cls + 1].n += r->count;
		by_k[kind].sum += r->sum_ns;
		by_k[kind].n += r->count;
		all.sum += r->sum_ns;
		all.n += r->count;
	}
	for (int op = 0; op < NR_OPK; op++)
		for (int k = 0; k < NR_KINDS; k++)
			for (int c = 0; c < NR_CLS; c++) {
				const struct cost_key *e = &exact[key3(op, k, c)];

				if (!e->n)
					e = &by_kc[k][c];
				if (!e->n)
					e = &by_k[k];
				if (!e->n)
					e = &all;
				V.model[key3(op, k, c)] = e->n ? (uint32_t)(e->sum / e->n) :
							 MODEL_DEFAULT_NS;
			}
	free(exact);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * A segment's measured cost spans the end of one clock read and the start
 * of the next: the same as two reads back to back. Their median is taken
 * off every segment (CLOCK_THREAD_CPUTIME_ID is a system call, a few
 * hundred ns where a segment's own work is often less).
 */
static uint64_t clock_read_cost(void)
{
	enum { N = 1001 };
	uint64_t d[N], prev = thread_cpu_ns();

	for (int i = 0; i < N; i++) {
		uint64_t now = thread_cpu_ns();

		d[i] = now - prev;
		prev = now;
	}
	qsort(d, N, sizeof(d[0]), cmp_u64);
	return d[N / 2];
}

void rt_vtime_init(const struct rt_vtime_config *cfg, int nr)
{
	free(V.cpu);
	free(V.calib);
	free(V.model);
	free(V.owners);
	memset(&V, 0, sizeof(V));
	V.cfg = *cfg;
	V.nr = nr;
	V.cpu = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*V.cpu) * (size_t)nr);
	memset(V.cpu, 0, sizeof(*V.cpu) * (size_t)nr);
	if (cfg->cost == RT_VTIME_MODEL)
		model_build(cfg->design >= 0 && cfg->design < RMAP_NR_MODES ? cfg->design : 0);
	if (cfg->cost == RT_VTIME_MEASURED)
		V.clock_cost = clock_read_cost();
	if (cfg->transfer_ns)
		V.owners = rt_calloc(NR_OWNERS, sizeof(*V.owners));
	if (cfg->cost == RT_VTIME_MEASURED && cfg->calibrate)
		V.calib = rt_calloc(key3(NR_OPK, 0, 0), sizeof(*V.calib));
}

/* Append the calibration of this run to cfg.calibrate: one row per key. */
static void calib_write(void)
{
	FILE *f = fopen(V.cfg.calibrate, "a");

	if (!f) {
		fprintf(stderr, "rmaptorture: --vtime-calibrate %s: %s\n", V.cfg.calibrate,
			strerror(errno));
		return;
	}
	for (int op = 0; op < NR_OPK; op++)
		for (int k = 0; k < NR_KINDS; k++)
			for (int c = 0; c < NR_CLS; c++) {
				const struct cost_key *e = &V.calib[key3(op, k, c)];

				if (e->n && kind_names[k])
					fprintf(f, "%s %s %s %s %llu %llu\n",
						rmap_mode_name((enum rmap_mode)V.cfg.design),
						op_index_name(op), kind_names[k],
						c ? lock_class_name(c - 1) : "-",
						(unsigned long long)e->sum, (unsigned long long)e->n);
			}
	fclose(f);
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
	r->transfers = RLX(V.transfers);
	for (int c = 0; c < LOCK_CLASS_MAX; c++) {
		r->cls[c].wait_spin_ns = RLX(V.cls[c].wait_spin_ns);
		r->cls[c].wait_sleep_ns = RLX(V.cls[c].wait_sleep_ns);
		r->cls[c].hold_ns = RLX(V.cls[c].hold_ns);
		r->cls[c].waits = RLX(V.cls[c].waits);
		r->cls[c].holds = RLX(V.cls[c].holds);
	}
	if (V.calib)
		calib_write();
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

static uint64_t segment_cost(int me, enum sched_point_kind kind, int cls)
{
	uint64_t c = 0;

	(void)me;
	switch (V.cfg.cost) {
	case RT_VTIME_MODEL:
		c = V.model[key3(op_index_of(current->op), kind < NR_KINDS ? (int)kind : 0,
				 cls + 1)];
		break;
	case RT_VTIME_MEASURED: {
		uint64_t now = thread_cpu_ns();

		c = now > seg_start + V.clock_cost ? now - seg_start - V.clock_cost : 0;
		if (V.calib && c <= CALIB_MAX_NS) {
			struct cost_key *e = &V.calib[key3(op_index_of(current->op),
						 kind < NR_KINDS ? (int)kind : 0, cls + 1)];

			e->sum += c;
			e->n++;
		}
		break;
	}
	case RT_VTIME_EXPLICIT:
		break;
	}
	return c;
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
	uint64_t c = segment_cost(me, kind, cls) + RLX(v->xfer), t;

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
		if (lock && V.owners) {
			/* Its line comes over from the CPU that held it last. */
			struct owner *o = owner_of(lock);

			if (o && o->lock == lock && o->cpu != me) {
				SET(v->xfer, V.cfg.transfer_ns);
				ADD(V.transfers, 1);
			}
			if (o) {
				o->lock = lock;
				o->cpu = me;
			}
		}
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
	if (V.cfg.cost == RT_VTIME_MEASURED)
		seg_start = thread_cpu_ns();
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
