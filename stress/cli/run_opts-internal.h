/* SPDX-License-Identifier: MIT */
/*
 * Between run's option table (run_opts_table.c: --help, the long options
 * and the short forms) and their parser (run_opts.c).
 */
#ifndef RT_STRESS_CLI_RUN_OPTS_INTERNAL_H
#define RT_STRESS_CLI_RUN_OPTS_INTERNAL_H

#include <getopt.h>
#include <stdio.h>

/* run --help on @f. */
void rt_run_usage(FILE *f);

/* run's long options, for getopt_long(); a NULL name ends it. */
extern const struct option rt_run_options[];

/*
 * The short forms; each with ':' takes a value, as in rt_run_options[].
 * The leading ':' makes a missing value getopt_long()'s ':' (rt_opt_bad()).
 */
extern const char rt_run_short[];

#endif /* RT_STRESS_CLI_RUN_OPTS_INTERNAL_H */
