// SPDX-License-Identifier: MIT
/*
 * The record envelope (results/record.h, issue 28 item 5): every record
 * says its kind in "record" and its "format_version"; a seed is the
 * unsigned decimal value as a string, and readers still take the records
 * of format_version 1 (kind in "kind", a run record's seed a signed
 * integer). The schemas themselves are checked by tests/check_records.py.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "artifact.h"
#include "record.h"
#include "rt_check.h"
#include "rt_opt.h"

#define FIXTURES RT_SOURCE_ROOT "/tests/data/artifacts"

/* Seeds above 2^63 are where a signed 64-bit integer went negative. */
START_TEST(test_record_seed_round_trips)
{
	static const uint64_t seeds[] = {
		0, 1, INT64_MAX, (uint64_t)INT64_MAX + 1, 15592876743985693002ULL, UINT64_MAX,
	};

	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		json_t *v = rt_seed_json(seeds[i]);
		char want[32];
		uint64_t back = 0;

		snprintf(want, sizeof(want), "%" PRIu64, seeds[i]);
		ck_assert(json_is_string(v));
		ck_assert_str_eq(json_string_value(v), want);
		ck_assert_int_eq(rt_seed_of(v, &back), 0);
		ck_assert_msg(back == seeds[i], "%s came back as %" PRIu64, want, back);
		json_decref(v);
	}
}
END_TEST

/* A run record of format_version 1 wrote --seed 15592876743985693002 so. */
START_TEST(test_record_seed_reads_the_old_integer)
{
	json_t *v = json_integer(-2853867329723858614LL);
	uint64_t seed = 0;

	ck_assert_int_eq(rt_seed_of(v, &seed), 0);
	ck_assert_msg(seed == 15592876743985693002ULL, "%" PRIu64, seed);
	json_decref(v);
}
END_TEST

START_TEST(test_record_seed_refuses_what_is_not_one)
{
	static const char *const bad[] = {
		"", "-1", "+1", "0x10", " 1", "1 ", "18446744073709551616", "1e3",
	};
	uint64_t seed = 7;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		json_t *v = json_string(bad[i]);

		ck_assert_msg(rt_seed_of(v, &seed) == -EINVAL, "'%s' taken", bad[i]);
		json_decref(v);
	}
	ck_assert_int_eq(rt_seed_of(NULL, &seed), -EINVAL);
	ck_assert_int_eq(rt_seed_of(json_true(), &seed), -EINVAL);
	ck_assert(seed == 7);
}
END_TEST

/* "record" names the kind; "kind" is left to a failure's kind. */
START_TEST(test_record_envelope)
{
	json_t *rec = rt_record_new("run");

	ck_assert_str_eq(json_string_value(json_object_get(rec, "record")), "run");
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "format_version")),
			 RT_RECORD_FORMAT);
	ck_assert_ptr_null(json_object_get(rec, "kind"));
	ck_assert_str_eq(rt_record_kind(rec), "run");
	json_decref(rec);
}
END_TEST

START_TEST(test_record_kind_of_version_1)
{
	json_t *bench = json_pack("{s:s}", "kind", "bench");
	json_t *art = json_pack("{s:s, s:s}", "record", "failure", "kind", "bug");
	json_t *none = json_object();

	ck_assert_str_eq(rt_record_kind(bench), "bench");
	ck_assert_str_eq(rt_record_kind(art), "failure");
	ck_assert_ptr_null(rt_record_kind(none));
	json_decref(bench);
	json_decref(art);
	json_decref(none);
}
END_TEST

START_TEST(test_record_format_versions)
{
	json_t *rec = json_object();
	char err[256] = "";

	ck_assert_int_eq(rt_record_check_format(rec, "r.json", err, sizeof(err)), 0);
	for (int v = 1; v <= RT_RECORD_FORMAT; v++) {
		json_object_set_new(rec, "format_version", json_integer(v));
		ck_assert_int_eq(rt_record_check_format(rec, "r.json", err, sizeof(err)), 0);
	}
	json_object_set_new(rec, "format_version", json_integer(RT_RECORD_FORMAT + 1));
	ck_assert_int_eq(rt_record_check_format(rec, "r.json", err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "r.json: record format_version 3 is newer than this rmaptorture"
			     " reads (1 to 2)"), "%s", err);
	json_object_set_new(rec, "format_version", json_string("2"));
	ck_assert_int_eq(rt_record_check_format(rec, "r.json", err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "field 'format_version' must be an integer"), "%s", err);
	json_decref(rec);
}
END_TEST

/* An artifact of version 1 (the fixture) replays; one of a newer version is refused. */
START_TEST(test_record_artifact_versions)
{
	char err[512] = "";
	json_t *art = rt_artifact_load(FIXTURES "/valid.json", rt_opt_design_names(), err,
				       sizeof(err));

	ck_assert_msg(art != NULL, "%s", err);
	ck_assert_ptr_null(json_object_get(art, "format_version"));
	ck_assert(rt_artifact_seed(art) == UINT64_MAX);
	json_object_set_new(art, "format_version", json_integer(RT_RECORD_FORMAT));
	json_object_set_new(art, "seed", rt_seed_json(15592876743985693002ULL));
	ck_assert_int_eq(rt_artifact_check(art, "a.json", rt_opt_design_names(), err, sizeof(err)),
			 0);
	ck_assert(rt_artifact_seed(art) == 15592876743985693002ULL);
	json_object_set_new(art, "format_version", json_integer(RT_RECORD_FORMAT + 1));
	ck_assert_int_eq(rt_artifact_check(art, "a.json", rt_opt_design_names(), err, sizeof(err)),
			 -EINVAL);
	ck_assert_msg(strstr(err, "a.json: record format_version 3 is newer"), "%s", err);
	json_decref(art);
}
END_TEST

int main(void)
{
	const struct rt_tcase tcs[] = {
		{ "seed", 30, NULL, NULL, .tests = {
			test_record_seed_round_trips,
			test_record_seed_reads_the_old_integer,
			test_record_seed_refuses_what_is_not_one,
		} },
		{ "envelope", 30, NULL, NULL, .tests = {
			test_record_envelope,
			test_record_kind_of_version_1,
			test_record_format_versions,
			test_record_artifact_versions,
		} },
	};

	return rt_check_main(rt_suite("record", tcs, (int)(sizeof(tcs) / sizeof(tcs[0]))));
}
