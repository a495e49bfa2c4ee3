/* SPDX-License-Identifier: MIT */
/*
 * Command-line value parsing: every bad value is one line on stderr naming
 * the option, and exit status 2 (rt_usage_error()).
 */
#ifndef RT_STRESS_RT_OPT_H
#define RT_STRESS_RT_OPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#define RT_EXIT_OK		0
#define RT_EXIT_FAILURE		1
#define RT_EXIT_USAGE		2
#define RT_EXIT_INTERNAL	3
#define RT_EXIT_INTERRUPTED	130

__attribute__((noreturn, format(printf, 1, 2)))
void rt_usage_error(const char *fmt, ...);

/* Integer in [min, max]; decimal or 0x hex; k/M/G suffixes (x1000). */
long long rt_opt_int(const char *opt, const char *arg, long long min, long long max);
/* Unsigned 64-bit (seeds): decimal or 0x hex. */
uint64_t rt_opt_u64(const char *opt, const char *arg);
/* Seconds as a decimal number in (min, max]. */
double rt_opt_seconds(const char *opt, const char *arg, double min, double max);
/* Seconds in [0, max]: where 0 has a meaning of its own (--audit-every 0: only at the end). */
double rt_opt_seconds0(const char *opt, const char *arg, double max);

/*
 * mkdir -p @path: create it and its missing parents (0777 less the umask).
 * Return: 0 (it is a directory now), or -errno (-ENOTDIR: a file in the way).
 */
int rt_mkdir_p(const char *path);

/*
 * An output directory option (--out DIR): rt_mkdir_p(@dir), or exit 2
 * with one line naming @opt, @dir and why.
 */
void rt_opt_out_dir(const char *opt, const char *dir);

/*
 * An output file option (--json FILE, --junit FILE): @path is "-" (stdout),
 * or a file that can be written before any work is done: its directory
 * exists and is writable, and it is not a directory. Else exit 2 with one
 * line naming @opt and @path.
 */
void rt_opt_out_file(const char *opt, const char *path);

/*
 * getopt_long's error, exit 2: @c is what it returned (':' a missing value,
 * with an optstring that starts with ':'; '?' an unknown option or a value
 * given to an option that takes none), @arg the argument at fault
 * (argv[optind - 1]). The one line names the option as the user typed it
 * (--threads, not -t).
 */
__attribute__((noreturn))
void rt_opt_bad(const char *cmd, int c, const char *arg);

/*
 * The JSON file @path that @who (an option or a command) reads, or NULL
 * with one line in @err naming @who, @path and what is wrong: no such
 * file, a directory, unreadable, empty, or not JSON (with the line and
 * column of the error). Return: the JSON (caller owns the reference).
 */
json_t *rt_opt_json_load(const char *who, const char *path, char *err, size_t len);

/* rt_opt_json_load(), or exit 2 with its line. Context: the CLI's main thread. */
json_t *rt_opt_json_file(const char *who, const char *path);

/*
 * A comma-separated list of distinct integers in [@min, @max], sorted, into
 * @out (at most @maxn). Exit 2 naming @opt on a bad list. Return: the count.
 */
int rt_opt_int_list(const char *opt, const char *arg, long long min, long long max, int *out, int maxn);

/* --rmap MODE|all into @modes (at most @max); exit 2 naming @opt. Return: the count. */
int rt_opt_modes(const char *opt, const char *arg, const char *modes[], int max);

/*
 * Every design's name in core's table order, @sep between, for a usage
 * text or error. Context: the CLI's main thread (one static buffer: the
 * next call overwrites it). Return: the list.
 */
const char *rt_opt_designs(const char *sep);

/*
 * Every design's name in core's table order, NULL-terminated: what an
 * artifact's "rmap" may name (rt_artifact_load()). Context: first called
 * before any thread starts. Return: a static array.
 */
const char *const *rt_opt_design_names(void);

/*
 * The options the commands share: --out DIR, --budget S, --build-if-missing,
 * --no-build, --quiet, --help. A command's getopt_long table gives them
 * these values (the short forms -o, -b, -q, -h where it has them) and its
 * switch hands what it does not take itself to rt_common_opt().
 */
enum {
	RT_OPT_OUT = 'o',
	RT_OPT_BUDGET = 'b',
	RT_OPT_QUIET = 'q',
	RT_OPT_HELP = 'h',
	RT_OPT_BUILD_IF_MISSING = 0x100,
	RT_OPT_NO_BUILD,
};

struct rt_common_opts {
	void (*usage)(FILE *f);	/* --help's text */
	const char *cmd;	/* for rt_opt_bad() */
	double budget_max;	/* --budget's bound, seconds */
	const char *out_dir;	/* NULL: not given */
	double budget;		/* 0: not given */
	bool budget_set;
	bool build_if_missing;	/* true unless --no-build */
	bool quiet;
};

/* Defaults: nothing given, build if missing. */
void rt_common_opts_init(struct rt_common_opts *co, const char *cmd, void (*usage)(FILE *f),
			 double budget_max);

/*
 * getopt_long's @c with its @arg into @co when it is one of the shared
 * options; --help prints the usage and exits 0; anything else is
 * rt_opt_bad() (exit 2), @bad naming the argument.
 */
void rt_common_opt(struct rt_common_opts *co, int c, const char *arg, const char *bad);

/* The one ARTIFACT operand after the options (optind); exit 2 naming @cmd if missing or more. */
const char *rt_opt_artifact(const char *cmd, int argc, char **argv);

/* A seed for a run given none: the clock and the process id. */
uint64_t rt_seed_from_clock(void);

#endif /* RT_STRESS_RT_OPT_H */
