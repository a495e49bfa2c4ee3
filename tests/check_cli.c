// SPDX-License-Identifier: MIT
/*
 * The command line: every bad value is one line naming the option and
 * exit status 2; list and --help work; --json is a well-formed record;
 * a hang is detected by the watchdog and reported with every task's held
 * locks; a BUG ends the run, not the process (exit 1, the summary, the
 * record, the artifact, END: FAILURE); paths in reports are the project
 * root's whatever the build directory; --out creates missing parents;
 * Ctrl-C ends a run as interrupted, not passed (exit 130, its summary and
 * record say so); without --out a failure's artifact is kept in a
 * directory it names; --until-fallbacks ends a run once its sites fired.
 */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt_check.h"
#include "rt_cli.h"

/* A run's JSON record carries its interleaving coverage: about 1 MiB for 1 s. */
static char out[8 << 20];

#define BAD(needle, ...) \
	rt_cli_expect_usage_error((const char *const[]){ __VA_ARGS__, NULL }, needle, out, sizeof(out))

START_TEST(test_cli_bad_run_options)
{
	BAD("--scenario", "run", "--scenario", "nosuch");
	BAD("--rmap", "run", "--rmap", "rmap2");
	BAD("--threads", "run", "--threads", "0");
	BAD("--threads", "run", "--threads", "100000");
	BAD("--threads", "run", "--threads", "lots");
	BAD("--reclaim-threads", "run", "--reclaim-threads", "-1");
	BAD("--seconds", "run", "--seconds", "-3");
	BAD("--seconds", "run", "--seconds", "0");
	BAD("--seconds", "run", "--seconds", "nan");
	BAD("--ops", "run", "--ops", "0");
	BAD("--seed", "run", "--seed", "-5");
	BAD("--seed", "run", "--seed", "x12");
	BAD("--pages", "run", "--pages", "3");
	BAD("--pages", "run", "--pages", "40", "--scenario", "shm");
	BAD("--swap", "run", "--swap", "1");
	/* 0 is valid (only at the end): the range quoted includes it, and 0.0 passes. */
	BAD("--audit-every: '-1' is out of range [0, 86400]", "run", "--audit-every", "-1");
	BAD("unknown option '--frobnicate'", "run", "--audit-every", "0.0", "--frobnicate");
	BAD("--perturb", "run", "--perturb", "9");
	BAD("--yield-points", "run", "--yield-points", "nowhere");
	BAD("--long-hold", "run", "--long-hold", "big_lock");
	BAD("--watchdog", "run", "--watchdog", "0");
	BAD("--sched", "run", "--sched", "fair");
	BAD("--pct-depth", "run", "--sched", "pct", "--pct-depth", "0");
	BAD("--pct-steps", "run", "--sched", "pct", "--pct-steps", "-1");
	BAD("--sched-steps", "run", "--sched-steps", "100");
	BAD("--sched-steps", "run", "--sched", "random", "--sched-steps", "0");
	BAD("--check-determinism", "run", "--check-determinism");
	BAD("--perturb", "run", "--sched", "random", "--perturb", "1");
	BAD("--inject", "run", "--inject", "no-such-bug");
	/* A seeded bug whose code the design never runs: its own is objfile. */
	BAD("cannot fire in design ptechain", "run", "--inject", "reclaim-lock-ptl",
	    "--scenario", "shm");
	BAD("cannot fire in design ptechain", "run", "--inject", "reclaim-lock-ptl",
	    "--rmap", "all");
	BAD("cannot fire in design objfile", "run", "--inject", "remove-rmap-clears-mapping",
	    "--rmap", "objfile");
	BAD("--halt-on-signature", "run", "--halt-on-signature", "");
	BAD("--weights", "run", "--weights", "read");
	BAD("--weights", "run", "--weights", "flap=3");
	BAD("--weights", "run", "--weights", "read=-1");
	BAD("--weights", "run", "--scenario", "shm", "--weights",
	    "read=0,write=0,mmap_anon=0,mmap_file=0,mmap_shared=0,munmap=0,mprotect=0,mlock=0,"
	    "mremap=0,fork=0,exec=0,exit=0,truncate=0,remap_file_pages=0,expand_stack=0");
	BAD("--procs", "run", "--procs", "0");
	BAD("--build", "run", "--build", "msan");
	BAD("--until-fallbacks", "run", "--until-fallbacks", "shrink_list:PG_chainlock");
	BAD("--bugs", "matrix", "--bugs", "no-such-bug");
	BAD("unexpected argument", "matrix", "extra");
	BAD("unexpected argument", "list", "--bugs", "extra");
	BAD("run: unknown option '--frobnicate' (see 'rmaptorture run --help')", "run", "--frobnicate");
	BAD("run: unknown option '-Z'", "run", "-Z");
	BAD("run: option '--json' takes no value", "run", "--json=1");
	BAD("unexpected argument", "run", "extra");
	BAD("unknown command", "frob");
	BAD("--threads", "locks", "--threads", "0");
	BAD("--pages", "locks", "--pages", "1");
	BAD("unknown benchmark", "bench", "nothing");
	BAD("--repeat", "bench", "locks", "--repeat", "0");
}
END_TEST

/*
 * A missing value names the option as the user typed it, long or short,
 * in each kind of parser (run's, scale's, the shared options', and the
 * commands' own; all share rt_opt_bad()); a file to read that is not there or not a
 * file says so, and so does a file to write that cannot be, before any
 * work is done.
 */
START_TEST(test_cli_missing_values_and_files)
{
	BAD("run: option '--threads' needs a value", "run", "--threads");
	BAD("run: option '-t' needs a value", "run", "-t");
	BAD("scale: option '--threads' needs a value", "scale", "--threads");
	BAD("scale: option '--watchdog' needs a value", "scale", "--watchdog");
	BAD("scale: run refused its options: run: unknown option '--frobnicate'", "scale",
	    "--frobnicate", "--threads", "1", "--repeat", "1", "--rmap", "ptechain");
	BAD("locks: option '--threads' needs a value", "locks", "--threads");
	BAD("bench: option '--repeat' needs a value", "bench", "--repeat");
	BAD("bench vm: option '--repeat' needs a value", "bench", "vm", "--repeat");
	BAD("ci: option '--shard' needs a value", "ci", "--shard");
	BAD("coverage: option '--uncovered' needs a value", "coverage", "--uncovered");
	BAD("replay: option '--budget' needs a value", "replay", "--budget");
	BAD("report: option '--out' needs a value", "report", "--out");
	BAD("coverage: no such file: /nonexistent.json", "coverage", "/nonexistent.json");
	BAD("ci-merge: /tmp is a directory, not a JSON file", "ci-merge", "/tmp");
	BAD("--cover-map: /tmp is a directory, not a JSON file", "run", "--cover-map", "/tmp");
	/* Output files: refused before any work, not after it. */
	BAD("--cover-map: cannot write /nonexistent/dir/map.json", "run", "--cover-map",
	    "/nonexistent/dir/map.json");
	BAD("--vtime-calibrate: cannot write /nonexistent/costs.tsv", "run", "--sched", "vtime",
	    "--vtime-cost", "measured", "--vtime-calibrate", "/nonexistent/costs.tsv");
	BAD("--json: /tmp is a directory, not a file to write", "bench", "--json", "/tmp");
	BAD("--junit: /tmp is a directory, not a file to write", "ci", "--budget", "10", "--junit",
	    "/tmp");
}
END_TEST

START_TEST(test_cli_help_and_list)
{
	const char *const help[] = { "run", "--help", NULL };
	const char *const list[] = { "list", NULL };
	const char *scenarios[] = { "mixed32", "sdet32", "shm", "forkbomb-cow", "mremap-storm",
				    "truncate-race", "nonlinear", "reclaim-pressure", "many-vmas" };

	ck_assert_int_eq(rt_cli_run(help, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "--scenario"));
	ck_assert_int_eq(rt_cli_run(list, out, sizeof(out)), 0);
	for (size_t i = 0; i < sizeof(scenarios) / sizeof(scenarios[0]); i++)
		ck_assert_msg(strstr(out, scenarios[i]), "list lacks %s", scenarios[i]);
	ck_assert_ptr_nonnull(strstr(out, "ptechain"));
}
END_TEST

START_TEST(test_cli_run_json_record)
{
	const char *const args[] = { "run", "--scenario", "mixed32", "--seconds", "1",
				     "--threads", "4", "--seed", "42", "--json", NULL };
	const char *fields[] = { "scenario", "rmap", "threads", "reclaim_threads", "seed",
				 "seconds", "ops", "ops_per_sec", "ops_by_kind", "lock_stats",
				 "trylock_fallbacks", "reclaim", "audits", "failures",
				 "rmap_bytes", "result", "git", "machine", "reproduce" };
	json_error_t err;
	json_t *rec;
	char *json;

	ck_assert_int_eq(rt_cli_run(args, out, sizeof(out)), 0);
	ck_assert_msg(strlen(out) < sizeof(out) - 1, "output over %zu bytes: cut", sizeof(out));
	/* Human output went to stderr, captured with stdout: find the object. */
	json = strstr(out, "\n{");
	ck_assert_msg(json != NULL, "no JSON in:\n%s", out);
	rec = json_loads(json + 1, JSON_DISABLE_EOF_CHECK, &err);
	ck_assert_msg(rec != NULL, "bad JSON: %s", err.text);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		ck_assert_msg(json_object_get(rec, fields[i]), "record lacks %s", fields[i]);
	ck_assert_str_eq(json_string_value(json_object_get(rec, "result")), "pass");
	ck_assert_str_eq(json_string_value(json_object_get(rec, "seed")), "42");
	ck_assert_int_gt(json_integer_value(json_object_get(rec, "ops")), 0);
	json_decref(rec);
	ck_assert_ptr_nonnull(strstr(out, "START:"));
	ck_assert_ptr_nonnull(strstr(out, "END: SUCCESS"));
}
END_TEST

/*
 * --until-fallbacks ends the run once its site fired, well before its
 * bound (the site fires thousands of times a second in this run), and
 * the reproduce line keeps it.
 */
START_TEST(test_cli_until_fallbacks_ends_the_run)
{
	static const char site[] = "page_referenced_obj_one:page_table_lock";
	const char *const args[] = { "run", "--scenario", "many-vmas", "--rmap", "objfile",
				     "--threads", "8", "--seed", "3", "--seconds", "100",
				     "--until-fallbacks", site, "--json", NULL };
	json_t *rec;
	char *json;

	ck_assert_int_eq(rt_cli_run(args, out, sizeof(out)), 0);
	json = strstr(out, "\n{");
	ck_assert_msg(json != NULL, "no JSON in:\n%s", out);
	rec = json_loads(json + 1, JSON_DISABLE_EOF_CHECK, NULL);
	ck_assert_ptr_nonnull(rec);
	ck_assert_int_gt(json_integer_value(json_object_get(json_object_get(rec, "trylock_fallbacks"),
							    site)), 0);
	ck_assert_double_lt(json_number_value(json_object_get(rec, "seconds")), 100);
	ck_assert_msg(strstr(json_string_value(json_object_get(rec, "reproduce")),
			     "--until-fallbacks page_referenced_obj_one:page_table_lock"),
		      "reproduce: %s", json_string_value(json_object_get(rec, "reproduce")));
	json_decref(rec);
}
END_TEST

/*
 * ck_assert_msg(), with the command's output on stderr when it fails:
 * Check's messages must stay short (and on one line for TAP).
 */
#define ck_assert_out(cond, ...) do {					\
	if (!(cond))							\
		fprintf(stderr, "---- output ----\n%s\n----\n", out);	\
	ck_assert_msg(cond, __VA_ARGS__);				\
} while (0)

/* The one failure-*.json in @dir whose name starts with @prefix, loaded; NULL if none. */
static json_t *load_artifact(const char *dir, const char *prefix)
{
	char path[4400];
	struct dirent *de;
	json_t *art = NULL;
	DIR *d = opendir(dir);

	ck_assert_msg(d != NULL, "no directory %s", dir);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix))) {
			ck_assert_msg(art == NULL, "two %s* in %s", prefix, dir);
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			art = json_load_file(path, 0, NULL);
			ck_assert_msg(art != NULL, "%s: not JSON", path);
		}
	closedir(d);
	return art;
}

/* The last line of @s, without its newline, into @buf. */
static const char *last_line(const char *s, char *buf, size_t len)
{
	size_t n = strlen(s);
	const char *p;

	while (n && s[n - 1] == '\n')
		n--;
	for (p = s + n; p > s && p[-1] != '\n'; p--)
		;
	snprintf(buf, len, "%.*s", (int)(s + n - p), p);
	return buf;
}

/*
 * Every task in flight is listed with every lock it holds, however many:
 * the printed lines and the artifact's "tasks" agree with the headline's
 * count of locks, and the CPU that hangs is there with its lock. The
 * paths are the project root's (test_cli_paths_from_any_build_dir shows
 * that they are the same from any build directory), so a deep build
 * directory cannot lengthen them either.
 */
START_TEST(test_cli_hang_is_reported_with_held_lock)
{
	char dir[] = "/tmp/rt-cli-hang-XXXXXX";
	const char *const args[] = { "run", "--scenario", "mixed32", "--seconds", "60",
				     "--threads", "6", "--reclaim-threads", "0",
				     "--watchdog", "2", "--test-hang", "page_table_lock",
				     "--audit-every", "0", "--no-progress", "--out", dir, NULL };
	int rc, locks = -1, listed = 0;
	json_t *art, *tasks, *t;
	const char *m;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 1, "exit %d", rc);
	ck_assert_out(strstr(out, "no worker progress"), "no hang report");
	ck_assert_out(strstr(out, "task cpu-0 in test-hang (") &&
		      strstr(strstr(out, "task cpu-0 in test-hang ("),
			     " events in it) holding page_table_lock (stress/engine.c:"),
		      "cpu-0's lock not listed");
	ck_assert_out(strstr(out, "END: FAILURE (hang:"), "no END line");
	m = strstr(out, "tasks in flight hold ");
	ck_assert_out(m && sscanf(m, "tasks in flight hold %d locks", &locks) == 1, "no headline");
	art = load_artifact(dir, "failure-hang-");
	ck_assert_ptr_nonnull(art);
	tasks = json_object_get(art, "tasks");
	ck_assert_msg(json_array_size(tasks) >= 1, "no tasks in the artifact");
	json_array_foreach(tasks, i, t) {
		const json_t *held = json_object_get(t, "held"), *h;
		char line[4096];
		size_t k;
		int n;

		/* The printed line names the same locks, in order, none cut. */
		ck_assert(json_is_integer(json_object_get(t, "events_in_op")));
		n = snprintf(line, sizeof(line), "task %s in %s (%lld events in it) holding",
			     json_string_value(json_object_get(t, "task")),
			     json_string_value(json_object_get(t, "op")),
			     (long long)json_integer_value(json_object_get(t, "events_in_op")));
		/* The hung CPU sleeps holding its lock: it records nothing more. */
		if (!strcmp(json_string_value(json_object_get(t, "op")), "test-hang"))
			ck_assert_int_lt(json_integer_value(json_object_get(t, "events_in_op")), 100);
		json_array_foreach(held, k, h)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %s (%s:%lld)",
				      json_string_value(json_object_get(h, "what")),
				      json_string_value(json_object_get(h, "file")),
				      (long long)json_integer_value(json_object_get(h, "line")));
		if (!json_array_size(held))
			snprintf(line + n, sizeof(line) - (size_t)n, " nothing");
		ck_assert_out(strstr(out, line), "not printed: %s", line);
		ck_assert_msg(strncmp(json_string_value(json_object_get(json_array_get(held, 0),
						"file")) ?: "core/", "../", 3),
			      "a build-relative path: %s", line);
		listed += (int)json_array_size(held);
	}
	ck_assert_int_eq(listed, locks);
	json_decref(art);
	rt_remove_tree(dir);
}
END_TEST

/*
 * A task that loops, holding nothing, waiting for what no thread will do
 * (--test-spin with no other worker): the hang report shows it busy in its
 * operation, its flight recorder events there by the ten thousand at
 * least, where a task that sleeps on a lock shows fewer than 100 (the
 * test above). How many depends on the CPU the task got in the
 * watchdog's 2 s: hundreds of thousands alone, 84,638 in the TSan build
 * of a loaded CI run (2026-12-06), which a bound of 100,000 failed.
 */
START_TEST(test_cli_hang_shows_a_spinning_task)
{
	char dir[] = "/tmp/rt-cli-spin-XXXXXX";
	const char *const args[] = { "run", "--scenario", "shm", "--seconds", "60",
				     "--threads", "1", "--reclaim-threads", "0",
				     "--watchdog", "2", "--test-spin", "--audit-every", "0",
				     "--no-progress", "--out", dir, NULL };
	json_t *art, *t;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 1, "exit %d", rc);
	ck_assert_out(strstr(out, "END: FAILURE (hang:no-lock-held)"), "no hang");
	ck_assert_out(strstr(out, "task cpu-0 in test-spin ("), "cpu-0 not listed");
	art = load_artifact(dir, "failure-hang-");
	ck_assert_ptr_nonnull(art);
	t = json_array_get(json_object_get(art, "tasks"), 0);
	ck_assert_str_eq(json_string_value(json_object_get(t, "op")), "test-spin");
	ck_assert_msg(json_integer_value(json_object_get(t, "events_in_op")) > 10000,
		      "events %lld", (long long)json_integer_value(json_object_get(t, "events_in_op")));
	json_decref(art);
	rt_remove_tree(dir);
}
END_TEST

/*
 * A BUG ends the run, not the process: the BUGging task leaves the model,
 * the others are stopped, and the run still prints its summary, writes
 * its record and its artifact, and ends with END: FAILURE (signature) and
 * exit 1 (no abort, no sanitizer report from the abandoned threads).
 * --out creates its missing parents.
 */
START_TEST(test_cli_bug_ends_the_run)
{
	char dir[] = "/tmp/rt-cli-bug-XXXXXX", outdir[4200], path[4400], end[512], want[512];
	const char *const args[] = { "run", "--inject", "fork-link-late", "--seed", "3",
				     "--seconds", "5", "--no-progress", "--out", outdir, NULL };
	json_t *rec, *art;
	const char *sig;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(outdir, sizeof(outdir), "%s/not/yet", dir);
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 1, "exit %d", rc);
	ck_assert_out(strstr(out, "=== rmaptorture report: bug ==="), "no BUG report");
	ck_assert_out(strstr(out, "forkbomb-cow / anonvma: "), "no summary");
	ck_assert_out(strstr(out, "teardown: not run"), "teardown not skipped");
	art = load_artifact(outdir, "failure-bug-");
	ck_assert_msg(art != NULL, "no failure-bug-*.json in %s", outdir);
	sig = json_string_value(json_object_get(art, "signature"));
	ck_assert_msg(sig && !strncmp(sig, "bug:core/rmap_anonvma.c:", 24), "signature %s", sig);
	snprintf(want, sizeof(want), "END: FAILURE (%s)", sig);
	ck_assert_msg(!strcmp(last_line(out, end, sizeof(end)), want), "last line '%s', not '%s'",
		      end, want);
	snprintf(path, sizeof(path), "%s/run-forkbomb-cow-anonvma-3.json", outdir);
	rec = json_load_file(path, 0, NULL);
	ck_assert_msg(rec != NULL, "no record %s", path);
	ck_assert_str_eq(json_string_value(json_object_get(rec, "result")), "fail");
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
		json_object_get(rec, "failures"), 0), "signature")), sig);
	json_decref(rec);
	json_decref(art);
	rt_remove_tree(dir);
}
END_TEST

/*
 * Ctrl-C on a run: exit 130, the summary and END line say interrupted,
 * and so does the record's "result" ("pass" would count a run cut short
 * as a clean one). SIGINT is sent once the run has started (its START
 * line), not after a fixed sleep; the run is far from its 600 s.
 */
START_TEST(test_cli_run_interrupted_record)
{
	char dir[] = "/tmp/rt-cli-int-XXXXXX", outdir[4200], log[4200], path[4400];
	const char *const args[] = { "run", "--scenario", "mixed32", "--threads", "2",
				     "--seconds", "600", "--seed", "7", "--no-progress",
				     "--out", outdir, NULL };
	json_t *rec;
	pid_t pid;
	bool started;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(outdir, sizeof(outdir), "%s/out", dir);
	snprintf(log, sizeof(log), "%s/output.log", dir);
	pid = rt_cli_spawn(args, log);
	started = rt_cli_wait_output(log, "START:", rt_tmo(120), out, sizeof(out));
	rc = rt_cli_interrupt(pid, rt_tmo(120));
	ck_assert_out(started, "no START line");
	/* All of its output now: "" is found at once. */
	rt_cli_wait_output(log, "", 0, out, sizeof(out));
	ck_assert_out(rc == 130, "exit %d", rc);
	ck_assert_out(strstr(out, "INTERRUPTED after "), "the summary does not say interrupted");
	ck_assert_out(strstr(out, "END: INTERRUPTED"), "no END: INTERRUPTED");
	snprintf(path, sizeof(path), "%s/run-mixed32-ptechain-7.json", outdir);
	rec = json_load_file(path, 0, NULL);
	ck_assert_msg(rec != NULL, "no record %s", path);
	ck_assert(json_is_true(json_object_get(rec, "interrupted")));
	ck_assert_str_eq(json_string_value(json_object_get(rec, "result")), "interrupted");
	json_decref(rec);
	rt_remove_tree(dir);
}
END_TEST

/*
 * The file:line pairs that __FILE__ and __LINE__ become in
 * core/rmap_anonvma.c as the build directory @bdir compiles it (its own
 * compile command, preprocessing only), one per line, sorted, into @buf.
 */
static void file_line_pairs(const char *bdir, char *buf, size_t len)
{
	static const char *const obj = "core/librtcore.a.p/rmap_anonvma.c.o";
	char cmd[8192];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int st;

	snprintf(cmd, sizeof(cmd),
		 "set -e; c=$(ninja -C '%s' -t commands %s | tail -n 1); cd '%s';"
		 " eval \"$(printf '%%s\\n' \"$c\" | sed -e 's/ -MD / /' -e 's/ -MQ [^ ]* / /'"
		 " -e 's/ -MF [^ ]* / /' -e 's/ -o [^ ]* / -o - /' -e 's/ -c / -E /')\" |"
		 " grep -o '\"[^\"]*\\.[ch]\", [0-9]*' | sort -u", bdir, obj, bdir);
	st = rt_run_capture(argv, NULL, buf, len);
	if (st || !strstr(buf, "\"core/rmap_anonvma.c\", "))
		fprintf(stderr, "---- output ----\n%s\n----\n", buf);
	ck_assert_msg(st == 0 && strstr(buf, "\"core/rmap_anonvma.c\", "),
		      "%s: no file:line pairs of core/rmap_anonvma.c (%#x)", bdir, st);
}

/*
 * The same BUG's signature from two build directories at different
 * depths. A BUG's signature is "bug:" __FILE__ ":" condition, a lock
 * site __FILE__:__LINE__. A second build directory outside the tree,
 * three levels down, configured by meson, preprocesses
 * core/rmap_anonvma.c (where fork-link-late hits its BUG_ON) with its own
 * compile command: every __FILE__ there, its own and its headers', is the
 * path from the project root, exactly as in this build, never a path
 * through the build directory.
 */
START_TEST(test_cli_paths_from_any_build_dir)
{
	static char here[1 << 16], there[1 << 16];
	char dir[] = "/tmp/rt-cli-deep-XXXXXX", cmd[8192], deep[4200];
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	const char *p;
	int st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(deep, sizeof(deep), "%s/a/b/c/build", dir);
	snprintf(cmd, sizeof(cmd), "meson setup -Dtests=false '%s' '%s' >/dev/null", deep,
		 RT_SOURCE_ROOT);
	st = rt_run_capture(argv, NULL, out, sizeof(out));
	ck_assert_out(st == 0, "the second build directory failed (%#x)", st);
	file_line_pairs(RT_BUILD_ROOT, here, sizeof(here));
	file_line_pairs(deep, there, sizeof(there));
	for (const char *b = here; b; b = b == here ? there : NULL)
		for (p = b; *p; p = strchr(p, '\n') + 1)
			ck_assert_msg(strncmp(p, "\"../", 4) && strncmp(p, "\"/", 2),
				      "a path through the build directory: %.*s",
				      (int)strcspn(p, "\n"), p);
	/* rmap_anonvma.c's own: the same in both (headers may differ by build kind). */
	for (p = there; *p; p = strchr(p, '\n') + 1) {
		size_t n = strcspn(p, "\n");
		const char *q;

		if (strncmp(p, "\"core/rmap_anonvma.c\", ", 23))
			continue;
		for (q = here; *q; q = strchr(q, '\n') + 1)
			if (strcspn(q, "\n") == n && !strncmp(q, p, n))
				break;
		ck_assert_msg(*q, "this build lacks %.*s", (int)n, p);
	}
	rt_remove_tree(dir);
}
END_TEST

/*
 * Without --out a failure is kept all the same: the first report makes
 * $TMPDIR/rmaptorture-run-XXXXXX, the run says where and ends with the
 * command that reproduces it and the replay of its artifact; a clean run
 * without --out leaves nothing. TMPDIR is the test's own directory.
 */
START_TEST(test_cli_failure_without_out_keeps_artifact)
{
	char dir[] = "/tmp/rt-cli-noout-XXXXXX", want[4200], path[4400], *old;
	const char *const bug[] = { "run", "--inject", "fork-link-late", "--no-progress", NULL };
	const char *const clean[] = { "run", "--seconds", "1", "--threads", "2",
				      "--no-progress", NULL };
	const char *at;
	struct dirent *de;
	json_t *art;
	int rc, n = 0;
	DIR *d;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", dir, 1);
	rc = rt_cli_run(clean, out, sizeof(out));
	ck_assert_out(rc == 0 && strstr(out, "END: SUCCESS"), "clean run: exit %d", rc);
	rc = rt_cli_run(bug, out, sizeof(out));
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	ck_assert_out(rc == 1, "exit %d", rc);
	snprintf(want, sizeof(want), "rmaptorture: no --out: artifacts go to %s/rmaptorture-run-", dir);
	ck_assert_out(strstr(out, want), "no '%s'", want);
	ck_assert_out(strstr(out, "\nreproduce: rmaptorture run ") &&
		      strstr(out, "--inject fork-link-late"), "no reproduce line");
	snprintf(want, sizeof(want), "\nreplay:    rmaptorture replay %s/rmaptorture-run-", dir);
	at = strstr(out, want);
	ck_assert_out(at != NULL, "no '%s'", want + 1);
	at += strlen("\nreplay:    rmaptorture replay ");
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(at, "\n"), at);
	ck_assert_msg(strstr(path, "/failure-bug-"), "%s", path);
	art = json_load_file(path, 0, NULL);
	ck_assert_msg(art != NULL, "no artifact %s", path);
	json_decref(art);
	/* The failing run's directory alone: the clean run made none. */
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	ck_assert_int_eq(n, 1);
	rt_remove_tree(dir);
}
END_TEST

/* Every command that takes --out creates its missing parents (mkdir -p). */
START_TEST(test_cli_out_creates_parents)
{
	char dir[] = "/tmp/rt-cli-out-XXXXXX", run_out[4200], d[4200], path[4400];
	const char *const run[] = { "run", "--inject", "fork-link-late", "--no-progress",
				    "--out", run_out, NULL };
	struct dirent *de;
	struct stat st;
	DIR *dd;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(run_out, sizeof(run_out), "%s/run/a/b", dir);
	ck_assert_int_eq(rt_cli_run(run, out, sizeof(out)), 1);
	dd = opendir(run_out);
	ck_assert_ptr_nonnull(dd);
	path[0] = '\0';
	while ((de = readdir(dd)))
		if (!strncmp(de->d_name, "failure-bug-", 12))
			snprintf(path, sizeof(path), "%s/%s", run_out, de->d_name);
	closedir(dd);
	ck_assert_msg(path[0], "no artifact in %s", run_out);

	snprintf(d, sizeof(d), "%s/replay/a/b", dir);
	rc = rt_cli_run((const char *const[]){ "replay", path, "--times", "1", "--quiet",
					       "--out", d, NULL }, out, sizeof(out));
	ck_assert_out(rc == 0 && !stat(d, &st) && S_ISDIR(st.st_mode), "replay: exit %d", rc);
	snprintf(d, sizeof(d), "%s/report/a/b", dir);
	rc = rt_cli_run((const char *const[]){ "report", RT_SOURCE_ROOT "/results/baselines/bench.json",
					       "--no-plots", "--out", d, NULL }, out, sizeof(out));
	snprintf(path, sizeof(path), "%s/report.md", d);
	ck_assert_out(rc == 0 && !stat(path, &st), "report: exit %d", rc);
	snprintf(d, sizeof(d), "%s/matrix/a/b", dir);
	rc = rt_cli_run((const char *const[]){ "matrix", "--bugs", "fork-link-late", "--out", d,
					       NULL }, out, sizeof(out));
	ck_assert_out(rc == 0 && !stat(d, &st) && S_ISDIR(st.st_mode), "matrix: exit %d", rc);
	rt_cli_assert_schema_valid(d, "matrix.json");
	/* A file in the way: one line, exit 2. */
	snprintf(d, sizeof(d), "%s/report/a/b/report.md/x", dir);
	BAD("--out", "run", "--seconds", "1", "--out", d);
	rt_remove_tree(dir);
}
END_TEST

/*
 * explore's CPUs: a sequence per CPU (A+B), 'kswapd' as an operation, at
 * most RT_FIXED_SEQ_MAX (4) operations on a CPU, one kswapd CPU beside them.
 */
START_TEST(test_cli_bad_fixed_ops)
{
	BAD("unknown operation 'nosuch'", "run", "--sched", "explore", "--fixed-ops",
	    "write+nosuch,fork");
	BAD("at most 4 operations on one CPU", "run", "--sched", "explore", "--fixed-ops",
	    "read,write+munmap+read+fork+exit");
	BAD("an empty operation", "run", "--sched", "explore", "--fixed-ops", "write++munmap,fork");
	BAD("an empty operation", "run", "--sched", "explore", "--fixed-ops", "write,");
	BAD("an empty operation", "run", "--sched", "explore", "--fixed-ops", ",kswapd");
	BAD("--reclaim-threads", "run", "--sched", "explore", "--fixed-ops", "read,read",
	    "--reclaim-threads", "2");
	BAD("unknown operation 'kswap'", "explore", "--ops", "read,kswap");
	BAD("at most 4 operations on one CPU", "explore", "--ops", "kswapd+read+read+read+read,fork");
	BAD("an empty operation", "explore", "--ops", "+write,fork");
	BAD("an empty operation", "explore", "--ops", "write,fork+");
	BAD("not a pair", "explore", "--ops", "write+munmap");
	BAD("not a pair", "explore", "--ops", "write,fork,kswapd");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("usage");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cli_bad_run_options);
	tcase_add_test(tc, test_cli_missing_values_and_files);
	tcase_add_test(tc, test_cli_help_and_list);
	suite_add_tcase(s, tc);
	tc = tcase_create("runs");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_cli_run_json_record);
	tcase_add_test(tc, test_cli_until_fallbacks_ends_the_run);
	tcase_add_test(tc, test_cli_hang_is_reported_with_held_lock);
	tcase_add_test(tc, test_cli_hang_shows_a_spinning_task);
	tcase_add_test(tc, test_cli_bug_ends_the_run);
	tcase_add_test(tc, test_cli_paths_from_any_build_dir);
	tcase_add_test(tc, test_cli_out_creates_parents);
	tcase_add_test(tc, test_cli_run_interrupted_record);
	tcase_add_test(tc, test_cli_failure_without_out_keeps_artifact);
	suite_add_tcase(s, tc);
	tc = tcase_create("fixed_ops");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cli_bad_fixed_ops);
	suite_add_tcase(s, tc);
	return rt_check_main(s);
}
