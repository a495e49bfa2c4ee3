// SPDX-License-Identifier: MIT
/*
 * The command line: every bad value is one line naming the option and
 * exit status 2; list and --help work; --json is a well-formed record;
 * a hang is detected by the watchdog and reported with the held lock.
 */
#include <jansson.h>
#include <string.h>

#include "rt_check.h"
#include "rt_cli.h"

static char out[1 << 20];

/* Exit 2 and exactly one line of output that mentions @needle. */
static void expect_usage_error(const char *const *args, const char *needle)
{
	int rc = rt_cli_run(args, out, sizeof(out));
	char *nl = strchr(out, '\n');

	ck_assert_msg(rc == 2, "%s %s: exit %d, output:\n%s", args[0], args[1] ? args[1] : "",
		      rc, out);
	ck_assert_msg(nl && nl[1] == '\0', "not one line:\n%s", out);
	ck_assert_msg(strstr(out, needle), "'%s' not named in: %s", needle, out);
}

#define BAD(needle, ...) expect_usage_error((const char *const[]){ __VA_ARGS__, NULL }, needle)

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
	BAD("--audit-every", "run", "--audit-every", "-1");
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
	BAD("--weights", "run", "--weights", "read");
	BAD("--weights", "run", "--weights", "flap=3");
	BAD("--weights", "run", "--weights", "read=-1");
	BAD("--weights", "run", "--scenario", "shm", "--weights",
	    "read=0,write=0,mmap_anon=0,mmap_file=0,mmap_shared=0,munmap=0,mprotect=0,mlock=0,"
	    "mremap=0,fork=0,exec=0,exit=0,truncate=0,remap_file_pages=0,expand_stack=0");
	BAD("--procs", "run", "--procs", "0");
	BAD("--build", "run", "--build", "msan");
	BAD("--bugs", "matrix", "--bugs", "no-such-bug");
	BAD("unexpected argument", "matrix", "extra");
	BAD("unexpected argument", "list", "--bugs", "extra");
	BAD("unknown option", "run", "--frobnicate");
	BAD("unexpected argument", "run", "extra");
	BAD("unknown command", "frob");
	BAD("--threads", "locks", "--threads", "0");
	BAD("--pages", "locks", "--pages", "1");
	BAD("unknown benchmark", "bench", "nothing");
	BAD("--repeat", "bench", "locks", "--repeat", "0");
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
	/* Human output went to stderr, captured with stdout: find the object. */
	json = strstr(out, "\n{");
	ck_assert_msg(json != NULL, "no JSON in:\n%s", out);
	rec = json_loads(json + 1, JSON_DISABLE_EOF_CHECK, &err);
	ck_assert_msg(rec != NULL, "bad JSON: %s", err.text);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		ck_assert_msg(json_object_get(rec, fields[i]), "record lacks %s", fields[i]);
	ck_assert_str_eq(json_string_value(json_object_get(rec, "result")), "pass");
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "seed")), 42);
	ck_assert_int_gt(json_integer_value(json_object_get(rec, "ops")), 0);
	json_decref(rec);
	ck_assert_ptr_nonnull(strstr(out, "START:"));
	ck_assert_ptr_nonnull(strstr(out, "END: SUCCESS"));
}
END_TEST

START_TEST(test_cli_hang_is_reported_with_held_lock)
{
	const char *const args[] = { "run", "--scenario", "mixed32", "--seconds", "60",
				     "--threads", "2", "--reclaim-threads", "0",
				     "--watchdog", "2", "--test-hang", "page_table_lock",
				     "--audit-every", "0", NULL };
	int rc = rt_cli_run(args, out, sizeof(out));

	ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
	ck_assert_msg(strstr(out, "no worker progress"), "%s", out);
	ck_assert_msg(strstr(out, "cpu-0 in test-hang holding page_table_lock"), "%s", out);
	ck_assert_msg(strstr(out, "END: FAILURE (hang:"), "%s", out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("cli");
	TCase *tc = tcase_create("usage");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_cli_bad_run_options);
	tcase_add_test(tc, test_cli_help_and_list);
	suite_add_tcase(s, tc);
	tc = tcase_create("runs");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_cli_run_json_record);
	tcase_add_test(tc, test_cli_hang_is_reported_with_held_lock);
	suite_add_tcase(s, tc);
	return rt_check_main(s);
}
