// SPDX-License-Identifier: MIT
/*
 * TSan build only: ThreadSanitizer sees the emulated locks. Runs
 * tsan_lock_probe and requires TSan's own report: a lock-order-inversion
 * for an ABBA on two spinlock_t, a data race for a write outside a bit
 * spinlock, and silence when both writers hold it.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_check.h"

#define TSAN_ENV "TSAN_OPTIONS=halt_on_error=0:exitcode=66:report_signal_unsafe=0"

static int run_probe(const char *mode, char *out, size_t len)
{
	const char *env = getenv("RT_TSAN_PROBE");
	char path[PATH_MAX];
	char *argv[3] = { path, (char *)mode, NULL };

	snprintf(path, sizeof(path), "%s", env && *env ? env : RT_TSAN_PROBE_PATH);
	ck_assert_msg(access(path, X_OK) == 0, "no probe at %s", path);
	return rt_run_capture(argv, TSAN_ENV, out, len);
}

START_TEST(test_tsan_sees_spinlock_order)
{
	static char out[1 << 16];
	int st = run_probe("abba", out, sizeof(out));

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 66, "status %#x:\n%s", st, out);
	ck_assert_msg(strstr(out, "lock-order-inversion"), "output:\n%s", out);
	ck_assert_msg(strstr(out, " _spin_lock "), "output:\n%s", out);
}
END_TEST

START_TEST(test_tsan_sees_race_outside_bit_lock)
{
	static char out[1 << 16];
	int st = run_probe("race", out, sizeof(out));

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 66, "status %#x:\n%s", st, out);
	ck_assert_msg(strstr(out, "data race"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "second"), "output:\n%s", out);
}
END_TEST

START_TEST(test_tsan_bit_lock_orders_writes)
{
	static char out[1 << 16];
	int st = run_probe("clean", out, sizeof(out));

	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x:\n%s", st, out);
	ck_assert_msg(!strstr(out, "ThreadSanitizer"), "output:\n%s", out);
	ck_assert_msg(strstr(out, "probe clean done: 2"), "output:\n%s", out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tsan");
	TCase *tc = tcase_create("annotations");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tsan_sees_spinlock_order);
	tcase_add_test(tc, test_tsan_sees_race_outside_bit_lock);
	tcase_add_test(tc, test_tsan_bit_lock_orders_writes);
	suite_add_tcase(s, tc);
	return rt_check_main(s);
}
