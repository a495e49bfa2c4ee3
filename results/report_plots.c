// SPDX-License-Identifier: MIT
/* `report`'s plots of `scale` and `bench` records (gnuplot, plot.h). */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot.h"
#include "record.h"
#include "report-internal.h"

/* ---- plots ---- */

/* @field (in @group) of every design against its keys. Return: 0, 1 nothing to draw, or -errno. */
static int plot_keyed(const json_t *rec, const char *field, const char *group, bool stat,
		      struct rt_plot *pl, const char *base)
{
	const json_t *designs = jget(rec, "designs");
	const char *modes[MAX_MODES], *keys[MAX_POINTS];
	struct rt_plot_series s[MAX_MODES];
	double x[MAX_MODES][MAX_POINTS], y[MAX_MODES][MAX_POINTS];
	int nm = report_modes(rec, modes), nk = 0;

	for (int d = 0; d < nm; d++) {
		const json_t *o = jget(jget(designs, modes[d]), field);

		if (group)
			o = jget(o, group);
		nk = report_numeric_keys(o, keys);
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
		 report_partial(rec) ? "PARTIAL (interrupted): " : "", jstr(rec, "git", "?"),
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
	int nm = report_modes(rec, modes), cores = (int)jnum(rec, "cores");
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
			 report_partial(rec) ? "PARTIAL (interrupted): " : "", jstr(rec, "scenario", "?"),
			 jstr(rec, "git", "?"), jstr(rec, "vtime_cost", "model"));
	else
		snprintf(note, sizeof(note), "%sscenario %s, git %s, %d cores: right of the line, speedup"
			 " measures oversubscription", report_partial(rec) ? "PARTIAL (interrupted): " : "",
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
	const char *kind = rt_record_kind(rec) ?: "";

	if (!strcmp(kind, "scale"))
		return scale_plots(rec, dir, prefix, written);
	if (!strcmp(kind, "bench") || !strcmp(kind, "bench-vm"))
		return bench_plots(rec, dir, prefix, written);
	return -EINVAL;
}
