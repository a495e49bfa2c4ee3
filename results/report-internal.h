/* SPDX-License-Identifier: MIT */
/*
 * Between the files of `report` (report.h): report.c (statistics, what
 * every part reads from a record, the transfer note), report_compare.c
 * (the comparison with a baseline), report_tables.c (Markdown and CSV)
 * and report_plots.c (gnuplot).
 */
#ifndef RT_RESULTS_REPORT_INTERNAL_H
#define RT_RESULTS_REPORT_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#define MAX_MODES	8
#define MAX_POINTS	64

/* ---- reading records ---- */

static inline double jnum(const json_t *o, const char *key)
{
	json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static inline const char *jstr(const json_t *o, const char *key, const char *dflt)
{
	json_t *v = o ? json_object_get(o, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : dflt;
}

static inline const json_t *jget(const json_t *o, const char *key)
{
	return o ? json_object_get(o, key) : NULL;
}

/* The designs of a record in its order ("modes"), else the keys of "designs". */
int report_modes(const json_t *rec, const char *modes[MAX_MODES]);

/* The sorted numeric keys of the object @o ("1", "10", "100"...). */
int report_numeric_keys(const json_t *o, const char *keys[MAX_POINTS]);

/* The key of a try_to_unmap() row's min..max in a design's "spread" (into @buf). */
const char *report_spread_key(const char *group, const char *param, char *buf, size_t len);

/* A number for a table: as many digits as it deserves (written into @buf). */
const char *report_fmt(char *buf, size_t len, double v);

/* An interrupted `scale` or `bench`: its record holds only the samples taken before. */
bool report_partial(const json_t *rec);

/*
 * The machine's cache-line transfer times of a scale record (cpu_transfer:
 * start, each repeat, end) as a Markdown note; nothing where it has none.
 */
void report_put_transfer(FILE *out, const json_t *rec);

struct bench_row {
	const char *key, *label;
};

/* try_to_unmap()'s cost groups of a `bench` record. */
extern const struct bench_row report_unmap_groups[3];

#endif /* RT_RESULTS_REPORT_INTERNAL_H */
