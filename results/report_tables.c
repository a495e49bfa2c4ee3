// SPDX-License-Identifier: MIT
/* `report`'s Markdown tables and CSV of `scale` and `bench` records. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "report-internal.h"

/* "median (min .. max)" of a stat object, or of a value and a {min, max}. */
static void put_spread(FILE *out, double med, double mn, double mx)
{
	char a[32], b[32], c[32];

	if (isfinite(mn) && isfinite(mx))
		fprintf(out, " %s (%s .. %s) |", report_fmt(a, sizeof(a), med), report_fmt(b, sizeof(b), mn),
			report_fmt(c, sizeof(c), mx));
	else
		fprintf(out, " %s |", report_fmt(a, sizeof(a), med));
}

static void put_stat(FILE *out, const json_t *st)
{
	put_spread(out, jnum(st, "median"), jnum(st, "min"), jnum(st, "max"));
}

/* The partial record's warning; a scale record also says how many of its runs it holds. */
static void put_partial(FILE *out, const json_t *rec)
{
	const json_t *points = jget(rec, "points"), *p;
	int done = 0;
	size_t i;

	if (!report_partial(rec))
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
		report_fmt(a, sizeof(a), jnum(rec, "seconds")), virt ? "virtual " : "");
	put_meta(out, rec);
	report_put_transfer(out, rec);
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
		virt ? " dominant waiting lock (share of CPU time) | lines moved per op |"
		       " real s per point |" : "",
		virt ? "---|---:|---:|" : "");
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
		fprintf(out, " %s | %s |", report_fmt(a, sizeof(a), jnum(p, "speedup")),
			report_fmt(b, sizeof(b), jnum(p, "efficiency")));
		put_stat(out, jget(p, "fallbacks_per_scan"));
		fprintf(out, " %s |", report_fmt(c, sizeof(c), jnum(jget(p, "fallbacks_per_kop"), "median")));
		if (top)
			fprintf(out, " %s %.3g |", top, topv);
		else
			fputs(" none |", out);
		if (virt)
			fprintf(out, " %s %.1f%% | %s | %s |", jstr(p, "dominant_wait", "none"),
				100 * jnum(p, "dominant_wait_share"),
				report_fmt(b, sizeof(b), jnum(p, "lines_per_op")),
				report_fmt(a, sizeof(a), jnum(jget(p, "real_seconds"), "median")));
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
			fprintf(out, " %s |", report_fmt(a, sizeof(a), jnum(jget(p, "contention"), classes[k])));
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

	if (strcmp(rt_record_kind(rec) ?: "", "scale") || !json_is_array(points))
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
			report_partial(rec) ? "; PARTIAL (interrupted)" : "");
	else
		fprintf(out, "# rmaptorture scale, git %s, %s, %d cores (%s): above %d threads speedup"
			" measures oversubscription%s\n", jstr(rec, "git", "?"), jstr(rec, "date", "?"),
			cores, jstr(jget(rec, "machine"), "model", "?"), cores,
			report_partial(rec) ? "; PARTIAL (interrupted)" : "");
	fputs("rmap,threads,cores,repeats,ops_per_sec_median,ops_per_sec_min,ops_per_sec_max,"
	      "ops_per_sec_q1,ops_per_sec_q3,speedup,efficiency,fallbacks_per_scan_median,"
	      "fallbacks_per_kop_median,failures", out);
	if (virt)
		fputs(",virtual,dominant_wait,dominant_wait_share,real_seconds_median,lines_per_op", out);
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
			fprintf(out, ",1,%s,%.6g,%.6g,%.6g", jstr(p, "dominant_wait", "none"),
				jnum(p, "dominant_wait_share"), jnum(jget(p, "real_seconds"), "median"),
				jnum(p, "lines_per_op"));
		for (int k = 0; k < nc; k++)
			fprintf(out, ",%.6g", jnum(jget(p, "contention"), classes[k]));
		fputc('\n', out);
	}
	return 0;
}

/* ---- bench ---- */

static const struct bench_row tput_rows[] = {
	{ "anon_faults_per_sec", "anonymous faults/s (fault, then unmap)" },
	{ "file_faults_per_sec", "file faults/s (page cached, mapped elsewhere)" },
	{ "fork_exit_per_sec", "fork+exit/s, 1,000 touched pages" },
	{ "exit_per_sec", "exit/s, 1,000 touched pages" },
	{ "fork_exit_per_sec_10000", "fork+exit/s, 10,000 touched pages" },
	{ "exit_per_sec_10000", "exit/s, 10,000 touched pages" },
};

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
	return b->dj[0] ? report_numeric_keys(jget(b->dj[0], field), keys) : 0;
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
			fprintf(out, " %s |", report_fmt(a, sizeof(a),
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

		fprintf(out, "| %s (%s) | %.2f GB | %.2f GB |\n", report_fmt(a, sizeof(a), v), b->modes[d],
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
		 report_fmt(a, sizeof(a), jnum(b->rec, "run_seconds")), (int)jnum(b->rec, "shm_threads"));
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

/* b'. the host kernel's figures and each design's model/host rate (records that have them). */
static void bench_host(const struct bench_md *b)
{
	const json_t *host = jget(b->rec, "host");
	char a[32];

	if (!host || !isfinite(jnum(host, "anon_faults_per_sec")))
		return;
	fputs("### The host kernel as a reference (same run; model/host rate, higher is better)\n\n"
	      "Real anonymous faults (mmap, one write per page, munmap) and real fork+exit (the child"
	      " `_exit(0)`s, the parent `waitpid()`s) of this machine's kernel, interleaved with the"
	      " model's samples; each design's cell is model rate / host rate (= host time / model"
	      " time per operation).\n\n| operation | host |", b->out);
	for (int d = 0; d < b->nm; d++)
		fprintf(b->out, " %s |", b->modes[d]);
	fputs("\n|---|---:|", b->out);
	for (int d = 0; d < b->nm; d++)
		fputs("---:|", b->out);
	fputc('\n', b->out);
	for (size_t r = 0; r < sizeof(tput_rows) / sizeof(tput_rows[0]); r++) {
		const json_t *sp = jget(jget(host, "spread"), tput_rows[r].key);

		if (!isfinite(jnum(host, tput_rows[r].key)))
			continue;
		fprintf(b->out, "| %s |", tput_rows[r].label);
		put_spread(b->out, jnum(host, tput_rows[r].key), jnum(sp, "min"), jnum(sp, "max"));
		for (int d = 0; d < b->nm; d++)
			fprintf(b->out, " %sx |", report_fmt(a, sizeof(a),
				jnum(jget(b->dj[d], "vs_host"), tput_rows[r].key)));
		fputc('\n', b->out);
	}
	fputc('\n', b->out);
}

/* e. disjoint-mm scaling: ns per operation per CPU by CPUs, ratio to one CPU and verdict. */
static void bench_scaling(const struct bench_md *b)
{
	static const char *const ops[][2] = {
		{ "anon_fault_ns", "anonymous fault+unmap (shares the zone, as 2.6 did)" },
		{ "fork_exit_ns", "fork+exit, 1,000 pages (shares the zone, as 2.6 did)" },
		{ "mmap_munmap_ns", "mmap+munmap, untouched (shares nothing by design)" },
		{ "touch_ns", "write to a mapped page (shares nothing by design)" },
	};
	const char *keys[MAX_POINTS];
	char a[4][32];
	int nk = b->dj[0] ? report_numeric_keys(jget(jget(b->dj[0], "disjoint_scaling"), ops[0][0]),
						keys) : 0;

	if (!nk)
		return;
	fprintf(b->out, "### Disjoint-mm scaling (ns per operation per CPU, lower is better; verdict %s)\n\n"
		"N CPUs, each in its own mm: the cost must not grow with N. Cell: median (min .. max),"
		" ratio to N=1, FLAG where the cost grew beyond the spread of the repeats; the CPU"
		" time of the CPUs' own threads where the record has it (wall time before).\n\n",
		jstr(jget(b->rec, "scaling"), "verdict", "?"));
	for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
		if (!jget(jget(b->dj[0], "disjoint_scaling"), ops[o][0]))
			continue;	/* an older record */
		fprintf(b->out, "%s:\n\n", ops[o][1]);
		bench_header(b->out, "CPUs", (const char **)b->modes, b->nm, false);
		for (int k = 0; k < nk; k++) {
			fprintf(b->out, "| %s |", keys[k]);
			for (int d = 0; d < b->nm; d++) {
				const json_t *p = jget(jget(jget(b->dj[d], "disjoint_scaling"), ops[o][0]),
						       keys[k]);

				fprintf(b->out, " %s (%s .. %s), %sx %s |",
					report_fmt(a[0], sizeof(a[0]), jnum(p, "median")),
					report_fmt(a[1], sizeof(a[1]), jnum(p, "min")),
					report_fmt(a[2], sizeof(a[2]), jnum(p, "max")),
					report_fmt(a[3], sizeof(a[3]), jnum(p, "ratio")), jstr(p, "verdict", "?"));
			}
			fputc('\n', b->out);
		}
		fputc('\n', b->out);
	}
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
		const json_t *sp = jget(jget(b->dj[d], "spread"), report_spread_key(grp, key, sk, sizeof(sk)));

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
		" of clock_gettime)\n\n", report_fmt(a, sizeof(a), jnum(b->rec, "timer_overhead_ns")));
	for (size_t g = 0; g < sizeof(report_unmap_groups) / sizeof(report_unmap_groups[0]); g++) {
		const char *grp = report_unmap_groups[g].key;
		int nk = b->dj[0] ? report_numeric_keys(jget(jget(b->dj[0], "try_to_unmap_ns"), grp), keys) : 0;

		if (!nk)
			continue;
		fprintf(out, "%s:\n\n", report_unmap_groups[g].label);
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
		 " --threads %d --reclaim-threads R`.\n\n", report_fmt(a, sizeof(a), jnum(b->rec, "run_seconds")),
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

	b.nm = report_modes(rec, b.modes);
	for (int d = 0; d < b.nm; d++)
		b.dj[d] = jget(designs, b.modes[d]);
	fprintf(out, "## bench: the rmap designs side by side, median (min .. max) of %d interleaved repeats\n\n",
		(int)jnum(rec, "repeat"));
	put_meta(out, rec);
	bench_memory(&b);
	bench_throughput(&b);
	bench_host(&b);
	bench_unmap(&b);
	bench_fallbacks(&b);
	bench_scaling(&b);
	return 0;
}

int rt_report_markdown(const json_t *rec, FILE *out)
{
	const char *kind = rt_record_kind(rec) ?: "";

	if (!strcmp(kind, "scale"))
		return scale_markdown(rec, out);
	if (!strcmp(kind, "bench") || !strcmp(kind, "bench-vm"))
		return bench_markdown(rec, out);
	return -EINVAL;
}
