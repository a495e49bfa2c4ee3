// SPDX-License-Identifier: MIT
/*
 * The sanitizer variants of rmaptorture (variant.h): where each build's
 * binary is, how to build one that is missing, and the environment that
 * makes its sanitizer write what capture.c collects.
 */
#include "variant.h"

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RT_SOURCE_ROOT
# error "RT_SOURCE_ROOT must name the source tree (sanitizers/meson.build)"
#endif
#ifndef RT_BUILD_KIND
# error "RT_BUILD_KIND must name this build (root meson.build)"
#endif

extern char **environ;

static const struct variant {
	const char *build;	/* "plain", "tsan", "asan" */
	const char *dir;	/* its build directory, next to the sources */
	const char *env;	/* the override: a path to its binary */
	const char *sanitize;	/* meson setup's -Db_sanitize= */
} variants[] = {
	{ "plain", "build", "RT_BUILD_PLAIN", NULL },
	{ "tsan", "build-tsan", "RT_BUILD_TSAN", "thread" },
	{ "asan", "build-asan", "RT_BUILD_ASAN", "address,undefined" },
};

static const struct variant *variant_of(const char *build)
{
	for (size_t i = 0; build && i < sizeof(variants) / sizeof(variants[0]); i++)
		if (!strcmp(build, variants[i].build))
			return &variants[i];
	return NULL;
}

static bool executable_at(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

static int put_path(char *path, size_t len, const char *what)
{
	if ((size_t)snprintf(path, len, "%s", what) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* @path truncated to its @levels-th parent directory, in place. */
static void up(char *path, int levels)
{
	while (levels--) {
		char *s = strrchr(path, '/');

		if (!s || s == path) {
			snprintf(path, 2, "/");
			return;
		}
		*s = '\0';
	}
}

/* Run @argv (searched in PATH) with stdout sent to stderr; 0 when it exited 0. */
static int run_tool(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	int rc, status;
	pid_t pid;

	fprintf(stderr, "rmaptorture:");
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, "\n");
	fflush(stderr);
	if (posix_spawn_file_actions_init(&fa))
		return -ENOMEM;
	rc = posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	if (!rc)
		rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		fprintf(stderr, "rmaptorture: cannot run %s: %s\n", argv[0], strerror(rc));
		return -rc;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			fprintf(stderr, "rmaptorture: waitpid(%s): %s\n", argv[0], strerror(errno));
			return rc;
		}
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "rmaptorture: %s failed (status %#x)\n", argv[0], (unsigned)status);
		return -EIO;
	}
	return 0;
}

/* Configure (unless configured) and build the @v variant in @dir. */
static int build_variant(const struct variant *v, const char *dir)
{
	char ninja_file[PATH_MAX + 16], sanitize[64], root_meson[PATH_MAX];

	snprintf(root_meson, sizeof(root_meson), "%s/meson.build", RT_SOURCE_ROOT);
	if (access(root_meson, R_OK)) {
		fprintf(stderr, "rmaptorture: cannot build the %s variant: no source tree at %s\n",
			v->build, RT_SOURCE_ROOT);
		return -EIO;
	}
	snprintf(ninja_file, sizeof(ninja_file), "%s/build.ninja", dir);
	fprintf(stderr, "rmaptorture: %s the %s variant in %s\n",
		access(ninja_file, R_OK) ? "building" : "bringing up to date", v->build, dir);
	if (access(ninja_file, R_OK)) {
		char *setup[] = { "meson", "setup", (char *)dir, RT_SOURCE_ROOT, sanitize, NULL };

		if (v->sanitize)
			snprintf(sanitize, sizeof(sanitize), "-Db_sanitize=%s", v->sanitize);
		else
			snprintf(sanitize, sizeof(sanitize), "-Db_sanitize=none");
		if (run_tool(setup))
			goto fail;
	}
	{
		char *ninja[] = { "ninja", "-C", (char *)dir, "stress/rmaptorture", NULL };

		if (run_tool(ninja))
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "rmaptorture: building the %s variant in %s failed\n", v->build, dir);
	return -EIO;
}

int rt_variant_path(const char *build, char *path, size_t len, bool build_if_missing)
{
	const struct variant *v = variant_of(build);
	char self[PATH_MAX], cand[PATH_MAX + 64], dir[PATH_MAX + 32];
	const char *env;
	ssize_t n;
	int err;

	if (!v)
		return -EINVAL;
	env = getenv(v->env);
	if (env && *env) {
		if (!executable_at(env))
			return -ENOENT;
		return put_path(path, len, env);
	}

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	/* This binary, when it is rmaptorture of the wanted build. */
	if (n > 0 && !strcmp(build, RT_BUILD_KIND)) {
		const char *base = strrchr(self, '/');

		if (base && !strcmp(base + 1, "rmaptorture"))
			return put_path(path, len, self);
	}

	snprintf(cand, sizeof(cand), "%s/%s/stress/rmaptorture", RT_SOURCE_ROOT, v->dir);
	if (executable_at(cand)) {
		/*
		 * The variant of this source tree: let ninja bring it up to
		 * date, so that it runs the same code as this binary (a stale
		 * one would not know a newer option or seeded bug).
		 */
		snprintf(dir, sizeof(dir), "%s/%s", RT_SOURCE_ROOT, v->dir);
		if (build_if_missing && (err = build_variant(v, dir)))
			return err;
		return put_path(path, len, cand);
	}
	/* A moved tree: this binary is BUILDDIR/stress/rmaptorture, the variant a sibling. */
	if (n > 0) {
		up(self, 3);
		snprintf(cand, sizeof(cand), "%s/%s/stress/rmaptorture", self, v->dir);
		if (executable_at(cand))
			return put_path(path, len, cand);
	}
	if (!build_if_missing)
		return -ENOENT;

	snprintf(dir, sizeof(dir), "%s/%s", RT_SOURCE_ROOT, v->dir);
	err = build_variant(v, dir);
	if (err)
		return err;
	snprintf(cand, sizeof(cand), "%s/stress/rmaptorture", dir);
	if (!executable_at(cand)) {
		fprintf(stderr, "rmaptorture: the %s build left no binary at %s\n", v->build, cand);
		return -EIO;
	}
	return put_path(path, len, cand);
}

/*
 * Options are "NAME=VALUE" separated by ':'; a later one wins, and the
 * variable wins over the binary's built-in defaults (sanitizers/defaults).
 * The value set is USER:REQUIRED: the user's own options (the variable as
 * this process found it on its first call) retune the run, but not what
 * the capture depends on (where the log goes, the exit code, whether to
 * go on after a report).
 */
static void set_options(const char *var, const char *required, char **saved)
{
	const char *user;
	char *val;
	size_t len;

	if (!*saved) {
		user = getenv(var);
		*saved = strdup(user ? user : "");
		if (!*saved)
			return;
	}
	user = *saved;
	len = strlen(user) + strlen(required) + 2;
	val = malloc(len);
	if (!val)
		return;
	snprintf(val, len, "%s%s%s", user, user[0] ? ":" : "", required);
	setenv(var, val, 1);
	free(val);
}

void rt_variant_setenv(const char *build, const char *log_prefix)
{
	static char *user_tsan, *user_asan, *user_ubsan;
	char req[PATH_MAX + 512], flight[PATH_MAX + 16];

	if (!build || (strcmp(build, "tsan") && strcmp(build, "asan")))
		return;
	snprintf(flight, sizeof(flight), "%s.flight", log_prefix);
	setenv("RT_FLIGHT_LOG", flight, 1);
	if (!strcmp(build, "tsan")) {
		/* halt_on_error=0 (the binary's default is 1): one run reports every distinct race. */
		snprintf(req, sizeof(req), "log_path=%s:exitcode=66:halt_on_error=0:report_bugs=1",
			 log_prefix);
		set_options("TSAN_OPTIONS", req, &user_tsan);
		return;
	}
	snprintf(req, sizeof(req), "log_path=%s:exitcode=66:halt_on_error=1:abort_on_error=0",
		 log_prefix);
	set_options("ASAN_OPTIONS", req, &user_asan);
	snprintf(req, sizeof(req), "log_path=%s:exitcode=66:halt_on_error=1", log_prefix);
	set_options("UBSAN_OPTIONS", req, &user_ubsan);
}
