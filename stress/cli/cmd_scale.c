// SPDX-License-Identifier: MIT
/*
 * `rmaptorture scale`: throughput of `run` against the number of emulated
 * CPUs, per rmap design. Every point is a child process (this binary's
 * `run`, with the options given passed through), so that no run inherits
 * another's heap, caches or lock statistics; the points are interleaved
 * (for repeat k: every thread count and design in turn, the order reversed
 * on odd k), so that drift in the machine's load hits every design alike.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "plot.h"
#include "record.h"
#include "report.h"
#include "rt_child.h"
#include "commands.h"
#include "run_opts.h"
#include "rt_opt.h"
#include "rt_vtime_report.h"

#define MAX_LIST	32
#define MAX_REPEAT	64
#define MAX_ARGS	256

/* ---- options ---- */

static void usage(FILE *f)
{
	fputs("usage: rmaptorture scale [--threads LIST] [--rmap MODE|all] [--repeat K] [--out DIR]\n"
	      "                         [--seconds S] [--seed X] [--no-plots] [RUN OPTIONS...]\n"
	      "\n"
	      "Throughput of `rmaptorture run` against the number of emulated CPUs, per rmap\n"
	      "design: every point is K child runs, interleaved (thread counts and designs\n"
	      "alternate within a repeat, the order reversed on odd repeats). For each design\n"
	      "and thread count: median and spread (min, max, quartiles) of ops/s, speedup\n"
	      "against the smallest thread count, efficiency (speedup / thread ratio), the\n"
	      "contention of each lock class (contended / acquired, from the run's lock\n"
	      "statistics) and the trylock fallback rate (all fallback sites together per\n"
	      "page scanned by reclaim, and per 1,000 operations). Above the machine's core\n"
	      "count, speedup measures oversubscription, not scaling: every output says so.\n"
	      "Before the first run, at each repeat's start and after the last run, it times\n"
	      "one cache line moved between two CPUs (cpu_transfer in the record): what every\n"
	      "line two CPUs write pays here (vtime's --vtime-transfer NS prices it); on a\n"
	      "virtual machine it follows the host's placement of the vCPUs.\n"
	      "\n"
	      "  -t, --threads LIST  thread counts, comma-separated (default 1,2,4,8,16,32)\n", f);
	fprintf(f, "  -r, --rmap MODE     %s or all\n"
		"                      (default all)\n", rt_opt_designs(", "));
	fputs("  -k, --repeat K      runs per point, 1..64 (default 5)\n"
	      "  -s, --seconds S     length of each run (default 1)\n"
	      "      --seed X        seed of repeat 0; repeat k uses X + k (default 1)\n"
	      "  -o, --out DIR       write scale.json, scale.csv, scale.md and the plots\n"
	      "                      scale-throughput.{svg,png}, scale-speedup.{svg,png}\n"
	      "                      (gnuplot); without it only the table is printed\n"
	      "      --no-plots      do not draw plots (no gnuplot needed)\n"
	      "  -h, --help          this text\n"
	      "Every other option is passed to each `run` (e.g. --scenario shm --reclaim-threads 2);\n"
	      "--json and --rmap all inside run are the harness's own business and refused.\n"
	      "With --sched vtime the runs are in virtual time (docs/usage.md, \"Virtual time\"): threads\n"
	      "are virtual CPUs, --seconds virtual (default 0.01), ops/s virtual, and each point\n"
	      "also names the lock class its CPUs waited for most and the real time it took.\n"
	      "Exit status: 0, 1 when a run found a failure (its directory is kept under\n"
	      "DIR/failed/), 2 bad usage (also a run option a run refused), 3 a run that\n"
	      "crashed or timed out, 130 interrupted (the runs done are written all the same,\n"
	      "marked \"interrupted\": the record, table and plots are partial).\n", f);
}

struct scale_opts {
	int threads[MAX_LIST], nt;
	const char *modes[RMAP_NR_MODES];
	int nm, repeat;
	double seconds;
	unsigned long long seed;
	const char *out_dir;
	bool no_plots;
	const char *pass[MAX_ARGS];
	int npass;
	const char *scenario;
	const char *vtime;	/* --sched vtime: its cost source (rt_vtime.h) */
	bool seconds_set;
};

/* Option @i of argv with its value: "--opt=V" or "--opt V". Return: the value or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t l = strlen(name);

	if (!strncmp(argv[*i], name, l) && argv[*i][l] == '=')
		return argv[*i] + l + 1;
	if (strcmp(argv[*i], name))
		return NULL;
	if (*i + 1 >= argc)
		rt_usage_error("scale: option '%s' needs a value (see 'rmaptorture scale --help')", name);
	return argv[++*i];
}

static void parse(int argc, char **argv, struct scale_opts *o)
{
	static const int dflt[] = { 1, 2, 4, 8, 16, 32 };
	const char *v;

	memset(o, 0, sizeof(*o));
	memcpy(o->threads, dflt, sizeof(dflt));
	o->nt = 6;
	o->nm = rt_opt_modes("--rmap", "all", o->modes, RMAP_NR_MODES);
	o->repeat = 5;
	o->seconds = 1;
	o->seed = 1;
	o->scenario = "mixed32";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(RT_EXIT_OK);
		} else if ((v = opt_value(argc, argv, &i, "--threads")) ||
			   (v = opt_value(argc, argv, &i, "-t"))) {
			o->nt = rt_opt_int_list("--threads", v, 1, 1024, o->threads, MAX_LIST);
		} else if ((v = opt_value(argc, argv, &i, "--rmap")) || (v = opt_value(argc, argv, &i, "-r"))) {
			o->nm = rt_opt_modes("--rmap", v, o->modes, RMAP_NR_MODES);
		} else if ((v = opt_value(argc, argv, &i, "--repeat")) || (v = opt_value(argc, argv, &i, "-k"))) {
			o->repeat = (int)rt_opt_int("--repeat", v, 1, MAX_REPEAT);
		} else if ((v = opt_value(argc, argv, &i, "--seconds")) || (v = opt_value(argc, argv, &i, "-s"))) {
			o->seconds = rt_opt_seconds("--seconds", v, 0, 86400);
			o->seconds_set = true;
		} else if ((v = opt_value(argc, argv, &i, "--seed"))) {
			o->seed = rt_opt_u64("--seed", v);
		} else if ((v = opt_value(argc, argv, &i, "--out")) || (v = opt_value(argc, argv, &i, "-o"))) {
			if (!*v)
				rt_usage_error("--out: empty directory name");
			o->out_dir = v;
		} else if (!strcmp(a, "--no-plots")) {
			o->no_plots = true;
		} else if (!strcmp(a, "--json") || !strncmp(a, "--json=", 7)) {
			rt_usage_error("--json: scale collects the runs' records itself (use --out DIR)");
		} else if (a[0] != '-') {
			rt_usage_error("scale: unexpected argument '%s'", a);
		} else {
			/* A run option: passed through with its value; run judges it. */
			bool valued = rt_run_option_takes_value(a);

			if (o->npass + 2 >= MAX_ARGS)
				rt_usage_error("scale: too many options");
			if ((!strcmp(a, "--scenario") || !strcmp(a, "-S")) && i + 1 < argc)
				o->scenario = argv[i + 1];
			else if (!strncmp(a, "--scenario=", 11))
				o->scenario = a + 11;
			o->pass[o->npass++] = a;
			if (valued) {
				if (i + 1 >= argc)
					rt_usage_error("scale: option '%s' needs a value (see 'rmaptorture"
						       " run --help')", a);
				o->pass[o->npass++] = argv[++i];
			}
		}
	}
	/* Virtual seconds: a 32-CPU point of 0.01 s takes seconds of real time. */
	o->vtime = rt_vtime_in_args(o->pass, o->npass);
	if (o->vtime && !o->seconds_set)
		o->seconds = 0.01;
}

/* ---- one point's samples ---- */

struct sample {
	double ops_per_sec, fb_per_scan, fb_per_kop;
	json_t *locks;		/* the run's lock_stats (owned) */
	json_t *vtime;		/* --sched vtime: the run's "vtime" (owned), or NULL */
	bool failed;
};

static json_t *point_json(const struct scale_opts *o, int m, int t, struct sample *s, int n,
			  double base_med)
{
	double v[MAX_REPEAT];
	struct rt_stat st;
	json_t *p = json_object(), *samples = json_array(), *cont = json_object(), *acq = json_object();
	int failures = 0;
	const char *key;
	json_t *cls;

	for (int k = 0; k < n; k++) {
		v[k] = s[k].ops_per_sec;
		json_array_append_new(samples, json_real(v[k]));
		failures += s[k].failed;
	}
	rt_stat_of(v, n, &st);
	json_object_set_new(p, "rmap", json_string(o->modes[m]));
	json_object_set_new(p, "threads", json_integer(o->threads[t]));
	json_object_set_new(p, "ops_per_sec", rt_stat_json(&st));
	json_object_set_new(p, "samples_ops_per_sec", samples);
	{
		double sp = st.median / base_med, eff = sp / ((double)o->threads[t] / o->threads[0]);

		/* No sample at this point or at the base: null, not NaN (not JSON). */
		json_object_set_new(p, "speedup", isfinite(sp) ? json_real(sp) : json_null());
		json_object_set_new(p, "efficiency", isfinite(eff) ? json_real(eff) : json_null());
	}
	for (int k = 0; k < n; k++)
		v[k] = s[k].fb_per_scan;
	rt_stat_of(v, n, &st);
	json_object_set_new(p, "fallbacks_per_scan", rt_stat_json(&st));
	for (int k = 0; k < n; k++)
		v[k] = s[k].fb_per_kop;
	rt_stat_of(v, n, &st);
	json_object_set_new(p, "fallbacks_per_kop", rt_stat_json(&st));
	/* Per lock class: the median over the repeats of contended / acquired. */
	if (n)
		json_object_foreach(s[0].locks, key, cls) {
			double a[MAX_REPEAT];

			for (int k = 0; k < n; k++) {
				const json_t *c = json_object_get(s[k].locks, key);
				double acquired = json_number_value(json_object_get(c, "acquired"));

				v[k] = acquired > 0 ?
					json_number_value(json_object_get(c, "contended")) / acquired : 0;
				a[k] = acquired;
			}
			rt_stat_of(v, n, &st);
			json_object_set_new(cont, key, json_real(st.median));
			rt_stat_of(a, n, &st);
			json_object_set_new(acq, key, json_real(st.median));
		}
	json_object_set_new(p, "contention", cont);
	json_object_set_new(p, "acquired", acq);
	json_object_set_new(p, "failures", json_integer(failures));
	if (o->vtime) {
		json_t *vt[MAX_REPEAT];

		for (int k = 0; k < n; k++)
			vt[k] = s[k].vtime;
		rt_vtime_point_json(p, vt, n);
	}
	return p;
}

/* DIR/scale.@ext: what @fmt prints of @rec. Return: 0 or -1. */
static int write_report(const struct scale_opts *o, const char *ext, const json_t *rec,
			int (*fmt)(const json_t *rec, FILE *out))
{
	char path[4200], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int err;

	if (!f)
		return -1;
	fmt(rec, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/scale.%s", o->out_dir, ext);
	err = rt_write_text(path, buf, len);
	free(buf);
	return err ? -1 : 0;
}

static int write_outputs(const struct scale_opts *o, json_t *rec)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/scale.json", o->out_dir);
	if (rt_record_write(rec, path) || write_report(o, "csv", rec, rt_report_csv) ||
	    write_report(o, "md", rec, rt_report_markdown))
		return RT_EXIT_INTERNAL;
	if (!o->no_plots && rt_report_plots(rec, o->out_dir, "scale", NULL))
		return RT_EXIT_INTERNAL;
	return RT_EXIT_OK;
}

/* A sweep under way: every point's samples, and how it goes. */
struct sweep {
	struct scale_opts o;
	struct sample samples[RMAP_NR_MODES][MAX_LIST][MAX_REPEAT];
	int ns[RMAP_NR_MODES][MAX_LIST];
	char workdir[4200];
	int done, total, cores;
	int taken;			/* samples in samples[][][] */
	int rc;				/* the exit status so far */
	/* The machine's cache-line transfer time (bench.h), before and after. */
	json_t *transfer_start, *transfer_end;
	/* And on the first pair at the start of each repeat (ns, -1 not measured). */
	int transfer_cpus[2];
	double transfer_ns[MAX_REPEAT];
	int transfer_repeats;		/* repeats done, with their probe */
};

/* The runs' work directory: under --out DIR, else a temporary one ($TMPDIR). Return: 0 or -1. */
static int sweep_workdir(struct sweep *w)
{
	if (!w->o.out_dir)
		return rt_try_workdir("scale", w->workdir, sizeof(w->workdir));
	rt_opt_out_dir("--out", w->o.out_dir);
	snprintf(w->workdir, sizeof(w->workdir), "%s/.runs.%ld", w->o.out_dir, (long)getpid());
	if (!mkdir(w->workdir, 0777))
		return 0;
	fprintf(stderr, "rmaptorture: scale: cannot create %s: %s\n", w->workdir, strerror(errno));
	return -1;
}

static void print_header(const struct sweep *w)
{
	const struct scale_opts *o = &w->o;

	printf("rmaptorture scale: %s, %d cores (%s); scenario %s, %d designs x %d"
	       " thread counts x %d repeats of %g %ss, interleaved\n", rt_version(),
	       w->cores, rt_machine_model(), o->scenario, o->nm, o->nt, o->repeat, o->seconds,
	       o->vtime ? "virtual " : "");
	if (w->transfer_start) {
		char x[256];

		rt_report_transfer_pairs(w->transfer_start, x, sizeof(x));
		printf("one cache line between two CPUs: %s (what a line two CPUs write costs"
		       " here; vtime prices it with --vtime-transfer NS)\n", x);
	}
	if (o->vtime)
		printf("virtual time (--sched vtime, %s costs): threads are virtual CPUs,"
		       " ops/s virtual\n", o->vtime);
	else if (o->threads[o->nt - 1] > w->cores)
		printf("note: %d cores: above %d threads, speedup measures"
		       " oversubscription, not scaling\n", w->cores, w->cores);
	fflush(stdout);
}

/* A failed run's directory, kept under DIR/failed/. */
static void keep_failed(const struct sweep *w, const char *dir, int m, int t, int k)
{
	char keep[4700];

	snprintf(keep, sizeof(keep), "%s/failed", w->o.out_dir ? w->o.out_dir : w->workdir);
	mkdir(keep, 0777);
	snprintf(keep + strlen(keep), sizeof(keep) - strlen(keep), "/%s-t%d-r%d",
		 w->o.modes[m], w->o.threads[t], k);
	if (rename(dir, keep))
		fprintf(stderr, "rmaptorture: cannot keep %s: %s\n", dir, strerror(errno));
	else
		fprintf(stderr, "rmaptorture: failure artifacts in %s\n", keep);
}

/* The sample of the run record in @recs, its line, its directory kept or removed. */
static void take_sample(struct sweep *w, json_t *recs, int crc, const char *dir, int m, int t, int k)
{
	struct sample *s = &w->samples[m][t][w->ns[m][t]++];
	const json_t *r = json_array_get(recs, 0);

	w->taken++;
	rt_sample_of_run(r, &s->ops_per_sec, &s->fb_per_scan, &s->fb_per_kop);
	s->locks = json_incref(json_object_get(r, "lock_stats"));
	if (!s->locks)
		s->locks = json_object();
	s->failed = crc == RT_EXIT_FAILURE;
	s->vtime = json_incref(json_object_get(r, "vtime"));
	fprintf(stderr, "[%d/%d] %-8s %3d threads, repeat %d: %.0f %sops/s%s\n", w->done, w->total,
		w->o.modes[m], w->o.threads[t], k, s->ops_per_sec, w->o.vtime ? "virtual " : "",
		s->failed ? "  FAILURE (run directory kept)" : "");
	if (s->failed) {
		if (w->rc == RT_EXIT_OK)
			w->rc = RT_EXIT_FAILURE;
		keep_failed(w, dir, m, t, k);
	} else {
		rt_remove_tree(dir);
	}
}

/* Repeat @k of design @m at thread count @t. Return: false to stop the sweep (w->rc says why). */
static bool sweep_point(struct sweep *w, int k, int t, int m)
{
	const struct scale_opts *o = &w->o;
	char dir[4600], seed[32], secs[32], tstr[16], line[512];
	const char *args[MAX_ARGS + 16];
	int n = 0, crc;
	json_t *recs;

	snprintf(seed, sizeof(seed), "%llu", o->seed + (unsigned long long)k);
	snprintf(secs, sizeof(secs), "%.17g", o->seconds);
	snprintf(tstr, sizeof(tstr), "%d", o->threads[t]);
	args[n++] = "--rmap";
	args[n++] = o->modes[m];
	args[n++] = "--threads";
	args[n++] = tstr;
	args[n++] = "--seconds";
	args[n++] = secs;
	args[n++] = "--seed";
	args[n++] = seed;
	for (int i = 0; i < o->npass; i++)
		args[n++] = o->pass[i];
	args[n] = NULL;
	snprintf(dir, sizeof(dir), "%s/%s-t%d-r%d", w->workdir, o->modes[m], o->threads[t], k);
	/* vtime: a virtual second of many CPUs takes thousands of real ones. */
	crc = rt_run_child_records(args, dir, o->vtime ? 120 + o->seconds * 3000 * o->threads[t] :
				   o->seconds * 4 + 120, &recs, line, sizeof(line));
	/* After the first run: a run option it refused is then the only output. */
	if (++w->done == 1 && crc != RT_EXIT_USAGE)
		print_header(w);
	if (crc == RT_CHILD_INTERRUPTED) {
		w->rc = RT_EXIT_INTERRUPTED;
	} else if (crc == RT_EXIT_USAGE) {
		fprintf(stderr, "rmaptorture: scale: run refused its options: %s\n", rt_child_says(line));
		w->rc = RT_EXIT_USAGE;
	} else if ((crc != RT_EXIT_OK && crc != RT_EXIT_FAILURE) || json_array_size(recs) != 1) {
		char why[64];

		fprintf(stderr, "rmaptorture: scale: %s with %d threads, repeat %d: %s, %zu"
			" records (%s)\n", o->modes[m], o->threads[t], k,
			rt_child_rc_str(crc, why, sizeof(why)), json_array_size(recs), line);
		w->rc = RT_EXIT_INTERNAL;
	} else {
		take_sample(w, recs, crc, dir, m, t, k);
	}
	json_decref(recs);
	return crc != RT_CHILD_INTERRUPTED && crc != RT_EXIT_USAGE;
}

/* Every point, interleaved: for repeat k every thread count and design, reversed on odd k. */
static void sweep_run(struct sweep *w)
{
	const struct scale_opts *o = &w->o;

	for (int k = 0; k < o->repeat; k++) {
		/* The transfer cost of this repeat's moment (the first pair). */
		if (w->transfer_start)
			w->transfer_ns[k] = rt_bench_transfer_ns(w->transfer_cpus[0],
								 w->transfer_cpus[1]);
		for (int ti = 0; ti < o->nt; ti++)
			for (int mi = 0; mi < o->nm; mi++)
				if (!sweep_point(w, k, k % 2 ? o->nt - 1 - ti : ti,
						 k % 2 ? o->nm - 1 - mi : mi))
					return;
		w->transfer_repeats = k + 1;
	}
}

static json_t *str_array(const char *const *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/*
 * The sweep's points (the samples released) and what it was, into @rec;
 * interrupted, only the points it has a sample of.
 */
static void sweep_record(struct sweep *w, json_t *rec, int argc, char **argv)
{
	const struct scale_opts *o = &w->o;
	json_t *points = json_array(), *jcmd, *jthreads = json_array();

	for (int m = 0; m < o->nm; m++) {
		struct rt_stat b;
		double v[MAX_REPEAT];

		for (int k = 0; k < w->ns[m][0]; k++)
			v[k] = w->samples[m][0][k].ops_per_sec;
		rt_stat_of(v, w->ns[m][0], &b);
		for (int t = 0; t < o->nt; t++) {
			if (w->ns[m][t] || w->rc != RT_EXIT_INTERRUPTED)
				json_array_append_new(points, point_json(o, m, t, w->samples[m][t],
									 w->ns[m][t], b.median));
			for (int k = 0; k < w->ns[m][t]; k++) {
				json_decref(w->samples[m][t][k].locks);
				json_decref(w->samples[m][t][k].vtime);
			}
		}
	}
	jcmd = str_array((const char *const *)argv, argc);
	json_string_set(json_array_get(jcmd, 0), "scale");
	for (int t = 0; t < o->nt; t++)
		json_array_append_new(jthreads, json_integer(o->threads[t]));
	json_object_update_new(rec, json_pack("{s:o, s:s, s:o, s:o, s:i, s:f, s:o, s:o, s:i, s:i, s:s,"
					      " s:o, s:o, s:b, s:b}",
		"command", jcmd,
		"scenario", o->scenario,
		"modes", str_array(o->modes, o->nm),
		"threads", jthreads,
		"repeat", o->repeat,
		"seconds", o->seconds,
		"seed", rt_seed_json(o->seed),
		"run_args", str_array(o->pass, o->npass),
		"base_threads", o->threads[0],
		"cores", w->cores,
		"note", o->vtime ? "virtual time (--sched vtime): threads are virtual CPUs" :
			"speedup above the number of cores measures oversubscription, not scaling",
		"points", points,
		"load_average_end", rt_load_average(),
		"interleaved", 1,
		/* Partial: each point holds the samples taken before (n in its statistics). */
		"interrupted", w->rc == RT_EXIT_INTERRUPTED));
	if (o->vtime) {
		json_object_set_new(rec, "virtual", json_true());
		json_object_set_new(rec, "vtime_cost", json_string(o->vtime));
	}
}

int cmd_scale(int argc, char **argv)
{
	static struct sweep w;
	json_t *rec;
	int rc;

	memset(&w, 0, sizeof(w));
	parse(argc, argv, &w.o);
	if (w.o.out_dir && !w.o.no_plots && !rt_plot_available())
		rt_usage_error("scale: gnuplot not found on PATH: install gnuplot-nox, or pass --no-plots");
	if (sweep_workdir(&w))
		return RT_EXIT_INTERNAL;
	w.cores = rt_machine_cores();
	w.total = w.o.repeat * w.o.nt * w.o.nm;
	rt_child_catch_interrupt();
	rec = rt_record_new("scale");
	json_object_set_new(rec, "load_average", rt_load_average());
	w.transfer_start = rt_bench_transfer_probe();
	if (w.transfer_start) {
		const json_t *pair = json_object_get(json_array_get(
			json_object_get(w.transfer_start, "pairs"), 0), "cpus");

		w.transfer_cpus[0] = (int)json_integer_value(json_array_get(pair, 0));
		w.transfer_cpus[1] = (int)json_integer_value(json_array_get(pair, 1));
	}
	sweep_run(&w);
	/* Interrupted: the probe would only delay the partial record. */
	if (w.rc != RT_EXIT_INTERRUPTED)
		w.transfer_end = rt_bench_transfer_probe();
	if (w.transfer_start) {
		json_t *reps = json_array();

		for (int k = 0; k < w.transfer_repeats; k++)
			json_array_append_new(reps, w.transfer_ns[k] < 0 ? json_null() :
						    json_real(w.transfer_ns[k]));
		json_object_set_new(rec, "cpu_transfer",
				    json_pack("{s:o, s:o, s:o}", "start", w.transfer_start,
					      "end", w.transfer_end ? w.transfer_end : json_null(),
					      "repeats", reps));
	} else {
		json_decref(w.transfer_end);
	}
	if (w.o.out_dir || w.rc == RT_EXIT_INTERRUPTED)
		rt_remove_tree(w.workdir);
	else
		rmdir(w.workdir);
	if (w.rc == RT_EXIT_USAGE || (w.rc == RT_EXIT_INTERRUPTED && !w.taken)) {
		if (w.rc == RT_EXIT_INTERRUPTED)
			printf("interrupted before the first run ended: nothing measured, nothing written\n");
		json_decref(rec);
		return w.rc;
	}
	/* Interrupted: the runs done are written all the same, marked partial. */
	sweep_record(&w, rec, argc, argv);
	putchar('\n');
	rt_report_markdown(rec, stdout);
	rc = w.rc;
	if (w.o.out_dir) {
		int wrc = write_outputs(&w.o, rec);

		if (wrc && rc != RT_EXIT_INTERRUPTED)
			rc = wrc;
		if (!wrc)
			printf("wrote %s/scale.{json,csv,md}%s%s\n", w.o.out_dir,
			       w.o.no_plots ? "" : " and scale-{throughput,speedup}.{svg,png}",
			       rc == RT_EXIT_INTERRUPTED ? ": PARTIAL (interrupted)" : "");
	} else {
		printf("(no --out DIR: no files written)\n");
	}
	json_decref(rec);
	return rc;
}
