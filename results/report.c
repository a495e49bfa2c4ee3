// SPDX-License-Identifier: MIT
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record.h"
#include "report-internal.h"

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

/* The designs of a record in its order ("modes"), else the keys of "designs". */
int report_modes(const json_t *rec, const char *modes[MAX_MODES])
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
const char *report_fmt(char *buf, size_t len, double v)
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

/* An interrupted `scale` or `bench`: its record holds only the samples taken before. */
bool report_partial(const json_t *rec)
{
	return json_is_true(jget(rec, "interrupted"));
}

const struct bench_row report_unmap_groups[3] = {
	{ "by_sharers", "file page, processes sharing it" },
	{ "by_sharers_anon", "anonymous page, processes sharing it (forked)" },
	{ "by_vmas", "file page, vmas of the file not mapping it" },
};

/* The sorted numeric keys of the object @o ("1", "10", "100"...). */
int report_numeric_keys(const json_t *o, const char *keys[MAX_POINTS])
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
	fprintf(out, "%-10s %-34s %14s %14s %8.2fx  %s%s\n", mode, metric, report_fmt(a, sizeof(a), base),
		report_fmt(b, sizeof(b), cur), base == 0 ? (cur == 0 ? 1.0 : INFINITY) : ratio,
		higher_better ? "(higher is better)" : "(lower is better)", bad ? "  REGRESSION" : "");
	return bad;
}

int rt_report_compare(const json_t *cur, const json_t *base, double threshold_pct, FILE *out)
{
	const char *modes[MAX_MODES];
	int nm = report_modes(cur, modes), compared = 0, bad = 0;
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
	if (report_partial(cur) || report_partial(base))
		fputs("warning: one of the two is PARTIAL (interrupted): fewer samples, some metrics"
		      " missing\n", out);
	if (jget(cur, "host") && !jget(base, "host"))
		fputs("note: the baseline has no host kernel rows: vs_host (model/host rate) not compared\n",
		      out);
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
		for (size_t g = 0; g < sizeof(report_unmap_groups) / sizeof(report_unmap_groups[0]); g++) {
			const json_t *cg = jget(jget(c, "try_to_unmap_ns"), report_unmap_groups[g].key);
			const json_t *bg = jget(jget(b, "try_to_unmap_ns"), report_unmap_groups[g].key);

			json_object_foreach((json_t *)cg, key, v) {
				char metric[96];
				int r;

				snprintf(metric, sizeof(metric), "try_to_unmap_ns.%s.%s",
					 report_unmap_groups[g].key, key);
				r = compare_one(out, modes[d], metric, json_number_value(v), jnum(bg, key),
						false, threshold_pct);
				if (r >= 0) {
					compared++;
					bad += r;
				}
			}
		}
		/* model/host rate: the machine's speed divided out (a baseline before issue 27 has none). */
		json_object_foreach((json_t *)jget(c, "vs_host"), key, v) {
			char metric[96];
			int r;

			snprintf(metric, sizeof(metric), "vs_host.%s", key);
			r = compare_one(out, modes[d], metric, jnum(jget(c, "vs_host"), key),
					jnum(jget(b, "vs_host"), key), true, threshold_pct);
			if (r >= 0) {
				compared++;
				bad += r;
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
