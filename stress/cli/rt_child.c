// SPDX-License-Identifier: MIT
/*
 * rmaptorture as a child process (rt_child.h): the run, Ctrl-C, and what
 * it leaves in its output directory (failure artifacts, run records,
 * output.log); the points of scale and bench. The tries: rt_try.c.
 */
#include "rt_child.h"
#include "rt_child-internal.h"

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

#include "die.h"
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

/*
 * Every PREFIX*.json in @dir that holds a JSON object, in name order.
 * Return: a new array of {"path", "object"}; empty when there are none or
 * @dir cannot be read.
 */
static json_t *json_files(const char *dir, const char *prefix)
{
	size_t n = 0, cap = 0, plen = strlen(prefix);
	json_t *list = json_array();
	char **names = NULL;
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return list;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (strncmp(de->d_name, prefix, plen) || len < plen + 5 ||
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
	for (size_t i = 0; i < n; i++) {
		char path[4600];
		json_t *obj;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		free(names[i]);
		obj = json_load_file(path, 0, NULL);
		if (json_is_object(obj))
			json_array_append_new(list, json_pack("{s:s, s:o}", "path", path, "object", obj));
		else
			json_decref(obj);
	}
	free(names);
	return list;
}

json_t *rt_child_artifacts(const char *dir)
{
	json_t *files = json_files(dir, "failure-"), *list = json_array(), **entries, *f;
	size_t nr = json_array_size(files), i;

	entries = nr ? calloc(nr, sizeof(*entries)) : NULL;
	if (nr && !entries)
		rt_die("calloc");
	json_array_foreach(files, i, f) {
		json_t *art = json_object_get(f, "object");

		entries[i] = json_pack("{s:s, s:s?, s:s?, s:O}",
			"path", json_string_value(json_object_get(f, "path")),
			"kind", json_string_value(json_object_get(art, "kind")),
			"signature", json_string_value(json_object_get(art, "signature")),
			"artifact", art);
	}
	json_decref(files);
	/* Insertion sort: stable, so equal times keep the name order. */
	for (i = 1; i < nr; i++)
		for (size_t j = i; j > 0 && found_cmp(&entries[j - 1], &entries[j]) > 0; j--) {
			json_t *t = entries[j];

			entries[j] = entries[j - 1];
			entries[j - 1] = t;
		}
	for (i = 0; i < nr; i++)
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

char **rt_child_argv(const char *argv0, const json_t *args, const char *signature,
		     const char *dir)
{
	size_t nargs = json_array_size(args), k = 0;
	char **argv = calloc(nargs + 7, sizeof(*argv));

	if (!argv)
		return NULL;
	argv[k++] = (char *)argv0;
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

int rt_child_mkdir(const char *dir)
{
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rmaptorture: cannot create %s: %s\n", dir, strerror(errno));
		return RT_CHILD_ERROR;
	}
	return 0;
}

int rt_child_run_in(const char *binary, char *const argv[], const char *dir, double timeout_s)
{
	char log[4200];

	snprintf(log, sizeof(log), "%s/output.log", dir);
	return rt_child_run(binary, argv, timeout_s, log, NULL);
}

void rt_child_first_line(const char *dir, const char *skip, char *buf, size_t len)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/output.log", dir);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(buf, (int)len, f))
		if (!skip || strncmp(buf, skip, strlen(skip)))
			break;
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

int rt_self_exe(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);

	if (n <= 0 || (size_t)n >= len - 1)
		return -ENAMETOOLONG;
	path[n] = '\0';
	return 0;
}

const char *rt_child_says(const char *line)
{
	static const char prefix[] = "rmaptorture: ";

	return strncmp(line, prefix, sizeof(prefix) - 1) ? line : line + sizeof(prefix) - 1;
}

int rt_run_child_records(const char *const *args, const char *dir, double timeout_s,
			 json_t **recs, char *first_line, size_t len)
{
	json_t *run_args, *files, *f;
	char exe[4096], **argv;
	size_t i;
	int rc;

	*recs = NULL;
	if (first_line && len)
		first_line[0] = '\0';
	if (rt_self_exe(exe, sizeof(exe))) {
		fprintf(stderr, "rmaptorture: cannot find this program (/proc/self/exe)\n");
		return RT_CHILD_ERROR;
	}
	if (rt_child_mkdir(dir))
		return RT_CHILD_ERROR;
	run_args = json_pack("[s]", "run");
	for (i = 0; args[i]; i++)
		json_array_append_new(run_args, json_string(args[i]));
	argv = rt_child_argv("rmaptorture", run_args, "", dir);
	if (!argv)
		rt_die("calloc");
	rc = rt_child_run_in(exe, argv, dir, timeout_s);
	free(argv);
	json_decref(run_args);
	/* The first line that is not the run's START banner: a usage error, a report. */
	if (first_line && len)
		rt_child_first_line(dir, "START:", first_line, len);
	*recs = json_array();
	files = json_files(dir, "run-");
	json_array_foreach(files, i, f)
		json_array_append(*recs, json_object_get(f, "object"));
	json_decref(files);
	return rc;
}

static double fallbacks_total(const json_t *rec)
{
	const json_t *fb = json_object_get(rec, "trylock_fallbacks");
	const char *key;
	json_t *v;
	double sum = 0;

	json_object_foreach((json_t *)fb, key, v)
		sum += json_number_value(v);
	return sum;
}

void rt_sample_of_run(const json_t *rec, double *ops_per_sec, double *fb_per_scan, double *fb_per_kop)
{
	double fb = fallbacks_total(rec);
	double scanned = json_number_value(json_object_get(json_object_get(rec, "reclaim"), "scanned"));
	double ops = json_number_value(json_object_get(rec, "ops"));

	*ops_per_sec = json_number_value(json_object_get(rec, "ops_per_sec"));
	*fb_per_scan = scanned > 0 ? fb / scanned : 0;
	*fb_per_kop = ops > 0 ? fb * 1000 / ops : 0;
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
