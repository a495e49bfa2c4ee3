/* SPDX-License-Identifier: MIT */
/*
 * `rmaptorture run`'s options: struct rt_run_opts, the CLI's own (the
 * engine is given its struct rt_run_config), their parser (run_opts.c)
 * and the option table's lookups (run_opts_table.c), for `run` and the
 * commands that pass them on.
 */
#ifndef RT_STRESS_CLI_RUN_OPTS_H
#define RT_STRESS_CLI_RUN_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "engine.h"

#if RT_TSAN
# define RT_WATCHDOG_DEFAULT 120.0	/* TSan runs 10-50x slower */
#elif RT_ASAN
# define RT_WATCHDOG_DEFAULT 60.0
#else
# define RT_WATCHDOG_DEFAULT 20.0
#endif

/* Workers that --fixed-ops can name (explore's CPUs). */
#define RT_FIXED_OPS_MAX	4

/* A run as asked for on the command line, and the state its records need. */
struct rt_run_opts {
	struct rt_run_config cfg;
	struct rt_scenario scenario;	/* the named one, with --weights applied */
	bool weights_set, procs_set, seconds_set;
	bool all_modes;
	bool json;
	bool check_determinism;
	const char *out_dir;
	const char *build;		/* --build: run in this build's binary */
	const char *cover_map;		/* --cover-map FILE */
	bool no_cover;			/* --no-cover */
	bool no_build;
	int argc;
	char **argv;
	enum rmap_mode mode_now;	/* the design running now (--rmap all) */
	double run_start;		/* CLOCK_MONOTONIC seconds at its start */
	unsigned long artifacts_new, artifacts_repeat;	/* on_report's thread */
	/* The first new artifact of the design running now and its command; "": none. */
	char first_artifact[4096];	/* on_report's thread; main after the run */
	char first_reproduce[2048];
	/* --fixed-ops (explore): each worker's sequence; cfg.fixed_ops points here. */
	struct rt_fixed_seq fixed_ops[RT_FIXED_OPS_MAX];
	int nr_fixed_ops;
	int *decisions;			/* --decisions, parsed (cfg.decisions) */
};

/*
 * @argc/@argv (argv[0] is "run") into @o: every value checked, a seeded
 * bug's own configuration filled in, the seed drawn from the clock when
 * none is given. Exit 2 naming the option on bad input; --help, --inject
 * list and --yield-points list print and exit 0.
 */
void rt_run_parse_opts(int argc, char **argv, struct rt_run_opts *o);

/*
 * run's option called @name (its first @len characters, without "--"), as
 * getopt_long finds it: the exact name, else an unambiguous prefix; or the
 * option of the short form @c. NULL if there is none.
 */
const struct option *rt_run_option_long(const char *name, size_t len);
const struct option *rt_run_option_short(char c);

/* True when the run option @opt ("--scenario", "-S") takes a value: run's own table says. */
bool rt_run_option_takes_value(const char *opt);

#endif /* RT_STRESS_CLI_RUN_OPTS_H */
