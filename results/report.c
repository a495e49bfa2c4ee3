// SPDX-License-Identifier: MIT
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"
#include "record.h"

#define MAX_MODES	8
#define MAX_POINTS	64

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Quantile @q of the sorted @v, linear between the closest ranks. */
static double quantile(const double *v, int n, double q)
{
	double pos = q * (n - 1);
	int lo = (int)floor(pos);

	if (lo + 1 >= n)
		return v[n - 1];
	return v[lo] + (pos - lo) * (v[lo + 1] - v[lo]);
}

void rt_stat_of(const double *v, int n, struct rt_stat *st)
{
	double *tmp;

	st->n = n;
	if (n <= 0) {
		st->median = st->min = st->max = st->q1 = st->q3 = NAN;
		return;
	}
	tmp = malloc(sizeof(*tmp) * (size_t)n);
	if (!tmp)
		abort();
	memcpy(tmp, v, sizeof(*tmp) * (size_t)n);
	qsort(tmp, (size_t)n, sizeof(*tmp), cmp_double);
	st->median = quantile(tmp, n, 0.5);
	st->q1 = quantile(tmp, n, 0.25);
	st->q3 = quantile(tmp, n, 0.75);
	st->min = tmp[0];
	st->max = tmp[n - 1];
	free(tmp);
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *rt_stat_json(const struct rt_stat *st)
{
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i}",
			 "median", real_or_null(st->median), "min", real_or_null(st->min),
			 "max", real_or_null(st->max), "q1", real_or_null(st->q1),
			 "q3", real_or_null(st->q3), "n", st->n);
}

json_t *rt_load_average(void)
{
	double la[3];
	json_t *a = json_array();

	if (getloadavg(la, 3) == 3)
		for (int i = 0; i < 3; i++)
			json_array_append_new(a, json_real(round(la[i] * 100) / 100));
	return a;
}

struct text {
	const char *text;
	size_t len;
};

static int emit_text(FILE *f, void *arg)
{
	const struct text *t = arg;

	return fwrite(t->text, 1, t->len, f) == t->len ? 0 : -EIO;
}

int rt_write_text(const char *path, const char *text, size_t len)
{
	struct text t = { text, len };

	return rt_file_write_atomic(path, emit_text, &t);
}

/* ---- reading records ---- */

static double jnum(const json_t *o, const char *key)
{
	json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *jstr(const json_t *o, const char *key, const char *dflt)
{
	json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : dflt;
}

static const json_t *jget(const json_t *o, const char *key)
{
	return o ? json_object_get(o, key) : NULL;
}

/* The designs of a record in its order ("modes"), else the keys of "designs". */
static int record_modes(const json_t *rec, const char *modes[MAX_MODES])
{
	const json_t *m = jget(rec, "modes"), *d = jget(rec, "designs"), *v;
	const char *key;
	size_t i;
	int n = 0;

	if (json_is_array(m)) {
		json_array_foreach(m, i, v)
			if (json_is_string(v) && n < MAX_MODES)
				modes[n++] = json_string_value(v);
		return n;
	}
	json_object_foreach((json_t *)d, key, v)
		if (n < MAX_MODES)
			modes[n++] = key;
	return n;
}

/* A number for a table: as many digits as it deserves. */
static const char *fmt(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "–");
	else if (a >= 1000 || a == 0)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 0.1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
	return buf;
}

/* "median (min .. max)" of a stat object, or of a value and a {min, max}. */
static void put_spread(FILE *out, double med, double mn, double mx)
{
	char a[32], b[32], c[32];

	if (isfinite(mn) && isfinite(mx))
		fprintf(out, " %s (%s .. %s) |", fmt(a, sizeof(a), med), fmt(b, sizeof(b), mn),
			fmt(c, sizeof(c), mx));
	else
		fprintf(out, " %s |", fmt(a, sizeof(a), med));
}

static void put_stat(FILE *out, const json_t *st)
{
	put_spread(out, jnum(st, "median"), jnum(st, "min"), jnum(st, "max"));
}

/* An interrupted `scale` or `bench`: its record holds only the samples taken before. */
static bool partial(const json_t *rec)
{
	return json_is_true(jget(rec, "interrupted"));
}

/* The partial record's warning; a scale record also says how many of its runs it holds. */
static void put_partial(FILE *out, const json_t *rec)
{
	const json_t *points = jget(rec, "points"), *p;
	int done = 0;
	size_t i;

	if (!partial(rec))
		return;
	fputs("> **PARTIAL: interrupted**", out);
	json_array_foreach(points, i, p)
		done += (int)jnum(jget(p, "ops_per_sec"), "n");
	if (json_is_array(points))
		fprintf(out, " after %d of %d runs", done, (int)jnum(rec, "repeat") *
			(int)json_array_size(jget(rec, "modes")) *
			(int)json_array_size(jget(rec, "threads")));
	fputs(": each figure is of the samples taken before (– where none was).\n\n", out);
}

static void put_meta(FILE *out, const json_t *rec)
{
	const json_t *mach = jget(rec, "machine"), *la = jget(rec, "load_average");
	const json_t *cmd = jget(rec, "command"), *v;
	size_t i;

	fprintf(out, "Revision `%s`, %s; %d cores (%s)", jstr(rec, "git", "?"),
		jstr(rec, "date", "?"), (int)jnum(mach, "cores"), jstr(mach, "model", "?"));
	if (json_is_array(la) && json_array_size(la) == 3)
		fprintf(out, "; load average %.2f %.2f %.2f (1, 5, 15 min) at the start",
			json_number_value(json_array_get(la, 0)),
			json_number_value(json_array_get(la, 1)),
			json_number_value(json_array_get(la, 2)));
	fputs(".\n", out);
	if (json_is_array(cmd)) {
		fputs("Command: `rmaptorture", out);
		json_array_foreach(cmd, i, v)
			fprintf(out, " %s", json_string_value(v) ? json_string_value(v) : "?");
		fputs("`\n", out);
	}
	fputc('\n', out);
	put_partial(out, rec);
}

/* ---- scale ---- */

static int scale_markdown(const json_t *rec, FILE *out)
{
	const json_t *points = jget(rec, "points"), *p, *cls;
	const char *classes[64], *key;
	int nc = 0, cores = (int)jnum(rec, "cores");
	size_t i;
	char a[32], b[32], c[32];
	bool virt = json_is_true(jget(rec, "virtual"));

	/* --sched vtime: virtual CPUs and seconds, no oversubscription (rt_vtime.h). */
	fprintf(out, "## scale%s: scenario `%s`, %d repeats of %s %ss per point, interleaved\n\n",
		virt ? " in virtual time" : "", jstr(rec, "scenario", "?"), (int)jnum(rec, "repeat"),
		fmt(a, sizeof(a), jnum(rec, "seconds")), virt ? "virtual " : "");
	put_meta(out, rec);
	if (virt)
		fprintf(out, "> Virtual time (`--sched vtime`, %s costs): threads are virtual CPUs and"
			" ops/s are virtual, whatever the %d cores of this machine.\n\n",
			jstr(rec, "vtime_cost", "model"), cores);
	else
		fprintf(out, "> This machine has %d cores: above %d threads, speedup measures "
			"oversubscription, not scaling.\n\n", cores, cores);
	fprintf(out, "| rmap | threads | %sops/s median (min .. max) | speedup vs %d | efficiency |"
		" trylock fallbacks per reclaim scan | fallbacks per 1k ops | most contended lock |%s\n"
		"|---|---:|---:|---:|---:|---:|---:|---|%s\n", virt ? "virtual " : "",
		(int)jnum(rec, "base_threads"),
		virt ? " dominant waiting lock (share of CPU time) | real s per point |" : "",
		virt ? "---|---:|" : "");
	json_array_foreach(points, i, p) {
		const char *top = NULL;
		double topv = 0;

		json_object_foreach((json_t *)jget(p, "contention"), key, cls)
			if (json_number_value(cls) > topv) {
				topv = json_number_value(cls);
				top = key;
			}
		fprintf(out, "| %s | %d%s |", jstr(p, "rmap", "?"), (int)jnum(p, "threads"),
			!virt && jnum(p, "threads") > cores ? "*" : "");
		put_stat(out, jget(p, "ops_per_sec"));
		fprintf(out, " %s | %s |", fmt(a, sizeof(a), jnum(p, "speedup")),
			fmt(b, sizeof(b), jnum(p, "efficiency")));
		put_stat(out, jget(p, "fallbacks_per_scan"));
		fprintf(out, " %s |", fmt(c, sizeof(c), jnum(jget(p, "fallbacks_per_kop"), "median")));
		if (top)
			fprintf(out, " %s %.3g |", top, topv);
		else
			fputs(" none |", out);
		if (virt)
			fprintf(out, " %s %.1f%% | %s |", jstr(p, "dominant_wait", "none"),
				100 * jnum(p, "dominant_wait_share"),
				fmt(a, sizeof(a), jnum(jget(p, "real_seconds"), "median")));
		fputc('\n', out);
	}
	if (virt)
		fprintf(out, "\nSpeedup and efficiency use the medians; efficiency = speedup / (threads"
			" / %d). The dominant waiting lock is the class whose waits took the largest"
			" share of all virtual CPU time (median over the repeats).\n\n",
			(int)jnum(rec, "base_threads"));
	else
		fprintf(out, "\n\\* above the %d cores of this machine. Speedup and efficiency use the"
			" medians; efficiency = speedup / (threads / %d).\n\n", cores,
			(int)jnum(rec, "base_threads"));

	/* Contention: every class that was ever contended. */
	json_array_foreach(points, i, p)
		json_object_foreach((json_t *)jget(p, "contention"), key, cls) {
			int k;

			if (json_number_value(cls) <= 0)
				continue;
			for (k = 0; k < nc && strcmp(classes[k], key); k++)
				;
			if (k == nc && nc < 64)
				classes[nc++] = key;
		}
	fputs("### Contention by lock class (contended / acquired, median of the repeats)\n\n", out);
	if (!nc) {
		fputs("No lock class was contended.\n\n", out);
		return 0;
	}
	fputs("| rmap | threads |", out);
	for (int k = 0; k < nc; k++)
		fprintf(out, " %s |", classes[k]);
	fputs("\n|---|---:|", out);
	for (int k = 0; k < nc; k++)
		fputs("---:|", out);
	fputc('\n', out);
	json_array_foreach(points, i, p) {
		fprintf(out, "| %s | %d |", jstr(p, "rmap", "?"), (int)jnum(p, "threads"));
		for (int k = 0; k < nc; k++)
			fprintf(out, " %s |", fmt(a, sizeof(a), jnum(jget(p, "contention"), classes[k])));
		fputc('\n', out);
	}
	fputc('\n', out);
	return 0;
}

int rt_report_csv(const json_t *rec, FILE *out)
{
	const json_t *points = jget(rec, "points"), *p, *cls;
	const char *classes[64], *key;
	int nc = 0, cores = (int)jnum(rec, "cores");
	bool virt = json_is_true(jget(rec, "virtual"));
	size_t i;

	if (strcmp(jstr(rec, "kind", ""), "scale") || !json_is_array(points))
		return -EINVAL;
	json_array_foreach(points, i, p)
		json_object_foreach((json_t *)jget(p, "contention"), key, cls) {
			int k;

			for (k = 0; k < nc && strcmp(classes[k], key); k++)
				;
			if (k == nc && nc < 64)
				classes[nc++] = key;
		}
	if (virt)
		fprintf(out, "# rmaptorture scale in virtual time (--sched vtime, %s costs), git %s, %s,"
			" %d cores (%s): threads are virtual CPUs, ops/s virtual%s\n",
			jstr(rec, "vtime_cost", "model"), jstr(rec, "git", "?"), jstr(rec, "date", "?"),
			cores, jstr(jget(rec, "machine"), "model", "?"),
			partial(rec) ? "; PARTIAL (interrupted)" : "");
	else
		fprintf(out, "# rmaptorture scale, git %s, %s, %d cores (%s): above %d threads speedup"
			" measures oversubscription%s\n", jstr(rec, "git", "?"), jstr(rec, "date", "?"),
			cores, jstr(jget(rec, "machine"), "model", "?"), cores,
			partial(rec) ? "; PARTIAL (interrupted)" : "");
	fputs("rmap,threads,cores,repeats,ops_per_sec_median,ops_per_sec_min,ops_per_sec_max,"
	      "ops_per_sec_q1,ops_per_sec_q3,speedup,efficiency,fallbacks_per_scan_median,"
	      "fallbacks_per_kop_median,failures", out);
	if (virt)
		fputs(",virtual,dominant_wait,dominant_wait_share,real_seconds_median", out);
	for (int k = 0; k < nc; k++)
		fprintf(out, ",contention_%s", classes[k]);
	fputc('\n', out);
	json_array_foreach(points, i, p) {
		const json_t *o = jget(p, "ops_per_sec");

		fprintf(out, "%s,%d,%d,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d",
			jstr(p, "rmap", "?"), (int)jnum(p, "threads"), cores, (int)jnum(o, "n"),
			jnum(o, "median"), jnum(o, "min"), jnum(o, "max"), jnum(o, "q1"), jnum(o, "q3"),
			jnum(p, "speedup"), jnum(p, "efficiency"),
			jnum(jget(p, "fallbacks_per_scan"), "median"),
			jnum(jget(p, "fallbacks_per_kop"), "median"), (int)jnum(p, "failures"));
		if (virt)
			fprintf(out, ",1,%s,%.6g,%.6g", jstr(p, "dominant_wait", "none"),
				jnum(p, "dominant_wait_share"), jnum(jget(p, "real_seconds"), "median"));
		for (int k = 0; k < nc; k++)
			fprintf(out, ",%.6g", jnum(jget(p, "contention"), classes[k]));
		fputc('\n', out);
	}
	return 0;
}

/* ---- bench ---- */

struct bench_row {
	const char *key, *label;
};

static const struct bench_row tput_rows[] = {
	{ "anon_faults_per_sec", "anonymous faults/s (fault, then unmap)" },
	{ "file_faults_per_sec", "file faults/s (page cached, mapped elsewhere)" },
	{ "fork_exit_per_sec", "fork+exit/s, 1,000 touched pages" },
	{ "exit_per_sec", "exit/s, 1,000 touched pages" },
	{ "fork_exit_per_sec_10000", "fork+exit/s, 10,000 touched pages" },
	{ "exit_per_sec_10000", "exit/s, 10,000 touched pages" },
};

static const struct bench_row unmap_groups[] = {
	{ "by_sharers", "file page, processes sharing it" },
	{ "by_sharers_anon", "anonymous page, processes sharing it (forked)" },
	{ "by_vmas", "file page, vmas of the file not mapping it" },
};

static const char *spread_key(const char *group, const char *param, char *buf, size_t len)
{
	snprintf(buf, len, "try_to_unmap_ns_%s_%s", !strcmp(group, "by_sharers") ? "sharers" :
		 !strcmp(group, "by_sharers_anon") ? "sharers_anon" : "vmas", param);
	return buf;
}

/* The sorted numeric keys of the object @o ("1", "10", "100"...). */
static int numeric_keys(const json_t *o, const char *keys[MAX_POINTS])
{
	const char *key;
	json_t *v;
	int n = 0;

	json_object_foreach((json_t *)o, key, v) {
		int k;

		if (n >= MAX_POINTS)
			break;
		for (k = n; k > 0 && atof(keys[k - 1]) > atof(key); k--)
			keys[k] = keys[k - 1];
		keys[k] = key;
		n++;
	}
	return n;
}

static void bench_header(FILE *out, const char *first, const char *modes[], int nm, bool ratios)
{
	fprintf(out, "| %s |", first);
	for (int d = 0; d < nm; d++)
		fprintf(out, " %s |", modes[d]);
	if (ratios)
		for (int d = 1; d < nm; d++)
			fprintf(out, " %s / %s |", modes[d], modes[0]);
	fputs("\n|---|", out);
	for (int d = 0; d < nm; d++)
		fputs("---:|", out);
	if (ratios)
		for (int d = 1; d < nm; d++)
			fputs("---:|", out);
	fputc('\n', out);
}

/* A bench record's designs, in the record's order. */
struct bench_md {
	FILE *out;
	const json_t *rec;
	const char *modes[MAX_MODES];
	const json_t *dj[MAX_MODES];	/* each design's results */
	int nm;
};

/* The keys of the first design's @field (none if there is no design). */
static int first_keys(const struct bench_md *b, const char *field, const char *keys[MAX_POINTS])
{
	return b->dj[0] ? numeric_keys(jget(b->dj[0], field), keys) : 0;
}

/* A table of @field's statistics by design, one row per key. */
static void stat_table(const struct bench_md *b, const char *first, const char *field,
		       const char *const *keys, int nk)
{
	bench_header(b->out, first, (const char **)b->modes, b->nm, false);
	for (int k = 0; k < nk; k++) {
		fprintf(b->out, "| %s |", keys[k]);
		for (int d = 0; d < b->nm; d++)
			put_stat(b->out, jget(jget(b->dj[d], field), keys[k]));
		fputc('\n', b->out);
	}
	fputc('\n', b->out);
}

/* @intro and the table of @field's statistics, when the first design has any. */
static void stat_section(const struct bench_md *b, const char *intro, const char *first,
			 const char *field)
{
	const char *keys[MAX_POINTS];
	int nk = first_keys(b, field, keys);

	if (!nk)
		return;
	fputs(intro, b->out);
	stat_table(b, first, field, keys, nk);
}

/* The Oracle case: bytes per pte by processes, and the article's arithmetic. */
static void bench_oracle(const struct bench_md *b, const char *const *keys, int nk)
{
	const double ptes_per_task = 2.7e9 / 4096;
	FILE *out = b->out;
	char a[32];

	fprintf(out, "### rmap memory: the Oracle case, exactly\n\nP processes map one %d-page"
		" file MAP_SHARED and read all of it; bytes of rmap metadata per mapped pte.\n\n",
		(int)jnum(b->rec, "bytes_file_pages"));
	bench_header(out, "processes P", (const char **)b->modes, b->nm, false);
	for (int k = 0; k < nk; k++) {
		fprintf(out, "| %s |", keys[k]);
		for (int d = 0; d < b->nm; d++)
			fprintf(out, " %s |", fmt(a, sizeof(a),
				jnum(jget(jget(b->dj[d], "rmap_bytes_by_procs"), keys[k]), "per_pte")));
		fputc('\n', out);
	}
	fprintf(out, "\nThe article's arithmetic (2.7 GB mapped per task = %.0f ptes of 4 KiB pages),"
		" extrapolated from the measured bytes per pte at P = %s:\n\n"
		"| bytes per pte | x 100 tasks | x 700 tasks |\n|---|---:|---:|\n"
		"| 8 (the article) | %.2f GB | %.2f GB |\n", ptes_per_task, keys[nk - 1],
		8 * ptes_per_task * 100 / 1e9, 8 * ptes_per_task * 700 / 1e9);
	for (int d = 0; d < b->nm; d++) {
		double v = jnum(jget(jget(b->dj[d], "rmap_bytes_by_procs"), keys[nk - 1]), "per_pte");

		fprintf(out, "| %s (%s) | %.2f GB | %.2f GB |\n", fmt(a, sizeof(a), v), b->modes[d],
			v * ptes_per_task * 100 / 1e9, v * ptes_per_task * 700 / 1e9);
	}
	fputc('\n', out);
}

/* a. memory */
static void bench_memory(const struct bench_md *b)
{
	const char *keys[MAX_POINTS];
	char a[32], intro[512];
	int nk;

	snprintf(intro, sizeof(intro), "### rmap memory: the `shm` scenario\n\nBytes of rmap metadata"
		 " (pte_chains, anon_vmas, anon_vma list links) per mapped page at their peak, in %s s"
		 " runs of `run --scenario shm --procs P --threads %d`.\n\n",
		 fmt(a, sizeof(a), jnum(b->rec, "run_seconds")), (int)jnum(b->rec, "shm_threads"));
	stat_section(b, intro, "processes P", "shm_rmap_bytes_per_mapped_page");
	nk = first_keys(b, "rmap_bytes_by_procs", keys);
	if (nk)
		bench_oracle(b, keys, nk);
}

/* b. throughput */
static void bench_throughput(const struct bench_md *b)
{
	FILE *out = b->out;

	fputs("### Fault, fork and exit throughput (one thread; higher is better)\n\n", out);
	bench_header(out, "operation", (const char **)b->modes, b->nm, true);
	for (size_t r = 0; r < sizeof(tput_rows) / sizeof(tput_rows[0]); r++) {
		if (!b->dj[0] || !isfinite(jnum(b->dj[0], tput_rows[r].key)))
			continue;
		fprintf(out, "| %s |", tput_rows[r].label);
		for (int d = 0; d < b->nm; d++) {
			const json_t *sp = jget(jget(b->dj[d], "spread"), tput_rows[r].key);

			put_spread(out, jnum(b->dj[d], tput_rows[r].key), jnum(sp, "min"), jnum(sp, "max"));
		}
		for (int d = 1; d < b->nm; d++) {
			double ratio = jnum(b->dj[d], tput_rows[r].key) / jnum(b->dj[0], tput_rows[r].key);

			/* A partial record may lack this design's sample. */
			if (isfinite(ratio))
				fprintf(out, " %.2fx |", ratio);
			else
				fputs(" – |", out);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* One row of a try_to_unmap group: each design's ns and the fastest. */
static void unmap_row(const struct bench_md *b, const char *grp, const char *key)
{
	char sk[96];
	int best = -1;
	double bv = INFINITY;

	fprintf(b->out, "| %s |", key);
	for (int d = 0; d < b->nm; d++) {
		double v = jnum(jget(jget(b->dj[d], "try_to_unmap_ns"), grp), key);
		const json_t *sp = jget(jget(b->dj[d], "spread"), spread_key(grp, key, sk, sizeof(sk)));

		put_spread(b->out, v, jnum(sp, "min"), jnum(sp, "max"));
		if (v < bv) {
			bv = v;
			best = d;
		}
	}
	/* None when a partial record has no sample of this row. */
	fprintf(b->out, " %s |\n", best < 0 ? "–" : b->modes[best]);
}

/* c. try_to_unmap */
static void bench_unmap(const struct bench_md *b)
{
	FILE *out = b->out;
	const char *keys[MAX_POINTS];
	char a[32];

	fprintf(out, "### try_to_unmap() of one page (ns per call, lower is better; includes ~%s ns"
		" of clock_gettime)\n\n", fmt(a, sizeof(a), jnum(b->rec, "timer_overhead_ns")));
	for (size_t g = 0; g < sizeof(unmap_groups) / sizeof(unmap_groups[0]); g++) {
		const char *grp = unmap_groups[g].key;
		int nk = b->dj[0] ? numeric_keys(jget(jget(b->dj[0], "try_to_unmap_ns"), grp), keys) : 0;

		if (!nk)
			continue;
		fprintf(out, "%s:\n\n", unmap_groups[g].label);
		fprintf(out, "| %s |", !strcmp(grp, "by_vmas") ? "other vmas" : "sharers");
		for (int d = 0; d < b->nm; d++)
			fprintf(out, " %s |", b->modes[d]);
		fputs(" fastest |\n|---|", out);
		for (int d = 0; d < b->nm; d++)
			fputs("---:|", out);
		fputs("---|\n", out);
		for (int k = 0; k < nk; k++)
			unmap_row(b, grp, keys[k]);
		fputc('\n', out);
	}
}

/* d. trylock fallbacks */
static void bench_fallbacks(const struct bench_md *b)
{
	char a[32], intro[768];

	snprintf(intro, sizeof(intro), "### Trylock fallbacks per reclaim scan vs reclaim threads\n\n"
		 "All fallback sites together (a trylock that failed, so reclaim skipped or deferred the"
		 " page), divided by the pages reclaim scanned, in %s s runs of `run --scenario %s"
		 " --threads %d --reclaim-threads R`.\n\n", fmt(a, sizeof(a), jnum(b->rec, "run_seconds")),
		 jstr(b->rec, "fallback_scenario", "?"), (int)jnum(b->rec, "fallback_threads"));
	stat_section(b, intro, "reclaim threads R", "trylock_fallbacks_per_scan");
	stat_section(b, "### Share of scanned mapped pages that reach try_to_unmap()\n\nOf the"
		     " inactive pages reclaim found mapped, the fraction neither referenced nor"
		     " deemed referenced by a failed trylock, in the same runs.\n\n",
		     "reclaim threads R", "unmap_share");
}

static int bench_markdown(const json_t *rec, FILE *out)
{
	struct bench_md b = { .out = out, .rec = rec };
	const json_t *designs = jget(rec, "designs");

	b.nm = record_modes(rec, b.modes);
	for (int d = 0; d < b.nm; d++)
		b.dj[d] = jget(designs, b.modes[d]);
	fprintf(out, "## bench: the rmap designs side by side, median (min .. max) of %d interleaved repeats\n\n",
		(int)jnum(rec, "repeat"));
	put_meta(out, rec);
	bench_memory(&b);
	bench_throughput(&b);
	bench_unmap(&b);
	bench_fallbacks(&b);
	return 0;
}

int rt_report_markdown(const json_t *rec, FILE *out)
{
	const char *kind = jstr(rec, "kind", "");

	if (!strcmp(kind, "scale"))
		return scale_markdown(rec, out);
	if (!strcmp(kind, "bench") || !strcmp(kind, "bench-vm"))
		return bench_markdown(rec, out);
	return -EINVAL;
}

/* ---- plots ---- */

/* @field (in @group) of every design against its keys. Return: 0, 1 nothing to draw, or -errno. */
static int plot_keyed(const json_t *rec, const char *field, const char *group, bool stat,
		      struct rt_plot *pl, const char *base)
{
	const json_t *designs = jget(rec, "designs");
	const char *modes[MAX_MODES], *keys[MAX_POINTS];
	struct rt_plot_series s[MAX_MODES];
	double x[MAX_MODES][MAX_POINTS], y[MAX_MODES][MAX_POINTS];
	int nm = record_modes(rec, modes), nk = 0;

	for (int d = 0; d < nm; d++) {
		const json_t *o = jget(jget(designs, modes[d]), field);

		if (group)
			o = jget(o, group);
		nk = numeric_keys(o, keys);
		for (int k = 0; k < nk; k++) {
			x[d][k] = atof(keys[k]);
			y[d][k] = stat ? jnum(jget(o, keys[k]), "median") : jnum(o, keys[k]);
		}
		s[d] = (struct rt_plot_series){ modes[d], nk, x[d], y[d] };
	}
	if (!nm || !nk)
		return 1;
	for (int d = 0; d < nm; d++)
		if (rt_plot_series_drawn(&s[d])) {
			pl->nr_series = nm;
			pl->series = s;
			return rt_plot_write(pl, base);
		}
	return 1;	/* a partial record without one sample of it */
}

static int bench_plots(const json_t *rec, const char *dir, const char *prefix, json_t *written)
{
	static const struct {
		const char *name, *field, *group, *title, *xlabel, *ylabel;
		bool stat, logx, logy;
	} plots[] = {
		{ "unmap-sharers", "try_to_unmap_ns", "by_sharers", "try_to_unmap() of a file page",
		  "processes sharing the page", "ns per call", false, true, true },
		{ "unmap-anon-sharers", "try_to_unmap_ns", "by_sharers_anon",
		  "try_to_unmap() of an anonymous page", "processes sharing the page (forked)",
		  "ns per call", false, true, true },
		{ "unmap-vmas", "try_to_unmap_ns", "by_vmas", "try_to_unmap() of a file page",
		  "vmas of the file not mapping the page", "ns per call", false, true, true },
		{ "rmap-bytes", "shm_rmap_bytes_per_mapped_page", NULL,
		  "rmap metadata per mapped page, shm scenario", "processes", "bytes per mapped page",
		  true, true, false },
		{ "fallbacks", "trylock_fallbacks_per_scan", NULL, "trylock fallbacks per reclaim scan",
		  "reclaim threads", "fallbacks per page scanned", true, true, false },
	};
	char base[4096], note[256];
	int err;

	snprintf(note, sizeof(note), "%sgit %s, %d cores, median of %d",
		 partial(rec) ? "PARTIAL (interrupted): " : "", jstr(rec, "git", "?"),
		 (int)jnum(jget(rec, "machine"), "cores"), (int)jnum(rec, "repeat"));
	for (size_t i = 0; i < sizeof(plots) / sizeof(plots[0]); i++) {
		struct rt_plot pl = {
			.title = plots[i].title, .xlabel = plots[i].xlabel, .ylabel = plots[i].ylabel,
			.logx = plots[i].logx, .logy = plots[i].logy, .note = note,
		};
		const json_t *d0 = jget(jget(rec, "designs"), "ptechain");

		if (!d0 || !jget(d0, plots[i].field))
			continue;
		snprintf(base, sizeof(base), "%s/%s-%s", dir, prefix, plots[i].name);
		err = plot_keyed(rec, plots[i].field, plots[i].group, plots[i].stat, &pl, base);
		if (err < 0)
			return err;
		if (err)	/* nothing to draw */
			continue;
		if (written) {
			char p[4200];

			snprintf(p, sizeof(p), "%s.svg", base);
			json_array_append_new(written, json_string(p));
			snprintf(p, sizeof(p), "%s.png", base);
			json_array_append_new(written, json_string(p));
		}
	}
	return 0;
}

static int scale_plots(const json_t *rec, const char *dir, const char *prefix, json_t *written)
{
	const json_t *points = jget(rec, "points"), *p;
	const char *modes[MAX_MODES];
	struct rt_plot_series s[MAX_MODES], sp[MAX_MODES];
	double x[MAX_MODES][MAX_POINTS], y[MAX_MODES][MAX_POINTS], z[MAX_MODES][MAX_POINTS];
	int nm = record_modes(rec, modes), cores = (int)jnum(rec, "cores");
	bool virt = json_is_true(jget(rec, "virtual"));
	char base[4096], note[256], path[4200];
	size_t i;

	for (int d = 0; d < nm; d++) {
		int n = 0;

		json_array_foreach(points, i, p) {
			if (strcmp(jstr(p, "rmap", ""), modes[d]) || n >= MAX_POINTS)
				continue;
			x[d][n] = jnum(p, "threads");
			y[d][n] = jnum(jget(p, "ops_per_sec"), "median");
			z[d][n] = jnum(p, "speedup");
			n++;
		}
		s[d] = (struct rt_plot_series){ modes[d], n, x[d], y[d] };
		sp[d] = (struct rt_plot_series){ modes[d], n, x[d], z[d] };
	}
	if (virt)
		snprintf(note, sizeof(note), "%sscenario %s, git %s: virtual time (--sched vtime, %s costs)",
			 partial(rec) ? "PARTIAL (interrupted): " : "", jstr(rec, "scenario", "?"),
			 jstr(rec, "git", "?"), jstr(rec, "vtime_cost", "model"));
	else
		snprintf(note, sizeof(note), "%sscenario %s, git %s, %d cores: right of the line, speedup"
			 " measures oversubscription", partial(rec) ? "PARTIAL (interrupted): " : "",
			 jstr(rec, "scenario", "?"), jstr(rec, "git", "?"), cores);
	{
		struct rt_plot tp = {
			.title = virt ? "virtual throughput" : "throughput",
			.xlabel = virt ? "virtual CPUs" : "threads (emulated CPUs)",
			.ylabel = virt ? "operations per virtual second (median)" :
					 "operations per second (median)",
			.logx = true, .note = note,
			.vline = virt ? 0 : cores, .nr_series = nm, .series = s,
		};
		struct rt_plot spp = {
			.title = virt ? "virtual speedup" : "speedup",
			.xlabel = virt ? "virtual CPUs" : "threads (emulated CPUs)",
			.ylabel = "speedup vs the smallest thread count", .logx = true, .note = note,
			.vline = virt ? 0 : cores, .ideal = true, .nr_series = nm, .series = sp,
		};
		const char *names[2] = { "throughput", "speedup" };
		const struct rt_plot *pls[2] = { &tp, &spp };

		for (int k = 0; k < 2; k++) {
			int err;

			snprintf(base, sizeof(base), "%s/%s-%s", dir, prefix, names[k]);
			err = rt_plot_write(pls[k], base);
			if (err)
				return err;
			if (written) {
				snprintf(path, sizeof(path), "%s.svg", base);
				json_array_append_new(written, json_string(path));
				snprintf(path, sizeof(path), "%s.png", base);
				json_array_append_new(written, json_string(path));
			}
		}
	}
	return 0;
}

int rt_report_plots(const json_t *rec, const char *dir, const char *prefix, json_t *written)
{
	const char *kind = jstr(rec, "kind", "");

	if (!strcmp(kind, "scale"))
		return scale_plots(rec, dir, prefix, written);
	if (!strcmp(kind, "bench") || !strcmp(kind, "bench-vm"))
		return bench_plots(rec, dir, prefix, written);
	return -EINVAL;
}

/* ---- compare ---- */

static int compare_one(FILE *out, const char *mode, const char *metric, double cur, double base,
		       bool higher_better, double threshold_pct)
{
	double ratio = cur / base;
	bool bad;
	char a[32], b[32];

	if (!isfinite(cur) || !isfinite(base))
		return -1;
	if (base == 0)
		bad = !higher_better && cur > 0;
	else
		bad = higher_better ? ratio < 1 - threshold_pct / 100 : ratio > 1 + threshold_pct / 100;
	fprintf(out, "%-10s %-34s %14s %14s %8.2fx  %s%s\n", mode, metric, fmt(a, sizeof(a), base),
		fmt(b, sizeof(b), cur), base == 0 ? (cur == 0 ? 1.0 : INFINITY) : ratio,
		higher_better ? "(higher is better)" : "(lower is better)", bad ? "  REGRESSION" : "");
	return bad;
}

int rt_report_compare(const json_t *cur, const json_t *base, double threshold_pct, FILE *out)
{
	const char *modes[MAX_MODES];
	int nm = record_modes(cur, modes), compared = 0, bad = 0;
	const json_t *cm = jget(cur, "machine"), *bm = jget(base, "machine");

	fprintf(out, "compare with the baseline of %s (git %s, %d cores, %s); threshold %.0f%%\n",
		jstr(base, "date", "?"), jstr(base, "git", "?"), (int)jnum(bm, "cores"),
		jstr(bm, "model", "?"), threshold_pct);
	if (jnum(cm, "cores") != jnum(bm, "cores") ||
	    strcmp(jstr(cm, "model", ""), jstr(bm, "model", "")))
		fputs("warning: the baseline comes from another machine: ratios compare machines too\n", out);
	if (jnum(cur, "quick") != jnum(base, "quick") ||
	    json_is_true(jget(cur, "quick")) != json_is_true(jget(base, "quick")))
		fputs("warning: one of the two is a --quick run: sizes differ\n", out);
	if (partial(cur) || partial(base))
		fputs("warning: one of the two is PARTIAL (interrupted): fewer samples, some metrics"
		      " missing\n", out);
	fprintf(out, "%-10s %-34s %14s %14s %9s\n", "rmap", "metric", "baseline", "now", "ratio");
	for (int d = 0; d < nm; d++) {
		const json_t *c = jget(jget(cur, "designs"), modes[d]);
		const json_t *b = jget(jget(base, "designs"), modes[d]);
		const char *key;
		json_t *v;

		if (!b)
			continue;
		json_object_foreach((json_t *)c, key, v) {
			size_t len = strlen(key);
			bool per_sec = len > 8 && strstr(key, "_per_sec");
			bool bytes = !strncmp(key, "rmap_bytes_per_", 15);
			int r;

			if (!json_is_number(v) || (!per_sec && !bytes))
				continue;
			r = compare_one(out, modes[d], key, json_number_value(v), jnum(b, key), per_sec,
					threshold_pct);
			if (r >= 0) {
				compared++;
				bad += r;
			}
		}
		for (size_t g = 0; g < sizeof(unmap_groups) / sizeof(unmap_groups[0]); g++) {
			const json_t *cg = jget(jget(c, "try_to_unmap_ns"), unmap_groups[g].key);
			const json_t *bg = jget(jget(b, "try_to_unmap_ns"), unmap_groups[g].key);

			json_object_foreach((json_t *)cg, key, v) {
				char metric[96];
				int r;

				snprintf(metric, sizeof(metric), "try_to_unmap_ns.%s.%s",
					 unmap_groups[g].key, key);
				r = compare_one(out, modes[d], metric, json_number_value(v), jnum(bg, key),
						false, threshold_pct);
				if (r >= 0) {
					compared++;
					bad += r;
				}
			}
		}
	}
	if (!compared) {
		fprintf(stderr, "rmaptorture: bench --compare: the baseline shares no metric with this run\n");
		return -EINVAL;
	}
	fprintf(out, "%d metrics compared, %d regressions beyond %.0f%%\n", compared, bad, threshold_pct);
	return bad;
}
