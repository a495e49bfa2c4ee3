// SPDX-License-Identifier: MIT
#include "rt_child.h"

#include "die.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "record.h"
#include "variant.h"
#include "rt_time.h"

static volatile sig_atomic_t child_interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	child_interrupted = 1;
}

void rt_child_catch_interrupt(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_interrupt;	/* no SA_RESTART: waits return early */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool rt_child_interrupted(void)
{
	return child_interrupted;
}

int rt_child_run(const char *binary, char *const argv[], double timeout_s,
		 const char *stdout_path, int *status)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	double start = rt_now_s(), term_at = 0;
	int verdict = 0, st = 0, fd = -1;
	bool killed = false;
	pid_t pid;

	if (stdout_path) {
		fd = open(stdout_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		if (fd < 0) {
			fprintf(stderr, "rmaptorture: cannot create %s: %s\n", stdout_path,
				strerror(errno));
			return RT_CHILD_ERROR;
		}
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rmaptorture: fork: %s\n", strerror(errno));
		if (fd >= 0)
			close(fd);
		return RT_CHILD_ERROR;
	}
	if (pid == 0) {
		setpgid(0, 0);
		if (fd >= 0 && (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0))
			_exit(127);
		execv(binary, argv);
		dprintf(STDERR_FILENO, "rmaptorture: cannot run %s: %s\n", binary, strerror(errno));
		_exit(127);
	}
	/* Both sides set the group, so that a kill of -pid never misses it. */
	setpgid(pid, pid);
	if (fd >= 0)
		close(fd);

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		double t;

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			fprintf(stderr, "rmaptorture: waitpid: %s\n", strerror(errno));
			kill(-pid, SIGKILL);
			return RT_CHILD_ERROR;
		}
		t = rt_now_s();
		if (!verdict && child_interrupted)
			verdict = RT_CHILD_INTERRUPTED;
		else if (!verdict && timeout_s > 0 && t - start > timeout_s)
			verdict = RT_CHILD_TIMEOUT;
		if (verdict && !term_at) {
			kill(-pid, SIGTERM);
			term_at = t;
		} else if (verdict && !killed && t - term_at > RT_CHILD_GRACE_S) {
			kill(-pid, SIGKILL);
			killed = true;
		}
		nanosleep(&tick, NULL);
	}
	if (verdict)	/* anything it left behind in its group */
		kill(-pid, SIGKILL);
	if (status)
		*status = st;
	if (verdict)
		return verdict;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

const char *rt_child_rc_str(int rc, char *buf, size_t len)
{
	switch (rc) {
	case RT_CHILD_ERROR:
		snprintf(buf, len, "could not start");
		break;
	case RT_CHILD_TIMEOUT:
		snprintf(buf, len, "timed out, killed");
		break;
	case RT_CHILD_INTERRUPTED:
		snprintf(buf, len, "interrupted");
		break;
	default:
		if (rc > 128)
			snprintf(buf, len, "killed by signal %d", rc - 128);
		else
			snprintf(buf, len, "exit %d", rc);
	}
	return buf;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Two entries of rt_child_artifacts()'s list: the earlier finding first. */
static int found_cmp(const void *a, const void *b)
{
	json_t *x = json_object_get(*(json_t *const *)a, "artifact");
	json_t *y = json_object_get(*(json_t *const *)b, "artifact");
	double tx = json_number_value(json_object_get(x, "elapsed_s"));
	double ty = json_number_value(json_object_get(y, "elapsed_s"));

	return (tx > ty) - (tx < ty);
}

json_t *rt_child_artifacts(const char *dir)
{
	json_t *list = json_array(), **entries;
	char **names = NULL;
	size_t n = 0, cap = 0, nr = 0;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return list;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, "failure-", 8) || len < 13 ||
		    strcmp(de->d_name + len - 5, ".json"))
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof(*names));

			if (!grown)
				break;
			names = grown;
		}
		if (!(names[n] = strdup(de->d_name)))
			break;
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	entries = n ? calloc(n, sizeof(*entries)) : NULL;
	if (n && !entries)
		rt_die("calloc");
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		json_t *art;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		free(names[i]);
		art = json_load_file(path, 0, NULL);
		if (!json_is_object(art)) {
			json_decref(art);
			continue;
		}
		entries[nr++] = json_pack("{s:s, s:s?, s:s?, s:o}", "path", path,
			"kind", json_string_value(json_object_get(art, "kind")),
			"signature", json_string_value(json_object_get(art, "signature")),
			"artifact", art);
	}
	free(names);
	/* Insertion sort: stable, so equal times keep the name order. */
	for (size_t i = 1; i < nr; i++)
		for (size_t j = i; j > 0 && found_cmp(&entries[j - 1], &entries[j]) > 0; j--) {
			json_t *t = entries[j];

			entries[j] = entries[j - 1];
			entries[j - 1] = t;
		}
	for (size_t i = 0; i < nr; i++)
		json_array_append_new(list, entries[i]);
	free(entries);
	return list;
}

json_t *rt_child_find(json_t *list, const char *signature)
{
	json_t *e;
	size_t i;

	json_array_foreach(list, i, e) {
		const char *sig = json_string_value(json_object_get(e, "signature"));

		if (sig && !strcmp(sig, signature))
			return e;
	}
	return NULL;
}

/*
 * What try @dir runs: BINARY ARGS... --out DIR --no-progress, then
 * --halt-on-signature SIG unless @signature is "", NULL-terminated; the
 * strings are borrowed.
 * Return: a new array (free() it), or NULL when out of memory.
 */
static char **try_argv(const struct rt_try_config *cfg, const json_t *args,
		       const char *signature, const char *dir)
{
	size_t nargs = json_array_size(args), k = 0;
	char **argv = calloc(nargs + 7, sizeof(*argv));

	if (!argv)
		return NULL;
	argv[k++] = (char *)cfg->binary;
	for (size_t i = 0; i < nargs; i++)
		argv[k++] = (char *)json_string_value(json_array_get(args, i));
	argv[k++] = "--out";
	argv[k++] = (char *)dir;
	argv[k++] = "--no-progress";
	/* Done at the failure looked for: a deadlock after it is not waited out. */
	if (*signature) {
		argv[k++] = "--halt-on-signature";
		argv[k++] = (char *)signature;
	}
	argv[k] = NULL;
	return argv;
}

static void try_dir(const struct rt_try_config *cfg, int n, char *dir, size_t len)
{
	snprintf(dir, len, "%s/try-%d", cfg->workdir, n);
}

int rt_try_run(const struct rt_try_config *cfg, const json_t *args, const char *signature,
	       json_t *context, int n, struct rt_try_result *res)
{
	char log[4200], prefix[4200];
	char **argv;
	double start;

	memset(res, 0, sizeof(*res));
	try_dir(cfg, n, res->dir, sizeof(res->dir));
	argv = try_argv(cfg, args, signature, res->dir);
	if (!argv) {
		fprintf(stderr, "rmaptorture: out of memory\n");
		return RT_CHILD_ERROR;
	}
	if (mkdir(res->dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rmaptorture: cannot create %s: %s\n", res->dir, strerror(errno));
		free(argv);
		return RT_CHILD_ERROR;
	}
	if (strcmp(cfg->build, "plain")) {
		snprintf(prefix, sizeof(prefix), "%s/san", res->dir);
		rt_variant_setenv(cfg->build, prefix);
	}
	snprintf(log, sizeof(log), "%s/output.log", res->dir);
	start = rt_now_s();
	res->rc = rt_child_run(cfg->binary, argv, cfg->timeout_s, log, NULL);
	res->seconds = rt_now_s() - start;
	free(argv);
	if (strcmp(cfg->build, "plain") && res->rc != RT_CHILD_ERROR &&
	    rt_sanitizer_collect(prefix, context, res->dir, NULL, NULL) < 0)
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
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/output.log", res->dir);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void rt_remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
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

int rt_copy_file(const char *from, const char *to)
{
	char tmp[4200], buf[65536];
	int in, out, err = 0;
	ssize_t n;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", to, (int)getpid());
	in = open(from, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		for (ssize_t off = 0; off < n; ) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				err = -errno;
				break;
			}
			off += w;
		}
		if (err)
			break;
	}
	close(in);
	if (close(out) && !err)
		err = -errno;
	if (!err && rename(tmp, to))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
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
	argv = try_argv(cfg, args, signature, dir);
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
	/* This run's date, tool version and machine, not the input's. */
	json_object_del(meta, "kind");
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
