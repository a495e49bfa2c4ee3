/* SPDX-License-Identifier: MIT */
/*
 * Running rmaptorture as a child process: one run with a timeout that
 * kills the child's whole process group, stopped by Ctrl-C on the parent,
 * and what the run left in its output directory: the failure artifacts
 * (the tries of `replay`, `minimize`, `matrix` and `ci`), the run records
 * (the points of `scale` and `bench`, each a child so that no run inherits
 * another's heap, caches or lock statistics).
 */
#ifndef RT_STRESS_CLI_RT_CHILD_H
#define RT_STRESS_CLI_RT_CHILD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* rt_child_run()'s results besides an exit code. */
#define RT_CHILD_ERROR		(-1)	/* could not start it (message printed) */
#define RT_CHILD_TIMEOUT	(-2)	/* killed for running past its timeout */
#define RT_CHILD_INTERRUPTED	(-3)	/* killed because of SIGINT/SIGTERM on us */

/* Seconds a child gets between SIGTERM and SIGKILL. */
#define RT_CHILD_GRACE_S	3.0

/**
 * rt_child_catch_interrupt() - catch SIGINT and SIGTERM from now on
 *
 * Sets the flag that rt_child_interrupted() reads; a child running under
 * rt_child_run() is then killed (its process group: SIGTERM, then SIGKILL
 * after RT_CHILD_GRACE_S) and the run returns RT_CHILD_INTERRUPTED. The
 * child runs in its own process group, so the terminal's Ctrl-C reaches
 * only this process, which decides.
 *
 * Context: process-wide signal dispositions; call once from main's thread.
 */
void rt_child_catch_interrupt(void);

/* True once SIGINT or SIGTERM arrived after rt_child_catch_interrupt(). */
bool rt_child_interrupted(void);

/**
 * rt_child_run() - run @binary with @argv and wait for it, at most @timeout_s
 * @binary: path of the program (execv: no PATH search)
 * @argv: NULL-terminated, argv[0] included
 * @timeout_s: seconds; <= 0 means no limit. Past it the child's process
 *	group gets SIGTERM, then SIGKILL after RT_CHILD_GRACE_S
 * @stdout_path: file that receives the child's stdout and stderr
 *	(created or truncated), or NULL to inherit both
 * @status: receives the wait status (may be NULL)
 *
 * The child gets its own process group and this process's environment.
 *
 * Context: forks; polls the child every 10 ms. Not thread-safe.
 * Return: the exit code, 128 + the signal that killed it, or
 * RT_CHILD_TIMEOUT, RT_CHILD_INTERRUPTED, RT_CHILD_ERROR.
 */
int rt_child_run(const char *binary, char *const argv[], double timeout_s,
		 const char *stdout_path, int *status);

/**
 * rt_child_artifacts() - the failure artifacts in @dir
 * @dir: an output directory of `run --out`
 *
 * Reads every failure-*.json in @dir, in the order the run found them
 * (the artifact's elapsed_s; name order between equal times), so that
 * the first is the finding and a later one (a hang the first bug led
 * to) comes after it. Files that are not JSON objects are skipped (a
 * partial write cannot be seen: they are written by rename).
 *
 * Return: a new JSON array of objects {"path", "kind", "signature",
 * "artifact"} ("artifact": the whole object); empty when there are none
 * or @dir cannot be read.
 */
json_t *rt_child_artifacts(const char *dir);

/**
 * rt_child_find() - the artifact in the list from rt_child_artifacts()
 * whose signature is @signature
 * Return: the list's element (borrowed), or NULL.
 */
json_t *rt_child_find(json_t *list, const char *signature);

/* This executable's path (/proc/self/exe). Return: 0 or -ENAMETOOLONG. */
int rt_self_exe(char *path, size_t len);

/*
 * A child's line (@first_line of rt_run_child_records()) to quote inside
 * the parent's own "rmaptorture: ..." line: without its "rmaptorture: ".
 */
const char *rt_child_says(const char *line);

/**
 * rt_run_child_records() - run `rmaptorture run ARGS --out DIR --no-progress`
 * @args: NULL-terminated run options (after "run")
 * @dir: the run's output directory (created); its output goes to DIR/output.log
 * @timeout_s: as rt_child_run()
 * @recs: receives a new array of the run records the child wrote (run-*.json)
 * @first_line: receives the first line of its output after the START banner
 *	(a usage error, a report); may be NULL
 * @len: size of @first_line
 *
 * The child is this executable (rt_self_exe()).
 *
 * Context: as rt_child_run() (forks; not thread-safe).
 * Return: rt_child_run()'s return.
 */
int rt_run_child_records(const char *const *args, const char *dir, double timeout_s,
			 json_t **recs, char *first_line, size_t len);

/*
 * From a run record: ops/s, trylock fallbacks (all sites) per page scanned
 * by reclaim (0 when nothing was scanned), and per 1,000 operations.
 */
void rt_sample_of_run(const json_t *rec, double *ops_per_sec, double *fb_per_scan, double *fb_per_kop);

/* One try of a run: where and how. */
struct rt_try_config {
	const char *binary;	/* the build's rmaptorture */
	const char *build;	/* "plain", "tsan" or "asan": the sanitizer environment */
	const char *workdir;	/* each try gets WORKDIR/try-N */
	double timeout_s;	/* per try */
};

/* What one try did. */
struct rt_try_result {
	int rc;			/* rt_child_run()'s return */
	double seconds;		/* wall time */
	char dir[4096];		/* its --out directory (also holds output.log) */
	json_t *artifacts;	/* rt_child_artifacts(dir), plus any sanitizer reports */
	json_t *match;		/* borrowed from @artifacts: the one with the signature */
};

/**
 * rt_try_run() - run `BINARY ARGS... --out DIR --no-progress
 * [--halt-on-signature SIGNATURE]` once
 * @cfg: binary, build, work directory and timeout
 * @args: the run's argv after the program name (starts with "run"), a
 *	JSON array of strings as in an artifact's "args"
 * @signature: the failure to look for; "" for none (a run to its end)
 * @context: for a sanitizer build, the run's fields that each sanitizer
 *	report's artifact carries (rt_sanitizer_collect()); NULL otherwise
 * @n: the try's number (names its directory)
 * @res: filled in; release with rt_try_release()
 *
 * Sets the sanitizer environment of @cfg->build first (reports under
 * DIR/san.*) and, after the run, turns its reports into artifacts in DIR
 * next to the ones the run wrote. The child's stdout and stderr go to
 * DIR/output.log. A run given a @signature ends at the first model
 * report with it (another report does not end it); a sanitizer's finding
 * is not seen until the run ends, so a TSan try runs its whole length
 * (ASan and UBSan end at their first report).
 *
 * Context: as rt_child_run().
 * Return: 1 when an artifact with @signature was found, 0 when not,
 * RT_CHILD_INTERRUPTED, or RT_CHILD_ERROR (message printed).
 */
int rt_try_run(const struct rt_try_config *cfg, const json_t *args, const char *signature,
	       json_t *context, int n, struct rt_try_result *res);
void rt_try_release(struct rt_try_result *res);

/* The first line of a try's output.log ("" if none), e.g. a usage error. */
void rt_try_first_line(const struct rt_try_result *res, char *buf, size_t len);

/* Describe rt_child_run()'s @rc in words: "exit 1", "killed by signal 9", "timed out". */
const char *rt_child_rc_str(int rc, char *buf, size_t len);

/* rm -rf @path (for the work directories); errors are ignored. */
void rt_remove_tree(const char *path);

/*
 * The binary of @build: rt_variant_path() (this executable when it is
 * that build), with a message when it fails. Return: 0 or -errno.
 */
int rt_build_binary(const char *build, bool build_if_missing, char *path, size_t len);

/* Copy the file @from to @to (atomically: temp file + rename). Return: 0 or -errno. */
int rt_copy_file(const char *from, const char *to);

/**
 * rt_try_context() - the run fields of artifact @art, for rt_try_run()
 * @art: a failure artifact
 * @args: the args the try runs (replacing @art's; NULL: keep them)
 *
 * @art without what belongs to one failure (kind, message, signature, op,
 * task, stack, sites, held, flight, count, tasks), "args" set to @args and
 * "reproduce" to the command they make.
 * Return: a new object.
 */
json_t *rt_try_context(const json_t *art, const json_t *args);

/* "rmaptorture ARGS..." into @buf, each arg quoted for a POSIX shell when it needs it. */
void rt_args_cmdline(const json_t *args, char *buf, size_t len);

/**
 * rt_try_cmdline() - the command line rt_try_run() runs for try @n
 * @cfg, @args, @signature: as for rt_try_run()
 * @n: the try's number
 * @buf, @len: receives the binary's path and every argument, each quoted
 *	for a POSIX shell when it needs it
 *
 * Context: any; allocates.
 */
void rt_try_cmdline(const struct rt_try_config *cfg, const json_t *args, const char *signature,
		    int n, char *buf, size_t len);

/* Per-try timeout for an artifact: its --seconds with margin, scaled for sanitizer builds. */
double rt_try_timeout(const json_t *art);

/*
 * A fresh work directory for @cmd's tries, $TMPDIR/rmaptorture-CMD-XXXXXX
 * (/tmp without TMPDIR), into @dir. Return: 0, or -1 (said on stderr).
 */
int rt_try_workdir(const char *cmd, char *dir, size_t len);

/**
 * rt_try_warn_revision() - one line on stderr when artifact @art comes
 * from another revision than this binary's (its "git" against
 * rt_git_rev()); nothing when they agree or @art names none
 * @art: a failure artifact
 * @name: how to name it (its path)
 * @cmd: the command that warns ("replay", "minimize")
 *
 * Context: any.
 */
void rt_try_warn_revision(const json_t *art, const char *name, const char *cmd);

#endif /* RT_STRESS_CLI_RT_CHILD_H */
