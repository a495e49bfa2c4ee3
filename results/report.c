// SPDX-License-Identifier: MIT
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
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

/* The key of a try_to_unmap() row's min..max in a design's "spread". */
const char *report_spread_key(const char *group, const char *param, char *buf, size_t len)
{
	snprintf(buf, len, "try_to_unmap_ns_%s_%s", !strcmp(group, "by_sharers") ? "sharers" :
		 !strcmp(group, "by_sharers_anon") ? "sharers_anon" : "vmas", param);
	return buf;
}

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

void rt_report_transfer_pairs(const json_t *probe, char *buf, size_t len)
{
	const json_t *p;
	size_t i, used = 0;

	buf[0] = '\0';
	json_array_foreach(jget(probe, "pairs"), i, p) {
		const json_t *c = jget(p, "cpus"), *ns = jget(p, "ns");
		int w = json_is_number(ns) ?
			snprintf(buf + used, len - used, "%sCPU %d-%d %.0f ns", i ? ", " : "",
				 (int)json_integer_value(json_array_get(c, 0)),
				 (int)json_integer_value(json_array_get(c, 1)), json_number_value(ns)) :
			snprintf(buf + used, len - used, "%sCPU %d-%d not measured", i ? ", " : "",
				 (int)json_integer_value(json_array_get(c, 0)),
				 (int)json_integer_value(json_array_get(c, 1)));

		if (w < 0 || (size_t)w >= len - used)
			return;
		used += (size_t)w;
	}
}

/*
 * The machine's cache-line transfer time at the start and end of a sweep
 * (cpu_transfer), where the record has it: what a line two CPUs write
 * costs here, and on a VM it moves with the host's placement of the vCPUs.
 */
void report_put_transfer(FILE *out, const json_t *rec)
{
	const json_t *x = jget(rec, "cpu_transfer"), *reps = jget(x, "repeats"), *r;
	char a[256], b[256];
	size_t i;

	if (!json_is_object(x) || !json_is_object(jget(x, "start")))
		return;
	rt_report_transfer_pairs(jget(x, "start"), a, sizeof(a));
	rt_report_transfer_pairs(jget(x, "end"), b, sizeof(b));

	fprintf(out, "> One cache line from one CPU to another: %s at the start, %s at the end",
		a, b[0] ? b : "–");
	if (json_array_size(reps)) {
		fputs("; at each repeat's start", out);
		json_array_foreach(reps, i, r) {
			if (json_is_number(r))
				fprintf(out, "%s %.0f", i ? "," : "", json_number_value(r));
			else
				fprintf(out, "%s –", i ? "," : "");
		}
		fputs(" ns", out);
	}
	fputs(" (two pinned threads passing a token; `cpu_transfer` in the record). Every line"
	      " that two CPUs write pays it, `--sched vtime` only with `--vtime-transfer`, and on a virtual"
	      " machine it moves with the host's placement of the vCPUs: compare a sweep's"
	      " points near one figure.\n\n", out);
}
