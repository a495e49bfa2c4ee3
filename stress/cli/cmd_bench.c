// SPDX-License-Identifier: MIT
/*
 * `rmaptorture bench`: the command, its dispatcher and what its parts
 * share. `bench locks` (cmd_bench_locks.c) and `bench vm` (cmd_bench_vm.c)
 * run one microbenchmark of stress/bench/ in this process; `bench` alone
 * runs the VM one and adds, through child `run`s interleaved in the same way
 * (rt_run_child_records(), cmd_scale.c), the peak rmap bytes per mapped
 * page of the shm scenario at several process counts and the trylock
 * fallbacks per page scanned by reclaim at several reclaim thread counts;
 * writes the record, Markdown and plots (results/report.h) and compares
 * with a stored baseline (--compare).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cmd_bench-internal.h"
#include "die.h"
#include "lockdep.h"
#include "page_alloc.h"
#include "plot.h"
#include "record.h"
#include "report.h"
#include "rmap.h"
#include "rt_child.h"
#include "commands.h"
#include "rt_opt.h"
#include "task.h"

/* ---- shared by `bench`, `bench locks` and `bench vm` ---- */

int bench_put_record(json_t *rec, const char *json_path, int rc)
{
	if (json_path && rt_record_write(rec, json_path))
		rc = RT_EXIT_INTERNAL;
	json_decref(rec);
	return rc;
}

int bench_run_vm(const struct rt_bench_vm_cfg *cfg, int repeat, bool quick, FILE *out, json_t *rec)
{
	bool clean;

	if (cfg->pages < rt_bench_vm_min_pages(cfg))
		rt_usage_error("--pages: at least %lu for the 10,000-page fork",
			       rt_bench_vm_min_pages(cfg));
	rt_task_attach("bench-main");
	clean = rt_bench_vm(cfg, repeat, quick, out, rec);
	lockdep_set_enabled(true);
	rt_task_detach();
	return clean ? RT_EXIT_OK : RT_EXIT_FAILURE;
}

int bench_check_scaling(const json_t *rec, FILE *out, int rc)
{
	return rt_bench_scaling_flagged(rec, out) && rc == RT_EXIT_OK ? RT_EXIT_FAILURE : rc;
}

/* ---- `bench`: everything, with child runs for the scenario numbers ---- */

static void bench_all_usage(FILE *f)
{
	fputs("usage: rmaptorture bench [OPTIONS]\n"
	      "       rmaptorture bench locks|vm [OPTIONS]   (one part alone; see their --help)\n"
	      "\n"
	      "Every rmap design side by side, in one run, interleaved (design order reversed\n"
	      "on odd repeats), the median of K repeats with min and max:\n"
	      "  a. rmap memory: bytes of rmap metadata per mapped page in the shm scenario\n"
	      "     at several process counts (child runs), and exactly in the Oracle case\n"
	      "     with the article's arithmetic (2.7 GB per task x 100 and x 700 tasks)\n"
	      "     extrapolated from the measured bytes per pte;\n"
	      "  b. anonymous fault, file fault, fork+exit and exit throughput (1 thread);\n"
	      "     the host kernel's own anonymous faults and fork+exit, measured in the same\n"
	      "     run, and each design's ratio to them: model/host rate (= host time /\n"
	      "     model time; 10x: the model makes ten times the host's operations per second);\n"
	      "  c. try_to_unmap() ns versus the processes sharing the page and versus the\n"
	      "     vmas of the file that do not map it;\n"
	      "  d. trylock fallbacks per page scanned by reclaim versus reclaim threads\n"
	      "     (reclaim-pressure scenario, child runs);\n"
	      "  e. disjoint-mm scaling: CPU ns (and wall ns) per anonymous fault, fork+exit,\n"
	      "     mmap+munmap and write to a mapped page on N CPUs, each in its own mm,\n"
	      "     N = 1, 2, 4, ... up to the cores, and the ratio to N=1; FLAG where the CPU\n"
	      "     cost grew beyond the spread of the repeats by 15% (the first two share\n"
	      "     the zone, as 2.6 did: their FLAGs are named, not counted).\n"
	      "\n"
	      "  -r, --repeat K           repeats of everything, 1..64 (default 5; quote >= 5)\n"
	      "  -p, --pages N            emulated memory of the in-process part (default 65536)\n"
	      "  -s, --seconds S          target length of one in-process sample (default 0.2)\n"
	      "      --run-seconds S      length of each child run (default 1)\n"
	      "      --run-threads N      worker threads of each child run (default 4)\n"
	      "      --procs LIST         shm process counts, 1..16 (default 2,4,8,16)\n"
	      "      --reclaim-threads LIST  reclaim threads, 1..64 (default 1,2,4,8)\n"
	      "      --scaling-max N      e.'s most CPUs, 1..1024 (default: the machine's cores)\n"
	      "      --check-scaling      exit 1 when e. flags an operation that shares nothing\n"
	      "                           by design (its CPU cost grew with the CPUs)\n"
	      "      --quick              small sizes, short samples, 3 repeats, 0.3 s runs,\n"
	      "                           --procs 2,8, --reclaim-threads 1,2\n"
	      "      --json FILE          write the result record to FILE ('-' for stdout)\n"
	      "      --out DIR            write bench.json, bench.md and the plots (gnuplot)\n"
	      "      --no-plots           no plots (no gnuplot needed)\n"
	      "      --compare BASELINE   compare each figure with a stored bench record's, as\n"
	      "                           ranges (min..max of the repeats): a REGRESSION when\n"
	      "                           this run's best repeat is worse than the baseline's\n"
	      "                           worst by more than the threshold; overlapping ranges\n"
	      "                           are noise. Names the designs and rows either lacks,\n"
	      "                           warns of a baseline from a dirty tree; refuses a\n"
	      "                           --quick run against a full one (exit 2)\n"
	      "      --threshold PCT      the margin beyond the ranges, percent (default 25)\n"
	      "      --results FILE       with --compare: compare FILE instead of measuring\n"
	      "  -h, --help               this text\n"
	      "\n"
	      "Exit status: 0 clean; 1 a regression beyond the threshold (--compare), a child\n"
	      "run found a failure, or a scaling FLAG (--check-scaling); 2 bad usage, a baseline\n"
	      "that is not a bench record, or a --quick run compared with a full one;\n"
	      "3 internal error (a child run crashed or timed out); 130 interrupted (what was\n"
	      "measured is written all the same, marked \"interrupted\"; no --compare).\n", f);
}


/* `bench`'s options. */
struct bench_all_args {
	struct rt_bench_vm_cfg cfg;
	struct bench_all_opts bo;
	struct sweep *shm, *fbs;
	const char *json_path, *out_dir, *compare, *results;
	double threshold;
	double sample_s;	/* --seconds, or -1: the default or --quick's */
	bool quick, no_plots, check_scaling;
};

static double parse_threshold(const char *arg)
{
	char *end;
	double t = strtod(arg, &end);

	if (end == arg || *end || !(t >= 0 && t <= 1e6))
		rt_usage_error("--threshold: '%s' is not a percentage >= 0", arg);
	return t;
}

/* Parse and check `bench`'s options into @a. Return: -1, or the exit status of --help. */
static int bench_all_parse(int argc, char **argv, struct bench_all_args *a)
{
	static const struct option opts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "pages", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "run-seconds", required_argument, NULL, 'S' },
		{ "run-threads", required_argument, NULL, 'T' },
		{ "procs", required_argument, NULL, 'P' },
		{ "reclaim-threads", required_argument, NULL, 'R' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "no-plots", no_argument, NULL, 'N' },
		{ "compare", required_argument, NULL, 'c' },
		{ "threshold", required_argument, NULL, 't' },
		{ "results", required_argument, NULL, 'i' },
		{ "scaling-max", required_argument, NULL, 'M' },
		{ "check-scaling", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":r:p:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': a->bo.repeat = (int)rt_opt_int("--repeat", optarg, 1, RT_BENCH_MAX_REPEAT); break;
		case 'p': a->cfg.pages = (unsigned long)rt_opt_int("--pages", optarg, 32768, (long long)MEM_MAX_PAGES); break;
		case 's': a->sample_s = rt_opt_seconds("--seconds", optarg, 0, 60); break;
		case 'S': a->bo.run_seconds = rt_opt_seconds("--run-seconds", optarg, 0, 3600); break;
		case 'T': a->bo.threads = (int)rt_opt_int("--run-threads", optarg, 1, 1024); break;
		case 'P': a->shm->np = rt_opt_int_list("--procs", optarg, 1, 16, a->shm->params, MAX_LIST); break;
		case 'R': a->fbs->np = rt_opt_int_list("--reclaim-threads", optarg, 1, 64, a->fbs->params, MAX_LIST); break;
		case 'q': a->quick = true; break;
		case 'j': rt_opt_out_file("--json", optarg); a->json_path = optarg; break;
		case 'o': a->out_dir = optarg; break;
		case 'N': a->no_plots = true; break;
		case 'c': a->compare = optarg; break;
		case 't': a->threshold = parse_threshold(optarg); break;
		case 'i': a->results = optarg; break;
		case 'M': a->cfg.scaling_max = (int)rt_opt_int("--scaling-max", optarg, 1, RT_BENCH_SCALING_MAX); break;
		case 'C': a->check_scaling = true; break;
		case 'h': bench_all_usage(stdout); return RT_EXIT_OK;
		default: rt_opt_bad("bench", c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("bench: unexpected argument '%s' (benchmarks: locks, vm, or none for all)",
			       argv[optind]);
	if (a->results && !a->compare)
		rt_usage_error("--results: only with --compare BASELINE");
	if (a->results && a->check_scaling)
		rt_usage_error("--check-scaling: measures; not with --results");
	if (a->out_dir && !*a->out_dir)
		rt_usage_error("--out: empty directory name");
	if (a->out_dir && !a->no_plots && !a->results && !rt_plot_available())
		rt_usage_error("bench: gnuplot not found on PATH: install gnuplot-nox, or pass --no-plots");
	return -1;
}

/* @sw's parameters, unless given: @quick's if @quick, else @full's. */
static void sweep_defaults(struct sweep *sw, bool quick, const int quick_p[2], const int full_p[4])
{
	if (sw->np)
		return;
	sw->np = quick ? 2 : 4;
	memcpy(sw->params, quick ? quick_p : full_p, sizeof(int) * (size_t)sw->np);
}

/* What --quick and the defaults set where no option did. */
static void bench_all_defaults(struct bench_all_args *a)
{
	static const int shm_quick[2] = { 2, 8 }, shm_full[4] = { 2, 4, 8, 16 };
	static const int fbs_quick[2] = { 1, 2 }, fbs_full[4] = { 1, 2, 4, 8 };

	if (a->quick)
		rt_bench_vm_cfg_quick(&a->cfg);
	/* An option given says what --quick would otherwise set. */
	if (a->sample_s >= 0)
		a->cfg.sample_s = a->sample_s;
	if (a->bo.repeat < 0)
		a->bo.repeat = a->quick ? 3 : 5;
	if (a->bo.run_seconds < 0)
		a->bo.run_seconds = a->quick ? 0.3 : 1;
	sweep_defaults(a->shm, a->quick, shm_quick, shm_full);
	sweep_defaults(a->fbs, a->quick, fbs_quick, fbs_full);
}

static void print_bench_header(const struct bench_all_args *a)
{
	double la[3] = { 0, 0, 0 };

	if (getloadavg(la, 3) != 3)
		la[0] = la[1] = la[2] = NAN;
	printf("rmaptorture bench: %s, %d cores (%s), load average %.2f %.2f %.2f\n",
	       rt_version(), rt_machine_cores(), rt_machine_model(), la[0], la[1], la[2]);
	printf("%d repeats, interleaved; in-process samples of %.3f s on %lu pages; child runs of"
	       " %g s with %d threads\n", a->bo.repeat, a->cfg.sample_s, a->cfg.pages,
	       a->bo.run_seconds, a->bo.threads);
	fflush(stdout);
}

/* The sweeps' parameters and the run's facts into @rec; @interrupted: a partial record. */
static void record_sweeps(const struct bench_all_args *a, int argc, char **argv, bool interrupted,
			  json_t *rec)
{
	json_t *jcmd = json_array(), *jp = json_array(), *jr = json_array();

	for (int k = 0; k < argc; k++)
		json_array_append_new(jcmd, json_string(argv[k]));
	for (int k = 0; k < a->shm->np; k++)
		json_array_append_new(jp, json_integer(a->shm->params[k]));
	for (int k = 0; k < a->fbs->np; k++)
		json_array_append_new(jr, json_integer(a->fbs->params[k]));
	json_object_update_new(rec, json_pack("{s:o, s:f, s:i, s:i, s:o, s:s, s:i, s:o, s:o,"
					      " s:i, s:i, s:s, s:b, s:b}",
		"command", jcmd,
		"run_seconds", a->bo.run_seconds,
		"shm_threads", a->bo.threads,
		"fallback_threads", a->bo.threads,
		"shm_procs", jp,
		"fallback_scenario", a->fbs->scenario,
		"cores", rt_machine_cores(),
		"reclaim_threads", jr,
		"load_average_end", rt_load_average(),
		"child_failures", a->bo.failures,
		"child_errors", a->bo.errors,
		"note", "medians of interleaved repeats; ratios between designs come from this run",
		"interleaved", 1,
		"interrupted", interrupted));
}

/* Whether an interrupted `bench` took any sample: in this process (@rec) or in a child run. */
static bool measured_any(const struct bench_all_args *a, const json_t *rec)
{
	const json_t *d, *v, *sp;
	const char *mode, *key;

	for (int m = 0; m < RMAP_NR_MODES; m++)
		for (int p = 0; p < MAX_LIST; p++)
			if (a->shm->n[m][p] || a->fbs->n[m][p])
				return true;
	json_object_foreach((json_t *)json_object_get(rec, "designs"), mode, d) {
		json_object_foreach(json_object_get(d, "rmap_bytes_by_procs"), key, v)
			if (!json_is_null(v))
				return true;
		json_object_foreach(json_object_get(d, "spread"), key, sp)
			if (json_integer_value(json_object_get(sp, "n")))
				return true;
	}
	return false;
}

/*
 * Measure: the VM microbenchmark in this process (its tables to
 * /dev/null), then the sweeps of child runs, into @rec. Ctrl-C stops
 * both where they are: @rec then holds what was measured, marked
 * "interrupted".
 * Return: the exit status so far (RT_EXIT_INTERRUPTED: a partial @rec),
 * or -(status) to stop at once.
 */
static int bench_all_measure(struct bench_all_args *a, int argc, char **argv, json_t *rec)
{
	const char *modes[RMAP_NR_MODES];
	char workdir[4200];
	int c, rc, nm = 0;
	json_t *v;
	size_t i;
	FILE *devnull;

	if (rt_try_workdir("bench", workdir, sizeof(workdir)))
		return -RT_EXIT_INTERNAL;
	a->bo.workdir = workdir;
	rt_child_catch_interrupt();
	a->cfg.stop = rt_child_interrupted;
	json_object_set_new(rec, "load_average", rt_load_average());
	print_bench_header(a);

	/* b, c and the exact memory of a: in this process. */
	fprintf(stderr, "in-process measurements (faults, fork/exit, try_to_unmap, Oracle-case bytes)...\n");
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		rt_die("/dev/null");
	rc = bench_run_vm(&a->cfg, a->bo.repeat, a->quick, devnull, rec);
	fclose(devnull);
	json_array_foreach(json_object_get(rec, "modes"), i, v)
		if (nm < RMAP_NR_MODES)
			modes[nm++] = json_string_value(v);

	/* a (the scenario) and d: child runs. */
	c = rt_child_interrupted() ? RT_EXIT_INTERRUPTED : run_sweep(a->shm, modes, nm, &a->bo);
	if (!c)
		c = run_sweep(a->fbs, modes, nm, &a->bo);
	if (!a->bo.failures && !a->bo.errors)
		rt_remove_tree(workdir);
	if (c && c != RT_EXIT_INTERRUPTED)
		return -c;
	sweep_json(a->shm, modes, nm, json_object_get(rec, "designs"),
		   "shm_rmap_bytes_per_mapped_page", false);
	sweep_json(a->fbs, modes, nm, json_object_get(rec, "designs"),
		   "trylock_fallbacks_per_scan", false);
	sweep_json(a->fbs, modes, nm, json_object_get(rec, "designs"), "unmap_share", true);
	record_sweeps(a, argc, argv, c == RT_EXIT_INTERRUPTED, rec);
	if (c == RT_EXIT_INTERRUPTED && !measured_any(a, rec)) {
		printf("interrupted before the first sample: nothing measured, nothing written\n");
		return -RT_EXIT_INTERRUPTED;
	}
	if (c == RT_EXIT_INTERRUPTED)
		return RT_EXIT_INTERRUPTED;
	if (a->bo.failures && rc == RT_EXIT_OK)
		rc = RT_EXIT_FAILURE;
	if (a->bo.errors)
		rc = RT_EXIT_INTERNAL;
	return rc;
}

/* The Markdown to stdout; the record to --json; bench.{json,md} and plots to --out. */
static int bench_all_write(const struct bench_all_args *a, json_t *rec)
{
	char path[4200], *buf = NULL;
	size_t len = 0;
	int rc = RT_EXIT_OK;
	FILE *f;

	putchar('\n');
	rt_report_markdown(rec, stdout);
	if (a->json_path && rt_record_write(rec, a->json_path))
		rc = RT_EXIT_INTERNAL;
	if (!a->out_dir)
		return rc;
	f = open_memstream(&buf, &len);
	if (!f)
		rt_die("open_memstream");
	rt_report_markdown(rec, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/bench.json", a->out_dir);
	if (rt_record_write(rec, path))
		rc = RT_EXIT_INTERNAL;
	snprintf(path, sizeof(path), "%s/bench.md", a->out_dir);
	if (rt_write_text(path, buf, len))
		rc = RT_EXIT_INTERNAL;
	free(buf);
	if (!a->no_plots && rt_report_plots(rec, a->out_dir, "bench", NULL))
		rc = RT_EXIT_INTERNAL;
	printf("wrote %s/bench.{json,md}%s%s\n", a->out_dir, a->no_plots ? "" : " and bench-*.{svg,png}",
	       json_is_true(json_object_get(rec, "interrupted")) ? ": PARTIAL (interrupted)" : "");
	return rc;
}

/* A bench record from @path, or exit 2 naming @opt, @path and what it is instead. */
static json_t *load_bench_record(const char *opt, const char *path)
{
	json_t *rec = rt_opt_json_file(opt, path);
	const char *kind = rt_record_kind(rec);
	char why[256];

	if (kind && strcmp(kind, "bench") && strcmp(kind, "bench-vm"))
		rt_usage_error("%s: %s is a %s record, not a bench result record (bench --json FILE)",
			       opt, path, kind);
	if (!json_is_object(json_object_get(rec, "designs")))
		rt_usage_error("%s: %s is not a bench result record (no \"designs\"; bench --json FILE)",
			       opt, path);
	if (rt_record_check_format(rec, path, why, sizeof(why)))
		rt_usage_error("%s: %s", opt, why);
	return rec;
}

/*
 * A --quick run and a full one measure different sizes: refuse to compare
 * them (exit 2), before measuring. @cur_quick: 1, 0, or -1 unknown.
 */
static void check_alike(const char *base_path, const json_t *base, int cur_quick)
{
	int bq = rt_report_quick(base);

	if (bq >= 0 && cur_quick >= 0 && bq != cur_quick)
		rt_usage_error("--compare: %s is of a %s run and this is a %s one: the sizes differ, the"
			       " figures do not compare (measure both alike)", base_path,
			       bq ? "--quick" : "full", cur_quick ? "--quick" : "full");
}

static int bench_all(int argc, char **argv)
{
	static struct sweep shm = { .what = SWEEP_SHM_BYTES, .scenario = "shm", .param_opt = "--procs" };
	static struct sweep fbs = { .what = SWEEP_FALLBACKS, .scenario = "reclaim-pressure",
				    .param_opt = "--reclaim-threads" };
	struct bench_all_args a = {
		.cfg = RT_BENCH_VM_CFG_DEFAULT,
		.bo = { .repeat = -1, .threads = 4, .run_seconds = -1 },
		.shm = &shm, .fbs = &fbs, .threshold = 25, .sample_s = -1,
	};
	json_t *rec, *base = NULL;
	int rc = bench_all_parse(argc, argv, &a);

	if (rc >= 0)
		return rc;
	if (a.compare)
		base = load_bench_record("--compare", a.compare);
	if (a.results) {
		rec = load_bench_record("--results", a.results);
		check_alike(a.compare, base, rt_report_quick(rec));
		rc = RT_EXIT_OK;
	} else {
		if (base)
			check_alike(a.compare, base, a.quick);
		bench_all_defaults(&a);
		if (a.out_dir)
			rt_opt_out_dir("--out", a.out_dir);
		rec = rt_record_new("bench");
		rc = bench_all_measure(&a, argc, argv, rec);
		if (rc < 0) {
			json_decref(rec);
			json_decref(base);
			return -rc;
		}
		if (bench_all_write(&a, rec) != RT_EXIT_OK && rc != RT_EXIT_INTERRUPTED)
			rc = RT_EXIT_INTERNAL;
		if (a.check_scaling && rc != RT_EXIT_INTERRUPTED)
			rc = bench_check_scaling(rec, stdout, rc);
	}
	if (base && rc == RT_EXIT_INTERRUPTED) {
		printf("\ninterrupted: no comparison with the baseline (the record is partial)\n");
	} else if (base) {
		int bad;

		putchar('\n');
		bad = rt_report_compare(rec, base, a.threshold, stdout);
		if (bad < 0)
			rc = RT_EXIT_USAGE;
		else if (bad > 0 && rc == RT_EXIT_OK)
			rc = RT_EXIT_FAILURE;
	}
	json_decref(rec);
	json_decref(base);
	return rc;
}

int cmd_bench(int argc, char **argv)
{
	/* No part named: every part, and its own --help. */
	if (argc < 2 || argv[1][0] == '-')
		return bench_all(argc, argv);
	if (!strcmp(argv[1], "locks"))
		return cmd_bench_locks(argc - 1, argv + 1);
	if (!strcmp(argv[1], "vm"))
		return cmd_bench_vm(argc - 1, argv + 1);
	rt_usage_error("bench: unknown benchmark '%s' (known: locks, vm)", argv[1]);
}
