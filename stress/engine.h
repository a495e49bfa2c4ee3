/* SPDX-License-Identifier: MIT */
/*
 * The engine: worker threads playing CPUs and reclaim threads playing
 * kswapd against one world of a scenario, in one rmap design; parking
 * them all for audits; a watchdog that turns a hang into a report; the
 * result of the run.
 */
#ifndef RT_STRESS_ENGINE_H
#define RT_STRESS_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "bug.h"
#include "rt_sched.h"
#include "lockdep.h"
#include "rmap.h"
#include "tlbflush.h"
#include "vmscan.h"
#include "workload.h"

/* kswapd's reclaim step (stress/engine.c's kswapd_step()) as an operation of explore's CPUs. */
#define RT_OP_KSWAPD		WL_NR_OPS
/* Operations in one CPU's fixed sequence (explore --ops write+munmap,fork). */
#define RT_FIXED_SEQ_MAX	4

/* The operations one of explore's CPUs runs, in order, once each. */
struct rt_fixed_seq {
	int nr;
	int ops[RT_FIXED_SEQ_MAX];	/* enum wl_op, or RT_OP_KSWAPD */
};

/* The name of a fixed operation: wl_op_name(), or "kswapd". */
const char *rt_fixed_op_name(int op);

/* A fixed operation by name (an operation kind, or "kswapd"); -1 if none. */
int rt_fixed_op_by_name(const char *name);

struct rt_run_config {
	const struct rt_scenario *scenario;
	enum rmap_mode mode;
	int threads;			/* workers */
	int reclaim_threads;
	double seconds;			/* 0: bounded by ops only */
	unsigned long ops;		/* 0: bounded by seconds only */
	uint64_t seed;
	struct wl_params params;	/* the scenario's, with overrides */
	double audit_every;		/* seconds; 0: audit at the end only */
	double watchdog;		/* seconds without progress = hang */
	int perturb;			/* 0 none .. 3 heavy */
	uint64_t long_hold_mask;	/* lock classes held longer */
	const bool *yield_filter;	/* by yield_point_names[] index; NULL: all */
	bool progress;			/* live line on stderr */
	const char *test_hang;		/* test-only: a class a worker holds forever */
	bool test_race;			/* test-only: workers race on a plain counter */
	bool test_spin;			/* test-only: worker 0 waits, lockless, for another's op */
	bool test_window;		/* test-only: a planted race that needs two preemptions */
	bool test_window_bug;		/* test-only: and it ends in a BUG (an oops), not a WARN */
	bool halt_on_failure;		/* end the run at the first report */
	/*
	 * End the run at the first report with this signature and abandon
	 * the model there, as after a hang (replay, minimize: what they look
	 * for is found). NULL: none.
	 */
	const char *halt_signature;
	uint32_t until_fallbacks;	/* by enum rmap_fallback_site: end the run once
					 * each of these fired (--seconds still bounds it) */
	/* Deterministic schedules (sched.h); kind RT_SCHED_FREE: real threads. */
	enum rt_sched_kind sched;
	int pct_depth;
	unsigned long pct_steps;
	unsigned long sched_steps;	/* stop after so many decisions; 0: none */
	unsigned long sched_audit_steps;	/* audit every so many; 0: at the end */
	/* --sched vtime: --seconds are virtual; the segment costs (rt_vtime.h). */
	enum rt_vtime_cost vtime_cost;
	const char *vtime_calibrate;	/* measured: append the segment costs here */
	uint64_t vtime_transfer_ns;	/* a lock's line moving between CPUs, ns */
	uint64_t inject_mask;		/* seeded bugs (core/inject.h) */
	/*
	 * explore: worker i runs the operations of fixed_ops[i] once each,
	 * in order, and leaves; a reclaim thread runs one kswapd step and
	 * leaves (NULL: workers pick by the scenario's weights, kswapd loops);
	 * --sched explore picks decisions[] in order, then goes on without
	 * preempting.
	 */
	const struct rt_fixed_seq *fixed_ops;
	const int *decisions;
	unsigned long nr_decisions;
	bool cover;			/* record interleaving coverage (on for sched cover) */
	/*
	 * With cover: record each CPU's sites only, no pairs (explore's own
	 * schedules: its pruning reads nothing else, and clearing a run's
	 * window and pair tables is a good part of a schedule's cost).
	 */
	bool cover_sites_only;
	/* Called at once for every report, in the reporting thread. */
	void (*on_report)(const struct vm_report *r, void *arg);
	void *on_report_arg;
};

#define RT_MAX_FAILURES	8
#define RT_MAX_THREADS	(1024 + 64)

struct rt_run_result {
	double elapsed;
	unsigned long ops;
	unsigned long ops_by_kind[WL_NR_OPS];
	unsigned long oom, skipped, corrupt;
	unsigned long audits, audit_violations;
	unsigned long reports[VM_REPORT_NR];
	int nr_failures;			/* stored below, first RT_MAX_FAILURES */
	struct vm_report failures[RT_MAX_FAILURES];
	unsigned long teardown_violations;
	bool hang, interrupted;
	bool oops;			/* a task hit BUG(): the model was abandoned */
	bool halted;			/* cfg->halt_signature reported: abandoned there */
	struct lock_class_stats locks[LOCK_CLASS_MAX];
	unsigned long fallbacks[FB_NR_SITES];
	struct reclaim_stats reclaim;
	struct tlb_stats tlb;		/* the emulated CPUs' TLBs and their flushes */
	struct rmap_bytes rmap_bytes;
	unsigned long mapped_pages_peak;
	int procs_end;
	/* Deterministic schedules: decisions taken, the one that stopped the run. */
	unsigned long sched_steps, stop_step;
	/* pct, cover: rt_sched_tick_drops() and rt_sched_longest_op(). */
	unsigned long tick_drops, longest_op;
	struct rt_vtime_result vtime;	/* --sched vtime: what the virtual run measured */
	/*
	 * Per thread (workers, then kswapds): operations done and a hash of
	 * their sequence (kind, result and, when scheduled, the decision at
	 * which each ended). Equal across two runs iff they did the same.
	 */
	int nr_threads;
	unsigned long thread_ops[RT_MAX_THREADS];
	uint64_t thread_hash[RT_MAX_THREADS];
};

/**
 * rt_run() - run once
 * @cfg: the run
 * @res: filled in
 *
 * After a hang (@res->hang) or a BUG (@res->oops) some task holds locks
 * that nobody will release: the run stops the other threads where it can,
 * collects what it measured and returns, without the audit and teardown
 * that would need those locks. The model is then abandoned: the caller
 * reports and leaves with _exit() (threads may still be stuck in it).
 * A report with @cfg->halt_signature (@res->halted) ends the run the same
 * way: what follows a seeded deadlock's report is a hang the watchdog
 * would take its whole period to call.
 *
 * Context: main; one run at a time.
 * Return: 0 clean, 1 a failure (in @res), 3 setup failed.
 */
int rt_run(const struct rt_run_config *cfg, struct rt_run_result *res);

/* Set by the SIGINT handler: stop, audit, report. */
extern volatile int rt_interrupted;

/* Total failures of a result (reports + audit + teardown + hang). */
unsigned long rt_result_failures(const struct rt_run_result *res);

#endif /* RT_STRESS_ENGINE_H */
