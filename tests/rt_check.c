// SPDX-License-Identifier: MIT
#include "rt_check.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "lockdep.h"
#include "task.h"

static uint64_t seed;
static bool seed_set;

uint64_t rt_test_seed(void)
{
	if (!seed_set) {
		const char *env = getenv("RT_SEED");

		if (env && *env) {
			seed = strtoull(env, NULL, 0);
		} else {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
		}
		if (!seed)
			seed = 1;
		seed_set = true;
	}
	return seed;
}

int rt_check_main(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	/*
	 * The failure messages carry the end of a run's output (up to 6,000
	 * bytes): above Check's 4 KiB default, Check aborts the whole
	 * program ("Message string too long") instead of reporting the
	 * failure, and the report that says why is lost.
	 */
	check_set_max_msg_size(64 * 1024);
	/* The seed first, as a TAP comment, so any failure replays. */
	printf("# seed: RT_SEED=%llu\n", (unsigned long long)rt_test_seed());
	fflush(stdout);
	srunner_set_tap(sr, "-");
	srunner_run_all(sr, CK_SILENT);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

struct thread_ctx {
	int idx;
	void (*fn)(int idx, void *arg);
	void *arg;
	int *gate;
};

static void *thread_main(void *p)
{
	struct thread_ctx *c = p;
	char name[TASK_COMM_LEN];

	snprintf(name, sizeof(name), "t%d", c->idx);
	rt_task_attach(name);
	/* Acquire pairs with the release that opens the gate. */
	while (!__atomic_load_n(c->gate, __ATOMIC_ACQUIRE))
		sched_yield();
	c->fn(c->idx, c->arg);
	rt_task_detach();
	return NULL;
}

void rt_run_threads(int n, void (*fn)(int idx, void *arg), void *arg)
{
	pthread_t *th = rt_calloc((size_t)n, sizeof(*th));
	struct thread_ctx *ctx = rt_calloc((size_t)n, sizeof(*ctx));
	int gate = 0;

	for (int i = 0; i < n; i++) {
		ctx[i] = (struct thread_ctx){ .idx = i, .fn = fn, .arg = arg, .gate = &gate };
		RT_PTHREAD(pthread_create(&th[i], NULL, thread_main, &ctx[i]));
	}
	/* Release pairs with the acquire in thread_main(). */
	__atomic_store_n(&gate, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++)
		RT_PTHREAD(pthread_join(th[i], NULL));
	free(th);
	free(ctx);
}

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static char fail_msg[512];
static bool failed;

void rt_fail_at(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	RT_PTHREAD(pthread_mutex_lock(&fail_lock));
	if (!failed) {
		int n = snprintf(fail_msg, sizeof(fail_msg), "%s:%d: ", file, line);

		va_start(ap, fmt);
		if (n > 0 && (size_t)n < sizeof(fail_msg))
			vsnprintf(fail_msg + n, sizeof(fail_msg) - (size_t)n, fmt, ap);
		va_end(ap);
		failed = true;
	}
	RT_PTHREAD(pthread_mutex_unlock(&fail_lock));
}

const char *rt_first_failure(void)
{
	const char *r;

	RT_PTHREAD(pthread_mutex_lock(&fail_lock));
	r = failed ? fail_msg : NULL;
	RT_PTHREAD(pthread_mutex_unlock(&fail_lock));
	return r;
}

void rt_failure_reset(void)
{
	RT_PTHREAD(pthread_mutex_lock(&fail_lock));
	failed = false;
	fail_msg[0] = '\0';
	RT_PTHREAD(pthread_mutex_unlock(&fail_lock));
}

#define MAX_CAPTURED 64
static pthread_mutex_t rep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vm_report captured[MAX_CAPTURED];
static int nr_captured;
static int count_by_kind[VM_REPORT_NR];

static void capture_sink(const struct vm_report *r, void *arg)
{
	(void)arg;
	RT_PTHREAD(pthread_mutex_lock(&rep_lock));
	if (nr_captured < MAX_CAPTURED)
		captured[nr_captured++] = *r;
	count_by_kind[r->kind]++;
	RT_PTHREAD(pthread_mutex_unlock(&rep_lock));
}

void rt_reports_capture(void)
{
	RT_PTHREAD(pthread_mutex_lock(&rep_lock));
	nr_captured = 0;
	memset(count_by_kind, 0, sizeof(count_by_kind));
	RT_PTHREAD(pthread_mutex_unlock(&rep_lock));
	vm_report_set_sink(capture_sink, NULL);
}

void rt_reports_release(void)
{
	vm_report_set_sink(NULL, NULL);
}

int rt_reports_count(enum vm_report_kind kind)
{
	int n;

	RT_PTHREAD(pthread_mutex_lock(&rep_lock));
	n = count_by_kind[kind];
	RT_PTHREAD(pthread_mutex_unlock(&rep_lock));
	return n;
}

bool rt_reports_first(enum vm_report_kind kind, struct vm_report *out)
{
	bool found = false;

	RT_PTHREAD(pthread_mutex_lock(&rep_lock));
	for (int i = 0; i < nr_captured; i++) {
		if (captured[i].kind == kind) {
			*out = captured[i];
			found = true;
			break;
		}
	}
	RT_PTHREAD(pthread_mutex_unlock(&rep_lock));
	return found;
}

extern char **environ;

int rt_run_capture_envp(char *const argv[], char *const envp[], char *out, size_t outlen)
{
	char tmpl[] = "/tmp/rt-probe-XXXXXX";
	posix_spawn_file_actions_t fa;
	int fd, status, rc;
	size_t got;
	pid_t pid;
	FILE *f;

	fd = mkstemp(tmpl);
	if (fd < 0)
		rt_die("mkstemp: %s", rt_strerror(errno));
	RT_PTHREAD(posix_spawn_file_actions_init(&fa));
	RT_PTHREAD(posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO));
	RT_PTHREAD(posix_spawn_file_actions_adddup2(&fa, fd, STDERR_FILENO));
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	if (rc)
		rt_die("posix_spawn(%s): %s", argv[0], rt_strerror(rc));
	RT_PTHREAD(posix_spawn_file_actions_destroy(&fa));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			rt_die("waitpid: %s", rt_strerror(errno));

	f = fdopen(fd, "r");
	if (!f)
		rt_die("fdopen: %s", rt_strerror(errno));
	rewind(f);
	got = fread(out, 1, outlen - 1, f);
	out[got] = '\0';
	fclose(f);
	unlink(tmpl);
	return status;
}

int rt_run_capture(char *const argv[], const char *env_set, char *out, size_t outlen)
{
	size_t nenv = 0, k = 0, keylen = 0;
	char **envp;
	int status;

	if (env_set)
		keylen = (size_t)(strchr(env_set, '=') - env_set) + 1;
	while (environ[nenv])
		nenv++;
	envp = rt_calloc(nenv + 2, sizeof(*envp));
	for (size_t i = 0; i < nenv; i++)
		if (!env_set || strncmp(environ[i], env_set, keylen) != 0)
			envp[k++] = environ[i];
	if (env_set)
		envp[k++] = (char *)env_set;
	envp[k] = NULL;
	status = rt_run_capture_envp(argv, envp, out, outlen);
	free(envp);
	return status;
}

int rt_parse_lock_tree(const char *path, const char *marker,
		       uint64_t parents[], bool seen[])
{
	FILE *f = fopen(path, "r");
	char line[256];
	int in_tree = 0, nr_entries = 0;
	int stack_cls[16], stack_indent[16], sp = 0;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		char name[64];
		int indent, cls;

		if (!in_tree) {
			if (strstr(line, marker))
				in_tree = 1;
			continue;
		}
		if (!strncmp(line, " *\n", 3) || !strncmp(line, " */", 3)) {
			if (in_tree == 2)
				break;		/* the blank line after the tree */
			in_tree = 2;		/* the blank line before it */
			continue;
		}
		ck_assert_msg(!strncmp(line, " * ", 3), "%s: bad tree line: %s", path, line);
		indent = (int)strspn(line + 3, " ");
		ck_assert_int_eq(sscanf(line + 3 + indent, "%63s", name), 1);
		cls = lock_class_by_name(name);
		ck_assert_msg(cls >= 0, "%s: tree names unknown class %s", path, name);
		while (sp > 0 && stack_indent[sp - 1] >= indent)
			sp--;
		if (sp > 0)
			parents[cls] |= 1ULL << stack_cls[sp - 1];
		seen[cls] = true;
		ck_assert_int_lt(sp, 16);
		stack_cls[sp] = cls;
		stack_indent[sp++] = indent;
		nr_entries++;
	}
	fclose(f);
	return nr_entries;
}

void rt_assert_lock_tree(const char *path, const char *marker, int min_entries,
			 bool seen[])
{
	uint64_t parsed[LOCK_CLASS_MAX] = { 0 };
	int n = rt_parse_lock_tree(path, marker, parsed, seen);

	ck_assert_msg(n >= min_entries, "%s: %d tree lines, expected %d or more", path, n,
		      min_entries);
	for (int c = 0; c < LOCK_CLASS_NR_STATIC; c++) {
		if (!seen[c])
			continue;
		ck_assert_msg(parsed[c] == lockdep_order_parents_mask(c),
			      "%s: class %s: comment parents %#llx, lockdep %#llx", path,
			      lock_class_name(c), (unsigned long long)parsed[c],
			      (unsigned long long)lockdep_order_parents_mask(c));
	}
}

double rt_tmo(double plain_s)
{
	if (!strcmp(RT_BUILD_KIND, "tsan"))
		return plain_s * 6;
	if (!strcmp(RT_BUILD_KIND, "asan"))
		return plain_s * 3;
	return plain_s;
}

uint64_t rt_thread_rng(int idx)
{
	return rt_seed_child(rt_test_seed(), (uint64_t)(idx + 1));
}

double rt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool rt_wait_flag(const int *flag)
{
	double deadline = rt_now() + RT_WAIT_LIMIT_S;

	/* Acquire pairs with the release in rt_set_flag(). */
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (rt_now() > deadline)
			return false;
		sched_yield();
	}
	return true;
}

void rt_set_flag(int *flag)
{
	/* Release pairs with the acquire in rt_wait_flag(). */
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

TCase *rt_tcase(Suite *s, const char *name, double timeout, SFun setup, SFun teardown)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, timeout);
	if (setup || teardown)
		tcase_add_checked_fixture(tc, setup, teardown);
	suite_add_tcase(s, tc);
	return tc;
}

Suite *rt_suite(const char *name, const struct rt_tcase *tcs, int n)
{
	const char *fork = getenv("CK_FORK");
	Suite *s = suite_create(name);

	for (int i = 0; i < n; i++) {
		TCase *tc = rt_tcase(s, tcs[i].name, tcs[i].timeout, tcs[i].setup, tcs[i].teardown);

		for (int k = 0; k < RT_TCASE_MAX_TESTS && tcs[i].tests[k]; k++)
			tcase_add_test(tc, tcs[i].tests[k]);
		for (int k = 0; k < 4 && tcs[i].bug_tests[k]; k++)
			if (!fork || strcmp(fork, "no"))
				tcase_add_test_raise_signal(tc, tcs[i].bug_tests[k], SIGABRT);
	}
	return s;
}
