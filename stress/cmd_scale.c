// SPDX-License-Identifier: MIT
/*
 * `rmaptorture scale`: throughput of `run` against the number of emulated
 * CPUs, per rmap design. Every point is a child process (this binary's
 * `run`, with the options given passed through), so that no run inherits
 * another's heap, caches or lock statistics; the points are interleaved
 * (for repeat k: every thread count and design in turn, the order reversed
 * on odd k), so that drift in the machine's load hits every design alike.
 *
 * Also the shared helper that runs one child `run` and reads back its
 * result record (rt_run_child_records()), which `bench` uses too.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot.h"
#include "record.h"
#include "report.h"
#include "rt_child.h"
#include "rt_cmd.h"
#include "rmap.h"
#include "rt_opt.h"

#define MAX_LIST	32
#define MAX_REPEAT	64
#define MAX_ARGS	256

/* ---- one child run ---- */

int rt_self_exe(char *path, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);

	if (n <= 0 || (size_t)n >= len - 1)
		return -ENAMETOOLONG;
	path[n] = '\0';
	return 0;
}

/* Every run-*.json in @dir, in name order. */
static json_t *read_run_records(const char *dir)
{
	struct dirent **names;
	json_t *a = json_array();
	int n = scandir(dir, &names, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		const char *nm = names[i]->d_name;
		size_t l = strlen(nm);

		if (!strncmp(nm, "run-", 4) && l > 5 && !strcmp(nm + l - 5, ".json")) {
			char path[4600];
			json_t *rec;

			snprintf(path, sizeof(path), "%s/%s", dir, nm);
			rec = json_load_file(path, 0, NULL);
			if (json_is_object(rec))
				json_array_append_new(a, rec);
			else
				json_decref(rec);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return a;
}

int rt_run_child_records(const char *const *args, const char *dir, double timeout_s,
			 json_t **recs, char *first_line, size_t len)
{
	char exe[4096], log[4200];
	char *argv[MAX_ARGS + 8];
	int n = 0, rc;
	FILE *f;

	*recs = NULL;
	if (first_line && len)
		first_line[0] = '\0';
	if (rt_self_exe(exe, sizeof(exe))) {
		fprintf(stderr, "rmaptorture: cannot find this program (/proc/self/exe)\n");
		return RT_CHILD_ERROR;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rmaptorture: cannot create %s: %s\n", dir, strerror(errno));
		return RT_CHILD_ERROR;
	}
	argv[n++] = "rmaptorture";
	argv[n++] = "run";
	for (int i = 0; args[i] && n < MAX_ARGS; i++)
		argv[n++] = (char *)args[i];
	argv[n++] = "--out";
	argv[n++] = (char *)dir;
	argv[n++] = "--no-progress";
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s/output.log", dir);
	rc = rt_child_run(exe, argv, timeout_s, log, NULL);
	if (first_line && len && (f = fopen(log, "r"))) {
		/* The first line that is not the run's START banner: a usage error, a report. */
		while (fgets(first_line, (int)len, f))
			if (strncmp(first_line, "START:", 6))
				break;
		first_line[strcspn(first_line, "\n")] = '\0';
		fclose(f);
	}
	*recs = read_run_records(dir);
	return rc;
}

/* ---- options ---- */

/* The run options that take a value, to pass them through with it. */
static const char *const run_valued[] = {
	"--scenario", "--reclaim-threads", "--ops", "--pages", "--swap", "--audit-every",
	"--perturb", "--yield-points", "--long-hold", "--watchdog", "--sched", "--pct-depth",
	"--pct-steps", "--sched-steps", "--inject", "--weights", "--procs", "--build",
	"--test-hang", NULL,
};

bool rt_run_option_takes_value(const char *opt)
{
	for (int i = 0; run_valued[i]; i++)
		if (!strcmp(opt, run_valued[i]))
			return true;
	return false;
}

/* A comma-separated list of integers in [min, max], each at most once, sorted. */
int rt_opt_int_list(const char *opt, const char *arg, long long min, long long max, int *out, int maxn)
{
	char buf[1024], *save = NULL, *tok;
	int n = 0;

	if (!arg || !*arg || strlen(arg) >= sizeof(buf))
		rt_usage_error("%s: expected a comma-separated list of numbers, got '%s'", opt, arg ? arg : "");
	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int v = (int)rt_opt_int(opt, tok, min, max), k;

		if (n >= maxn)
			rt_usage_error("%s: more than %d values", opt, maxn);
		for (k = 0; k < n; k++)
			if (out[k] == v)
				rt_usage_error("%s: %d given twice", opt, v);
		for (k = n; k > 0 && out[k - 1] > v; k--)
			out[k] = out[k - 1];
		out[k] = v;
		n++;
	}
	if (!n || arg[strlen(arg) - 1] == ',' || arg[0] == ',' || strstr(arg, ",,"))
		rt_usage_error("%s: expected a comma-separated list of numbers, got '%s'", opt, arg);
	return n;
}

/* The designs of --rmap (one or all); exit 2 on an unknown name. */
int rt_opt_modes(const char *opt, const char *arg, const char *modes[], int max)
{
	int n = 0;

	for (int i = 0; i < RMAP_NR_MODES && n < max; i++)
		if (!strcmp(arg, "all") || !strcmp(arg, rmap_mode_name((enum rmap_mode)i)))
			modes[n++] = rmap_mode_name((enum rmap_mode)i);
	if (!n)
		rt_usage_error("%s: unknown rmap design '%s' (ptechain, objfile, anonvma, mainline8, "
			       "mainline9 or all)", opt, arg);
	return n;
}

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
	      "\n"
	      "  -t, --threads LIST  thread counts, comma-separated (default 1,2,4,8,16,32)\n"
	      "  -r, --rmap MODE     ptechain, objfile, anonvma, mainline8, mainline9 or all\n"
	      "                      (default all)\n"
	      "  -k, --repeat K      runs per point, 1..64 (default 5)\n"
	      "  -s, --seconds S     length of each run (default 1)\n"
	      "      --seed X        seed of repeat 0; repeat k uses X + k (default 1)\n"
	      "  -o, --out DIR       write scale.json, scale.csv, scale.md and the plots\n"
	      "                      scale-throughput.{svg,png}, scale-speedup.{svg,png}\n"
	      "                      (gnuplot); without it only the table is printed\n"
	      "      --no-plots      do not draw plots (no gnuplot needed)\n"
	      "  -h, --help          this text\n"
	      "Every other option is passed to each `run` (e.g. --scenario shm --reclaim-threads 2);\n"
	      "--json and --rmap all inside run are the harness's own business and refused.\n"
	      "Exit status: 0, 1 when a run found a failure (its directory is kept under\n"
	      "DIR/failed/), 2 bad usage (also a run option a run refused), 3 a run that\n"
	      "crashed or timed out, 130 interrupted.\n", f);
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
		rt_usage_error("%s: missing value", name);
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
			if (!strcmp(a, "--scenario") && i + 1 < argc)
				o->scenario = argv[i + 1];
			else if (!strncmp(a, "--scenario=", 11))
				o->scenario = a + 11;
			o->pass[o->npass++] = a;
			if (valued) {
				if (i + 1 >= argc)
					rt_usage_error("%s: missing value", a);
				o->pass[o->npass++] = argv[++i];
			}
		}
	}
}

/* ---- one point's samples ---- */

struct sample {
	double ops_per_sec, fb_per_scan, fb_per_kop;
	json_t *locks;		/* the run's lock_stats (owned) */
	bool failed;
};

static double fallbacks_total(const json_t *rec)
{
	const json_t *fb = json_object_get(rec, "trylock_fallbacks");
	const char *key;
	json_t *v;
	double sum = 0;

	json_object_foreach((json_t *)fb, key, v)
		sum += json_number_value(v);
	return sum;
}

void rt_sample_of_run(const json_t *rec, double *ops_per_sec, double *fb_per_scan, double *fb_per_kop)
{
	double fb = fallbacks_total(rec);
	double scanned = json_number_value(json_object_get(json_object_get(rec, "reclaim"), "scanned"));
	double ops = json_number_value(json_object_get(rec, "ops"));

	*ops_per_sec = json_number_value(json_object_get(rec, "ops_per_sec"));
	*fb_per_scan = scanned > 0 ? fb / scanned : 0;
	*fb_per_kop = ops > 0 ? fb * 1000 / ops : 0;
}

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
	return p;
}

static int write_outputs(const struct scale_opts *o, json_t *rec)
{
	char path[4200], *buf = NULL;
	size_t len = 0;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/scale.json", o->out_dir);
	if (rt_record_write(rec, path))
		return RT_EXIT_INTERNAL;
	f = open_memstream(&buf, &len);
	if (!f)
		return RT_EXIT_INTERNAL;
	rt_report_csv(rec, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/scale.csv", o->out_dir);
	err = rt_write_text(path, buf, len);
	free(buf);
	if (err)
		return RT_EXIT_INTERNAL;
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		return RT_EXIT_INTERNAL;
	rt_report_markdown(rec, f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/scale.md", o->out_dir);
	err = rt_write_text(path, buf, len);
	free(buf);
	if (err)
		return RT_EXIT_INTERNAL;
	if (!o->no_plots && rt_report_plots(rec, o->out_dir, "scale", NULL))
		return RT_EXIT_INTERNAL;
	return RT_EXIT_OK;
}

int cmd_scale(int argc, char **argv)
{
	static struct sample samples[RMAP_NR_MODES][MAX_LIST][MAX_REPEAT];
	int ns[RMAP_NR_MODES][MAX_LIST] = { { 0 } };
	struct scale_opts o;
	char workdir[4200], dir[4600], seed[32], secs[32], tstr[16], line[512];
	const char *args[MAX_ARGS + 16];
	int rc = RT_EXIT_OK, total, done = 0, cores = rt_machine_cores();
	bool tmp_work;
	json_t *rec, *points, *jcmd, *jthreads, *jmodes, *jpass;

	parse(argc, argv, &o);
	if (o.out_dir && !o.no_plots && !rt_plot_available())
		rt_usage_error("scale: gnuplot not found on PATH: install gnuplot-nox, or pass --no-plots");
	if (o.out_dir) {
		rt_opt_out_dir("--out", o.out_dir);
		snprintf(workdir, sizeof(workdir), "%s/.runs.%ld", o.out_dir, (long)getpid());
		tmp_work = mkdir(workdir, 0777) != 0;
	} else {
		snprintf(workdir, sizeof(workdir), "/tmp/rmaptorture-scale.XXXXXX");
		tmp_work = !mkdtemp(workdir);
	}
	if (tmp_work) {
		fprintf(stderr, "rmaptorture: scale: cannot create %s: %s\n", workdir, strerror(errno));
		return RT_EXIT_INTERNAL;
	}
	rt_child_catch_interrupt();
	rec = rt_record_new("scale");
	json_object_set_new(rec, "load_average", rt_load_average());
	total = o.repeat * o.nt * o.nm;

	for (int k = 0; k < o.repeat && rc != RT_EXIT_USAGE; k++) {
		snprintf(seed, sizeof(seed), "%llu", o.seed + (unsigned long long)k);
		snprintf(secs, sizeof(secs), "%.17g", o.seconds);
		for (int ti = 0; ti < o.nt && rc != RT_EXIT_USAGE; ti++) {
			int t = k % 2 ? o.nt - 1 - ti : ti;

			for (int mi = 0; mi < o.nm; mi++) {
				int m = k % 2 ? o.nm - 1 - mi : mi, n = 0, crc;
				json_t *recs;
				struct sample *s;

				snprintf(tstr, sizeof(tstr), "%d", o.threads[t]);
				args[n++] = "--rmap";
				args[n++] = o.modes[m];
				args[n++] = "--threads";
				args[n++] = tstr;
				args[n++] = "--seconds";
				args[n++] = secs;
				args[n++] = "--seed";
				args[n++] = seed;
				for (int i = 0; i < o.npass; i++)
					args[n++] = o.pass[i];
				args[n] = NULL;
				snprintf(dir, sizeof(dir), "%s/%s-t%d-r%d", workdir, o.modes[m], o.threads[t], k);
				crc = rt_run_child_records(args, dir, o.seconds * 4 + 120, &recs, line, sizeof(line));
				done++;
				/* After the first run: a run option it refused is then the only output. */
				if (done == 1 && crc != RT_EXIT_USAGE) {
					printf("rmaptorture scale: %s, %d cores (%s); scenario %s, %d designs x %d"
					       " thread counts x %d repeats of %g s, interleaved\n", rt_version(),
					       cores, rt_machine_model(), o.scenario, o.nm, o.nt, o.repeat, o.seconds);
					if (o.threads[o.nt - 1] > cores)
						printf("note: %d cores: above %d threads, speedup measures"
						       " oversubscription, not scaling\n", cores, cores);
					fflush(stdout);
				}
				if (crc == RT_CHILD_INTERRUPTED) {
					json_decref(recs);
					json_decref(rec);
					rt_remove_tree(workdir);
					return RT_EXIT_INTERRUPTED;
				}
				if (crc == RT_EXIT_USAGE) {
					fprintf(stderr, "rmaptorture: scale: run refused its options: %s\n", line);
					json_decref(recs);
					rc = RT_EXIT_USAGE;
					break;
				}
				if ((crc != RT_EXIT_OK && crc != RT_EXIT_FAILURE) || json_array_size(recs) != 1) {
					char why[64];

					fprintf(stderr, "rmaptorture: scale: %s with %d threads, repeat %d: %s, %zu"
						" records (%s)\n", o.modes[m], o.threads[t], k,
						rt_child_rc_str(crc, why, sizeof(why)), json_array_size(recs), line);
					json_decref(recs);
					rc = RT_EXIT_INTERNAL;
					continue;
				}
				s = &samples[m][t][ns[m][t]++];
				rt_sample_of_run(json_array_get(recs, 0), &s->ops_per_sec, &s->fb_per_scan,
						 &s->fb_per_kop);
				s->locks = json_incref(json_object_get(json_array_get(recs, 0), "lock_stats"));
				if (!s->locks)
					s->locks = json_object();
				s->failed = crc == RT_EXIT_FAILURE;
				fprintf(stderr, "[%d/%d] %-8s %3d threads, repeat %d: %.0f ops/s%s\n", done, total,
					o.modes[m], o.threads[t], k, s->ops_per_sec,
					s->failed ? "  FAILURE (run directory kept)" : "");
				if (s->failed) {
					char keep[4700];

					if (rc == RT_EXIT_OK)
						rc = RT_EXIT_FAILURE;
					snprintf(keep, sizeof(keep), "%s/failed", o.out_dir ? o.out_dir : workdir);
					mkdir(keep, 0777);
					snprintf(keep + strlen(keep), sizeof(keep) - strlen(keep), "/%s-t%d-r%d",
						 o.modes[m], o.threads[t], k);
					if (rename(dir, keep))
						fprintf(stderr, "rmaptorture: cannot keep %s: %s\n", dir, strerror(errno));
					else
						fprintf(stderr, "rmaptorture: failure artifacts in %s\n", keep);
				} else {
					rt_remove_tree(dir);
				}
				json_decref(recs);
			}
		}
	}
	if (o.out_dir)
		rt_remove_tree(workdir);
	else
		rmdir(workdir);
	if (rc == RT_EXIT_USAGE) {
		json_decref(rec);
		return rc;
	}

	/* The record. */
	points = json_array();
	for (int m = 0; m < o.nm; m++) {
		struct rt_stat b;
		double v[MAX_REPEAT];

		for (int k = 0; k < ns[m][0]; k++)
			v[k] = samples[m][0][k].ops_per_sec;
		rt_stat_of(v, ns[m][0], &b);
		for (int t = 0; t < o.nt; t++) {
			json_array_append_new(points, point_json(&o, m, t, samples[m][t], ns[m][t], b.median));
			for (int k = 0; k < ns[m][t]; k++)
				json_decref(samples[m][t][k].locks);
		}
	}
	jcmd = json_array();
	json_array_append_new(jcmd, json_string("scale"));
	for (int i = 1; i < argc; i++)
		json_array_append_new(jcmd, json_string(argv[i]));
	jthreads = json_array();
	for (int t = 0; t < o.nt; t++)
		json_array_append_new(jthreads, json_integer(o.threads[t]));
	jmodes = json_array();
	for (int m = 0; m < o.nm; m++)
		json_array_append_new(jmodes, json_string(o.modes[m]));
	jpass = json_array();
	for (int i = 0; i < o.npass; i++)
		json_array_append_new(jpass, json_string(o.pass[i]));
	json_object_update_new(rec, json_pack("{s:o, s:s, s:o, s:o, s:i, s:f, s:I, s:o, s:i, s:i, s:s,"
					      " s:o, s:o, s:b}",
		"command", jcmd,
		"scenario", o.scenario,
		"modes", jmodes,
		"threads", jthreads,
		"repeat", o.repeat,
		"seconds", o.seconds,
		"seed", (json_int_t)o.seed,
		"run_args", jpass,
		"base_threads", o.threads[0],
		"cores", cores,
		"note", "speedup above the number of cores measures oversubscription, not scaling",
		"points", points,
		"load_average_end", rt_load_average(),
		"interleaved", 1));
	putchar('\n');
	rt_report_markdown(rec, stdout);
	if (o.out_dir) {
		int wrc = write_outputs(&o, rec);

		if (wrc)
			rc = wrc;
		else
			printf("wrote %s/scale.{json,csv,md}%s\n", o.out_dir,
			       o.no_plots ? "" : " and scale-{throughput,speedup}.{svg,png}");
	} else {
		printf("(no --out DIR: no files written)\n");
	}
	json_decref(rec);
	return rc;
}
