/* SPDX-License-Identifier: MIT */
/*
 * --sched vtime: the deterministic scheduler run as a discrete-event
 * simulation in virtual time, so that a 2-core machine gives the shape of
 * a 32-way box's scaling curves.
 *
 * Every thread of the run (worker CPU or kswapd) is an emulated CPU with a
 * virtual clock in nanoseconds. One thread runs at a time (rt_sched.c's
 * futex hand-off); at every scheduling point the running thread adds the
 * cost of what it did since its previous point to its own clock, and the
 * runnable thread with the smallest clock runs next (ties: the one that
 * has been ready longest, then the lowest slot). Every lock operation,
 * the release included (SP_RELEASE, before the store), is such a point,
 * so the real order of lock events is their virtual-time order: a lock
 * taken at virtual time t that another CPU holds until u makes the taker
 * wait (SP_WAIT) until the holder releases it at u, and its clock jumps
 * to u; a trylock at t fails exactly when another CPU's interval
 * [acquired, released) covers t. Spinning CPUs burn the wait, a CPU
 * waiting for a sleeping lock (semaphore, rwsem, page lock) runs nothing
 * else meanwhile: either way its clock moves to u; the two are accounted
 * apart.
 *
 * The cost of a segment (the code between two scheduling points):
 *  - model (the default): a table, per rmap design, operation in flight,
 *    kind of the point that ends the segment and lock class, of the mean
 *    thread CPU time of such segments, calibrated once with
 *    scripts/vtime-calibrate.sh on the project's machine
 *    (vtime-costs.tsv, made C at build time). The run is then a pure function of the seed and
 *    the options: --check-determinism passes, two machines agree, and a
 *    shared, loaded build machine's noise stays out of the figures.
 *  - measured: CLOCK_THREAD_CPUTIME_ID between the points (preemption by
 *    other processes is not counted; cache misses after a hand-off are).
 *    Closer to this machine's truth for the code as it is today, but
 *    every run differs and the hand-off's cold caches inflate it.
 * Both see nothing of what a real many-core box adds: cache-line
 * transfers between CPUs (a contended lock's line, mm->page_table_lock's
 * neighbours, page->flags bouncing) and memory bandwidth; see docs/numbers.md,
 * "Virtual time".
 */
#ifndef RT_STRESS_RT_VTIME_H
#define RT_STRESS_RT_VTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "cacheline.h"
#include "lockdep.h"
#include "perturb.h"

enum rt_vtime_cost {
	RT_VTIME_MODEL,		/* the calibrated table: deterministic */
	RT_VTIME_MEASURED,	/* thread CPU time between points */
	RT_VTIME_EXPLICIT,	/* tests: only rt_vtime_charge() advances a clock */
};

const char *rt_vtime_cost_name(enum rt_vtime_cost c);
int rt_vtime_cost_by_name(const char *name);	/* -1 if unknown */

struct rt_vtime_config {
	enum rt_vtime_cost cost;
	uint64_t end_ns;		/* stop when every CPU reached it; 0: never */
	int design;			/* enum rmap_mode, for the model's table */
	int nr_workers;			/* slots below are workers, the rest kswapds */
	const char *calibrate;		/* measured: append segment costs here; NULL */
	/*
	 * What the segment costs leave out: ns added for every cache line a
	 * CPU writes (a lock it takes, a list link, an atomic count or flag
	 * of a page, an inode or an mm: core/cacheline.h) that another CPU
	 * wrote last, the line moving over. 0: none (the default).
	 */
	uint64_t transfer_ns;
};

/*
 * Per lock class, in virtual nanoseconds, inside the measured window (up
 * to the virtual end: what CPUs do while finishing their operations after
 * it is left out, as it is from the operation count).
 */
struct rt_vtime_class {
	uint64_t wait_spin_ns, wait_sleep_ns;	/* waiting for it, by kind of lock */
	uint64_t hold_ns;			/* held (lock to release) */
	uint64_t waits, holds;			/* wait stints, completed holds */
};

struct rt_vtime_result {
	bool on;
	enum rt_vtime_cost cost;
	uint64_t elapsed_ns;		/* the virtual duration measured over */
	uint64_t ops;			/* worker operations done by then */
	uint64_t max_clock_ns;		/* the latest CPU at the end */
	uint64_t busy_ns;		/* all CPUs: segments charged */
	uint64_t idle_ns;		/* kswapd sleeps */
	uint64_t other_wait_ns;		/* waits with no lock named (TLB flush) */
	uint64_t points;		/* segments charged */
	uint64_t transfers;		/* --vtime-transfer: lines moved between CPUs */
	uint64_t transfers_by_kind[LINE_NR_KINDS];	/* of those, by what the line holds */
	uint64_t transfers_untracked;	/* writes the owner table had no room for */
	int nr_cpus, nr_workers;
	struct rt_vtime_class cls[LOCK_CLASS_MAX];
};

/*
 * The model's calibration (rt_vtime_costs.c, generated at build time from
 * vtime-costs.tsv, which scripts/vtime-calibrate.sh writes): the summed
 * thread CPU time and the number of segments per design, operation in
 * flight ("shrink_zone" for kswapd, "other" outside an operation), kind of
 * the point that ends the segment ("lock", "release", "unlock", "wait",
 * "yield") and lock class ("-": no lock).
 */
struct rt_vtime_cost_row {
	const char *design, *op, *kind, *cls;
	unsigned long long sum_ns, count;
};
extern const struct rt_vtime_cost_row rt_vtime_cost_rows[];
extern const int rt_vtime_nr_cost_rows;
extern const char rt_vtime_costs_source[];	/* how the table was made */

/* ---- for rt_sched.c (the baton holder calls these) ---- */

void rt_vtime_init(const struct rt_vtime_config *cfg, int nr);
void rt_vtime_fini(void);
/* Slot @me reached a point: charge its segment, do the lock bookkeeping. */
void rt_vtime_point(int me, enum sched_point_kind kind, const void *lock, int cls);
/* Slot @me writes the cache line of @addr (--vtime-transfer's pricing). */
void rt_vtime_line(int me, const void *addr, enum line_kind kind);
/* Slot @me runs again after its point (its wait, if any, is over). */
void rt_vtime_resume(int me);
/* Is slot @i, waiting for a lock, woken by a release since? */
bool rt_vtime_woken(int i);
/* Slot @i's clock and tie-break, for the pick: smaller runs first. */
uint64_t rt_vtime_clock(int i);
uint64_t rt_vtime_seq(int i);
/*
 * When slot @i can next do something: its clock, or for a waiter not yet
 * woken the time it re-checks (rt_vtime_recheck() moves it there).
 */
uint64_t rt_vtime_next(int i);
void rt_vtime_recheck(int i);
/* Nobody can run: let every waiter re-check (a holder outside the run). */
void rt_vtime_wake_all(uint64_t at);
/* A lock released outside the run (an RCU callback): waiters re-check. */
void rt_vtime_outside_release(void);
bool rt_vtime_outside_pending(void);
/* Slot @me leaves the run. */
void rt_vtime_exit(int me);
/* The virtual end was reached (the smallest clock, @clock, is past it). */
bool rt_vtime_past_end(uint64_t clock);

/* ---- for the engine and the tests ---- */

/* The calling thread of the run idles @ns virtual nanoseconds (kswapd's sleep). */
void rt_vtime_idle(uint64_t ns);
/* The calling thread of the run spends @ns virtual nanoseconds of work. */
void rt_vtime_charge(uint64_t ns);
/* A worker finished an operation. */
void rt_vtime_op_done(void);
/* What the last run measured (valid after rt_sched_fini()). */
void rt_vtime_result_read(struct rt_vtime_result *r);
/* Worker operations per virtual second. */
double rt_vtime_ops_per_sec(const struct rt_vtime_result *r);
/* The class that waited most (-1: none), and its share of all CPU time. */
int rt_vtime_dominant_wait(const struct rt_vtime_result *r, double *share);
/* Is a lock of class @cls a sleeping one (semaphore, rwsem, page lock)? */
bool rt_vtime_class_sleeps(int cls);

#endif /* RT_STRESS_RT_VTIME_H */
