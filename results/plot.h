/* SPDX-License-Identifier: MIT */
/*
 * Line plots through gnuplot: one line per series, written as SVG and PNG
 * (pngcairo when gnuplot has it, else libgd's png), each file atomically
 * (gnuplot writes a temporary name that is renamed). Knows nothing of
 * what is plotted.
 */
#ifndef RT_RESULTS_PLOT_H
#define RT_RESULTS_PLOT_H

#include <stdbool.h>

/* One line: @n points (@x[i], @y[i]); a NaN y leaves a gap. */
struct rt_plot_series {
	const char *name;
	int n;
	const double *x, *y;
};

struct rt_plot {
	const char *title, *xlabel, *ylabel;
	bool logx, logy;
	/* Extra line under the title (e.g. the core count); may be NULL. */
	const char *note;
	/* Draw y = x / x[0] of the first series as a dashed "ideal" line. */
	bool ideal;
	/* A vertical dashed line at this x when > 0 (the number of cores). */
	double vline;
	int nr_series;
	const struct rt_plot_series *series;
};

/* Whether @s has a point to draw (a partial record's series may have none). */
bool rt_plot_series_drawn(const struct rt_plot_series *s);

/* True when a gnuplot executable is on $PATH. */
bool rt_plot_available(void);

/**
 * rt_plot_write() - draw @p into @base.svg and @base.png
 * @p: the plot; a series with no point to draw is left out, and at least
 *	one must have one
 * @base: output path without extension
 *
 * Context: runs gnuplot as a child process and waits for it.
 * Return: 0, or -errno / -EIO with a message printed naming @base.
 */
int rt_plot_write(const struct rt_plot *p, const char *base);

#endif /* RT_RESULTS_PLOT_H */
