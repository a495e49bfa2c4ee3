// SPDX-License-Identifier: MIT
/*
 * The numbers (issue 8): `scale`, `bench` and `report` produce well-formed
 * output on tiny sizes (JSON records with the fields a reader needs, CSV,
 * Markdown with its headers, the plots when gnuplot is installed), `bench
 * --compare` flags a regression with exit 1, and bad options are one line
 * naming the option with exit 2. No timed assertion: every number is only
 * checked to be there and finite (the host kernel's rows, issue 27, and
 * the disjoint-mm scaling row too; its verdict is tested on synthetic
 * figures). Ctrl-C on `scale` or `bench` writes
 * what was measured, marked "interrupted", and exits 130; `bench`'s
 * in-process part stops at the sample where it is asked to.
 */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "lockdep.h"
#include "record.h"
#include "report.h"
#include "rmap.h"
#include "rt_check.h"
#include "rt_cli.h"
#include "task.h"

static char out[1 << 20];
static char dir[256];		/* made by the fixture, shared by the tests */
static bool have_gnuplot;

static bool exists(const char *d, const char *name)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s/%s", d, name);
	return !stat(p, &st) && st.st_size > 0;
}

static json_t *load(const char *d, const char *name)
{
	char p[512];
	json_error_t err;
	json_t *j;

	snprintf(p, sizeof(p), "%s/%s", d, name);
	j = json_load_file(p, 0, &err);
	ck_assert_msg(j != NULL, "%s: %s", p, err.text);
	return j;
}

static char *slurp(const char *d, const char *name)
{
	char p[512];
	static char buf[1 << 18];
	FILE *f;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", d, name);
	f = fopen(p, "r");
	ck_assert_msg(f != NULL, "cannot read %s", p);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool finite_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) && isfinite(json_number_value(v));
}

/* Every result record: the command, git revision, machine and date. */
static void check_meta(const json_t *rec, const char *kind)
{
	const json_t *m = json_object_get(rec, "machine");

	ck_assert_str_eq(json_string_value(json_object_get(rec, "record")), kind);
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "format_version")), RT_RECORD_FORMAT);
	ck_assert(json_is_array(json_object_get(rec, "command")));
	ck_assert(json_is_string(json_object_get(rec, "git")));
	ck_assert(json_is_string(json_object_get(rec, "date")));
	ck_assert(json_integer_value(json_object_get(m, "cores")) >= 1);
	ck_assert(json_is_string(json_object_get(m, "model")));
	ck_assert(json_is_array(json_object_get(rec, "load_average")));
}

static bool gnuplot_installed(void)
{
	return !system("command -v gnuplot >/dev/null 2>&1");
}

/* The tiny runs, once for the TCase (their outputs are what the tests read). */
static int scale_rc, bench_rc;

static void make_outputs(void)
{
	char sdir[300], bjson[300], bdir[300];

	snprintf(dir, sizeof(dir), "/tmp/check_numbers.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	have_gnuplot = gnuplot_installed();
	snprintf(sdir, sizeof(sdir), "%s/scale", dir);
	snprintf(bjson, sizeof(bjson), "%s/bench.json", dir);
	snprintf(bdir, sizeof(bdir), "%s/bench", dir);
	{
		/*
		 * Runs that end at a count of operations, not a clock: 0.3 s
		 * on a loaded 2-core machine can pass with no operation made.
		 */
		const char *const a[] = { "scale", "--threads", "1,2", "--seconds", "60",
					  "--ops", "400", "--repeat", "1",
					  "--scenario", "mixed32", "--reclaim-threads", "1", "--out", sdir,
					  have_gnuplot ? "--ops" : "--no-plots", have_gnuplot ? "400" : NULL,
					  NULL };
		scale_rc = rt_cli_run(a, out, sizeof(out));
		if (scale_rc)
			fprintf(stderr, "scale: exit %d\n%s\n", scale_rc, out);
	}
	{
		const char *const a[] = { "bench", "--quick", "--repeat", "1", "--run-seconds", "0.2",
					  "--procs", "2", "--reclaim-threads", "1", "--json", bjson,
					  "--out", bdir, have_gnuplot ? "--quick" : "--no-plots", NULL };
		bench_rc = rt_cli_run(a, out, sizeof(out));
		if (bench_rc)
			fprintf(stderr, "bench: exit %d\n%s\n", bench_rc, out);
	}
}

static void remove_outputs(void)
{
	rt_remove_tree(dir);
}

/* The first two CPUs this process may run on, into @a and @b; false: fewer. */
static bool transfer_cpus(int *a, int *b)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return false;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++) {
		if (!CPU_ISSET(c, &set))
			continue;
		if (n == 0 && a)
			*a = c;
		if (n == 1 && b)
			*b = c;
		n++;
	}
	return n == 2;
}

/*
 * The transfer probe: a positive time between two allowed CPUs (retried:
 * a loaded machine may preempt the partner through a whole probe), -1
 * for a CPU the threads cannot be pinned to.
 */
START_TEST(test_numbers_transfer_probe)
{
	int a = 0, b = 0, not_allowed = -1;
	double ns = -1;
	cpu_set_t set;

	ck_assert(!sched_getaffinity(0, sizeof(set), &set));
	for (int c = CPU_SETSIZE - 1; c >= 0 && not_allowed < 0; c--)
		if (!CPU_ISSET(c, &set))
			not_allowed = c;
	bool two = transfer_cpus(&a, &b);

	if (not_allowed >= 0)
		ck_assert(rt_bench_transfer_ns(a, not_allowed) == -1);
	if (!two)
		return;
	for (int i = 0; i < 10 && ns < 0; i++)
		ns = rt_bench_transfer_ns(a, b);
	ck_assert_msg(ns > 0 && ns < 1e6, "CPU %d-%d: %g ns", a, b, ns);
}
END_TEST

START_TEST(test_numbers_scale_output)
{
	char sdir[300];
	json_t *rec, *p;
	const char *md, *csv;
	size_t i;

	ck_assert_int_eq(scale_rc, 0);
	snprintf(sdir, sizeof(sdir), "%s/scale", dir);
	rec = load(sdir, "scale.json");
	check_meta(rec, "scale");
	rt_cli_assert_schema_valid(sdir, "scale.json");
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "cores")),
			 sysconf(_SC_NPROCESSORS_ONLN));
	ck_assert(json_is_string(json_object_get(rec, "note")));
	/* Every design x 2 thread counts. */
	ck_assert_int_eq(json_array_size(json_object_get(rec, "points")), 2 * RMAP_NR_MODES);
	json_array_foreach(json_object_get(rec, "points"), i, p) {
		const json_t *o = json_object_get(p, "ops_per_sec");

		ck_assert(json_is_string(json_object_get(p, "rmap")));
		ck_assert(finite_num(o, "median") && json_number_value(json_object_get(o, "median")) > 0);
		ck_assert(finite_num(o, "min") && finite_num(o, "max"));
		ck_assert(finite_num(p, "speedup") && finite_num(p, "efficiency"));
		ck_assert(finite_num(json_object_get(p, "fallbacks_per_scan"), "median"));
		ck_assert(json_object_size(json_object_get(p, "contention")) > 0);
		if (json_integer_value(json_object_get(p, "threads")) == 1)
			ck_assert(fabs(json_number_value(json_object_get(p, "speedup")) - 1) < 1e-9);
	}
	csv = slurp(sdir, "scale.csv");
	ck_assert_msg(csv[0] == '#' && strstr(csv, "cores"), "%s", csv);
	ck_assert_msg(strstr(csv, "\nrmap,threads,cores,"), "%s", csv);
	md = slurp(sdir, "scale.md");
	ck_assert_msg(strstr(md, "## scale") && strstr(md, "oversubscription") &&
		      strstr(md, "| rmap | threads |"), "%s", md);
	/* The transfer probe, before and after, where there are two CPUs. */
	if (transfer_cpus(NULL, NULL)) {
		const json_t *x = json_object_get(json_object_get(rec, "cpu_transfer"), "start");

		ck_assert_msg(json_array_size(json_object_get(x, "pairs")) >= 1, "no cpu_transfer");
		/* One probe a repeat (the fixture's sweep: one repeat). */
		ck_assert_int_eq(json_array_size(json_object_get(json_object_get(rec, "cpu_transfer"),
								 "repeats")),
				 json_integer_value(json_object_get(rec, "repeat")));
		ck_assert(json_is_object(json_object_get(json_object_get(rec, "cpu_transfer"), "end")));
		ck_assert_msg(strstr(md, "One cache line from one CPU to another: CPU "), "%s", md);
	} else {
		ck_assert(!json_object_get(rec, "cpu_transfer"));
	}
	json_decref(rec);
	if (have_gnuplot) {
		ck_assert(exists(sdir, "scale-throughput.svg") && exists(sdir, "scale-throughput.png"));
		ck_assert(exists(sdir, "scale-speedup.svg") && exists(sdir, "scale-speedup.png"));
	}
}
END_TEST

/*
 * The host kernel's rows of a bench record: positive, with their spread,
 * and design @d's vs_host is its own rate over the host's (model/host
 * rate), computed from the two figures of the record.
 */
static void check_vs_host(const json_t *rec, const json_t *d, const char *mode)
{
	static const char *const keys[] = { "anon_faults_per_sec", "fork_exit_per_sec",
					    "fork_exit_per_sec_10000" };
	const json_t *host = json_object_get(rec, "host");

	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		double h = json_number_value(json_object_get(host, keys[k]));
		double m = json_number_value(json_object_get(d, keys[k]));
		double x = json_number_value(json_object_get(json_object_get(d, "vs_host"), keys[k]));

		ck_assert_msg(finite_num(host, keys[k]) && h > 0, "host %s: %g", keys[k], h);
		ck_assert_int_ge(json_integer_value(json_object_get(json_object_get(
			json_object_get(host, "spread"), keys[k]), "n")), 1);
		ck_assert_msg(fabs(x - m / h) <= 1e-9 * (m / h), "%s %s: vs_host %g, %g / %g", mode,
			      keys[k], x, m, h);
	}
}

/*
 * Design @d's disjoint-mm row: every operation, positive CPU and wall
 * costs at one CPU and more, ratio 1 at one CPU.
 */
static void check_disjoint_scaling(const json_t *d, const char *mode)
{
	static const char *const ops[] = { "anon_fault_ns", "fork_exit_ns", "mmap_munmap_ns",
					   "touch_ns" };

	ck_assert_int_eq(RT_BENCH_SCALING_OPS, 4);
	for (size_t o = 0; o < 4; o++) {
		ck_assert_str_eq(rt_bench_scaling_ops[o].key, ops[o]);
		/* The two that allocate pages share the zone; the others nothing. */
		ck_assert_int_eq(rt_bench_scaling_ops[o].shares != NULL, o < 2);
	}
	for (size_t o = 0; o < 4; o++) {
		const json_t *op = json_object_get(json_object_get(d, "disjoint_scaling"), ops[o]);
		const json_t *one = json_object_get(op, "1"), *p;
		const char *key;

		ck_assert_msg(json_object_size(op) >= (rt_machine_cores() > 1 ? 2 : 1), "%s %s", mode, ops[o]);
		ck_assert_msg(fabs(json_number_value(json_object_get(one, "ratio")) - 1) < 1e-9, "%s", mode);
		json_object_foreach((json_t *)op, key, p) {
			ck_assert_msg(finite_num(p, "median") &&
				      json_number_value(json_object_get(p, "median")) > 0, "%s %s N=%s",
				      mode, ops[o], key);
			ck_assert_msg(finite_num(p, "wall_median") &&
				      json_number_value(json_object_get(p, "wall_median")) > 0, "%s %s N=%s",
				      mode, ops[o], key);
			ck_assert(json_is_string(json_object_get(p, "verdict")));
		}
	}
}

START_TEST(test_numbers_bench_output)
{
	static const char *const keys[] = {
		"rmap_bytes_per_mapped_page", "anon_faults_per_sec", "file_faults_per_sec",
		"fork_exit_per_sec", "exit_per_sec",
	};
	json_t *rec, *d;
	const char *mode;

	ck_assert_int_eq(bench_rc, 0);
	rec = load(dir, "bench.json");
	check_meta(rec, "bench");
	rt_cli_assert_schema_valid(dir, "bench.json");
	ck_assert_int_eq(json_object_size(json_object_get(rec, "designs")), RMAP_NR_MODES);
	json_object_foreach(json_object_get(rec, "designs"), mode, d) {
		const json_t *tu = json_object_get(d, "try_to_unmap_ns");

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			ck_assert_msg(finite_num(d, keys[k]), "%s lacks %s", mode, keys[k]);
		ck_assert(finite_num(json_object_get(tu, "by_sharers"), "1"));
		ck_assert(finite_num(json_object_get(tu, "by_sharers"), "100"));
		ck_assert(finite_num(json_object_get(tu, "by_vmas"), "1000"));
		ck_assert(finite_num(json_object_get(json_object_get(d, "shm_rmap_bytes_per_mapped_page"), "2"),
				     "median"));
		ck_assert(finite_num(json_object_get(json_object_get(d, "trylock_fallbacks_per_scan"), "1"),
				     "median"));
		check_vs_host(rec, d, mode);
		check_disjoint_scaling(d, mode);
	}
	ck_assert(json_is_string(json_object_get(json_object_get(rec, "scaling"), "verdict")));
	ck_assert_str_eq(json_string_value(json_object_get(json_object_get(rec, "scaling"), "metric")),
			 "cpu_ns");
	ck_assert(json_is_integer(json_object_get(json_object_get(rec, "scaling"), "flags_shared")));
	json_decref(rec);
	{
		char bdir[300];
		const char *md;

		snprintf(bdir, sizeof(bdir), "%s/bench", dir);
		ck_assert(exists(bdir, "bench.json"));
		md = slurp(bdir, "bench.md");
		ck_assert_msg(strstr(md, "## bench") && strstr(md, "### try_to_unmap"), "%s", md);
		if (have_gnuplot)
			ck_assert(exists(bdir, "bench-unmap-vmas.svg") && exists(bdir, "bench-unmap-vmas.png"));
	}
}
END_TEST

START_TEST(test_numbers_report_renders_both)
{
	char sjson[300], bjson[300], rdir[300];
	const char *const a[] = { "report", sjson, bjson, "--out", rdir,
				  have_gnuplot ? NULL : "--no-plots", NULL };
	int rc;

	ck_assert_int_eq(scale_rc | bench_rc, 0);
	snprintf(sjson, sizeof(sjson), "%s/scale/scale.json", dir);
	snprintf(bjson, sizeof(bjson), "%s/bench.json", dir);
	snprintf(rdir, sizeof(rdir), "%s/report", dir);
	rc = rt_cli_run(a, out, sizeof(out));
	ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
	for (const char *const *h = (const char *const[]){ "# rmaptorture results", "## scale",
			"### Contention by lock class", "## bench", "### rmap memory: the `shm` scenario",
			"### rmap memory: the Oracle case", "x 700 tasks", "### Fault, fork and exit",
			"### try_to_unmap()", "### Trylock fallbacks per reclaim scan", NULL }; *h; h++)
		ck_assert_msg(strstr(out, *h), "no '%s' in:\n%s", *h, out);
	ck_assert(exists(rdir, "report.md"));
	if (have_gnuplot) {
		ck_assert(exists(rdir, "scale-1-throughput.svg") && exists(rdir, "scale-1-speedup.png"));
		ck_assert(exists(rdir, "bench-2-unmap-sharers.svg") && exists(rdir, "bench-2-rmap-bytes.png"));
		ck_assert_msg(strstr(out, "![scale-1-throughput.svg](scale-1-throughput.svg)"), "%s", out);
	}
}
END_TEST

/* @o's @key and its spread @sp (min, max) times @f. */
static void scale_figure(json_t *o, const char *key, json_t *sp, double f)
{
	const char *const keys[] = { "min", "max" };

	json_object_set_new(o, key, json_real(f * json_number_value(json_object_get(o, key))));
	for (int i = 0; i < 2; i++)
		json_object_set_new(sp, keys[i], json_real(f * json_number_value(json_object_get(sp, keys[i]))));
}

START_TEST(test_numbers_compare_flags_regressions)
{
	char bjson[300], worse[300], want[64];
	json_t *rec, *d;
	const char *mode;
	int rc;

	ck_assert_int_eq(bench_rc, 0);
	snprintf(bjson, sizeof(bjson), "%s/bench.json", dir);
	snprintf(worse, sizeof(worse), "%s/baseline-better.json", dir);
	{
		const char *const a[] = { "bench", "--compare", bjson, "--results", bjson, NULL };

		rc = rt_cli_run(a, out, sizeof(out));
		ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
		ck_assert_msg(strstr(out, ": 0 regressions, 0 better"), "%s", out);
	}
	/*
	 * A baseline twice as fast (its model/host rate too) and half as slow
	 * to unmap, its spread with it: every design regressed.
	 */
	rec = load(dir, "bench.json");
	json_object_foreach(json_object_get(rec, "designs"), mode, d) {
		json_t *tu = json_object_get(json_object_get(d, "try_to_unmap_ns"), "by_vmas");
		json_t *sp = json_object_get(d, "spread"), *vh = json_object_get(d, "vs_host");

		scale_figure(d, "anon_faults_per_sec", json_object_get(sp, "anon_faults_per_sec"), 2);
		json_object_set_new(vh, "anon_faults_per_sec", json_real(2 * json_number_value(
			json_object_get(vh, "anon_faults_per_sec"))));
		scale_figure(tu, "1000", json_object_get(sp, "try_to_unmap_ns_vmas_1000"), 0.5);
	}
	ck_assert_int_eq(json_dump_file(rec, worse, 0), 0);
	json_decref(rec);
	{
		const char *const a[] = { "bench", "--compare", worse, "--results", bjson,
					  "--threshold", "20", NULL };

		rc = rt_cli_run(a, out, sizeof(out));
		ck_assert_msg(rc == 1, "exit %d:\n%s", rc, out);
		/* Three figures of every design: the rate, its model/host rate, the cost. */
		snprintf(want, sizeof(want), ": %d regressions,", 3 * RMAP_NR_MODES);
		ck_assert_msg(strstr(out, want), "%s", rt_cli_excerpt(out, 1500));
		ck_assert_msg(strstr(out, "anon_faults_per_sec") && strstr(out, "REGRESSION"), "%s", out);
	}
}
END_TEST

/* ---- Ctrl-C ---- */

/* Nothing half-written in @d: every output went in by rename, the runs' work directory is gone. */
static void assert_no_leftovers(const char *d)
{
	struct dirent *de;
	DIR *dd = opendir(d);

	ck_assert_msg(dd != NULL, "no directory %s", d);
	while ((de = readdir(dd)))
		ck_assert_msg(!strstr(de->d_name, ".tmp.") && strncmp(de->d_name, ".runs.", 6),
			      "%s/%s left behind", d, de->d_name);
	closedir(dd);
}

/*
 * Start rmaptorture @args, SIGINT once @needle is in its output (polled,
 * not a fixed sleep), its output then in out. Return: its exit status.
 */
static int interrupt_after(const char *const *args, const char *log, const char *needle)
{
	pid_t pid = rt_cli_spawn(args, log);
	bool seen = rt_cli_wait_output(log, needle, rt_tmo(120), out, sizeof(out));
	int rc = rt_cli_interrupt(pid, rt_tmo(60));

	/* All of its output now: "" is found at once. */
	rt_cli_wait_output(log, "", 0, out, sizeof(out));
	ck_assert_msg(seen, "no '%s' in:\n%s", needle, out);
	return rc;
}

/*
 * Ctrl-C once the first run of 40 is done: exit 130, and scale.json,
 * .csv, .md (and the plots) hold the points measured, marked partial.
 * The 39 runs of a second left make the sweep far from its end.
 */
START_TEST(test_numbers_scale_interrupted_partial)
{
	char d[] = "/tmp/check_numbers-int.XXXXXX", sdir[300], log[300];
	const char *const a[] = { "scale", "--threads", "1,2", "--rmap", "ptechain", "--repeat", "20",
				  "--seconds", "1", "--out", sdir,
				  gnuplot_installed() ? NULL : "--no-plots", NULL };
	json_int_t total = 0;
	json_t *rec, *p;
	size_t i;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(d));
	snprintf(sdir, sizeof(sdir), "%s/scale", d);
	snprintf(log, sizeof(log), "%s/output.log", d);
	rc = interrupt_after(a, log, "[1/40]");
	ck_assert_msg(rc == 130, "exit %d:\n%s", rc, out);
	rec = load(sdir, "scale.json");
	check_meta(rec, "scale");
	rt_cli_assert_schema_valid(sdir, "scale.json");
	ck_assert(json_is_true(json_object_get(rec, "interrupted")));
	/* Only points measured: the first run's (1 thread) among them. */
	ck_assert_int_ge(json_array_size(json_object_get(rec, "points")), 1);
	json_array_foreach(json_object_get(rec, "points"), i, p) {
		json_int_t n = json_integer_value(json_object_get(json_object_get(p, "ops_per_sec"), "n"));

		ck_assert_msg(n >= 1, "point %zu: no sample", i);
		ck_assert(finite_num(json_object_get(p, "ops_per_sec"), "median"));
		total += n;
	}
	ck_assert_msg(total >= 1 && total < 40, "%lld samples", (long long)total);
	p = json_array_get(json_object_get(rec, "points"), 0);
	ck_assert_int_eq(json_integer_value(json_object_get(p, "threads")), 1);
	json_decref(rec);
	ck_assert_msg(strstr(slurp(sdir, "scale.md"), "PARTIAL: interrupted"), "scale.md not partial");
	ck_assert_msg(strstr(slurp(sdir, "scale.csv"), "PARTIAL (interrupted)\nrmap,threads,"),
		      "scale.csv not partial");
	if (gnuplot_installed())
		ck_assert(exists(sdir, "scale-throughput.svg") && exists(sdir, "scale-speedup.png"));
	assert_no_leftovers(sdir);
	rt_remove_tree(d);
}
END_TEST

/*
 * Ctrl-C once the first child run is done (after the in-process part):
 * exit 130, bench.json (--out and --json) and bench.md hold the
 * in-process numbers and that run's, marked partial. --seconds after
 * --quick keeps its value (--quick sets only what no option gave): the
 * in-process part's samples of 0.01 s, a third of --quick's (that part
 * was 36 s of this test's 37 under ASan).
 */
START_TEST(test_numbers_bench_interrupted_partial)
{
	char d[] = "/tmp/check_numbers-int.XXXXXX", bdir[300], bjson[300], log[300];
	const char *const a[] = { "bench", "--seconds", "0.01", "--quick", "--repeat", "3",
				  "--run-seconds", "1",
				  "--procs", "2", "--reclaim-threads", "1", "--json", bjson,
				  "--out", bdir, gnuplot_installed() ? NULL : "--no-plots", NULL };
	json_t *rec, *dsg;
	const char *mode;
	json_int_t shm = 0, fbs = 0;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(d));
	snprintf(bdir, sizeof(bdir), "%s/bench", d);
	snprintf(bjson, sizeof(bjson), "%s/bench.json", d);
	snprintf(log, sizeof(log), "%s/output.log", d);
	rc = interrupt_after(a, log, "[1/");
	ck_assert_msg(rc == 130, "exit %d:\n%s", rc, out);
	ck_assert(exists(bdir, "bench.json"));
	rec = load(d, "bench.json");
	check_meta(rec, "bench");
	rt_cli_assert_schema_valid(d, "bench.json");
	ck_assert(json_is_true(json_object_get(rec, "interrupted")));
	ck_assert(json_real_value(json_object_get(rec, "sample_seconds")) == 0.01);
	ck_assert(json_is_true(json_object_get(rec, "quick")));
	ck_assert_int_eq(json_object_size(json_object_get(rec, "designs")), RMAP_NR_MODES);
	json_object_foreach(json_object_get(rec, "designs"), mode, dsg) {
		const json_t *sp = json_object_get(json_object_get(dsg, "spread"), "anon_faults_per_sec");

		/* The in-process part was over: every sample of it. */
		ck_assert_msg(finite_num(dsg, "anon_faults_per_sec"), "%s", mode);
		ck_assert_int_eq(json_integer_value(json_object_get(sp, "n")), 3);
		shm += json_integer_value(json_object_get(json_object_get(json_object_get(dsg,
			"shm_rmap_bytes_per_mapped_page"), "2"), "n"));
		fbs += json_integer_value(json_object_get(json_object_get(json_object_get(dsg,
			"trylock_fallbacks_per_scan"), "1"), "n"));
	}
	/* The first child run (ptechain, repeat 0) is there; the sweeps are not over. */
	ck_assert(finite_num(json_object_get(json_object_get(json_object_get(json_object_get(rec,
		"designs"), "ptechain"), "shm_rmap_bytes_per_mapped_page"), "2"), "median"));
	ck_assert_msg(shm >= 1 && shm + fbs < 2 * 3 * RMAP_NR_MODES, "%lld + %lld runs",
		      (long long)shm, (long long)fbs);
	json_decref(rec);
	ck_assert_msg(strstr(slurp(bdir, "bench.md"), "PARTIAL: interrupted"), "bench.md not partial");
	assert_no_leftovers(bdir);
	rt_remove_tree(d);
}
END_TEST

static int stop_polls, stop_at;

static bool stop_at_poll(void)
{
	return ++stop_polls >= stop_at;
}

/*
 * The in-process part stops at the sample where it is asked to: every
 * Oracle-case measurement (3 per design), then two samples of the first
 * row (the first two designs), then the third poll says stop. What was
 * taken is in the record with its count, the rest is null, and the
 * record and the tables say interrupted.
 */
START_TEST(test_numbers_bench_vm_stops_where_asked)
{
	struct rt_bench_vm_cfg cfg = RT_BENCH_VM_CFG_DEFAULT;
	json_t *rec = json_object(), *modes;
	char *tables = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&tables, &len);

	ck_assert_ptr_nonnull(f);
	rt_bench_vm_cfg_quick(&cfg);
	cfg.stop = stop_at_poll;
	stop_at = 3 * RMAP_NR_MODES + 3;
	rt_task_attach("check-numbers");
	rt_bench_vm(&cfg, 3, true, f, rec);
	lockdep_set_enabled(true);	/* as `bench` does after it */
	rt_task_detach();
	fclose(f);
	ck_assert_msg(strstr(tables, "INTERRUPTED: partial"), "the tables do not say interrupted");
	free(tables);
	ck_assert(json_is_true(json_object_get(rec, "interrupted")));
	modes = json_object_get(rec, "modes");
	ck_assert_int_eq(json_array_size(modes), RMAP_NR_MODES);
	for (int m = 0; m < RMAP_NR_MODES; m++) {
		const json_t *dsg = json_object_get(json_object_get(rec, "designs"),
						    json_string_value(json_array_get(modes, m)));
		const json_t *sp = json_object_get(json_object_get(dsg, "spread"), "anon_faults_per_sec");

		ck_assert(finite_num(dsg, "rmap_bytes_per_mapped_page"));
		ck_assert_int_eq(json_integer_value(json_object_get(sp, "n")), m < 2);
		ck_assert(m < 2 ? finite_num(dsg, "anon_faults_per_sec") :
		          json_is_null(json_object_get(dsg, "anon_faults_per_sec")));
		ck_assert(json_is_null(json_object_get(dsg, "file_faults_per_sec")));
	}
	json_decref(rec);
}
END_TEST

/* The verdict on synthetic figures: the ranges of the repeats decide, and only up to the cores. */
START_TEST(test_numbers_scaling_verdict)
{
#define POINT(c, m, lo, hi, k) \
	{ .cpus = (c), .med = (m), .mn = (lo), .mx = (hi), .n = (k), \
	  .wall_med = (m), .wall_mn = (lo), .wall_mx = (hi) }
	struct rt_bench_scaling_point one = POINT(1, 100, 90, 120, 5);
	struct rt_bench_scaling_point same = POINT(2, 110, 95, 130, 5);	/* overlaps: noise */
	struct rt_bench_scaling_point slower = POINT(2, 125, 100, 140, 5);	/* median above, overlaps */
	struct rt_bench_scaling_point grown = POINT(2, 200, 139, 260, 5);	/* beyond the spread */
	/* Beyond the spread, within the margin (the machine's, not a shared line). */
	struct rt_bench_scaling_point margin = POINT(2, 130, 125, 140, 5);
	struct rt_bench_scaling_point cheaper = POINT(2, 60, 50, 70, 5);
	struct rt_bench_scaling_point empty = POINT(2, NAN, NAN, NAN, 0);
	struct rt_bench_scaling_point over = POINT(4, 400, 300, 500, 5);
	/*
	 * Preempted now and then: the wall time grew, the CPU time did not (1.7
	 * of 2 CPUs at a time): no FLAG. Taking turns on one core (0.23 of
	 * 2): no verdict, whatever the CPU time did.
	 */
	struct rt_bench_scaling_point preempted = { .cpus = 2, .med = 105, .mn = 92, .mx = 118, .n = 5,
						    .wall_med = 125, .wall_mn = 100, .wall_mx = 150 };
	struct rt_bench_scaling_point turns = { .cpus = 2, .med = 200, .mn = 121, .mx = 260, .n = 5,
						.wall_med = 1800, .wall_mn = 1000, .wall_mx = 2400 };
#undef POINT
	int cpus[RT_BENCH_MAX_CPUS_LIST];
	json_t *rec;

	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &same, 2), RT_SCALING_OK);
	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &slower, 2), RT_SCALING_OK);
	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &grown, 2), RT_SCALING_FLAG);
	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &margin, 2), RT_SCALING_OK);
	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &preempted, 2), RT_SCALING_OK);
	ck_assert(fabs(rt_bench_scaling_parallelism(&preempted) - 1.68) < 1e-9);
	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &turns, 2), RT_SCALING_NA);
	ck_assert(fabs(rt_bench_scaling_parallelism(&grown) - 2) < 1e-9);
	ck_assert(isnan(rt_bench_scaling_parallelism(&empty)));
	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &cheaper, 2), RT_SCALING_OK);
	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &empty, 2), RT_SCALING_NA);
	ck_assert_int_eq(rt_bench_scaling_verdict(&empty, &grown, 2), RT_SCALING_NA);
	/* More CPUs than cores: oversubscription, not scaling. */
	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &over, 2), RT_SCALING_NA);
	ck_assert_int_eq(rt_bench_scaling_verdict(&one, &over, 4), RT_SCALING_FLAG);
	ck_assert_str_eq(rt_bench_scaling_verdict_name(RT_SCALING_FLAG), "FLAG");
	ck_assert_int_eq(rt_bench_scaling_cpus(1, cpus), 1);
	ck_assert_int_eq(cpus[0], 1);
	ck_assert_int_eq(rt_bench_scaling_cpus(2, cpus), 2);
	ck_assert_int_eq(cpus[1], 2);
	ck_assert_int_eq(rt_bench_scaling_cpus(12, cpus), 5);
	ck_assert(cpus[0] == 1 && cpus[3] == 8 && cpus[4] == 12);
	ck_assert_int_eq(rt_bench_scaling_cpus(16, cpus), 5);
	ck_assert_int_eq(cpus[4], 16);
	/* model/host rate: 7.1x is 7.1 times the host's operations per second. */
	ck_assert(fabs(rt_bench_host_ratio(710, 100) - 7.1) < 1e-12);
	/* --check-scaling reads the record's verdict. */
	rec = json_pack("{s:{s:s}}", "scaling", "verdict", "FLAG");
	ck_assert(rt_bench_scaling_flagged(rec, stderr));
	json_object_set_new(json_object_get(rec, "scaling"), "verdict", json_string("ok"));
	ck_assert(!rt_bench_scaling_flagged(rec, stderr));
	/* The FLAGs of operations 2.6 shared a line for are named, not counted. */
	json_object_set_new(json_object_get(rec, "scaling"), "flags_shared", json_integer(3));
	ck_assert(!rt_bench_scaling_flagged(rec, stderr));
	json_object_del(rec, "scaling");
	ck_assert(!rt_bench_scaling_flagged(rec, stderr));
	json_decref(rec);
}
END_TEST

/*
 * --check-scaling with one CPU: nothing to flag, exit 0 (the exit-1 path:
 * the test above); its record valid against bench-vm's schema. --repeat
 * and --seconds before --quick keep their values: --quick sets only what
 * no option gave.
 */
START_TEST(test_numbers_check_scaling_one_cpu)
{
	char d[] = "/tmp/check_numbers-vm.XXXXXX", json[300];
	const char *const a[] = { "bench", "vm", "--repeat", "1", "--seconds", "0.01", "--quick",
				  "--scaling-max", "1", "--check-scaling", "--json", json, NULL };
	json_t *rec;
	int rc;

	ck_assert_ptr_nonnull(mkdtemp(d));
	snprintf(json, sizeof(json), "%s/bench-vm.json", d);
	rc = rt_cli_run(a, out, sizeof(out));
	ck_assert_msg(rc == 0, "exit %d:\n%s", rc, rt_cli_excerpt(out, 2000));
	rt_cli_assert_schema_valid(d, "bench-vm.json");
	rec = load(d, "bench-vm.json");
	ck_assert_int_eq(json_integer_value(json_object_get(rec, "repeat")), 1);
	ck_assert(json_real_value(json_object_get(rec, "sample_seconds")) == 0.01);
	ck_assert(json_is_true(json_object_get(rec, "quick")));
	json_decref(rec);
	rt_remove_tree(d);
	ck_assert_msg(strstr(out, "disjoint-mm scaling: n/a"), "%s", rt_cli_excerpt(out, 2000));
	ck_assert_msg(strstr(out, "model/host rate"), "%s", rt_cli_excerpt(out, 2000));
}
END_TEST

#define BAD(needle, ...) \
	rt_cli_expect_usage_error((const char *const[]){ __VA_ARGS__, NULL }, needle, out, sizeof(out))

START_TEST(test_numbers_bad_options)
{
	BAD("--threads", "scale", "--threads", "0");
	BAD("--threads", "scale", "--threads", "1,,2");
	BAD("--threads", "scale", "--threads", "2,2");
	BAD("--threads", "scale", "--threads", "x");
	BAD("--rmap", "scale", "--rmap", "rmap2");
	BAD("--repeat", "scale", "--repeat", "0");
	BAD("--seconds", "scale", "--seconds", "-1");
	BAD("--json", "scale", "--json");
	BAD("--bogus", "scale", "--bogus", "--threads", "1", "--repeat", "1", "--seconds", "0.1");
	BAD("--scenario", "scale", "--scenario", "nosuch", "--threads", "1", "--repeat", "1",
	    "--rmap", "ptechain", "--seconds", "0.1");
	BAD("--repeat", "bench", "--repeat", "0");
	BAD("--procs", "bench", "--procs", "17");
	BAD("--reclaim-threads", "bench", "--reclaim-threads", "0");
	BAD("--threshold", "bench", "--threshold", "lots");
	BAD("--compare: no such file: /nonexistent/baseline.json", "bench", "--compare",
	    "/nonexistent/baseline.json");
	BAD("--compare: /tmp is a directory, not a JSON file", "bench", "--compare", "/tmp");
	BAD("--results", "bench", "--results", "/nonexistent/x.json");
	BAD("--bogus", "bench", "--bogus");
	BAD("--scaling-max", "bench", "--scaling-max", "0");
	BAD("--scaling-max", "bench", "vm", "--scaling-max", "lots");
	BAD("--check-scaling", "bench", "--check-scaling", "--compare", "x.json", "--results", "x.json");
	BAD("files", "report");
	BAD("report: no such file: /nonexistent/r.json", "report", "/nonexistent/r.json");
	BAD("report: /tmp is a directory, not a JSON file", "report", "/tmp");
	BAD("--bogus", "report", "--bogus", "x.json");
	BAD("nosuch", "bench", "nosuch");
}
END_TEST

/* ---- bench --compare on synthetic records (no measurement) ---- */

static char cmp_dir[64];

static void make_cmp_dir(void)
{
	snprintf(cmp_dir, sizeof(cmp_dir), "/tmp/check_numbers-cmp.XXXXXX");
	if (!mkdtemp(cmp_dir))
		abort();
}

static void remove_cmp_dir(void)
{
	rt_remove_tree(cmp_dir);
}

/*
 * A bench record of @modes (NULL-terminated): each with one throughput,
 * anon_faults_per_sec, of median @fault and range fault * (1 -+ @spread),
 * and one cost, try_to_unmap_ns.by_vmas.1000, of @unmap likewise; @quick
 * "true", "false" or NULL (no field, as in an older record).
 */
static json_t *synthetic_bench(const char *const *modes, double fault, double unmap,
			       double spread, const char *quick, const char *git)
{
	json_t *rec = json_pack("{s:s, s:s, s:s, s:{s:i, s:s}, s:[], s:{}}", "kind", "bench",
				"git", git, "date", "2026-12-05T00:00:00Z", "machine", "cores", 2,
				"model", "test", "modes", "designs");

	for (int m = 0; modes[m]; m++) {
		json_array_append_new(json_object_get(rec, "modes"), json_string(modes[m]));
		json_object_set_new(json_object_get(rec, "designs"), modes[m], json_pack(
			"{s:f, s:{s:{s:f}}, s:{s:{s:f, s:f}, s:{s:f, s:f}}}",
			"anon_faults_per_sec", fault,
			"try_to_unmap_ns", "by_vmas", "1000", unmap,
			"spread", "anon_faults_per_sec", "min", fault * (1 - spread), "max",
			fault * (1 + spread), "try_to_unmap_ns_vmas_1000", "min", unmap * (1 - spread),
			"max", unmap * (1 + spread)));
	}
	if (quick)
		json_object_set_new(rec, "quick", json_boolean(!strcmp(quick, "true")));
	return rec;
}

/* @rec written to cmp_dir/@name (released); its path in @path. */
static void put_record(json_t *rec, const char *name, char *path, size_t len)
{
	snprintf(path, len, "%s/%s", cmp_dir, name);
	ck_assert_int_eq(json_dump_file(rec, path, 0), 0);
	json_decref(rec);
}

/* bench --compare @base --results @cur [--threshold @thr]: its exit status, output in out. */
static int compare(const char *base, const char *cur, const char *thr)
{
	const char *const a[] = { "bench", "--compare", base, "--results", cur,
				  thr ? "--threshold" : NULL, thr, NULL };

	return rt_cli_run(a, out, sizeof(out));
}

static const char *const two_designs[] = { "ptechain", "objfile", NULL };

/* The rule itself: ranges, the margin beyond them, both directions. */
START_TEST(test_numbers_compare_verdict)
{
	/* throughput: baseline 900..1100 */
	ck_assert_int_eq(rt_compare_verdict(900, 1100, 900, 1100, true, 25), 0);
	ck_assert_int_eq(rt_compare_verdict(900, 1100, 450, 550, true, 25), 1);	/* 2x slower */
	ck_assert_int_eq(rt_compare_verdict(900, 1100, 700, 1000, true, 10), 0);	/* overlaps */
	ck_assert_int_eq(rt_compare_verdict(900, 1100, 700, 800, true, 25), 0);	/* within 25% */
	ck_assert_int_eq(rt_compare_verdict(900, 1100, 700, 800, true, 5), 1);
	ck_assert_int_eq(rt_compare_verdict(900, 1100, 1800, 2200, true, 25), -1);
	/* cost: baseline 450..550 */
	ck_assert_int_eq(rt_compare_verdict(450, 550, 900, 1100, false, 25), 1);	/* 2x slower */
	ck_assert_int_eq(rt_compare_verdict(450, 550, 500, 650, false, 10), 0);
	ck_assert_int_eq(rt_compare_verdict(450, 550, 200, 250, false, 25), -1);
	/* bytes, counted exactly: a baseline of 0 and any growth */
	ck_assert_int_eq(rt_compare_verdict(0, 0, 8, 8, false, 25), 1);
	ck_assert_int_eq(rt_compare_verdict(0, 0, 0, 0, false, 25), 0);
}
END_TEST

/* A record against itself: clean; 2x slower beyond the spread: flagged; inside it: not. */
START_TEST(test_numbers_compare_spread)
{
	char base[128], slow[128], noisy[128];
	int rc;

	put_record(synthetic_bench(two_designs, 1000, 500, 0.1, "false", "abc1234"), "base.json",
		   base, sizeof(base));
	put_record(synthetic_bench(two_designs, 500, 1000, 0.1, "false", "abc1234"), "slow.json",
		   slow, sizeof(slow));
	/* The medians 20% worse, the ranges overlapping the baseline's: noise. */
	put_record(synthetic_bench(two_designs, 800, 600, 0.3, "false", "abc1234"), "noisy.json",
		   noisy, sizeof(noisy));
	rc = compare(base, base, NULL);
	ck_assert_msg(rc == 0 && strstr(out, "4 figures compared: 0 regressions, 0 better"),
		      "exit %d:\n%s", rc, out);
	ck_assert_msg(strstr(out, "rule: a figure regressed when this run's best repeat is worse"
			      " than the baseline's worst by more than 25%"), "%s", out);
	ck_assert_msg(!strstr(out, "dirty") && !strstr(out, "lacks"), "%s", out);
	rc = compare(base, slow, NULL);
	ck_assert_msg(rc == 1 && strstr(out, "4 figures compared: 4 regressions"), "exit %d:\n%s",
		      rc, out);
	ck_assert_msg(strstr(out, "anon_faults_per_sec") && strstr(out, "REGRESSION"), "%s", out);
	rc = compare(base, noisy, "10");
	ck_assert_msg(rc == 0 && strstr(out, ": 0 regressions, 0 better"), "exit %d:\n%s", rc, out);
}
END_TEST

/* --quick against a full run: refused, exit 2, before measuring too; unknown: said. */
START_TEST(test_numbers_compare_quick_vs_full)
{
	char full[128], quick[128], old[128];
	const char *const measure[] = { "bench", "--quick", "--compare", full, NULL };
	const char *const given[] = { "bench", "--compare", full, "--results", quick, NULL };
	int rc;

	put_record(synthetic_bench(two_designs, 1000, 500, 0.1, "false", "abc1234"), "full.json",
		   full, sizeof(full));
	put_record(synthetic_bench(two_designs, 1000, 500, 0.1, "true", "abc1234"), "quick.json",
		   quick, sizeof(quick));
	put_record(synthetic_bench(two_designs, 1000, 500, 0.1, NULL, "abc1234"), "old.json",
		   old, sizeof(old));
	rt_cli_expect_usage_error(given, "is of a full run and this is a --quick one", out,
				  sizeof(out));
	rt_cli_expect_usage_error(measure, "is of a full run and this is a --quick one", out,
				  sizeof(out));
	rc = compare(old, quick, NULL);
	ck_assert_msg(rc == 0 && strstr(out, "note: the baseline does not say whether it was"
					   " --quick (an older record)"), "exit %d:\n%s", rc, out);
}
END_TEST

/* A file that is not JSON: the line of the error, not -1; another record kind: named. */
START_TEST(test_numbers_compare_bad_files)
{
	char bad[128], run[128], art[128];
	FILE *f;

	snprintf(bad, sizeof(bad), "%s/bad.json", cmp_dir);
	f = fopen(bad, "w");
	ck_assert_ptr_nonnull(f);
	fputs("{\n  \"kind\": \"bench\",\n  designs: {}\n}\n", f);
	fclose(f);
	put_record(json_pack("{s:s, s:s}", "kind", "run", "scenario", "mixed32"), "run.json",
		   run, sizeof(run));
	put_record(json_pack("{s:s, s:s}", "record", "failure", "kind", "hang"), "failure.json",
		   art, sizeof(art));
	rt_cli_expect_usage_error((const char *const[]){ "bench", "--compare", art, NULL },
				  "is a failure record, not a bench result record", out, sizeof(out));
	rt_cli_expect_usage_error((const char *const[]){ "report", bad, NULL },
				  "is not JSON (line 3, column", out, sizeof(out));
	rt_cli_expect_usage_error((const char *const[]){ "bench", "--compare", bad, NULL },
				  "is not JSON (line 3, column", out, sizeof(out));
	rt_cli_expect_usage_error((const char *const[]){ "bench", "--compare", run, NULL },
				  "is a run record, not a bench result record", out, sizeof(out));
	rt_cli_expect_usage_error((const char *const[]){ "report", run, NULL },
				  "is a run record, not a scale or bench record", out, sizeof(out));
}
END_TEST

/* The designs and rows the baseline lacks are named; a dirty baseline is flagged. */
START_TEST(test_numbers_compare_names_what_lacks)
{
	static const char *const five[] = { "ptechain", "objfile", "anonvma", "mainline8",
					    "mainline9", NULL };
	char base[128], cur[128];
	json_t *rec;
	int rc;

	put_record(synthetic_bench(two_designs, 1000, 500, 0.1, "false", "abc1234-dirty"),
		   "base.json", base, sizeof(base));
	/* Every design, and a row the baseline has not: objfile's host ratio. */
	rec = synthetic_bench(five, 1000, 500, 0.1, "false", "abc1234");
	json_object_set_new(json_object_get(json_object_get(rec, "designs"), "objfile"), "vs_host",
			    json_pack("{s:f}", "anon_faults_per_sec", 7.0));
	put_record(rec, "cur.json", cur, sizeof(cur));
	rc = compare(base, cur, NULL);
	ck_assert_msg(rc == 0, "exit %d:\n%s", rc, out);
	ck_assert_msg(strstr(out, "note: the baseline lacks anonvma, mainline8, mainline9: not"
			      " compared"), "%s", out);
	ck_assert_msg(strstr(out, "note: the baseline lacks 1 row of objfile:"
			      " vs_host.anon_faults_per_sec: not compared"), "%s", out);
	ck_assert_msg(strstr(out, "warning: the baseline was built from a dirty tree"
			      " (git abc1234-dirty)"), "%s", out);
	/* The other way round: this run lacks what the baseline has. */
	rc = compare(cur, base, NULL);
	ck_assert_msg(rc == 0 && strstr(out, "note: this run lacks anonvma, mainline8, mainline9"),
		      "exit %d:\n%s", rc, out);
}
END_TEST

START_TEST(test_numbers_help)
{
	const char *const a[] = { "scale", "--help", NULL }, *const b[] = { "bench", "--help", NULL };
	const char *const c[] = { "report", "--help", NULL };

	ck_assert_int_eq(rt_cli_run(a, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "oversubscription"));
	ck_assert_ptr_nonnull(strstr(out, "one cache line moved between two CPUs"));
	ck_assert_int_eq(rt_cli_run(b, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "--compare BASELINE"));
	ck_assert_ptr_nonnull(strstr(out, "--check-scaling"));
	ck_assert_ptr_nonnull(strstr(out, "model/host rate"));
	ck_assert_ptr_nonnull(strstr(out, "Exit status"));
	ck_assert_int_eq(rt_cli_run(c, out, sizeof(out)), 0);
	ck_assert_ptr_nonnull(strstr(out, "--out DIR"));
}
END_TEST

/*
 * scale's and bench's child runs work under $TMPDIR (rt_try_workdir()), as
 * run's, replay's and minimize's do, not under a fixed /tmp: with TMPDIR
 * a directory that does not exist, each says it cannot make its work
 * directory and exits 3 before any run.
 */
START_TEST(test_numbers_workdir_under_tmpdir)
{
	const char *const scale[] = { "scale", "--threads", "1", "--repeat", "1", "--rmap",
				      "ptechain", "--seconds", "0.1", NULL };
	const char *const bench[] = { "bench", "--quick", "--repeat", "1", "--procs", "2",
				      "--reclaim-threads", "1", NULL };
	char tmp[] = "/tmp/rt-numbers-tmpdir-XXXXXX", missing[64], *old;
	int rc_scale, rc_bench;
	bool said_scale;

	ck_assert_ptr_nonnull(mkdtemp(tmp));
	snprintf(missing, sizeof(missing), "%s/missing", tmp);
	old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", missing, 1);
	rc_scale = rt_cli_run(scale, out, sizeof(out));
	said_scale = strstr(out, "rmaptorture: scale: cannot create a work directory") != NULL;
	rc_bench = rt_cli_run(bench, out, sizeof(out));
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	rmdir(tmp);
	ck_assert_msg(rc_scale == 3 && said_scale, "scale: exit %d, not under $TMPDIR", rc_scale);
	ck_assert_msg(rc_bench == 3 &&
		      strstr(out, "rmaptorture: bench: cannot create a work directory"),
		      "bench: exit %d, not under $TMPDIR:\n%s", rc_bench, rt_cli_excerpt(out, 2000));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("numbers");
	TCase *tc = tcase_create("usage");

	tcase_set_timeout(tc, rt_tmo(60));
	tcase_add_test(tc, test_numbers_bad_options);
	tcase_add_test(tc, test_numbers_help);
	tcase_add_test(tc, test_numbers_workdir_under_tmpdir);
	tcase_add_test(tc, test_numbers_scaling_verdict);
	suite_add_tcase(s, tc);
	tc = tcase_create("compare");
	tcase_set_timeout(tc, rt_tmo(60));
	tcase_add_unchecked_fixture(tc, make_cmp_dir, remove_cmp_dir);
	tcase_add_test(tc, test_numbers_compare_verdict);
	tcase_add_test(tc, test_numbers_compare_spread);
	tcase_add_test(tc, test_numbers_compare_quick_vs_full);
	tcase_add_test(tc, test_numbers_compare_names_what_lacks);
	tcase_add_test(tc, test_numbers_compare_bad_files);
	suite_add_tcase(s, tc);
	tc = tcase_create("outputs");
	tcase_set_timeout(tc, rt_tmo(120));
	tcase_add_unchecked_fixture(tc, make_outputs, remove_outputs);
	tcase_add_test(tc, test_numbers_scale_output);
	tcase_add_test(tc, test_numbers_transfer_probe);
	tcase_add_test(tc, test_numbers_bench_output);
	tcase_add_test(tc, test_numbers_report_renders_both);
	tcase_add_test(tc, test_numbers_compare_flags_regressions);
	tcase_add_test(tc, test_numbers_check_scaling_one_cpu);
	suite_add_tcase(s, tc);
	tc = tcase_create("interrupt");
	tcase_set_timeout(tc, rt_tmo(240));
	tcase_add_test(tc, test_numbers_scale_interrupted_partial);
	tcase_add_test(tc, test_numbers_bench_interrupted_partial);
	tcase_add_test(tc, test_numbers_bench_vm_stops_where_asked);
	suite_add_tcase(s, tc);
	return rt_check_main(s);
}
