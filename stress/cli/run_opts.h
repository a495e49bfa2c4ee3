/* SPDX-License-Identifier: MIT */
/* `rmaptorture run`'s options (run_opts.c), for `run` and the commands that pass them on. */
#ifndef RT_STRESS_CLI_RUN_OPTS_H
#define RT_STRESS_CLI_RUN_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

#include "run_record.h"

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
