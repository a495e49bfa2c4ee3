// SPDX-License-Identifier: MIT
/*
 * replay and minimize. The "validate" case is quick: a failure artifact
 * with a missing or malformed field is refused, by rt_artifact_load() and
 * by both commands, with exit status 2 and one line naming the file and
 * the field; bad options likewise. The "runs" case runs real children: a
 * hang found by `run` replays, minimize shrinks it to an artifact no
 * larger than its input that still fails and itself replays, Ctrl-C
 * stops a replay with exit status 130, replay prints what it runs and
 * warns of another revision, and a free replay's try ends at the report
 * it looks for (and at no other). meson runs the two cases as two
 * tests: "replay-artifacts" (unit) and "replay" (stress).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "artifact.h"
#include "record.h"
#include "rt_check.h"
#include "rt_cli.h"
#include "rt_opt.h"

#define FIXTURES RT_SOURCE_ROOT "/tests/data/artifacts"

static char out[1 << 20];

/* The tail of the captured output, for messages. */
static const char *tail(void)
{
	size_t n = strlen(out);

	return out + (n > 6000 ? n - 6000 : 0);
}

static void expect_one_line_error(const char *const *args, const char *needle1,
				  const char *needle2)
{
	int rc = rt_cli_run(args, out, sizeof(out));
	char *nl = strchr(out, '\n');

	ck_assert_msg(rc == 2, "%s %s: exit %d, output:\n%s", args[0], args[1] ? args[1] : "",
		      rc, out);
	ck_assert_msg(nl && nl[1] == '\0', "not one line:\n%s", out);
	ck_assert_msg(strstr(out, needle1), "'%s' not named in: %s", needle1, out);
	ck_assert_msg(!needle2 || strstr(out, needle2), "'%s' not named in: %s", needle2, out);
}

static const struct {
	const char *file;
	const char *needle;
} bad_artifacts[] = {
	{ "missing-kind.json", "field 'kind' is missing" },
	{ "unknown-kind.json", "field 'kind' must be one of" },
	{ "bad-seed.json", "field 'seed' must be a string of decimal digits" },
	{ "seed-too-big.json", "field 'seed'" },
	{ "seed-number.json", "field 'seed'" },
	{ "args-not-run.json", "field 'args' must start with \"run\"" },
	{ "args-empty.json", "field 'args' must be a non-empty array" },
	{ "threads-string.json", "field 'threads' must be an integer" },
	{ "threads-zero.json", "field 'threads'" },
	{ "unknown-sched.json", "field 'sched' must be one of free, random, pct" },
	{ "pct-without-depth.json", "field 'pct_depth' is missing" },
	{ "bad-build.json", "field 'build'" },
	{ "count-zero.json", "field 'count'" },
	{ "weights-negative.json", "field 'weights'" },
	{ "not-a-failure.json", "this is a run record, not a failure artifact" },
	/* A run's own record (run --out DIR), given where its failure's belongs. */
	{ "run-record.json", "this is a run record, not a failure artifact: give the failure-*.json" },
	{ "truncated.json", "not valid JSON" },
};

START_TEST(test_replay_fixtures_load)
{
	char err[4096] = "", path[4096];
	json_t *art;

	snprintf(path, sizeof(path), "%s/valid.json", FIXTURES);
	art = rt_artifact_load(path, rt_opt_design_names(), err, sizeof(err));
	ck_assert_msg(art != NULL, "%s", err);
	ck_assert(rt_artifact_seed(art) == UINT64_MAX);
	json_decref(art);
	snprintf(path, sizeof(path), "%s/valid-pct.json", FIXTURES);
	art = rt_artifact_load(path, rt_opt_design_names(), err, sizeof(err));
	ck_assert_msg(art != NULL, "%s", err);
	json_decref(art);
	/* The designs and schedules that came later: mainline9 under vtime. */
	snprintf(path, sizeof(path), "%s/valid-vtime-mainline9.json", FIXTURES);
	art = rt_artifact_load(path, rt_opt_design_names(), err, sizeof(err));
	ck_assert_msg(art != NULL, "%s", err);
	json_decref(art);
	for (size_t i = 0; i < sizeof(bad_artifacts) / sizeof(bad_artifacts[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", FIXTURES, bad_artifacts[i].file);
		err[0] = '\0';
		art = rt_artifact_load(path, rt_opt_design_names(), err, sizeof(err));
		ck_assert_msg(art == NULL, "%s was accepted", bad_artifacts[i].file);
		ck_assert_msg(strstr(err, bad_artifacts[i].needle) && strstr(err, path) &&
			      !strchr(err, '\n'), "%s: %s", bad_artifacts[i].file, err);
	}
}
END_TEST

START_TEST(test_replay_bad_artifacts_exit_2)
{
	static const char *const cmds[] = { "replay", "minimize" };
	char path[4096];

	for (size_t c = 0; c < 2; c++) {
		for (size_t i = 0; i < sizeof(bad_artifacts) / sizeof(bad_artifacts[0]); i++) {
			const char *const args[] = { cmds[c], path, NULL };

			snprintf(path, sizeof(path), "%s/%s", FIXTURES, bad_artifacts[i].file);
			expect_one_line_error(args, bad_artifacts[i].needle, bad_artifacts[i].file);
		}
		/* Not a file, and no file at all. */
		{
			const char *const dir[] = { cmds[c], FIXTURES, NULL };
			const char *const none[] = { cmds[c], FIXTURES "/nosuch.json", NULL };

			expect_one_line_error(dir, "is a directory, not a failure artifact", FIXTURES);
			expect_one_line_error(none, "nosuch.json: no such file", NULL);
		}
	}
}
END_TEST

#define BAD(n1, n2, ...) expect_one_line_error((const char *const[]){ __VA_ARGS__, NULL }, n1, n2)

START_TEST(test_replay_bad_options_and_help)
{
	const char *const rhelp[] = { "replay", "--help", NULL };
	const char *const mhelp[] = { "minimize", "--help", NULL };
	const char *v = FIXTURES "/valid.json";

	BAD("--times", NULL, "replay", "--times", "0", v);
	BAD("--times", NULL, "replay", "--times", "many", v);
	BAD("--budget", NULL, "replay", "--budget", "-1", v);
	BAD("--budget", NULL, "replay", "--budget", "0", v);
	BAD("unknown option", NULL, "replay", "--frobnicate", v);
	BAD("missing ARTIFACT", NULL, "replay");
	BAD("unexpected argument", NULL, "replay", v, v);
	BAD("--tries-per-step", NULL, "minimize", "--tries-per-step", "0", v);
	BAD("--budget", NULL, "minimize", "--budget", "soon", v);
	BAD("unknown option", NULL, "minimize", "--times", "3", v);
	BAD("missing ARTIFACT", NULL, "minimize");
	BAD("unexpected argument", NULL, "minimize", v, "extra");
	ck_assert_int_eq(rt_cli_run(rhelp, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "--times"));
	ck_assert_ptr_nonnull(strstr(out, "--budget"));
	ck_assert_int_eq(rt_cli_run(mhelp, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "--tries-per-step"));
}
END_TEST

/* The single failure-KIND-*.json in @dir, or ck_assert. */
static void find_artifact(const char *dir, const char *kind, char *path, size_t len)
{
	char prefix[64];
	struct dirent *de;
	DIR *d = opendir(dir);
	int found = 0;

	ck_assert_msg(d != NULL, "%s: %s", dir, strerror(errno));
	snprintf(prefix, sizeof(prefix), "failure-%s-", kind);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, prefix, strlen(prefix))) {
			snprintf(path, len, "%s/%s", dir, de->d_name);
			found++;
		}
	closedir(d);
	ck_assert_msg(found == 1, "%d %s artifacts in %s; run output:\n%s", found, kind, dir,
		      tail());
}

/*
 * Replay @artifact with a deterministic schedule @times times; assert that
 * every try reproduced it. The call a seeded-bug test makes:
 *	make_artifact(dir, (const char *const[]){ "--inject", "reclaim-lock-ptl",
 *		      "--sched", "pct", ..., NULL }, "KIND", path, sizeof(path));
 *	assert_replays_every_time(path, 10);
 * (and minimize_ok(), then assert_replays_every_time() on its result).
 */
__attribute__((unused))
static void assert_replays_every_time(const char *artifact, int times)
{
	char n[16], want[64];
	const char *const args[] = { "replay", artifact, "--times", n, NULL };
	int rc;

	snprintf(n, sizeof(n), "%d", times);
	snprintf(want, sizeof(want), "reproduced %d/%d", times, times);
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_msg(rc == 0 && strstr(out, want), "replay %s: exit %d:\n%s", artifact, rc,
		      tail());
}

static json_t *load_ok(const char *path)
{
	char err[4096];
	json_t *art = rt_artifact_load(path, rt_opt_design_names(), err, sizeof(err));

	ck_assert_msg(art != NULL, "%s", err);
	return art;
}

static long long field(const json_t *art, const char *f)
{
	return json_integer_value(json_object_get(art, f));
}

/*
 * `run --no-progress --out DIR/run --seed SEED` plus @extra (a later
 * --seed wins), which must fail with exactly one artifact of @kind; its
 * path into @path.
 */
static void make_artifact(const char *dir, const char *const *extra, const char *kind,
			  char *path, size_t len)
{
	const char *args[64] = { "run", "--no-progress", "--out" };
	char run_dir[4200], seed[32];
	int n = 3, rc;

	snprintf(run_dir, sizeof(run_dir), "%s/run", dir);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)rt_test_seed());
	args[n++] = run_dir;
	args[n++] = "--seed";
	args[n++] = seed;
	while (*extra && n < 63)
		args[n++] = *extra++;
	args[n] = NULL;
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_msg(rc == 1, "run: exit %d:\n%s", rc, tail());
	find_artifact(run_dir, kind, path, len);
}

/*
 * Minimize @art_path into DIR/min with @budget seconds; check that the
 * result is no larger than the input in every measure, has the same
 * signature and a command that names no scratch directory. Its path
 * into @min_path; returns it loaded.
 */
static json_t *minimize_ok(const char *dir, const char *art_path, const json_t *art,
			   const char *kind, const char *budget, char *min_path, size_t len)
{
	char min_dir[4200];
	const char *const args[] = { "minimize", art_path, "--budget", budget,
				     "--tries-per-step", "2", "--out", min_dir, NULL };
	json_t *min;
	int rc;

	snprintf(min_dir, sizeof(min_dir), "%s/min", dir);
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_msg(rc == 0 && strstr(out, "minimize: wrote"), "minimize: exit %d:\n%s",
		      rc, tail());
	ck_assert_msg(strstr(out, "before:") && strstr(out, "after:"), "%s", tail());
	find_artifact(min_dir, kind, min_path, len);
	ck_assert_msg(strstr(min_path, "-min.json"), "%s", min_path);
	min = load_ok(min_path);
	ck_assert_str_eq(json_string_value(json_object_get(min, "signature")),
			 json_string_value(json_object_get(art, "signature")));
	ck_assert_int_le(field(min, "threads"), field(art, "threads"));
	ck_assert_int_le(field(min, "reclaim_threads"), field(art, "reclaim_threads"));
	ck_assert_int_le(field(min, "procs"), field(art, "procs"));
	ck_assert_int_le(field(min, "sched_steps"), field(art, "sched_steps"));
	ck_assert(!field(art, "ops") || (field(min, "ops") && field(min, "ops") <= field(art, "ops")));
	ck_assert_msg(!strstr(json_string_value(json_object_get(min, "reproduce")),
			      "rmaptorture-minimize-"), "%s",
		      json_string_value(json_object_get(min, "reproduce")));
	return min;
}

/*
 * Free schedule: the test hang (a worker holds page_table_lock forever;
 * one worker, so that the signature does not depend on where the others
 * stood) replays twice with copies kept, minimizes, and the result replays.
 */
START_TEST(test_replay_free_hang_reproduces_and_minimizes)
{
	static const char *const extra[] = { "--scenario", "mixed32", "--watchdog", "1",
					     "--test-hang", "page_table_lock", "--threads", "1",
					     "--reclaim-threads", "1", "--seconds", "20",
					     "--audit-every", "0", NULL };
	char dir[] = "/tmp/rt-replay-XXXXXX", copy_dir[4200];
	char art_path[4400], copy_path[4400], min_path[4400];
	json_t *art, *min, *copy;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(copy_dir, sizeof(copy_dir), "%s/copies", dir);
	make_artifact(dir, extra, "hang", art_path, sizeof(art_path));
	art = load_ok(art_path);
	ck_assert_str_eq(json_string_value(json_object_get(art, "sched")), "free");
	{
		const char *const args[] = { "replay", art_path, "--times", "2", "--budget", "60",
					     "--out", copy_dir, NULL };

		rc = rt_cli_run(args, out, sizeof(out));
		ck_assert_msg(rc == 0 && strstr(out, "reproduced 2/"), "replay: exit %d:\n%s", rc,
			      tail());
		ck_assert_msg(strstr(out, "replay: try 1 runs: "), "%s", tail());
	}
	find_artifact(copy_dir, "hang", copy_path, sizeof(copy_path));
	copy = load_ok(copy_path);
	ck_assert_str_eq(json_string_value(json_object_get(copy, "signature")),
			 json_string_value(json_object_get(art, "signature")));
	ck_assert_int_eq(field(copy, "count"), 2);
	json_decref(copy);

	min = minimize_ok(dir, art_path, art, "hang", "20", min_path, sizeof(min_path));
	{
		const char *const args[] = { "replay", min_path, "--budget", "60", NULL };

		rc = rt_cli_run(args, out, sizeof(out));
		ck_assert_msg(rc == 0 && strstr(out, "reproduced 1/"),
			      "replay of the minimized: exit %d:\n%s", rc, tail());
	}
	json_decref(min);
	json_decref(art);
	rt_remove_tree(dir);
}
END_TEST

/* A valid artifact whose command runs clean for a minute. */
static void write_long_artifact(const char *path)
{
	char err[4096], fixture[4096];
	json_t *art;

	snprintf(fixture, sizeof(fixture), "%s/valid.json", FIXTURES);
	art = load_ok(fixture);
	json_object_set_new(art, "args", json_pack("[s, s, s, s, s, s, s, s, s]", "run",
		"--scenario", "mixed32", "--threads", "2", "--seconds", "60",
		"--audit-every", "0"));
	json_object_set_new(art, "build", json_string(RT_BUILD_KIND));
	json_object_set_new(art, "git", json_string(rt_git_rev()));
	ck_assert_int_eq(json_dump_file(art, path, 0), 0);
	json_decref(art);
	art = rt_artifact_load(path, rt_opt_design_names(), err, sizeof(err));
	ck_assert_msg(art != NULL, "%s", err);
	json_decref(art);
}

/*
 * The fixture with @args (NULL-terminated, after "run"), @sched, @git and
 * a "reproduce" that is not what they run, written to @path.
 */
static void write_artifact(const char *path, const char *const *args, const char *sched,
			   const char *git, const char *kind, const char *signature,
			   double seconds)
{
	char err[4096], fixture[4096];
	json_t *art, *a = json_array();

	snprintf(fixture, sizeof(fixture), "%s/valid.json", FIXTURES);
	art = load_ok(fixture);
	json_array_append_new(a, json_string("run"));
	for (; *args; args++)
		json_array_append_new(a, json_string(*args));
	json_object_set_new(art, "args", a);
	json_object_set_new(art, "reproduce", json_string("rmaptorture run --not-what-runs"));
	json_object_set_new(art, "sched", json_string(sched));
	json_object_set_new(art, "git", json_string(git));
	json_object_set_new(art, "kind", json_string(kind));
	json_object_set_new(art, "signature", json_string(signature));
	json_object_set_new(art, "seconds", json_real(seconds));
	json_object_set_new(art, "build", json_string(RT_BUILD_KIND));
	ck_assert_int_eq(json_dump_file(art, path, 0), 0);
	json_decref(art);
	art = rt_artifact_load(path, rt_opt_design_names(), err, sizeof(err));
	ck_assert_msg(art != NULL, "%s", err);
	json_decref(art);
}

/*
 * replay prints the command it runs (the artifact's args, the try's
 * --out and --halt-on-signature), not the artifact's "reproduce"; it
 * warns, on one line, when the artifact comes from another revision.
 */
START_TEST(test_replay_prints_what_runs)
{
	static const char *const args[] = { "--scenario", "mixed32", "--threads", "1",
					    "--reclaim-threads", "0", "--sched", "random",
					    "--sched-steps", "300", "--seed", "5", NULL };
	static const char *const want[] = {
		"replay: try 1 runs: ",
		" run --scenario mixed32 --threads 1 --reclaim-threads 0 --sched random"
		" --sched-steps 300 --seed 5 --out ",
		"/try-1 --no-progress --halt-on-signature 'lockdep-order:A->B'\n",
	};
	char dir[] = "/tmp/rt-replay-cmd-XXXXXX", path[4200], warn[4400];
	const char *const replay[] = { "replay", path, "--times", "1", NULL };
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/elsewhere.json", dir);
	write_artifact(path, args, "random", "0000000-elsewhere", "lockdep-order",
		       "lockdep-order:A->B", 0);
	rc = rt_cli_run(replay, out, sizeof(out));
	ck_assert_msg(rc == 1 && strstr(out, "reproduced 0/1"), "replay: exit %d:\n%s", rc, tail());
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(strstr(out, want[i]), "no '%s' in:\n%s", want[i], tail());
	ck_assert_msg(!strstr(out, "--not-what-runs") && !strstr(out, "reproduce:"), "%s", tail());
	snprintf(warn, sizeof(warn), "rmaptorture: replay: warning: %s was found at revision"
		 " 0000000-elsewhere, this is %s: the code may differ\n", path, rt_git_rev());
	ck_assert_msg(strstr(out, warn), "no '%s' in:\n%s", warn, tail());
	/* The same revision: no warning. */
	write_artifact(path, args, "random", rt_git_rev(), "lockdep-order", "lockdep-order:A->B", 0);
	rc = rt_cli_run(replay, out, sizeof(out));
	ck_assert_msg(rc == 1 && !strstr(out, "warning"), "replay: exit %d:\n%s", rc, tail());
	rt_remove_tree(dir);
}
END_TEST

/*
 * A free replay ends each try at the first report with the artifact's
 * signature: reclaim-lock-ptl reports its lock inversion within a second,
 * then deadlocks, so that a try that ran on would last until the watchdog
 * (30 s) or the bound (40 s); the replay must take under half the bound.
 */
START_TEST(test_replay_free_stops_at_the_signature)
{
	static const char *const args[] = { "--scenario", "mixed32", "--rmap", "objfile",
					    "--threads", "4", "--reclaim-threads", "2",
					    "--seed", "1", "--inject", "reclaim-lock-ptl",
					    "--seconds", "40", "--watchdog", "30", NULL };
	char dir[] = "/tmp/rt-replay-stop-XXXXXX", path[4200];
	const char *const replay[] = { "replay", path, "--budget", "60", NULL };
	double start, took;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/free.json", dir);
	write_artifact(path, args, "free", rt_git_rev(), "lockdep-order",
		       "lockdep-order:PG_chainlock->page_table_lock", 40);
	start = rt_now();
	rc = rt_cli_run(replay, out, sizeof(out));
	took = rt_now() - start;
	ck_assert_msg(rc == 0 && strstr(out, "reproduced 1/1"), "replay: exit %d:\n%s", rc, tail());
	ck_assert_msg(took < 20, "the replay took %.1f s of the recorded 40:\n%s", took, tail());
	rt_remove_tree(dir);
}
END_TEST

/*
 * --halt-on-signature ends the run at that signature's report only: a
 * deterministic run with reclaim-lock-ptl's report ends there, unaudited,
 * when it is the one asked for, and runs to its bound, audited and torn
 * down, when another is.
 */
START_TEST(test_replay_halts_only_at_the_signature)
{
	static const char *const sigs[] = { "lockdep-order:PG_chainlock->page_table_lock",
					    "lockdep-order:not-this-one" };
	char dir[] = "/tmp/rt-replay-halt-XXXXXX";

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (int i = 0; i < 2; i++) {
		const char *const args[] = { "run", "--scenario", "mixed32", "--rmap", "objfile",
			"--inject", "reclaim-lock-ptl", "--sched", "pct", "--threads", "4",
			"--seed", "11", "--sched-steps", "5000", "--no-progress", "--out", dir,
			"--halt-on-signature", sigs[i], NULL };
		int rc = rt_cli_run(args, out, sizeof(out));
		bool halted = strstr(out, "teardown: not run (halted at --halt-on-signature)");
		bool clean = strstr(out, "teardown: clean");

		ck_assert_msg(rc == 1 && strstr(out, "=== rmaptorture report: lockdep-order ==="),
			      "run: exit %d:\n%s", rc, tail());
		ck_assert_msg(i == 0 ? halted && !clean : clean && !halted, "%s:\n%s", sigs[i],
			      tail());
	}
	rt_remove_tree(dir);
}
END_TEST

START_TEST(test_replay_interrupt_exits_130)
{
	char dir[] = "/tmp/rt-replay-int-XXXXXX", path[4200];
	char *argv[] = { (char *)rt_cli_binary(), "replay", path, "--budget", "120", NULL };
	posix_spawn_file_actions_t fa;
	double start;
	pid_t pid;
	int st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/long.json", dir);
	write_long_artifact(path);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
							  O_WRONLY, 0), 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	sleep(2);
	start = rt_now();
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "status %#x", st);
	ck_assert_msg(rt_now() - start < 20, "took %.1f s to stop", rt_now() - start);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* argv[1], when given, names the one TCase to run (meson runs each apart). */
int main(int argc, char **argv)
{
	Suite *s = suite_create("replay");
	TCase *tc = tcase_create("validate");

	tcase_set_timeout(tc, rt_tmo(60));
	tcase_add_test(tc, test_replay_fixtures_load);
	tcase_add_test(tc, test_replay_bad_artifacts_exit_2);
	tcase_add_test(tc, test_replay_bad_options_and_help);
	suite_add_tcase(s, tc);
	tc = tcase_create("runs");
	tcase_set_timeout(tc, rt_tmo(400));
	tcase_add_test(tc, test_replay_free_hang_reproduces_and_minimizes);
	tcase_add_test(tc, test_replay_interrupt_exits_130);
	tcase_add_test(tc, test_replay_prints_what_runs);
	tcase_add_test(tc, test_replay_free_stops_at_the_signature);
	tcase_add_test(tc, test_replay_halts_only_at_the_signature);
	suite_add_tcase(s, tc);
	if (argc > 1)
		setenv("CK_RUN_CASE", argv[1], 1);
	return rt_check_main(s);
}
