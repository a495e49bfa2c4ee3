// SPDX-License-Identifier: MIT
/*
 * The tries of replay, minimize, matrix and ci (rt_child.h): one run of an
 * artifact's arguments in a fresh directory, with its sanitizer build's
 * environment and reports, and the command line that repeats it.
 */
#include "rt_child.h"
#include "rt_child-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "die.h"
#include "record.h"
#include "rt_time.h"
#include "variant.h"

static void try_dir(const struct rt_try_config *cfg, int n, char *dir, size_t len)
{
	snprintf(dir, len, "%s/try-%d", cfg->workdir, n);
}

int rt_try_run(const struct rt_try_config *cfg, const json_t *args, const char *signature,
	       json_t *context, int n, struct rt_try_result *res)
{
	char prefix[4200];
	char **argv;
	double start;

	memset(res, 0, sizeof(*res));
	try_dir(cfg, n, res->dir, sizeof(res->dir));
	argv = rt_child_argv(cfg->binary, args, signature, res->dir);
	if (!argv) {
		fprintf(stderr, "rmaptorture: out of memory\n");
		return RT_CHILD_ERROR;
	}
	if (rt_child_mkdir(res->dir)) {
		free(argv);
		return RT_CHILD_ERROR;
	}
	if (strcmp(cfg->build, "plain")) {
		snprintf(prefix, sizeof(prefix), "%s/san", res->dir);
		rt_variant_setenv(cfg->build, prefix);
	}
	start = rt_now_s();
	res->rc = rt_child_run_in(cfg->binary, argv, res->dir, cfg->timeout_s);
	res->seconds = rt_now_s() - start;
	free(argv);
	if (strcmp(cfg->build, "plain") && res->rc != RT_CHILD_ERROR &&
	    rt_sanitizer_collect(prefix, context, res->dir, NULL, NULL, NULL) < 0)
		res->rc = RT_CHILD_ERROR;	/* its message is printed */
	res->artifacts = rt_child_artifacts(res->dir);
	res->match = rt_child_find(res->artifacts, signature);
	if (res->rc == RT_CHILD_INTERRUPTED || res->rc == RT_CHILD_ERROR)
		return res->rc;
	return res->match != NULL;
}

void rt_try_release(struct rt_try_result *res)
{
	json_decref(res->artifacts);
	res->artifacts = NULL;
	res->match = NULL;
}

void rt_try_first_line(const struct rt_try_result *res, char *buf, size_t len)
{
	rt_child_first_line(res->dir, NULL, buf, len);
}

int rt_build_binary(const char *build, bool build_if_missing, char *path, size_t len)
{
	int rc = rt_variant_path(build, path, len, build_if_missing);

	if (rc == -ENOENT)
		fprintf(stderr, "rmaptorture: the %s build of rmaptorture is missing%s\n", build,
			build_if_missing ? "" : " (drop --no-build to build it)");
	else if (rc == -EINVAL)
		fprintf(stderr, "rmaptorture: unknown build '%s'\n", build);
	else if (rc && rc != -EIO)
		fprintf(stderr, "rmaptorture: the %s build of rmaptorture: %s\n", build,
			strerror(-rc));
	return rc;
}

/* Whether @s needs quoting for a POSIX shell. */
static bool needs_quotes(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_=+,./:@%", *s))
			return true;
	return false;
}

/* Append " WORD" to @buf (@n of @len used), quoted for a POSIX shell when it needs it. */
static size_t append_word(char *buf, size_t len, size_t n, const char *s)
{
	if (n >= len)
		return n;
	if (!needs_quotes(s))
		return n + (size_t)snprintf(buf + n, len - n, " %s", s);
	n += (size_t)snprintf(buf + n, len - n, " '");
	for (; *s && n < len; s++)
		n += (size_t)snprintf(buf + n, len - n, *s == '\'' ? "'\\''" : "%c", *s);
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "'");
	return n;
}

void rt_args_cmdline(const json_t *args, char *buf, size_t len)
{
	const json_t *a;
	size_t i, n;

	n = (size_t)snprintf(buf, len, "rmaptorture");
	json_array_foreach(args, i, a) {
		const char *s = json_string_value(a);

		if (!s)
			break;
		n = append_word(buf, len, n, s);
	}
}

void rt_try_cmdline(const struct rt_try_config *cfg, const json_t *args, const char *signature,
		    int n, char *buf, size_t len)
{
	char dir[4096], **argv;
	size_t k;

	try_dir(cfg, n, dir, sizeof(dir));
	argv = rt_child_argv(cfg->binary, args, signature, dir);
	if (!argv)
		rt_die("calloc");
	/* The binary first, unquoted as the others are when they can be. */
	k = (size_t)snprintf(buf, len, "%s", argv[0]);
	for (int i = 1; argv[i]; i++)
		k = append_word(buf, len, k, argv[i]);
	free(argv);
}

json_t *rt_try_context(const json_t *art, const json_t *args)
{
	static const char *const one_failure[] = {
		"kind", "message", "signature", "op", "task", "stack", "sites", "held",
		"flight", "count", "tasks",
	};
	json_t *ctx = json_deep_copy(art);
	const char *build;
	char cmd[8192];

	json_t *meta = rt_record_new("failure");

	for (size_t i = 0; i < sizeof(one_failure) / sizeof(one_failure[0]); i++)
		json_object_del(ctx, one_failure[i]);
	/* This run's date, tool version, format and machine, not the input's. */
	json_object_update(ctx, meta);
	json_decref(meta);
	if (args)
		json_object_set_new(ctx, "args", json_deep_copy(args));
	rt_args_cmdline(json_object_get(ctx, "args"), cmd, sizeof(cmd));
	build = json_string_value(json_object_get(ctx, "build"));
	/* As `run` writes it: a sanitizer's finding reproduces in its build. */
	if (build && strcmp(build, "plain"))
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), " --build %s", build);
	json_object_set_new(ctx, "reproduce", json_string(cmd));
	return ctx;
}

double rt_try_timeout(const json_t *art)
{
	const char *build = json_string_value(json_object_get(art, "build"));
	double secs = json_number_value(json_object_get(art, "seconds"));
	double mult = 1, t;

	if (build && !strcmp(build, "tsan"))
		mult = 6;
	else if (build && !strcmp(build, "asan"))
		mult = 3;
	/*
	 * The run itself, its end audit and teardown, and a watchdog's worth;
	 * a run bounded by scheduling steps (seconds 0) gets the minute.
	 */
	t = 2 * secs + 60;
	return t * mult;
}

int rt_try_workdir(const char *cmd, char *dir, size_t len)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(dir, len, "%s/rmaptorture-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", cmd);
	if (mkdtemp(dir))
		return 0;
	fprintf(stderr, "rmaptorture: %s: cannot create a work directory: %s\n", cmd,
		strerror(errno));
	return -1;
}

void rt_try_warn_revision(const json_t *art, const char *name, const char *cmd)
{
	const char *git = json_string_value(json_object_get(art, "git"));

	if (git && strcmp(git, rt_git_rev()))
		fprintf(stderr, "rmaptorture: %s: warning: %s was found at revision %s, this is %s:"
			" the code may differ\n", cmd, name, git, rt_git_rev());
}
