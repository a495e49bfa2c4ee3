// SPDX-License-Identifier: MIT
/*
 * `bench --compare`: each figure of a `bench` record against a stored
 * baseline's, as ranges. A figure is the median of repeats, and each
 * record keeps the repeats' min..max ("spread"): on a loaded machine two
 * runs of the same build differ by more than any fixed threshold, so a
 * figure regressed only when this run's best repeat is worse than the
 * baseline's worst by more than the threshold (rt_compare_verdict()).
 * Rows that one record has and the other lacks (a design, a sweep point,
 * the host rows) are named, never skipped silently.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report-internal.h"

#define MAX_FIGURES	96

/* One figure of one design: its median and the repeats' range. */
struct figure {
	char name[80];
	double med, mn, mx;
	bool higher_better;
};

struct figures {
	struct figure f[MAX_FIGURES];
	int n;
};

int rt_compare_verdict(double base_min, double base_max, double cur_min, double cur_max,
		       bool higher_better, double threshold_pct)
{
	double t = threshold_pct / 100;

	if (higher_better) {
		if (cur_max < base_min * (1 - t))
			return 1;
		return cur_min > base_max * (1 + t) ? -1 : 0;
	}
	if (cur_min > base_max * (1 + t))
		return 1;
	return cur_max < base_min * (1 - t) ? -1 : 0;
}

int rt_report_quick(const json_t *rec)
{
	const json_t *q = jget(rec, "quick");

	return json_is_boolean(q) ? json_is_true(q) : -1;
}

int rt_report_dirty(const json_t *rec)
{
	const char *git = jstr(rec, "git", "unknown");
	size_t len = strlen(git);

	if (!strcmp(git, "unknown") || !*git)
		return -1;
	return len > 6 && !strcmp(git + len - 6, "-dirty");
}

/* Add figure @name to @fs: median @med, range @mn..@mx (the median alone where unknown). */
static void add_figure(struct figures *fs, const char *name, double med, double mn, double mx,
		       bool higher_better)
{
	struct figure *f;

	if (!isfinite(med) || fs->n >= MAX_FIGURES)
		return;
	f = &fs->f[fs->n++];
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->med = med;
	f->mn = isfinite(mn) ? mn : med;
	f->mx = isfinite(mx) ? mx : med;
	f->higher_better = higher_better;
}

/* The in-process rows: throughputs and rmap bytes, then try_to_unmap()'s costs. */
static void in_process_figures(const json_t *d, struct figures *fs)
{
	const json_t *sp = jget(d, "spread"), *v;
	const char *key;

	json_object_foreach((json_t *)d, key, v) {
		bool per_sec = strstr(key, "_per_sec") != NULL;

		if (!json_is_number(v) || (!per_sec && strncmp(key, "rmap_bytes_per_", 15)))
			continue;
		/* Bytes are counted, not timed: no spread, exact. */
		add_figure(fs, key, json_number_value(v), jnum(jget(sp, key), "min"),
			   jnum(jget(sp, key), "max"), per_sec);
	}
	for (size_t g = 0; g < sizeof(report_unmap_groups) / sizeof(report_unmap_groups[0]); g++) {
		const char *grp = report_unmap_groups[g].key;

		json_object_foreach((json_t *)jget(jget(d, "try_to_unmap_ns"), grp), key, v) {
			char name[80], sk[96];
			const json_t *s = jget(sp, report_spread_key(grp, key, sk, sizeof(sk)));

			snprintf(name, sizeof(name), "try_to_unmap_ns.%s.%s", grp, key);
			add_figure(fs, name, jnum(jget(jget(d, "try_to_unmap_ns"), grp), key),
				   jnum(s, "min"), jnum(s, "max"), false);
		}
	}
}

/*
 * model/host rate (higher is better): the machine's speed divided out. Its
 * range from both spreads: the model's worst over the host's best, and
 * the model's best over the host's worst.
 */
static void host_figures(const json_t *rec, const json_t *d, struct figures *fs)
{
	const json_t *sp = jget(d, "spread"), *hsp = jget(jget(rec, "host"), "spread"), *v;
	const char *key;

	json_object_foreach((json_t *)jget(d, "vs_host"), key, v) {
		char name[80];

		snprintf(name, sizeof(name), "vs_host.%s", key);
		add_figure(fs, name, jnum(jget(d, "vs_host"), key),
			   jnum(jget(sp, key), "min") / jnum(jget(hsp, key), "max"),
			   jnum(jget(sp, key), "max") / jnum(jget(hsp, key), "min"), true);
	}
}

/* The child runs' sweeps: parameter -> {median, min, max}; lower is better. */
static void sweep_figures(const json_t *d, const char *sweep, struct figures *fs)
{
	const json_t *v;
	const char *key;

	json_object_foreach((json_t *)jget(d, sweep), key, v) {
		char name[80];

		snprintf(name, sizeof(name), "%s.%s", sweep, key);
		add_figure(fs, name, jnum(v, "median"), jnum(v, "min"), jnum(v, "max"), false);
	}
}

static void design_figures(const json_t *rec, const char *mode, struct figures *fs)
{
	const json_t *d = jget(jget(rec, "designs"), mode);

	fs->n = 0;
	if (!d)
		return;
	in_process_figures(d, fs);
	host_figures(rec, d, fs);
	sweep_figures(d, "shm_rmap_bytes_per_mapped_page", fs);
	sweep_figures(d, "trylock_fallbacks_per_scan", fs);
}

static const struct figure *find_figure(const struct figures *fs, const char *name)
{
	for (int i = 0; i < fs->n; i++)
		if (!strcmp(fs->f[i].name, name))
			return &fs->f[i];
	return NULL;
}

/* "median (min..max)", or the median alone when the range is one value. */
static const char *fmt_range(char *buf, size_t len, const struct figure *f)
{
	char m[32], a[32], b[32];

	if (f->mn == f->mx)
		snprintf(buf, len, "%s", report_fmt(m, sizeof(m), f->med));
	else
		snprintf(buf, len, "%s (%s..%s)", report_fmt(m, sizeof(m), f->med),
			 report_fmt(a, sizeof(a), f->mn), report_fmt(b, sizeof(b), f->mx));
	return buf;
}

struct tally {
	int compared, worse, better;
};

static void compare_line(FILE *out, const char *mode, const struct figure *b,
			 const struct figure *c, double threshold_pct, struct tally *t)
{
	int v = rt_compare_verdict(b->mn, b->mx, c->mn, c->mx, c->higher_better, threshold_pct);
	char rb[96], rc[96];

	t->compared++;
	t->worse += v > 0;
	t->better += v < 0;
	fprintf(out, "%-10s %-40s %28s %28s %7.2fx  %s%s\n", mode, c->name,
		fmt_range(rb, sizeof(rb), b), fmt_range(rc, sizeof(rc), c),
		b->med == 0 ? (c->med == 0 ? 1.0 : INFINITY) : c->med / b->med,
		c->higher_better ? "higher is better" : "lower is better",
		v > 0 ? "  REGRESSION" : v < 0 ? "  better" : "");
}

/* "note: WHO lacks N rows of MODE: a, b, c" for the figures of @has that @lacks has not. */
static void note_lacking(FILE *out, const char *who, const char *mode, const struct figures *has,
			 const struct figures *lacks)
{
	int n = 0;

	for (int i = 0; i < has->n; i++)
		n += !find_figure(lacks, has->f[i].name);
	if (!n)
		return;
	fprintf(out, "note: %s lacks %d row%s of %s:", who, n, n > 1 ? "s" : "", mode);
	for (int i = 0, k = 0; i < has->n; i++)
		if (!find_figure(lacks, has->f[i].name))
			fprintf(out, "%s %s", k++ ? "," : "", has->f[i].name);
	fputs(": not compared\n", out);
}

/* The designs of @a that @b has no figure of, @sep between, into @buf. Return: how many. */
static int designs_lacking(const json_t *a, const json_t *b, char *buf, size_t len)
{
	const char *modes[MAX_MODES];
	int nm = report_modes(a, modes), n = 0;
	size_t at = 0;

	buf[0] = '\0';
	for (int d = 0; d < nm; d++) {
		if (jget(jget(b, "designs"), modes[d]))
			continue;
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", n++ ? ", " : "",
				       modes[d]);
	}
	return n;
}

/* What makes the two records compare less than alike: printed before the table. */
static void compare_warnings(const json_t *cur, const json_t *base, FILE *out)
{
	const json_t *cm = jget(cur, "machine"), *bm = jget(base, "machine");
	char list[256];

	if (jnum(cm, "cores") != jnum(bm, "cores") ||
	    strcmp(jstr(cm, "model", ""), jstr(bm, "model", "")))
		fputs("warning: the baseline comes from another machine: ratios compare machines too\n", out);
	if (rt_report_dirty(base) > 0)
		fprintf(out, "warning: the baseline was built from a dirty tree (git %s): its figures"
			" belong to no commit; measure baselines on a clean tree\n", jstr(base, "git", "?"));
	else if (rt_report_dirty(base) < 0)
		fputs("note: the baseline does not say whether its tree was clean (no git revision)\n", out);
	if (rt_report_quick(base) < 0 || rt_report_quick(cur) < 0)
		fprintf(out, "note: %s does not say whether it was --quick (an older record):"
			" compared as if alike\n", rt_report_quick(base) < 0 ? "the baseline" : "this run");
	if (report_partial(cur) || report_partial(base))
		fputs("warning: one of the two is PARTIAL (interrupted): fewer samples, some metrics"
		      " missing\n", out);
	if (designs_lacking(cur, base, list, sizeof(list)))
		fprintf(out, "note: the baseline lacks %s: not compared (measure a baseline of every"
			" design)\n", list);
	if (designs_lacking(base, cur, list, sizeof(list)))
		fprintf(out, "note: this run lacks %s of the baseline: not compared\n", list);
}

int rt_report_compare(const json_t *cur, const json_t *base, double threshold_pct, FILE *out)
{
	struct figures cf, bf;
	const char *modes[MAX_MODES];
	int nm = report_modes(cur, modes);
	struct tally t = { 0, 0, 0 };

	fprintf(out, "compare with the baseline of %s (git %s, %d cores, %s)\n"
		"rule: a figure regressed when this run's best repeat is worse than the baseline's"
		" worst by more than %g%% (median (min..max) of the repeats)\n",
		jstr(base, "date", "?"), jstr(base, "git", "?"), (int)jnum(jget(base, "machine"), "cores"),
		jstr(jget(base, "machine"), "model", "?"), threshold_pct);
	compare_warnings(cur, base, out);
	fprintf(out, "%-10s %-40s %28s %28s %8s\n", "rmap", "figure", "baseline", "now", "ratio");
	for (int d = 0; d < nm; d++) {
		if (!jget(jget(base, "designs"), modes[d]))
			continue;
		design_figures(cur, modes[d], &cf);
		design_figures(base, modes[d], &bf);
		for (int i = 0; i < cf.n; i++) {
			const struct figure *b = find_figure(&bf, cf.f[i].name);

			if (b)
				compare_line(out, modes[d], b, &cf.f[i], threshold_pct, &t);
		}
		note_lacking(out, "the baseline", modes[d], &cf, &bf);
		note_lacking(out, "this run", modes[d], &bf, &cf);
	}
	if (!t.compared) {
		fprintf(stderr, "rmaptorture: bench --compare: the baseline shares no figure with this run\n");
		return -EINVAL;
	}
	fprintf(out, "%d figures compared: %d regressions, %d better, beyond the spread by more than %g%%\n",
		t.compared, t.worse, t.better, threshold_pct);
	return t.worse;
}
