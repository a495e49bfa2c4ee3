// SPDX-License-Identifier: MIT
#include "rt_cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "die.h"
#include "rt_check.h"

extern char **environ;

const char *rt_cli_binary(void)
{
	const char *env = getenv("RT_BINARY");

	return env && *env ? env : RT_BINARY_PATH;
}

int rt_cli_run(const char *const *args, char *out, size_t len)
{
	char *argv[64];
	int n = 0, st;

	argv[n++] = (char *)rt_cli_binary();
	for (int i = 0; args[i] && n < 63; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	st = rt_run_capture(argv, NULL, out, len);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void rt_cli_expect_usage_error(const char *const *args, const char *needle, char *out,
			       size_t len)
{
	int rc = rt_cli_run(args, out, len);
	char *nl = strchr(out, '\n');

	ck_assert_msg(rc == 2, "%s %s: exit %d, output:\n%s", args[0], args[1] ? args[1] : "",
		      rc, out);
	ck_assert_msg(nl && nl[1] == '\0', "not one line:\n%s", out);
	ck_assert_msg(strstr(out, needle), "'%s' not named in: %s", needle, out);
}

pid_t rt_cli_spawn(const char *const *args, const char *log)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dflt;
	char *argv[64];
	int n = 0, rc;
	pid_t pid;

	argv[n++] = (char *)rt_cli_binary();
	for (int i = 0; args[i] && n < 63; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGTERM);
	RT_PTHREAD(posix_spawnattr_init(&attr));
	RT_PTHREAD(posix_spawnattr_setsigmask(&attr, &none));
	RT_PTHREAD(posix_spawnattr_setsigdefault(&attr, &dflt));
	RT_PTHREAD(posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
	RT_PTHREAD(posix_spawn_file_actions_init(&fa));
	RT_PTHREAD(posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log,
						    O_WRONLY | O_CREAT | O_TRUNC, 0666));
	RT_PTHREAD(posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO));
	rc = posix_spawn(&pid, argv[0], &fa, &attr, argv, environ);
	if (rc)
		rt_die("posix_spawn(%s): %s", argv[0], rt_strerror(rc));
	RT_PTHREAD(posix_spawn_file_actions_destroy(&fa));
	RT_PTHREAD(posix_spawnattr_destroy(&attr));
	return pid;
}

bool rt_cli_wait_output(const char *log, const char *needle, double limit_s, char *out,
			size_t len)
{
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	double end = rt_now() + limit_s;

	for (;;) {
		FILE *f = fopen(log, "r");
		size_t got = 0;

		if (f) {
			got = fread(out, 1, len - 1, f);
			fclose(f);
		}
		out[got] = '\0';
		if (strstr(out, needle))
			return true;
		if (rt_now() > end)
			return false;
		nanosleep(&tick, NULL);
	}
}

int rt_cli_interrupt(pid_t pid, double limit_s)
{
	const struct timespec tick = { 0, 50 * 1000 * 1000 };
	double end = rt_now() + limit_s;
	bool killed = false;
	int st;

	if (kill(pid, SIGINT))
		rt_die("kill(%d, SIGINT): %s", (int)pid, rt_strerror(errno));
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			rt_die("waitpid(%d): %s", (int)pid, rt_strerror(errno));
		if (!killed && rt_now() > end) {
			kill(pid, SIGKILL);
			killed = true;
		}
		nanosleep(&tick, NULL);
	}
	return !killed && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *rt_cli_excerpt(const char *out, size_t n)
{
	static const char *const heads[] = {
		"WARNING: ThreadSanitizer:", "ERROR: AddressSanitizer:", "runtime error:",
	};
	size_t len = strlen(out);

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
		const char *p = strstr(out, heads[i]);

		if (p)
			return p;
	}
	return len > n ? out + len - n : out;
}

void rt_cli_assert_schema_valid(const char *dir, const char *name)
{
	char cmd[2048];
	int st;

	snprintf(cmd, sizeof(cmd), "python3 '%s/tests/check_records.py' '%s/schemas' '%s/%s' >&2",
		 RT_SOURCE_ROOT, RT_SOURCE_ROOT, dir, name);
	st = system(cmd);
	ck_assert_msg(st != -1 && WIFEXITED(st), "%s: status %#x", cmd, st);
	ck_assert_msg(WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 77, "%s: exit %d", cmd,
		      WEXITSTATUS(st));
}
