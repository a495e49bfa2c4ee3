// SPDX-License-Identifier: MIT
/*
 * The `ci` gate. The "plan" case is quick (no runs: --dry-run): bad
 * options exit 2 with one line naming the option (a budget that cannot
 * pay for the site runs, naming the smallest that can); --shard I/N over
 * every N up to 4 covers each configuration exactly once; the budget-limited
 * selection is a deterministic function of the seed, names every skipped
 * configuration, and rotates with the seed. The "runs" case runs real
 * gates in this build: a tiny gate passes and its JUnit file has the
 * schema's required elements and one testcase per configuration and per
 * trylock fallback site; the smallest unrestricted gate fires every site,
 * its site runs first; a seeded bug (reclaim-lock-ptl) fails its
 * configuration with a <failure> that carries the artifact path and the
 * reproduce command, exit 1; Ctrl-C exits 130 and still writes the JUnit
 * file. meson runs them as "ci-plan" (unit) and "ci" (stress).
 *
 * ci-merge: the stored shards of a tiny gate (tests/data/ci-shards) merge
 * into one verdict, summary, JUnit file and JSON record, a failure in one
 * shard failing the whole; a shard missing, given twice, of another gate
 * or not a shard at all is refused with one line and exit 2, and a site
 * that never fired in a judged gate fails it ("plan"). A
 * real gate run in two shards merges to the verdict the same gate gives
 * unsharded, with its coverage judged over both ("runs").
 *
 * Explore's share ("explore", plain only): the dry run prints it and N;
 * a short gate explores its window of pairs into the JUnit file, the
 * JSON record and the summary line; ci-merge unions the shards' pairs.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "junit.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_cli.h"

extern char **environ;

static char out[1 << 20];

/*
 * ck_assert_msg(), with the command's output on stderr when it fails:
 * Check's TAP messages must stay on one line.
 */
static char *slurp(const char *path);
static int count(const char *s, const char *needle);
static void assert_junit_xsd(const char *xml);

#define ck_assert_out(cond, ...) do {					\
	if (!(cond))							\
		fprintf(stderr, "---- output ----\n%s\n----\n", out);	\
	ck_assert_msg(cond, __VA_ARGS__);				\
} while (0)

#define BAD(needle, ...) \
	rt_cli_expect_usage_error((const char *const[]){ "ci", __VA_ARGS__, NULL }, needle, out, sizeof(out))
#define BAD_MERGE(needle, ...) \
	rt_cli_expect_usage_error((const char *const[]){ "ci-merge", __VA_ARGS__, NULL }, needle, out, \
				  sizeof(out))

#define SHARDS RT_SOURCE_ROOT "/tests/data/ci-shards"

START_TEST(test_ci_bad_options_exit_2)
{
	BAD("--budget", "--builds", "plain");
	BAD("--budget", "--budget", "0");
	BAD("--budget", "--budget", "-5");
	BAD("--budget", "--budget", "soon");
	BAD("--budget", "--budget", "0.5", "--builds", "plain");
	BAD("--shard", "--budget", "10", "--shard", "3/2");
	BAD("--shard", "--budget", "10", "--shard", "0/2");
	BAD("--shard", "--budget", "10", "--shard", "1/0");
	BAD("--shard", "--budget", "10", "--shard", "2");
	BAD("--shard", "--budget", "10", "--shard", "1/");
	BAD("--shard", "--budget", "10", "--shard", "a/b");
	BAD("--builds", "--budget", "10", "--builds", "plain,msan");
	BAD("--builds", "--budget", "10", "--builds", "");
	BAD("--scenarios", "--budget", "10", "--scenarios", "nosuch");
	BAD("--rmaps", "--budget", "10", "--rmaps", "rmap2");
	BAD("--scheds", "--budget", "10", "--scheds", "fair");
	BAD("--inject", "--budget", "10", "--inject", "no-such-bug");
	BAD("cannot fire in design ptechain", "--budget", "10", "--inject", "reclaim-lock-ptl");
	BAD("--seed", "--budget", "10", "--seed", "x1");
	BAD("--junit", "--budget", "10", "--junit", "/nonexistent-dir/ci.xml");
	BAD("--json", "--budget", "10", "--json", "/nonexistent-dir/ci.json");
	BAD("--bogus", "--budget", "10", "--bogus");
	BAD("extra", "--budget", "10", "extra");
	rt_cli_expect_usage_error((const char *const[]){ "ci", "--budget", "1000", "--builds",
							 "plain", "--out", rt_cli_binary(), NULL },
				  "--out", out, sizeof(out));
}
END_TEST

#define MIN_NEEDLE "the smallest budget that can is "

/* `ci ARGS` refused for its budget: the smallest budget its message names. */
static int refused_budget(const char *const *args)
{
	const char *p;

	rt_cli_expect_usage_error(args, MIN_NEEDLE, out, sizeof(out));
	p = strstr(out, MIN_NEEDLE);
	return atoi(p + strlen(MIN_NEEDLE));
}

/*
 * A budget that cannot pay for the runs that fire every trylock fallback
 * site is refused, run or --dry-run, with one line naming the smallest
 * budget that can; that one is accepted, and its plan says every site is
 * expected to fire, with its site runs. A restricted gate needs none.
 */
START_TEST(test_ci_budget_too_small_is_refused)
{
	char less[32], min[32];
	int m = refused_budget((const char *const[]){ "ci", "--budget", "10", "--builds",
						      "plain,tsan", "--seed", "42", NULL });

	ck_assert_int_gt(m, 10);
	snprintf(less, sizeof(less), "%d", m - 1);
	snprintf(min, sizeof(min), "%d", m);
	ck_assert_int_eq(refused_budget((const char *const[]){ "ci", "--dry-run", "--budget", less,
							       "--builds", "plain,tsan", NULL }), m);
	ck_assert_int_eq(rt_cli_run((const char *const[]){ "ci", "--dry-run", "--budget", min,
							   "--builds", "plain,tsan", NULL },
				    out, sizeof(out)), 0);
	ck_assert_out(strstr(out, "every site is expected to fire"), "no word on the sites");
	ck_assert_int_eq(count(out, "site-run (first"), 4);
	ck_assert_int_eq(rt_cli_run((const char *const[]){ "ci", "--dry-run", "--budget", "10",
							   "--builds", "plain", "--scenarios",
							   "mixed32", NULL }, out, sizeof(out)), 0);
	ck_assert_out(strstr(out, "fallback sites: not judged"), "restricted gate's word");
}
END_TEST

START_TEST(test_ci_help)
{
	ck_assert_int_eq(rt_cli_run((const char *const[]){ "ci", "--help", NULL }, out, sizeof(out)), 0);
	ck_assert_out(strstr(out, "--budget") && strstr(out, "--shard") && strstr(out, "--junit"),
		      "ci --help lacks options");
	ck_assert_int_eq(rt_cli_run((const char *const[]){ "--help", NULL }, out, sizeof(out)), 0);
	ck_assert_out(strstr(out, "  ci "), "ci missing from the usage");
}
END_TEST

/* As ck_assert(), with the XML written on stderr when it fails. */
#define ck_assert_xml(cond) do {					\
	if (!(cond))							\
		fprintf(stderr, "%s\n", buf);				\
	ck_assert_msg(cond, "the XML lacks %s", #cond);			\
} while (0)

/*
 * The JUnit writer escapes everything, counts what it writes, and writes
 * what junit-10.xsd accepts: no skipped count on <testsuites>, a finite
 * time, a text in every <failure> and <error>.
 */
START_TEST(test_ci_junit_writer_escapes)
{
	struct rt_junit *j = rt_junit_new("n<&>\"'");
	char dir[] = "/tmp/rt-junit-XXXXXX", path[4200], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int s;

	ck_assert_ptr_nonnull(j);
	s = rt_junit_suite(j, "s\001uite");
	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(rt_junit_property(j, s, "seed", "v\n"), 0);
	ck_assert_int_ge(rt_junit_case(j, s, "c&", "a<b>\"c'\td\x7f\xff\xc3\xa9", 1.5,
				       RT_JUNIT_FAILURE, "m\"\n", "t", "text ]]> <x> & \002", "out"), 0);
	ck_assert_int_ge(rt_junit_case(j, s, "c", "skipped", -1, RT_JUNIT_SKIPPED, "why", NULL,
				       NULL, NULL), 0);
	ck_assert_int_ge(rt_junit_case(j, s, "c", "err", 0, RT_JUNIT_ERROR, NULL, NULL, NULL, NULL), 0);
	ck_assert_int_ge(rt_junit_case(j, s, "c", "pass", 0.25, RT_JUNIT_PASS, NULL, NULL, NULL,
				       NULL), 0);
	rt_junit_suite_time(j, rt_junit_suite(j, "empty"), NAN);
	ck_assert_int_eq(rt_junit_count(j, RT_JUNIT_FAILURE), 1);
	ck_assert_int_eq(rt_junit_count(j, RT_JUNIT_PASS), 1);
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(rt_junit_fprint(j, f), 0);
	fclose(f);
	ck_assert_xml(strstr(buf, "<testsuites name=\"n&lt;&amp;&gt;&quot;&apos;\" tests=\"4\""
			      " failures=\"1\" errors=\"1\" time=\"1.750\">"));
	ck_assert_xml(strstr(buf, "<testsuite name=\"s?uite\" tests=\"4\" failures=\"1\""
			      " errors=\"1\" skipped=\"1\" time=\"1.750\""));
	ck_assert_xml(strstr(buf, "<testsuite name=\"empty\" tests=\"0\" failures=\"0\""
			      " errors=\"0\" skipped=\"0\" time=\"0.000\""));
	ck_assert_xml(strstr(buf, "<testsuite name=\"s?uite\""));
	ck_assert_xml(strstr(buf, "name=\"a&lt;b&gt;&quot;c&apos;&#9;d??\xc3\xa9\" classname=\"c&amp;\""
			      " time=\"1.500\""));
	ck_assert_xml(strstr(buf, "<failure message=\"m&quot;&#10;\" type=\"t\">text ]]&gt; &lt;x&gt;"
			      " &amp; ?</failure>"));
	ck_assert_xml(strstr(buf, "<skipped message=\"why\"/>"));
	ck_assert_xml(strstr(buf, "<error message=\"\" type=\"error\">error</error>"));
	ck_assert_xml(strstr(buf, "<property name=\"seed\" value=\"v&#10;\"/>"));
	ck_assert_xml(strstr(buf, "<system-out>out</system-out>"));
	for (const unsigned char *p = (const unsigned char *)buf; *p; p++)
		ck_assert_msg(*p >= 0x20 || *p == '\n', "byte %#x at %td", *p, (const char *)p - buf);
	assert_junit_xsd(buf);
	/* Written atomically: the file, and no temporary left beside it. */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ci.xml", dir);
	ck_assert_int_eq(rt_junit_write(j, path), 0);
	free(buf);
	buf = slurp(path);
	ck_assert_xml(strstr(buf, "</testsuites>\n"));
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(dir), 0);	/* fails if a temporary file was left */
	free(buf);
	rt_junit_free(j);
}
END_TEST

/*
 * One configuration of a dry run's plan: "plan #N BUILD SCHED SCENARIO/RMAP ..."
 * or "skip #N ...".
 */
struct plan_line {
	int index;
	char key[160];		/* "BUILD SCHED SCENARIO/RMAP" */
	bool selected;
};

/* Run `ci --dry-run ARGS...` and parse its plan into @lines. Return: their number. */
static int dry_run(const char *const *extra, struct plan_line *lines, int max)
{
	const char *args[32] = { "ci", "--dry-run" };
	int n = 2, nr = 0, rc;
	char *save = NULL, *line;

	for (int i = 0; extra[i]; i++)
		args[n++] = extra[i];
	args[n] = NULL;
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 0, "dry run: exit %d", rc);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char build[32], sched[32], name[96];
		int idx;

		if (strncmp(line, "plan #", 6) && strncmp(line, "skip #", 6))
			continue;
		ck_assert_int_lt(nr, max);
		ck_assert_msg(sscanf(line + 6, "%d %31s %31s %95s", &idx, build, sched, name) == 4,
			      "bad plan line: %s", line);
		lines[nr].index = idx;
		lines[nr].selected = line[0] == 'p';
		snprintf(lines[nr].key, sizeof(lines[nr].key), "%s %s %s", build, sched, name);
		nr++;
	}
	return nr;
}

#define MAX_CFGS 4096
static struct plan_line all[MAX_CFGS], part[MAX_CFGS];

START_TEST(test_ci_shards_cover_every_configuration_once)
{
	const char *full_args[] = { "--budget", "1000000", "--seed", "7", NULL };
	int nr_all = dry_run(full_args, all, MAX_CFGS);
	int *seen = calloc((size_t)nr_all, sizeof(int));
	int builds[3] = { 0 }, scheds[2] = { 0 };

	/* Three builds x three designs x two schedules x the scenarios. */
	ck_assert_msg(nr_all > 0 && nr_all % 18 == 0, "%d configurations", nr_all);
	for (int i = 0; i < nr_all; i++) {
		ck_assert_int_eq(all[i].index, i);
		ck_assert_msg(all[i].selected, "a huge budget skipped %s", all[i].key);
		builds[!strncmp(all[i].key, "tsan", 4) ? 1 : !strncmp(all[i].key, "asan", 4) ? 2 : 0]++;
		scheds[strstr(all[i].key, " pct ") ? 1 : 0]++;
		for (int k = 0; k < i; k++)
			ck_assert_msg(strcmp(all[i].key, all[k].key), "%s twice", all[i].key);
	}
	ck_assert_int_eq(builds[0], nr_all / 3);
	ck_assert_int_eq(builds[1], nr_all / 3);
	ck_assert_int_eq(scheds[1], nr_all / 2);

	for (int n = 2; n <= 4; n++) {
		memset(seen, 0, (size_t)nr_all * sizeof(int));
		for (int i = 1; i <= n; i++) {
			char shard[32];
			const char *args[] = { "--budget", "1000000", "--seed", "7", "--shard", shard, NULL };
			int nr;

			snprintf(shard, sizeof(shard), "%d/%d", i, n);
			nr = dry_run(args, part, MAX_CFGS);
			ck_assert_msg(nr >= nr_all / n && nr <= nr_all / n + 1, "shard %s has %d", shard, nr);
			for (int k = 0; k < nr; k++) {
				int idx = part[k].index;

				ck_assert_msg(idx >= 0 && idx < nr_all, "index %d", idx);
				ck_assert_msg(idx % n == i - 1, "shard %s holds #%d", shard, idx);
				ck_assert_str_eq(part[k].key, all[idx].key);
				seen[idx]++;
			}
		}
		for (int k = 0; k < nr_all; k++)
			ck_assert_msg(seen[k] == 1, "N=%d: %s in %d shards", n, all[k].key, seen[k]);
	}
	free(seen);
}
END_TEST

/*
 * A budget below the configurations' minimum (above the site runs' own):
 * a seeded, rotating window; the rest named.
 */
START_TEST(test_ci_short_budget_selects_by_seed)
{
	const char *a1[] = { "--budget", "40", "--builds", "plain", "--seed", "1", NULL };
	const char *a2[] = { "--budget", "40", "--builds", "plain", "--seed", "2", NULL };
	static struct plan_line again[MAX_CFGS];
	int n1 = dry_run(a1, all, MAX_CFGS), sel = 0, differ = 0;

	ck_assert_int_gt(n1, 0);
	for (int i = 0; i < n1; i++)
		sel += all[i].selected;
	ck_assert_msg(sel > 0 && sel < n1, "%d of %d selected", sel, n1);
	ck_assert_int_eq(dry_run(a1, again, MAX_CFGS), n1);
	for (int i = 0; i < n1; i++)
		ck_assert_msg(again[i].selected == all[i].selected, "seed 1 chose differently: %s",
			      all[i].key);
	ck_assert_int_eq(dry_run(a2, part, MAX_CFGS), n1);
	for (int i = 0; i < n1; i++)
		differ += part[i].selected != all[i].selected;
	ck_assert_msg(differ > 0, "seeds 1 and 2 selected the same configurations");
	/* The selection spans every design and both schedules. */
	for (const char *const *w = (const char *const[]){ "/ptechain", "/objfile", "/anonvma",
							   " free ", " pct ", NULL }; *w; w++) {
		bool found = false;

		for (int i = 0; i < n1; i++)
			found |= all[i].selected && strstr(all[i].key, *w);
		ck_assert_msg(found, "no selected configuration has '%s'", *w);
	}
}
END_TEST

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long len;

	ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)len + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return buf;
}

/* The value of attribute @name in the tag starting at @tag ("" if absent). */
static const char *attr(const char *tag, const char *name, char *buf, size_t len)
{
	const char *end = strchr(tag, '>'), *p = tag;
	char pat[64];

	snprintf(pat, sizeof(pat), " %s=\"", name);
	buf[0] = '\0';
	while ((p = strstr(p, pat)) && p < end) {
		const char *v = p + strlen(pat), *q = strchr(v, '"');

		if (q && q < end && (size_t)(q - v) < len) {
			memcpy(buf, v, (size_t)(q - v));
			buf[q - v] = '\0';
			return buf;
		}
		break;
	}
	return NULL;
}

static void assert_attrs(const char *tag, const char *const *names)
{
	char v[512];

	for (; *names; names++)
		ck_assert_msg(attr(tag, *names, v, sizeof(v)), "attribute %s missing in %.200s",
			      *names, tag);
}

static int count(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/*
 * Validate @xml against the Jenkins xunit plugin's junit-10.xsd (kept in
 * tests/data/junit/) with xmllint, when meson found it (Debian:
 * libxml2-utils; .ci/run installs it). xmllint's errors go to stderr.
 */
static void assert_junit_xsd(const char *xml)
{
	char cmd[8400];
	FILE *p;
	int rc;

	if (!RT_XMLLINT[0]) {
		fprintf(stderr, "# xmllint not found by meson: JUnit not validated against"
			" junit-10.xsd\n");
		return;
	}
	snprintf(cmd, sizeof(cmd), "'%s' --noout --schema '%s' - 1>&2", RT_XMLLINT,
		 RT_SOURCE_ROOT "/tests/data/junit/junit-10.xsd");
	p = popen(cmd, "w");
	ck_assert_msg(p != NULL, "popen %s: %s", cmd, strerror(errno));
	fputs(xml, p);
	rc = pclose(p);
	if (rc)
		fprintf(stderr, "---- JUnit ----\n%s\n----\n", xml);
	ck_assert_msg(rc == 0, "the JUnit file fails junit-10.xsd (xmllint status %#x: see stderr)",
		      rc);
}

/*
 * Check the JUnit elements the schemas require: testsuites carries name,
 * tests, failures, errors, time and not skipped (junit-10.xsd refuses it
 * there), each testsuite the same and skipped (the counts matching their
 * testcases); each testcase name, classname and time. Then the whole
 * against junit-10.xsd. Return: the number of testcases in the suite
 * called @suite.
 */
static int check_junit(const char *xml, const char *suite)
{
	static const char *const counts[] = { "name", "tests", "failures", "errors", "time", NULL };
	static const char *const suite_attrs[] = { "skipped", "timestamp", "hostname", NULL };
	static const char *const case_attrs[] = { "name", "classname", "time", NULL };
	const char *p = strstr(xml, "<testsuites "), *s;
	char v[512];
	int total = 0, found = -1;

	ck_assert_msg(!strncmp(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 38),
		      "no XML declaration");
	ck_assert_ptr_nonnull(p);
	assert_attrs(p, counts);
	ck_assert_msg(!attr(p, "skipped", v, sizeof(v)), "skipped on <testsuites>");
	ck_assert_msg(strstr(xml, "</testsuites>"), "not closed");
	assert_junit_xsd(xml);
	for (s = strstr(xml, "<testsuite "); s; s = strstr(s + 1, "<testsuite ")) {
		const char *end = strstr(s, "</testsuite>"), *c;
		int cases = 0, fails = 0, skips = 0, errs = 0;

		ck_assert_ptr_nonnull(end);
		assert_attrs(s, counts);
		assert_attrs(s, suite_attrs);
		for (c = strstr(s, "<testcase "); c && c < end; c = strstr(c + 1, "<testcase ")) {
			const char *next = strstr(c + 1, "<testcase ");
			const char *lim = next && next < end ? next : end;
			const char *f = strstr(c, "<failure "), *k = strstr(c, "<skipped"), *e = strstr(c, "<error ");

			assert_attrs(c, case_attrs);
			cases++;
			fails += f && f < lim;
			skips += k && k < lim;
			errs += e && e < lim;
		}
		ck_assert_int_eq(atoi(attr(s, "tests", v, sizeof(v))), cases);
		ck_assert_int_eq(atoi(attr(s, "failures", v, sizeof(v))), fails);
		ck_assert_int_eq(atoi(attr(s, "skipped", v, sizeof(v))), skips);
		ck_assert_int_eq(atoi(attr(s, "errors", v, sizeof(v))), errs);
		total += cases;
		if (!strcmp(attr(s, "name", v, sizeof(v)), suite))
			found = cases;
	}
	ck_assert_int_eq(atoi(attr(p, "tests", v, sizeof(v))), total);
	ck_assert_int_eq(count(xml, "<testcase "), total);
	return found;
}

START_TEST(test_ci_tiny_gate_passes)
{
	char dir[] = "/tmp/rt-ci-XXXXXX", junit[4200], json[4200], outdir[4200], suite[64];
	/*
	 * Two scenarios: a 12 s gate cannot make every fallback site fire
	 * (a full gate does; test_ci_merge_equals_unsharded checks the verdict),
	 * so coverage is reported here, not judged.
	 */
	const char *args[] = { "ci", "--budget", "12", "--builds", RT_BUILD_KIND, "--seed", "1",
			       "--scenarios", "mixed32,many-vmas",
			       "--junit", junit, "--json", json, "--out", outdir, NULL };
	json_t *rec, *configs, *results, *sites, *r;
	json_error_t jerr;
	char *xml;
	int rc, cases, ran = 0, selected = 0;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(junit, sizeof(junit), "%s/ci.xml", dir);
	snprintf(json, sizeof(json), "%s/ci.json", dir);
	snprintf(outdir, sizeof(outdir), "%s/out", dir);
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 0 || rc == 1, "exit %d", rc);

	xml = slurp(junit);
	snprintf(suite, sizeof(suite), "rmaptorture.%s", RT_BUILD_KIND);
	rec = json_load_file(json, 0, &jerr);
	ck_assert_msg(rec != NULL, "%s: %s", json, jerr.text);
	rt_cli_assert_schema_valid(dir, "ci.json");
	configs = json_object_get(rec, "configs");
	results = json_object_get(rec, "results");
	sites = json_object_get(json_object_get(rec, "coverage"), "sites");
	cases = check_junit(xml, suite);
	/* One testcase per configuration, and one per trylock fallback site. */
	ck_assert_int_eq(cases, (int)json_array_size(configs));
	/* scenarios x every design x two schedules */
	ck_assert_int_eq(cases % (2 * RMAP_NR_MODES), 0);
	ck_assert_int_eq(check_junit(xml, "rmaptorture.coverage"), (int)json_object_size(sites));
	ck_assert_int_eq((int)json_object_size(sites), FB_NR_SITES);
	ck_assert(!json_is_true(json_object_get(json_object_get(rec, "coverage"), "judged")));
	ck_assert_int_eq(json_array_size(results), json_array_size(configs));
	json_array_foreach(results, i, r) {
		const char *res = json_string_value(json_object_get(r, "result"));

		ck_assert_out(!strcmp(res, "pass") || !strcmp(res, "skipped"),
			      "configuration %zu: %s", i, res);
		ran += !strcmp(res, "pass");
		selected += json_is_true(json_object_get(json_array_get(configs, i), "selected"));
	}
	ck_assert_int_gt(ran, 0);
	/* Every configuration planned has a progress line; the others are named as skipped. */
	ck_assert_int_eq(count(out, "ci ["), selected);
	ck_assert_out(strstr(out, "ci: skipped "), "the skipped configurations are not named");
	ck_assert_int_eq(count(xml, "<skipped"), (int)json_array_size(configs) - ran +
			 (json_is_true(json_object_get(json_object_get(rec, "coverage"), "judged")) ?
			  0 : (int)json_object_size(sites)));
	ck_assert_out(strstr(out, "trylock fallback site"), "no coverage table");
	/* The gate passed: clean runs (coverage reported, not judged). */
	ck_assert_out(rc == 0 && strstr(out, "END: SUCCESS"), "the tiny gate failed (exit %d)", rc);
	json_decref(rec);
	free(xml);
	rt_remove_tree(dir);
}
END_TEST

START_TEST(test_ci_failing_configuration)
{
	char dir[] = "/tmp/rt-ci-fail-XXXXXX", junit[4200], outdir[4200], needle[4400];
	const char *args[] = { "ci", "--budget", !strcmp(RT_BUILD_KIND, "plain") ? "8" : "30",
			       "--builds", RT_BUILD_KIND, "--scenarios", "mixed32", "--rmaps", "objfile",
			       "--scheds", "pct", "--inject", "reclaim-lock-ptl", "--seed", "11",
			       "--junit", junit, "--out", outdir, NULL };
	const char *f, *art;
	char *xml, path[4400];
	struct stat st;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(junit, sizeof(junit), "%s/ci.xml", dir);
	snprintf(outdir, sizeof(outdir), "%s/out", dir);
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 1, "exit %d", rc);
	ck_assert_out(strstr(out, "FAIL") && strstr(out, "artifact:  ") &&
		      strstr(out, "reproduce: rmaptorture run "), "no failure, artifact or reproduce line");
	xml = slurp(junit);
	ck_assert_int_eq(check_junit(xml, "rmaptorture." RT_BUILD_KIND), 1);
	f = strstr(xml, "<failure message=\"lockdep-");
	if (!f)
		fprintf(stderr, "%s\n", xml);
	ck_assert_msg(f != NULL, "no lockdep <failure> in the JUnit file");
	ck_assert_msg(strstr(f, "type=\"lockdep-"), "the failure's type is not lockdep-*");
	snprintf(needle, sizeof(needle),
		 "artifact: %s/" RT_BUILD_KIND "-pct-mixed32-objfile/try-1/failure-", outdir);
	art = strstr(f, needle);
	if (!art)
		fprintf(stderr, "%s\n", f);
	ck_assert_msg(art != NULL, "no '%s' in the <failure>", needle);
	ck_assert_msg(strstr(f, "reproduce: rmaptorture run ") &&
		      strstr(f, "--inject reclaim-lock-ptl"), "no reproduce command in the <failure>");
	/* The artifact it names is there. */
	art += strlen("artifact: ");
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(art, "\n<"), art);
	ck_assert_msg(stat(path, &st) == 0, "%s: %s", path, strerror(errno));
	/* Coverage is not judged on a restricted gate: its testcases are skipped. */
	ck_assert_msg(strstr(xml, "coverage not judged"), "coverage judged on a restricted gate");
	free(xml);
	rt_remove_tree(dir);
}
END_TEST

START_TEST(test_ci_interrupt_exits_130)
{
	char dir[] = "/tmp/rt-ci-int-XXXXXX", junit[4200], outdir[4200];
	char *argv[] = { (char *)rt_cli_binary(), "ci", "--budget", "120", "--builds",
			 RT_BUILD_KIND, "--seed", "3", "--junit", junit, "--out", outdir, NULL };
	posix_spawn_file_actions_t fa;
	double start;
	char *xml;
	pid_t pid;
	int st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(junit, sizeof(junit), "%s/ci.xml", dir);
	snprintf(outdir, sizeof(outdir), "%s/out", dir);
	ck_assert_int_eq(posix_spawn_file_actions_init(&fa), 0);
	ck_assert_int_eq(posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null",
							  O_WRONLY, 0), 0);
	ck_assert_int_eq(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	sleep(4);
	start = rt_now();
	ck_assert_int_eq(kill(pid, SIGINT), 0);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 130, "status %#x", st);
	ck_assert_msg(rt_now() - start < 20, "took %.1f s to stop", rt_now() - start);
	xml = slurp(junit);
	check_junit(xml, "rmaptorture." RT_BUILD_KIND);
	ck_assert_msg(strstr(xml, "<skipped message=\"interrupted\"/>"), "nothing marked interrupted");
	free(xml);
	rt_remove_tree(dir);
}
END_TEST

/* Write @rec to @dir/@name; Return: the path (static buffer per call site). */
static const char *write_copy(json_t *rec, const char *dir, const char *name, char *path,
			      size_t len)
{
	snprintf(path, len, "%s/%s", dir, name);
	ck_assert_int_eq(json_dump_file(rec, path, 0), 0);
	return path;
}

/* The sum over @a and @b of each trylock fallback site of their coverage. */
static void assert_coverage_summed(const json_t *merged, const json_t *a, const json_t *b)
{
	const json_t *sites = json_object_get(json_object_get(merged, "coverage"), "sites"), *v;
	const json_t *sa = json_object_get(json_object_get(a, "coverage"), "sites");
	const json_t *sb = json_object_get(json_object_get(b, "coverage"), "sites");
	const char *key;

	ck_assert_int_eq(json_object_size(sites), FB_NR_SITES);
	json_object_foreach((json_t *)sites, key, v)
		ck_assert_msg(json_integer_value(v) == json_integer_value(json_object_get(sa, key)) +
			      json_integer_value(json_object_get(sb, key)), "site %s: %lld", key,
			      (long long)json_integer_value(v));
}

/*
 * Interleaving coverage survives the merge: the merged gate's distinct
 * pairs are the union of every configuration's pairs in both shards, and
 * each configuration keeps its own pairs.
 */
static void assert_interleaving_merged(const json_t *merged, const json_t *a, const json_t *b)
{
	json_t *uni = json_object(), *r, *p;
	const json_t *shards[2] = { a, b };
	size_t i, configs = 0;
	const char *key;

	for (int k = 0; k < 2; k++)
		json_array_foreach(json_object_get(shards[k], "results"), i, r) {
			json_object_foreach(json_object_get(json_object_get(r, "interleaving"), "pairs"),
					    key, p)
				json_object_set(uni, key, p);
			configs += json_is_object(json_object_get(r, "interleaving"));
		}
	ck_assert_int_gt(configs, 1);
	ck_assert_int_gt(json_object_size(uni), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(merged, "interleaving"),
							    "distinct")),
			 (json_int_t)json_object_size(uni));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(merged, "interleaving"),
							    "records")), (json_int_t)configs);
	json_array_foreach(json_object_get(merged, "results"), i, r) {
		const json_t *mine = json_object_get(json_object_get(r, "interleaving"), "pairs");

		json_object_foreach((json_t *)mine, key, p)
			ck_assert_msg(json_object_get(uni, key), "pair %s came from nowhere", key);
	}
	json_decref(uni);
}

START_TEST(test_ci_merge_stored_shards)
{
	char dir[] = "/tmp/rt-ci-merge-XXXXXX", junit[4200], json[4200], failed[4200];
	const char *args[] = { "ci-merge", "--junit", junit, "--json", json,
			       SHARDS "/shard-1-of-2.json", SHARDS "/shard-2-of-2.json", NULL };
	json_t *a = json_load_file(SHARDS "/shard-1-of-2.json", 0, NULL);
	json_t *b = json_load_file(SHARDS "/shard-2-of-2.json", 0, NULL);
	json_t *rec, *res;
	char *xml;
	int rc;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(junit, sizeof(junit), "%s/ci.xml", dir);
	snprintf(json, sizeof(json), "%s/ci.json", dir);
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 0 && strstr(out, "END: SUCCESS"), "merge: exit %d", rc);
	ck_assert_out(strstr(out, "ci: 2 configurations from 2 shards: ran 2, passed 2"), "summary");
	ck_assert_out(strstr(out, "trylock fallback site"), "no coverage table");
	rec = json_load_file(json, 0, NULL);
	ck_assert_ptr_nonnull(rec);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(rec, "totals"),
							    "configs")), 2);
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(rec, "merged"),
							    "shards")), 2);
	assert_coverage_summed(rec, a, b);
	xml = slurp(junit);
	ck_assert_int_eq(check_junit(xml, "rmaptorture.plain"), 2);
	free(xml);
	json_decref(rec);

	/* One shard's configuration failed: the whole gate fails, as unsharded. */
	res = json_array_get(json_object_get(b, "results"), 0);
	json_object_set_new(res, "result", json_string("fail"));
	json_object_set_new(res, "verdict", json_string("exit 1"));
	json_object_set_new(res, "failures", json_pack("[{s:s, s:s, s:s, s:s, s:s}]",
		"kind", "bug", "signature", "bug:core/x.c:cond", "message", "BUG: cond",
		"artifact", "/nonexistent/failure-bug-0.json", "reproduce", "rmaptorture run"));
	args[6] = write_copy(b, dir, "shard-2-failed.json", failed, sizeof(failed));
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 1 && strstr(out, "END: FAILURE (1 failed, 0 errors"), "exit %d", rc);
	ck_assert_out(strstr(out, "ci: FAILED plain ") && strstr(out, "bug bug:core/x.c:cond"),
		      "the failure is not named");
	xml = slurp(junit);
	ck_assert_msg(strstr(xml, "<failure message=\"bug:core/x.c:cond\""), "no <failure>");
	free(xml);
	json_decref(a);
	json_decref(b);
	rt_remove_tree(dir);
}
END_TEST

/*
 * A site that never fired in a judged gate fails it: the stored shards,
 * marked unrestricted, judged by ci-merge (a real gate's site runs fire
 * every site: test_ci_merge_equals_unsharded).
 */
START_TEST(test_ci_merge_judges_sites)
{
	char dir[] = "/tmp/rt-ci-merge-sites-XXXXXX", junit[4200], p1[4200], p2[4200];
	const char *args[] = { "ci-merge", "--junit", junit, p1, p2, NULL };
	const char *paths[2] = { SHARDS "/shard-1-of-2.json", SHARDS "/shard-2-of-2.json" };
	char *bufs[2] = { p1, p2 }, *xml;
	const char *end;
	int rc, never = 0;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(junit, sizeof(junit), "%s/ci.xml", dir);
	for (int i = 0; i < 2; i++) {
		json_t *rec = json_load_file(paths[i], 0, NULL);
		char name[32];

		ck_assert_ptr_nonnull(rec);
		json_object_set_new(json_object_get(rec, "gate"), "filtered", json_false());
		snprintf(name, sizeof(name), "shard-%d.json", i + 1);
		write_copy(rec, dir, name, bufs[i], sizeof(p1));
		json_decref(rec);
	}
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 1 && strstr(out, "coverage FAILED: "), "exit %d", rc);
	end = strstr(out, "END: FAILURE (0 failed, 0 errors, ");
	ck_assert_out(end && sscanf(end, "END: FAILURE (0 failed, 0 errors, %d fallback sites never"
				    " fired)", &never) == 1 && never > 0, "END line");
	xml = slurp(junit);
	ck_assert_int_eq(count(xml, "never fired in the whole gate"), never);
	free(xml);
	rt_remove_tree(dir);
}
END_TEST

START_TEST(test_ci_merge_refuses_bad_shards)
{
	char dir[] = "/tmp/rt-ci-merge-bad-XXXXXX", seed[4200], rev[4200], n3[4200], junk[4200];
	json_t *b = json_load_file(SHARDS "/shard-2-of-2.json", 0, NULL);
	FILE *f;

	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	BAD_MERGE("shard 2/2 is missing", SHARDS "/shard-1-of-2.json");
	BAD_MERGE("shard 1/2 given twice", SHARDS "/shard-1-of-2.json",
		  SHARDS "/shard-1-of-2.json", SHARDS "/shard-2-of-2.json");
	json_object_set_new(json_object_get(b, "gate"), "seed", json_string("6"));
	write_copy(b, dir, "seed.json", seed, sizeof(seed));
	BAD_MERGE("another gate", SHARDS "/shard-1-of-2.json", seed);
	BAD_MERGE("seed 6, not 5", SHARDS "/shard-1-of-2.json", seed);
	json_object_set_new(json_object_get(b, "gate"), "seed", json_string("5"));
	json_object_set_new(b, "git", json_string("0123abc"));
	write_copy(b, dir, "rev.json", rev, sizeof(rev));
	BAD_MERGE("revision 0123abc", SHARDS "/shard-1-of-2.json", rev);
	json_decref(b);
	b = json_load_file(SHARDS "/shard-2-of-2.json", 0, NULL);
	json_object_set_new(json_object_get(b, "gate"), "shards", json_integer(3));
	json_object_set_new(json_object_get(b, "shard"), "n", json_integer(3));
	write_copy(b, dir, "n3.json", n3, sizeof(n3));
	BAD_MERGE("another gate", SHARDS "/shard-1-of-2.json", n3);
	snprintf(junk, sizeof(junk), "%s/junk.json", dir);
	f = fopen(junk, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\"kind\": \"ci\", \"shard\"", f);
	fclose(f);
	BAD_MERGE("junk.json", SHARDS "/shard-1-of-2.json", junk);
	BAD_MERGE("not the JSON record of a 'ci' run", RT_SOURCE_ROOT "/tests/data/artifacts/valid.json");
	BAD_MERGE("no-such.json", SHARDS "/shard-1-of-2.json", "/nonexistent/no-such.json");
	rt_cli_expect_usage_error((const char *const[]){ "ci-merge", NULL }, "no shard given", out,
				  sizeof(out));
	BAD_MERGE("--junit", "--junit", "/nonexistent-dir/ci.xml", SHARDS "/shard-1-of-2.json");
	json_decref(b);
	rt_remove_tree(dir);
}
END_TEST

/*
 * The progress lines of the gate whose output is in out: its first
 * @sites lines are site runs, each with its sites fired, and no later
 * line is one. Return: the number of progress lines.
 */
static int assert_site_runs_first(int sites)
{
	const char *line = strstr(out, "ci [  1/");
	int n = 0;

	ck_assert_out(line != NULL, "no progress line");
	for (; line && !strncmp(line, "ci [", 4); n++) {
		const char *eol = strchr(line, '\n');
		const char *fired = strstr(line, "  sites fired at ");

		ck_assert_ptr_nonnull(eol);
		ck_assert_out((fired && fired < eol) == (n < sites),
			      "line %d %s a site run with its sites fired", n + 1,
			      n < sites ? "is not" : "is");
		line = eol + 1;
	}
	return n;
}

/* The site runs that shard @shard of this build's gate at @budget plans (a dry run). */
static int shard_site_runs(const char *budget, const char *shard)
{
	const char *p;
	int n = -1, rc;

	rc = rt_cli_run((const char *const[]){ "ci", "--dry-run", "--budget", budget, "--builds",
					       RT_BUILD_KIND, "--seed", "1", "--shard", shard,
					       NULL }, out, sizeof(out));
	ck_assert_out(rc == 0, "dry run of shard %s: exit %d", shard, rc);
	if ((p = strstr(out, "ci: plan: fallback sites: this shard's ")))
		sscanf(p, "ci: plan: fallback sites: this shard's %d of", &n);
	else if (strstr(out, "ci: plan: fallback sites: shard ") && strstr(out, " holds none of the "))
		n = 0;
	ck_assert_out(n >= 0, "shard %s: no word on its site runs", shard);
	return n;
}

/* `ci --json FILE ARGS`: its exit status; the record loaded into @rec. */
static int gate_json(const char *const *extra, const char *json, json_t **rec)
{
	const char *args[32] = { "ci", "--json", json };
	int n = 3, rc;

	for (int i = 0; extra[i]; i++)
		args[n++] = extra[i];
	args[n] = NULL;
	rc = rt_cli_run(args, out, sizeof(out));
	*rec = json_load_file(json, 0, NULL);
	ck_assert_out(*rec != NULL, "ci wrote no %s (exit %d)", json, rc);
	return rc;
}

/*
 * The whole gate (every scenario, design and schedule of this build) in
 * two real shards, each at the smallest budget both accept (a gate's
 * shards share one budget), merged: the merge judges the coverage the
 * shards could not, and gives the verdict of the unsharded gate (a pass,
 * the tree being clean) over its configurations (its plan's, from a dry
 * run at its own smallest budget). The site runs that the unsharded plan
 * puts first at that budget are split between the shards; in each they
 * go first and fire their sites (each within a bound several times what
 * it takes on a loaded 2-core machine), so every site fired. The real
 * unsharded gate is .ci/run's, which a site that never fired also fails;
 * a merged failure, and a merged site that never fired, are
 * test_ci_merge_stored_shards and test_ci_merge_judges_sites.
 */
START_TEST(test_ci_merge_equals_unsharded)
{
	char dir[] = "/tmp/rt-ci-shards-XXXXXX", o1[4200], o2[4200], jm[4200], jun[4200];
	char j1[4200], j2[4200], bs[32], ba[32];
	const char *s1[] = { "--budget", bs, "--builds", RT_BUILD_KIND, "--seed", "1",
			     "--shard", "1/2", "--out", o1, NULL };
	const char *s2[] = { "--budget", bs, "--builds", RT_BUILD_KIND, "--seed", "1",
			     "--shard", "2/2", "--out", o2, NULL };
	const char *p;
	json_t *r1, *r2, *rm, *never;
	int rc1, rc2, rc, m1, m2, configs = 0, sites = 0, lines = 0;
	char *xml;

	m1 = refused_budget((const char *const[]){ "ci", "--budget", "1", "--builds",
						   RT_BUILD_KIND, "--shard", "1/2", NULL });
	m2 = refused_budget((const char *const[]){ "ci", "--budget", "1", "--builds",
						   RT_BUILD_KIND, "--shard", "2/2", NULL });
	snprintf(bs, sizeof(bs), "%d", m1 > m2 ? m1 : m2);
	snprintf(ba, sizeof(ba), "%d", refused_budget((const char *const[]){
		"ci", "--budget", "1", "--builds", RT_BUILD_KIND, NULL }));
	/* The unsharded plan: its configurations, and its site runs first. */
	rc = rt_cli_run((const char *const[]){ "ci", "--dry-run", "--budget", ba, "--builds",
					       RT_BUILD_KIND, "--seed", "1", NULL }, out, sizeof(out));
	ck_assert_out(rc == 0, "dry run: exit %d", rc);
	p = strstr(out, "ci: plan: ");
	ck_assert_out(p && sscanf(p, "ci: plan: %*d configurations in shard 1/1 (of %d)",
				  &configs) == 1 && configs > 0, "no configuration count");
	p = strstr(out, "every site is expected to fire: its ");
	ck_assert_out(p && sscanf(p, "every site is expected to fire: its %d site runs go first",
				  &sites) == 1 && sites > 0, "no site runs");

	m1 = shard_site_runs(bs, "1/2");
	m2 = shard_site_runs(bs, "2/2");

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(o1, sizeof(o1), "%s/o1", dir);
	snprintf(o2, sizeof(o2), "%s/o2", dir);
	snprintf(j1, sizeof(j1), "%s/s1.json", dir);
	snprintf(j2, sizeof(j2), "%s/s2.json", dir);
	snprintf(jm, sizeof(jm), "%s/merged.json", dir);
	snprintf(jun, sizeof(jun), "%s/merged.xml", dir);
	rc1 = gate_json(s1, j1, &r1);
	ck_assert_out(rc1 == 0 && strstr(out, "END: SUCCESS"), "shard 1/2: exit %d", rc1);
	lines += assert_site_runs_first(m1);
	rc2 = gate_json(s2, j2, &r2);
	ck_assert_out(rc2 == 0 && strstr(out, "END: SUCCESS"), "shard 2/2: exit %d", rc2);
	lines += assert_site_runs_first(m2);
	ck_assert_int_eq(m1 + m2, sites);
	ck_assert_int_gt(lines, sites);
	ck_assert(!json_is_true(json_object_get(json_object_get(r1, "coverage"), "judged")));
	ck_assert(!json_is_true(json_object_get(json_object_get(r2, "coverage"), "judged")));

	rc = rt_cli_run((const char *const[]){ "ci-merge", "--json", jm, "--junit", jun, j1, j2,
					       NULL }, out, sizeof(out));
	ck_assert_out(rc == 0 && strstr(out, "END: SUCCESS"), "merged: exit %d", rc);
	rm = json_load_file(jm, 0, NULL);
	ck_assert_ptr_nonnull(rm);
	ck_assert(json_is_true(json_object_get(json_object_get(rm, "coverage"), "judged")));
	never = json_object_get(json_object_get(rm, "coverage"), "never_fired");
	ck_assert_out(json_is_array(never) && json_array_size(never) == 0,
		      "%zu sites never fired", json_array_size(never));
	ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(rm, "totals"), "configs")),
			 configs);
	xml = slurp(jun);
	ck_assert_int_eq(count(xml, "<failure"), 0);
	free(xml);
	assert_coverage_summed(rm, r1, r2);
	assert_interleaving_merged(rm, r1, r2);
	ck_assert_out(strstr(out, "ci: interleaving coverage: "), "no interleaving coverage summary");
	json_decref(r1);
	json_decref(r2);
	json_decref(rm);
	rt_remove_tree(dir);
}
END_TEST

/*
 * Explore's share ("explore"): the dry run shows it and N, --no-explore
 * and a bad --explore-share; a short real gate explores its window of
 * pairs, each a JUnit testcase and a JSON cell, and the summary counts
 * them; ci-merge of two shards' records unions their explored pairs.
 */
START_TEST(test_ci_explore_plan_and_options)
{
	const char *const dry[] = { "ci", "--budget", "150", "--seed", "1", "--dry-run", NULL };
	const char *const off[] = { "ci", "--budget", "150", "--seed", "1", "--dry-run",
				    "--no-explore", NULL };
	int rc = rt_cli_run(dry, out, sizeof(out)), n = 0;
	const char *line = strstr(out, "ci: plan: explore: ");

	ck_assert_out(rc == 0 && line, "dry run: exit %d, no explore line", rc);
	ck_assert_out(sscanf(strstr(line, "seeds 1.."), "seeds 1..%d together", &n) == 1 && n > 1,
		      "N not printed");
	ck_assert_out(count(out, "\nexplore #") > 0, "the explored pairs are not listed");
	rc = rt_cli_run(off, out, sizeof(out));
	ck_assert_out(rc == 0 && strstr(out, "ci: plan: explore: off") &&
		      !strstr(out, "\nexplore #"), "--no-explore: exit %d", rc);
	BAD("--explore-share", "--budget", "150", "--explore-share", "2");
	BAD("--explore-k", "--budget", "150", "--explore-k", "9");
}
END_TEST

START_TEST(test_ci_explore_gate_lists_explored_pairs)
{
	char dir[] = "/tmp/rt-ci-explore-XXXXXX", junit[4200], json[4200], outdir[4200];
	char line[256];
	const char *args[] = { "ci", "--budget", "12", "--builds", "plain", "--seed", "2",
			       "--scenarios", "mixed32", "--rmaps", "ptechain", "--scheds", "free",
			       "--explore-share", "0.5", "--explore-k", "1",
			       "--junit", junit, "--json", json, "--out", outdir, NULL };
	json_t *rec, *x, *cells, *c;
	int rc, exhausted = 0, per_gate, window;
	char *xml;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(junit, sizeof(junit), "%s/ci.xml", dir);
	snprintf(json, sizeof(json), "%s/ci.json", dir);
	snprintf(outdir, sizeof(outdir), "%s/out", dir);
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 0 && strstr(out, "END: SUCCESS"), "exit %d", rc);
	rec = json_load_file(json, 0, NULL);
	ck_assert_ptr_nonnull(rec);
	rt_cli_assert_schema_valid(dir, "ci.json");
	x = json_object_get(rec, "explore");
	cells = json_object_get(x, "cells");
	per_gate = (int)json_integer_value(json_object_get(x, "per_gate"));
	window = (int)json_integer_value(json_object_get(x, "window"));
	ck_assert_int_gt(per_gate, 1);
	ck_assert_int_eq((int)json_array_size(cells), per_gate);
	ck_assert_int_eq(window, 2);
	/* A line per cell, and another for each cut cell tried again with what was left. */
	ck_assert_int_ge(count(out, "\nci explore "), per_gate);
	json_array_foreach(cells, i, c) {
		const char *res = json_string_value(json_object_get(c, "result"));

		/* Seed 2 explores the second window of the rotation, in its order. */
		ck_assert_int_eq(json_integer_value(json_object_get(c, "pos")),
				 (window - 1) * per_gate + (int)i);
		ck_assert_str_eq(json_string_value(json_object_get(c, "rmap")), "ptechain");
		ck_assert_out(!strcmp(res, "exhausted") || !strcmp(res, "cut") ||
			      !strcmp(res, "not-run"), "cell %zu: %s", i, res);
		exhausted += !strcmp(res, "exhausted");
	}
	/* A pair at K=1 is a few dozen schedules: the share exhausts some. */
	ck_assert_out(exhausted > 0, "no pair exhausted");
	ck_assert_int_eq(json_integer_value(json_object_get(x, "exhausted")), exhausted);
	snprintf(line, sizeof(line), "ci: explore: pairs exhausted %d / total %d (this gate),"
		 " %d / %d (all pairs)", exhausted, per_gate, exhausted,
		 (int)json_integer_value(json_object_get(x, "cells_all")));
	ck_assert_out(strstr(out, line), "no line '%s'", line);
	xml = slurp(junit);
	ck_assert_int_eq(check_junit(xml, "rmaptorture.explore"), per_gate);
	free(xml);
	json_decref(rec);
	rt_remove_tree(dir);
}
END_TEST

/* Shard @rec's explored cells: @n of them, {pos, ops[0], ops[1], result}. */
static void set_explore(json_t *rec, int n, const char *const (*cells)[4])
{
	json_t *arr = json_array();

	for (int i = 0; i < n; i++) {
		json_t *c = json_pack("{s:i, s:s, s:[s,s], s:s, s:i, s:i, s:f}",
			"pos", atoi(cells[i][0]), "rmap", "ptechain", "ops", cells[i][1], cells[i][2],
			"result", cells[i][3], "schedules", 10, "pruned", 0, "seconds", 0.1);

		if (!strcmp(cells[i][3], "failed"))
			json_object_set_new(c, "failure", json_pack("{s:s, s:s, s:s}",
				"signature", "bug:core/x.c:cond", "decisions", "0x3,1",
				"artifact", "/nonexistent/failure-bug-0.json"));
		json_array_append_new(arr, c);
	}
	json_object_set_new(rec, "explore", json_pack("{s:s, s:s, s:i, s:f, s:i, s:i, s:i, s:i,"
		" s:f, s:o}", "scenario", "mixed32", "note", "", "k", 2, "share", 5.0,
		"cells_all", 256, "per_gate", 4, "rotations", 64, "window", 1, "wall", 1.0,
		"cells", arr));
}

START_TEST(test_ci_merge_unions_explored_pairs)
{
	static const char *const c1[][4] = {
		{ "0", "read", "read", "exhausted" }, { "1", "read", "write", "cut" },
	};
	static const char *const c2[][4] = {
		{ "2", "read", "fork", "exhausted" }, { "1", "read", "write", "exhausted" },
	};
	static const char *const c2f[][4] = {
		{ "2", "read", "fork", "failed" }, { "1", "read", "write", "exhausted" },
	};
	char dir[] = "/tmp/rt-ci-merge-explore-XXXXXX", p1[4200], p2[4200], json[4200], junit[4200];
	const char *args[] = { "ci-merge", "--json", json, "--junit", junit, p1, p2, NULL };
	json_t *a = json_load_file(SHARDS "/shard-1-of-2.json", 0, NULL);
	json_t *b = json_load_file(SHARDS "/shard-2-of-2.json", 0, NULL);
	json_t *rec, *cells, *c;
	char *xml;
	size_t i;
	int rc;

	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(json, sizeof(json), "%s/ci.json", dir);
	snprintf(junit, sizeof(junit), "%s/ci.xml", dir);
	set_explore(a, 2, c1);
	set_explore(b, 2, c2);
	write_copy(a, dir, "s1.json", p1, sizeof(p1));
	write_copy(b, dir, "s2.json", p2, sizeof(p2));
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 0 && strstr(out, "END: SUCCESS"), "merge: exit %d", rc);
	/* The union: three cells, the one cut in shard 1 exhausted in shard 2. */
	ck_assert_out(strstr(out, "ci: explore: pairs exhausted 3 / total 3 (this gate), 3 / 256"
			      " (all pairs)"), "summary line");
	rec = json_load_file(json, 0, NULL);
	ck_assert_ptr_nonnull(rec);
	cells = json_object_get(json_object_get(rec, "explore"), "cells");
	ck_assert_int_eq(json_array_size(cells), 3);
	json_array_foreach(cells, i, c)
		ck_assert_str_eq(json_string_value(json_object_get(c, "result")), "exhausted");
	json_decref(rec);
	xml = slurp(junit);
	ck_assert_int_eq(check_junit(xml, "rmaptorture.explore"), 3);
	free(xml);

	/* A pair that failed in one shard fails the merged gate. */
	set_explore(b, 2, c2f);
	write_copy(b, dir, "s2f.json", p2, sizeof(p2));
	rc = rt_cli_run(args, out, sizeof(out));
	ck_assert_out(rc == 1 && strstr(out, "END: FAILURE (1 failed"), "failed cell: exit %d", rc);
	ck_assert_out(strstr(out, "ci: FAILED explore ptechain read,fork: bug:core/x.c:cond"),
		      "the failed pair is not named");
	ck_assert_out(strstr(out, "pairs exhausted 2 / total 3 (this gate)"), "summary line");
	xml = slurp(junit);
	ck_assert_msg(strstr(xml, "<failure message=\"bug:core/x.c:cond\""), "no <failure>");
	free(xml);
	json_decref(a);
	json_decref(b);
	rt_remove_tree(dir);
}
END_TEST

/* argv[1], when given, names the one TCase to run (meson runs each apart). */
int main(int argc, char **argv)
{
	Suite *s = suite_create("ci");
	TCase *tc = tcase_create("plan");

	tcase_set_timeout(tc, rt_tmo(120));
	tcase_add_test(tc, test_ci_bad_options_exit_2);
	tcase_add_test(tc, test_ci_help);
	tcase_add_test(tc, test_ci_budget_too_small_is_refused);
	tcase_add_test(tc, test_ci_junit_writer_escapes);
	tcase_add_test(tc, test_ci_shards_cover_every_configuration_once);
	tcase_add_test(tc, test_ci_short_budget_selects_by_seed);
	tcase_add_test(tc, test_ci_merge_stored_shards);
	tcase_add_test(tc, test_ci_merge_judges_sites);
	tcase_add_test(tc, test_ci_merge_refuses_bad_shards);
	suite_add_tcase(s, tc);
	tc = tcase_create("runs");
	/* The gates' budgets are wall-clock; the margin is for start-up and the last child. */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_ci_tiny_gate_passes);
	tcase_add_test(tc, test_ci_failing_configuration);
	tcase_add_test(tc, test_ci_interrupt_exits_130);
	tcase_add_test(tc, test_ci_merge_equals_unsharded);
	suite_add_tcase(s, tc);
	tc = tcase_create("explore");
	tcase_set_timeout(tc, rt_tmo(120));
	tcase_add_test(tc, test_ci_explore_plan_and_options);
	tcase_add_test(tc, test_ci_explore_gate_lists_explored_pairs);
	tcase_add_test(tc, test_ci_merge_unions_explored_pairs);
	suite_add_tcase(s, tc);
	if (argc > 1)
		setenv("CK_RUN_CASE", argv[1], 1);
	return rt_check_main(s);
}
