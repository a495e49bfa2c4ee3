// SPDX-License-Identifier: MIT
#include "rt_opt.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rmap.h"

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

/* A finite number of seconds in @arg, or exit 2 naming @opt. */
static double parse_seconds(const char *opt, const char *arg)
{
	char *end;
	double v;

	if (!arg || !*arg)
		rt_usage_error("%s: missing value", opt);
	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno == ERANGE || !isfinite(v))
		rt_usage_error("%s: '%s' is not a number of seconds", opt, arg);
	return v;
}

double rt_opt_seconds(const char *opt, const char *arg, double min, double max)
{
	double v = parse_seconds(opt, arg);

	if (v <= min || v > max)
		rt_usage_error("%s: '%s' is out of range (%g, %g]", opt, arg, min, max);
	return v;
}

double rt_opt_seconds0(const char *opt, const char *arg, double max)
{
	double v = parse_seconds(opt, arg);

	if (v < 0 || v > max)
		rt_usage_error("%s: '%s' is out of range [0, %g]", opt, arg, max);
	return v;
}

void rt_opt_bad(const char *cmd, int c, const char *arg)
{
	char name[64] = "?";

	/* The option as typed: "--threads" of "--threads=4", or the one letter of "-xt". */
	if (arg && !strncmp(arg, "--", 2))
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	else if (optopt > 0 && optopt < 0x100)
		snprintf(name, sizeof(name), "-%c", optopt);
	else if (arg)
		snprintf(name, sizeof(name), "%s", arg);
	if (c == ':')
		rt_usage_error("%s: option '%s' needs a value (see 'rmaptorture %s --help')",
			       cmd, name, cmd);
	if (c == '?' && optopt && arg && !strncmp(arg, "--", 2) && strchr(arg, '='))
		rt_usage_error("%s: option '%s' takes no value (see 'rmaptorture %s --help')",
			       cmd, name, cmd);
	rt_usage_error("%s: unknown option '%s' (see 'rmaptorture %s --help')", cmd, name, cmd);
}

json_t *rt_opt_json_load(const char *who, const char *path, char *err, size_t len)
{
	json_error_t jerr;
	struct stat st;
	json_t *j = NULL;
	int missing = stat(path, &st);

	if (missing && errno == ENOENT)
		snprintf(err, len, "%s: no such file: %s", who, path);
	else if (missing || access(path, R_OK))
		snprintf(err, len, "%s: cannot read %s: %s", who, path, strerror(errno));
	else if (S_ISDIR(st.st_mode))
		snprintf(err, len, "%s: %s is a directory, not a JSON file", who, path);
	else if (!S_ISREG(st.st_mode))
		snprintf(err, len, "%s: %s is not a regular file", who, path);
	else if (!st.st_size)
		snprintf(err, len, "%s: %s is empty, not a JSON record", who, path);
	else if (!(j = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr)))
		snprintf(err, len, "%s: %s is not JSON (line %d, column %d: %s)", who, path,
			 jerr.line, jerr.column, jerr.text);
	return j;
}

json_t *rt_opt_json_file(const char *who, const char *path)
{
	char err[4400];
	json_t *j = rt_opt_json_load(who, path, err, sizeof(err));

	if (!j)
		rt_usage_error("%s", err);
	return j;
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

void rt_opt_out_file(const char *opt, const char *path)
{
	char dir[4096], *slash;
	struct stat st;

	if (!strcmp(path, "-"))
		return;
	if (!*path)
		rt_usage_error("%s: empty file name", opt);
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		rt_usage_error("%s: %s is a directory, not a file to write", opt, path);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (access(dir, W_OK))
		rt_usage_error("%s: cannot write %s: %s: %s", opt, path, dir, strerror(errno));
}

int rt_opt_int_list(const char *opt, const char *arg, long long min, long long max, int *out, int maxn)
{
	char buf[1024], *save = NULL, *tok;
	int n = 0;

	if (!arg || !*arg || strlen(arg) >= sizeof(buf))
		rt_usage_error("%s: expected a comma-separated list of numbers, got '%s'", opt, arg ? arg : "");
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int v = (int)rt_opt_int(opt, tok, min, max), k;

		if (n >= maxn)
			rt_usage_error("%s: more than %d values", opt, maxn);
		for (k = 0; k < n; k++)
			if (out[k] == v)
				rt_usage_error("%s: %d given twice", opt, v);
		for (k = n; k > 0 && out[k - 1] > v; k--)
			out[k] = out[k - 1];
		out[k] = v;
		n++;
	}
	if (!n || arg[strlen(arg) - 1] == ',' || arg[0] == ',' || strstr(arg, ",,"))
		rt_usage_error("%s: expected a comma-separated list of numbers, got '%s'", opt, arg);
	return n;
}

int rt_opt_modes(const char *opt, const char *arg, const char *modes[], int max)
{
	int n = 0;

	for (int i = 0; i < RMAP_NR_MODES && n < max; i++)
		if (!strcmp(arg, "all") || !strcmp(arg, rmap_mode_name((enum rmap_mode)i)))
			modes[n++] = rmap_mode_name((enum rmap_mode)i);
	if (!n)
		rt_usage_error("%s: unknown rmap design '%s' (%s or all)", opt, arg,
			       rt_opt_designs(", "));
	return n;
}

const char *rt_opt_designs(const char *sep)
{
	static char list[RMAP_MODE_LIST_LEN];

	rmap_mode_list(RMAP_ALL_MODES, sep, list, sizeof(list));
	return list;
}

const char *const *rt_opt_design_names(void)
{
	static const char *names[RMAP_NR_MODES + 1];

	/* Read-only after the first call, made before any thread starts. */
	if (!names[0])
		for (int m = 0; m < RMAP_NR_MODES; m++)
			names[m] = rmap_mode_name((enum rmap_mode)m);
	return names;
}

uint64_t rt_seed_from_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec * 1000003ULL) ^ (uint64_t)ts.tv_nsec ^
	       ((uint64_t)getpid() << 32);
}

void rt_common_opts_init(struct rt_common_opts *co, const char *cmd, void (*usage)(FILE *f),
			 double budget_max)
{
	*co = (struct rt_common_opts){
		.usage = usage, .cmd = cmd, .budget_max = budget_max, .build_if_missing = true,
	};
}

void rt_common_opt(struct rt_common_opts *co, int c, const char *arg, const char *bad)
{
	switch (c) {
	case RT_OPT_OUT: co->out_dir = arg; break;
	case RT_OPT_BUDGET:
		co->budget = rt_opt_seconds("--budget", arg, 0, co->budget_max);
		co->budget_set = true;
		break;
	case RT_OPT_BUILD_IF_MISSING: co->build_if_missing = true; break;
	case RT_OPT_NO_BUILD: co->build_if_missing = false; break;
	case RT_OPT_QUIET: co->quiet = true; break;
	case RT_OPT_HELP: co->usage(stdout); exit(RT_EXIT_OK);
	default: rt_opt_bad(co->cmd, c, bad);
	}
}

const char *rt_opt_artifact(const char *cmd, int argc, char **argv)
{
	if (optind >= argc)
		rt_usage_error("%s: missing ARTIFACT (see 'rmaptorture %s --help')", cmd, cmd);
	if (argc - optind > 1)
		rt_usage_error("%s: unexpected argument '%s' (see 'rmaptorture %s --help')",
			       cmd, argv[optind + 1], cmd);
	return argv[optind];
}
