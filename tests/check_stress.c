// SPDX-License-Identifier: MIT
/*
 * Every scenario runs briefly and clean in every rmap design: the run's
 * own audits (every 0.2 s), the teardown check, lockdep and (in the
 * sanitizer builds) TSan or ASan+UBSan all silent, END: SUCCESS.
 */
#include <stdio.h>
#include <string.h>

#include "compiler.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_cli.h"
#include "workload.h"

#if RT_TSAN
# define STRESS_THREADS "8"
#else
# define STRESS_THREADS "16"
#endif

static char out[1 << 20];

/* How many times @needle occurs in out. */
static int count(const char *needle)
{
	int n = 0;

	for (const char *p = strstr(out, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/*
 * One process runs the scenario in every design in turn (`--rmap all`,
 * as a user would): a sanitizer's start-up is paid once, not per design.
 * Each design must print its summary, audit clean and end with its own
 * END: SUCCESS.
 */
static void run_scenario(const char *scenario)
{
	char seed[32], line[96];
	int nr = RMAP_NR_MODES, rc;

	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)rt_test_seed());
	const char *const argv[] = { "run", "--scenario", scenario, "--rmap", "all",
				     "--seconds", "0.6", "--threads", STRESS_THREADS,
				     "--audit-every", "0.2", "--seed", seed,
				     "--no-progress", NULL };

	rc = rt_cli_run(argv, out, sizeof(out));
	ck_assert_msg(rc == 0 && count("END: SUCCESS") == nr && count(" 0 violations;") == nr,
		      "%s seed %s: exit %d, %d of %d designs END: SUCCESS, %d audited clean:\n%.6000s",
		      scenario, seed, rc, count("END: SUCCESS"), nr, count(" 0 violations;"),
		      rt_cli_excerpt(out, 6000));
	for (int m = 0; m < nr; m++) {
		const char *design = rmap_mode_name((enum rmap_mode)m);

		snprintf(line, sizeof(line), "%s / %s: ", scenario, design);
		ck_assert_msg(strstr(out, line), "no summary of %s/%s", scenario, design);
	}
	ck_assert_msg(!strstr(out, "rmaptorture report:"), "a report:\n%.6000s",
		      strstr(out, "rmaptorture report:"));
}

/* One scenario of workloads/' table per iteration: a new scenario is tested without a line here. */
START_TEST(test_stress_scenario)
{
	run_scenario(wl_scenarios[_i]->name);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("stress");
	TCase *tc = tcase_create("scenarios");
	int nr = 0;

	while (wl_scenarios[nr])
		nr++;
	tcase_set_timeout(tc, 180);
	tcase_add_loop_test(tc, test_stress_scenario, 0, nr);
	suite_add_tcase(s, tc);
	return rt_check_main(s);
}
