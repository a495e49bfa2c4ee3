// SPDX-License-Identifier: MIT
#include "rt_opt.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void rt_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("rmaptorture: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(RT_EXIT_USAGE);
}

long long rt_opt_int(const char *opt, const char *arg, long long min, long long max)
{
	char *end;
	long long v, mult = 1;

	errno = 0;
	if (!arg || !*arg)
		rt_usage_error("%s: missing value", opt);
	v = strtoll(arg, &end, 0);
	if (end == arg)
		rt_usage_error("%s: '%s' is not a number", opt, arg);
	if (*end == 'k' || *end == 'K')
		mult = 1000, end++;
	else if (*end == 'M')
		mult = 1000000, end++;
	else if (*end == 'G')
		mult = 1000000000, end++;
	if (*end)
		rt_usage_error("%s: '%s' is not a number", opt, arg);
	if (errno == ERANGE || (v > 0 && v > max / mult) || (v < 0 && v < min / mult))
		rt_usage_error("%s: '%s' is out of range [%lld, %lld]", opt, arg, min, max);
	v *= mult;
	if (v < min || v > max)
		rt_usage_error("%s: '%s' is out of range [%lld, %lld]", opt, arg, min, max);
	return v;
}

uint64_t rt_opt_u64(const char *opt, const char *arg)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!arg || !*arg)
		rt_usage_error("%s: missing value", opt);
	if (arg[0] == '-')
		rt_usage_error("%s: '%s' must not be negative", opt, arg);
	v = strtoull(arg, &end, 0);
	if (end == arg || *end)
		rt_usage_error("%s: '%s' is not a number", opt, arg);
	if (errno == ERANGE)
		rt_usage_error("%s: '%s' is out of range", opt, arg);
	return v;
}

double rt_opt_seconds(const char *opt, const char *arg, double min, double max)
{
	char *end;
	double v;

	if (!arg || !*arg)
		rt_usage_error("%s: missing value", opt);
	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno == ERANGE || !isfinite(v))
		rt_usage_error("%s: '%s' is not a number of seconds", opt, arg);
	if (v <= min || v > max)
		rt_usage_error("%s: '%s' is out of range (%g, %g]", opt, arg, min, max);
	return v;
}

void rt_opt_bad(const char *cmd, int c, const char *arg)
{
	if (c && c != '?')
		rt_usage_error("%s: option '-%c' needs a value or is unknown (see '%s --help')",
			       cmd, c, cmd);
	rt_usage_error("%s: unknown option or missing value: '%s' (see 'rmaptorture %s --help')",
		       cmd, arg ? arg : "?", cmd);
}

int rt_mkdir_p(const char *path)
{
	char buf[4096];
	struct stat st;
	size_t len = strlen(path);

	if (!len || len >= sizeof(buf))
		return len ? -ENAMETOOLONG : -ENOENT;
	memcpy(buf, path, len + 1);
	/* Each parent in turn, from the top; "a//b" and a trailing '/' are fine. */
	for (char *p = buf + 1; ; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(buf, 0777) && errno != EEXIST) {
			*p = c;
			return -errno;
		}
		*p = c;
		if (!c)
			break;
	}
	if (stat(path, &st))
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

void rt_opt_out_dir(const char *opt, const char *dir)
{
	int err = rt_mkdir_p(dir);

	if (err)
		rt_usage_error("%s: cannot create directory '%s': %s", opt, dir, strerror(-err));
}
