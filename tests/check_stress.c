// SPDX-License-Identifier: MIT
/*
 * Every scenario runs briefly and clean in every rmap design that is
 * built: the run's own audits, the teardown check, lockdep and (in the
 * sanitizer builds) TSan or ASan+UBSan all silent, END: SUCCESS.
 */
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "rt_check.h"
#include "rt_cli.h"

#if RT_TSAN
# define STRESS_THREADS "8"
#else
# define STRESS_THREADS "16"
#endif

static char out[1 << 20];

static void run_scenario(const char *scenario)
{
	const char *const list[] = { "list", NULL };
	const char *modes[] = { "ptechain", "objfile", "anonvma" };
	char seed[32];

	ck_assert_int_eq(rt_cli_run(list, out, sizeof(out)), 0);
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)rt_test_seed());
	for (int m = 0; m < 3; m++) {
		char tag[32];
		const char *const args[] = { "run", "--scenario", scenario, "--rmap", modes[m],
					     "--seconds", "1", "--threads", STRESS_THREADS,
					     "--audit-every", "0.3", "--seed", seed,
					     "--no-progress", NULL };
		int rc;

		snprintf(tag, sizeof(tag), "%s (not built)", modes[m]);
		if (strstr(out, tag))
			continue;
		rc = rt_cli_run(args, out, sizeof(out));
		ck_assert_msg(rc == 0 && strstr(out, "END: SUCCESS"),
			      "%s/%s seed %s: exit %d:\n%s", scenario, modes[m], seed, rc,
			      out + (strlen(out) > 6000 ? strlen(out) - 6000 : 0));
		ck_assert_msg(strstr(out, "0 violations"), "%s", out);
		/* Refresh the list for the next design's check. */
		ck_assert_int_eq(rt_cli_run(list, out, sizeof(out)), 0);
	}
}

#define SCENARIO_TEST(fn, name)		\
START_TEST(fn)				\
{					\
	run_scenario(name);		\
}					\
END_TEST

SCENARIO_TEST(test_stress_mixed32, "mixed32")
SCENARIO_TEST(test_stress_sdet32, "sdet32")
SCENARIO_TEST(test_stress_shm, "shm")
SCENARIO_TEST(test_stress_forkbomb_cow, "forkbomb-cow")
SCENARIO_TEST(test_stress_mremap_storm, "mremap-storm")
SCENARIO_TEST(test_stress_truncate_race, "truncate-race")
SCENARIO_TEST(test_stress_nonlinear, "nonlinear")
SCENARIO_TEST(test_stress_reclaim_pressure, "reclaim-pressure")
SCENARIO_TEST(test_stress_many_vmas, "many-vmas")

int main(void)
{
	Suite *s = suite_create("stress");
	TCase *tc = tcase_create("scenarios");

	tcase_set_timeout(tc, 180);
	tcase_add_test(tc, test_stress_mixed32);
	tcase_add_test(tc, test_stress_sdet32);
	tcase_add_test(tc, test_stress_shm);
	tcase_add_test(tc, test_stress_forkbomb_cow);
	tcase_add_test(tc, test_stress_mremap_storm);
	tcase_add_test(tc, test_stress_truncate_race);
	tcase_add_test(tc, test_stress_nonlinear);
	tcase_add_test(tc, test_stress_reclaim_pressure);
	tcase_add_test(tc, test_stress_many_vmas);
	suite_add_tcase(s, tc);
	return rt_check_main(s);
}
