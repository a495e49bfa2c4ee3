/* SPDX-License-Identifier: MIT */
/*
 * Command-line value parsing: every bad value is one line on stderr naming
 * the option, and exit status 2 (rt_usage_error()).
 */
#ifndef RT_STRESS_RT_OPT_H
#define RT_STRESS_RT_OPT_H

#include <stdint.h>

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

/* getopt_long's error for an unknown option or missing argument: exit 2. */
__attribute__((noreturn))
void rt_opt_bad(const char *cmd, int optopt_char, const char *arg);

#endif /* RT_STRESS_RT_OPT_H */
