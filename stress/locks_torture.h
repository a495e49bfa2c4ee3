/* SPDX-License-Identifier: MIT */
/*
 * The lock torture (locks_torture.c): worker threads run the VM's lock
 * paths over emulated mms, files and pages, and mutual exclusion is
 * checked on every lock at the end. `rmaptorture locks`
 * (stress/cli/cmd_locks.c) parses its options and prints what it found;
 * the per-class lock statistics are core's (lock_stats_read()).
 */
#ifndef RT_STRESS_LOCKS_TORTURE_H
#define RT_STRESS_LOCKS_TORTURE_H

#include <stdbool.h>
#include <stdint.h>

/* What one torture runs. */
struct rt_locks_cfg {
	int threads;		/* worker threads: CPUs */
	double seconds;
	unsigned long pages;	/* emulated memory */
	int mms;		/* emulated mms: mmap_sem, page_table_lock */
	int files;		/* emulated files: i_shared_sem */
	uint64_t seed;		/* worker i's PRNG is derived from it and i */
	bool lockdep;		/* the validator on (the statistics always are) */
	bool progress;		/* a live line on stderr while it runs */
	bool (*stop)(void);	/* polled by main: true ends the run early; NULL: never */
};

/* The lock paths the workers take, and how often (RT_LOCK_PATH_MIX). */
enum rt_lock_path {
	RT_LOCK_PATH_FAULT,
	RT_LOCK_PATH_MMAP,
	RT_LOCK_PATH_TRUNCATE,
	RT_LOCK_PATH_RECLAIM,
	RT_LOCK_NR_PATHS
};

#define RT_LOCK_PATH_MIX	"fault 55%, mmap 15%, truncate 10%, reclaim 20%"

/* "fault", "mmap", "truncate", "reclaim" */
extern const char *const rt_lock_path_names[RT_LOCK_NR_PATHS];

/* What the workers did, summed after join, and what the check found. */
struct rt_locks_result {
	double elapsed;
	unsigned long total_ops, path_ops[RT_LOCK_NR_PATHS];
	/* reclaim's trylock fallbacks: i_shared_sem, page_table_lock, PG_locked */
	unsigned long fb_ishared, fb_ptl, fb_pagelock;
	int bad;		/* guarded counters that differ from the tallies */
	int nr_reports;		/* lockdep and VM reports (printed on stderr as they come) */
};

/**
 * rt_locks_torture() - run the lock torture and check mutual exclusion
 * @cfg: what to run
 * @res: receives what the workers did and what the check found
 *
 * Sets up the emulated memory (mem_init()), the mms, files and their
 * guarded counters; starts cfg->threads workers that take the fault
 * (mmap_sem(read) -> page_table_lock -> PG_chainlock -> lru_lock), mmap
 * (mmap_sem(write) -> i_shared_sem -> page_table_lock), truncate
 * (PG_locked -> i_shared_sem -> page_table_lock) and reclaim
 * (TestSetPageLocked -> PG_chainlock, then only trylocks against the
 * order) paths until cfg->seconds pass or cfg->stop() says so; joins
 * them, compares every guarded counter with the workers' private
 * tallies, and releases everything (mem_exit()). Lockdep and VM reports
 * go to stderr as they are made, and are counted.
 *
 * Context: main, one torture at a time, no emulated memory set up; the
 * workers attach as tasks "cpu-N". The lock statistics the workers made
 * stay readable (lock_stats_read()) after return.
 */
void rt_locks_torture(const struct rt_locks_cfg *cfg, struct rt_locks_result *res);

#endif /* RT_STRESS_LOCKS_TORTURE_H */
