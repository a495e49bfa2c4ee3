/* SPDX-License-Identifier: MIT */
/*
 * The numbers, from result records: statistics of repeated samples,
 * Markdown tables and CSV of `scale` and `bench` records, their plots, and
 * the comparison of a `bench` record with a stored baseline. Works from
 * the JSON alone, so `report` renders a record from another machine.
 */
#ifndef RT_RESULTS_REPORT_H
#define RT_RESULTS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/* Median and spread of a set of samples. */
struct rt_stat {
	int n;
	double median, min, max, q1, q3;
};

/* Statistics of the @n samples @v (@v is not changed); n = 0 gives NaNs. */
void rt_stat_of(const double *v, int n, struct rt_stat *st);

/* {"median", "min", "max", "q1", "q3", "n"} */
json_t *rt_stat_json(const struct rt_stat *st);

/* The system load average (1, 5, 15 min) as a JSON array; [] if unknown. */
json_t *rt_load_average(void);

/**
 * rt_write_text() - write @len bytes of @text to @path atomically
 * Return: 0, or -errno with a message printed naming @path.
 */
int rt_write_text(const char *path, const char *text, size_t len);

/*
 * "CPU 0-1 229 ns, CPU 0-8 310 ns": the pairs of a cache-line transfer
 * probe (scale's cpu_transfer start/end; stress/bench/bench_transfer.c),
 * "CPU a-b not measured" for a pair without a figure; "" for none.
 */
void rt_report_transfer_pairs(const json_t *probe, char *buf, size_t len);

/**
 * rt_report_markdown() - Markdown tables of a `scale` or `bench` record
 * @rec: the record (its "kind" chooses the layout)
 * @out: where to write
 * Return: 0, or -EINVAL when @rec is not a scale or bench record.
 */
int rt_report_markdown(const json_t *rec, FILE *out);

/* One CSV row per (rmap, threads) of a `scale` record, with a header. Return: 0 or -EINVAL. */
int rt_report_csv(const json_t *rec, FILE *out);

/**
 * rt_report_plots() - draw the plots of a `scale` or `bench` record
 * @rec: the record
 * @dir: output directory (exists)
 * @prefix: file name prefix ("scale", "bench", or a report's own)
 * @written: paths of the files drawn are appended here (may be NULL)
 *
 * Context: runs gnuplot (rt_plot_write()).
 * Return: 0, -EINVAL for another kind of record, or rt_plot_write()'s error.
 */
int rt_report_plots(const json_t *rec, const char *dir, const char *prefix, json_t *written);

/**
 * rt_compare_verdict() - one figure of a run against the baseline's, as
 * ranges: the min..max of each record's repeats
 * @base_min: the baseline's worst or best repeat, whichever is lower
 * @base_max: ... and higher
 * @cur_min: this run's lowest repeat
 * @cur_max: this run's highest repeat
 * @higher_better: a throughput (true) or a cost (false)
 * @threshold_pct: the margin beyond the ranges, in percent
 *
 * The rule: regressed when this run's best repeat is worse than the
 * baseline's worst by more than @threshold_pct (throughput: @cur_max <
 * @base_min * (1 - t); cost: @cur_min > @base_max * (1 + t)); better in
 * the mirror case; anything else, overlapping ranges included, is noise.
 *
 * Return: 1 regressed, -1 better, 0 within the noise.
 */
int rt_compare_verdict(double base_min, double base_max, double cur_min, double cur_max,
		       bool higher_better, double threshold_pct);

/* Whether @rec is of a --quick run: 1 yes, 0 no, -1 unknown (a record without "quick"). */
int rt_report_quick(const json_t *rec);

/*
 * Whether @rec was measured by a build of a dirty tree, from its "git"
 * (git describe --dirty at build time): 1 dirty, 0 clean, -1 unknown.
 */
int rt_report_dirty(const json_t *rec);

/**
 * rt_report_compare() - each `bench` figure of @cur against @base's
 * @cur: this run's bench record
 * @base: the baseline bench record (of a run as --quick as @cur: the
 *	caller refuses the others)
 * @threshold_pct: the margin of rt_compare_verdict()
 * @out: the rule, the warnings (another machine, a dirty or partial
 *	baseline), one line per figure and design with both ranges and the
 *	verdict, the designs and rows either record lacks, and a summary
 *
 * Return: the number of regressions, or -EINVAL when the records share
 * no figure (message printed).
 */
int rt_report_compare(const json_t *cur, const json_t *base, double threshold_pct, FILE *out);

#endif /* RT_RESULTS_REPORT_H */
