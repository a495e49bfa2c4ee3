// SPDX-License-Identifier: MIT
/*
 * `rmaptorture matrix`: the detection matrix. Every seeded bug of the
 * catalogue (stress/rt_inject.c) runs in its own scenario, design,
 * schedule and build, as a child that stops at its first failure; the
 * matrix records whether its expected detector caught it, which detector
 * fired first and how long it took. Then the same configurations run
 * without the bug and must report nothing. A harness that says "clean" is
 * only worth what it would have caught.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "die.h"
#include "record.h"
#include "rt_child.h"
#include "commands.h"
#include "rt_inject.h"
#include "rt_opt.h"

#define MATRIX_BOUND_S	30.0	/* every bug within this */
#define MATRIX_MEDIAN_S	5.0	/* the median under this */

struct matrix_opts {
	struct rt_common_opts common;	/* --out, --no-build, --quiet */
	const char *only;	/* comma-separated bug names, or NULL: all */
};

struct matrix_row {
	const struct rt_bug *bug;
	bool ran, detected, clean;
	char fired[32];		/* the kind of the first report, "" if none */
	char signature[192];
	char reproduce[1024];
	char clean_report[192];	/* the report the clean run made, if any */
	double seconds;		/* to detection (the report's elapsed_s, else the run's wall) */
};

static void matrix_usage(FILE *f)
{
	fputs("usage: rmaptorture matrix [OPTIONS]\n"
	      "\n"
	      "The detection matrix: run every seeded bug ('rmaptorture list --bugs') in its\n"
	      "scenario, rmap design, schedule and build (sanitizer builds are found or built),\n"
	      "stopping at the first failure; record whether the expected detector caught it,\n"
	      "the detector that fired first and the time to detection. Then run the same\n"
	      "configurations without the bug: they must report nothing. Writes matrix.json and\n"
	      "matrix.md into --out DIR and prints the table.\n"
	      "\n"
	      "  -o, --out DIR       where the tables and every run's artifacts go\n"
	      "                      (default matrix-out)\n"
	      "  -b, --bugs LIST     only these bugs (comma-separated names)\n"
	      "      --no-build      fail instead of building a missing sanitizer build\n"
	      "  -q, --quiet         only the table\n"
	      "  -h, --help          this text\n"
	      "\n"
	      "Goal: every bug detected by its expected detector, each within 30 s and the\n"
	      "median under 5 s; no report without injection. Exit status: 0 the goal holds,\n"
	      "1 it does not, 2 bad usage, 3 internal error, 130 interrupted.\n", f);
}

static void parse_matrix_opts(int argc, char **argv, struct matrix_opts *o)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "bugs", required_argument, NULL, 'b' },
		{ "no-build", no_argument, NULL, RT_OPT_NO_BUILD },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	rt_common_opts_init(&o->common, "matrix", matrix_usage, 0);
	o->common.out_dir = "matrix-out";
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:b:qh", opts, NULL)) != -1) {
		if (c == 'b')
			o->only = optarg;	/* matrix's -b is --bugs */
		else
			rt_common_opt(&o->common, c, optarg, argv[optind - 1]);
	}
	if (optind < argc)
		rt_usage_error("matrix: unexpected argument '%s' (see 'rmaptorture matrix --help')",
			       argv[optind]);
	if (o->only) {
		char buf[1024], *save = NULL, *tok;

		snprintf(buf, sizeof(buf), "%s", o->only);
		for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			if (!rt_bug_find(tok))
				rt_usage_error("--bugs: unknown seeded bug '%s' (see 'rmaptorture list --bugs')",
					       tok);
	}
}

static bool wanted(const struct matrix_opts *o, const char *name)
{
	char buf[1024], *save = NULL, *tok;

	if (!o->only)
		return true;
	snprintf(buf, sizeof(buf), "%s", o->only);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

static json_t *bug_args(const struct rt_bug *bug, bool inject)
{
	struct rt_bug_args a;
	json_t *args = json_array();

	rt_bug_args(bug, inject, &a);
	for (int i = 0; i < a.argc; i++)
		json_array_append_new(args, json_string(a.argv[i]));
	/* The first failure is the finding: do not run on past it. */
	json_array_append_new(args, json_string("--halt-on-failure"));
	return args;
}

/* The artifact of the earliest report in @list (elapsed_s), or NULL. */
static json_t *first_report(json_t *list)
{
	json_t *best = NULL, *e;
	double best_t = INFINITY;
	size_t i;

	json_array_foreach(list, i, e) {
		json_t *art = json_object_get(e, "artifact");
		json_t *t = json_object_get(art, "elapsed_s");
		double s = t ? json_number_value(t) : 1e9;

		if (!best || s < best_t) {
			best = art;
			best_t = s;
		}
	}
	return best;
}

/* A report of the kind @bug expects among @list; its elapsed time in @secs. */
static json_t *expected_report(const struct rt_bug *bug, json_t *list, double *secs)
{
	json_t *best = NULL, *e;
	size_t i;

	json_array_foreach(list, i, e) {
		json_t *art = json_object_get(e, "artifact");
		const char *kind = json_string_value(json_object_get(art, "kind"));
		json_t *t = json_object_get(art, "elapsed_s");

		if (!kind || !rt_bug_kind_matches(bug->expect, kind))
			continue;
		if (!best || (t && json_number_value(t) < *secs)) {
			best = art;
			*secs = t ? json_number_value(t) : *secs;
		}
	}
	return best;
}

static int run_one(const struct matrix_opts *o, struct matrix_row *row, bool inject, int n,
		   struct rt_try_result *res)
{
	char binary[4096], workdir[4200];
	struct rt_try_config cfg;
	json_t *args = bug_args(row->bug, inject);
	int rc;

	if (rt_build_binary(row->bug->build, o->common.build_if_missing, binary, sizeof(binary))) {
		json_decref(args);
		return RT_CHILD_ERROR;
	}
	snprintf(workdir, sizeof(workdir), "%s/%s-%s", o->common.out_dir, row->bug->name,
		 inject ? "injected" : "clean");
	if (mkdir(workdir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rmaptorture: cannot create %s: %s\n", workdir, strerror(errno));
		json_decref(args);
		return RT_CHILD_ERROR;
	}
	cfg = (struct rt_try_config){
		.binary = binary,
		.build = row->bug->build,
		.workdir = workdir,
		/* Its own bound plus start-up, scaled for the sanitizer. */
		.timeout_s = (row->bug->seconds + 30) *
			     (!strcmp(row->bug->build, "tsan") ? 6 :
			      !strcmp(row->bug->build, "asan") ? 3 : 1),
	};
	rc = rt_try_run(&cfg, args, "", NULL, n, res);
	json_decref(args);
	return rc;
}

static void row_json(json_t *rows, const struct matrix_row *r)
{
	json_array_append_new(rows, json_pack(
		"{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:s, s:s, s:f, s:b, s:s, s:s}",
		"bug", r->bug->name,
		"scenario", r->bug->scenario,
		"rmap", rmap_mode_name(r->bug->rmap),
		"sched", r->bug->sched,
		"build", r->bug->build,
		"detector", r->bug->detector,
		"expect", r->bug->expect,
		"ran", r->ran,
		"detected", r->detected,
		"fired", r->fired,
		"signature", r->signature,
		"seconds_to_detection", r->seconds,
		"clean", r->clean,
		"clean_report", r->clean_report,
		"reproduce", r->reproduce));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void print_table(FILE *f, const struct matrix_row *rows, int nr)
{
	fprintf(f, "| bug | scenario | rmap | sched | build | expected | detected | fired first | seconds | clean without it |\n");
	fprintf(f, "|---|---|---|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < nr; i++) {
		const struct matrix_row *r = &rows[i];

		if (!r->ran)
			continue;
		fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | ", r->bug->name,
			r->bug->scenario, rmap_mode_name(r->bug->rmap), r->bug->sched,
			r->bug->build,
			r->bug->detector, r->detected ? "yes" : "**no**",
			r->fired[0] ? r->fired : "-");
		if (r->detected)
			fprintf(f, "%.2f", r->seconds);
		else
			fputs("-", f);
		fprintf(f, " | %s |\n", r->clean ? "yes" : "**no**");
	}
}

struct md_summary {
	const struct matrix_row *rows;
	int nr, nr_detected, nr_ran, nr_clean;
	double median, worst;
};

static int emit_md(FILE *f, void *arg)
{
	const struct md_summary *m = arg;

	print_table(f, m->rows, m->nr);
	fprintf(f, "\n%d of %d detected; median %.2f s, worst %.2f s; %d of %d clean without the bug.\n",
		m->nr_detected, m->nr_ran, m->median, m->worst, m->nr_clean, m->nr_ran);
	return ferror(f) ? -EIO : 0;
}

enum { ROW_DONE, ROW_INTERRUPTED, ROW_ERROR };

/* The bug of row @r (catalogue index @b) injected, then the same without it. */
static int run_row(const struct matrix_opts *o, struct matrix_row *r, int b)
{
	struct rt_try_result res;
	json_t *first, *hit;
	int rc;

	if (!o->common.quiet)
		fprintf(stderr, "matrix: %s (%s/%s/%s, %s build)...\n", r->bug->name,
			r->bug->scenario, rmap_mode_name(r->bug->rmap), r->bug->sched,
			r->bug->build);
	rc = run_one(o, r, true, b, &res);
	if (rc == RT_CHILD_INTERRUPTED)
		return ROW_INTERRUPTED;
	if (rc == RT_CHILD_ERROR) {
		rt_try_release(&res);
		return ROW_ERROR;
	}
	r->ran = true;
	first = first_report(res.artifacts);
	if (first)
		snprintf(r->fired, sizeof(r->fired), "%s",
			 json_string_value(json_object_get(first, "kind")));
	r->seconds = res.seconds;
	hit = expected_report(r->bug, res.artifacts, &r->seconds);
	if (hit) {
		r->detected = true;
		snprintf(r->signature, sizeof(r->signature), "%s",
			 json_string_value(json_object_get(hit, "signature")));
		snprintf(r->reproduce, sizeof(r->reproduce), "%s",
			 json_string_value(json_object_get(hit, "reproduce")));
	}
	rt_try_release(&res);

	rc = run_one(o, r, false, b, &res);
	if (rc == RT_CHILD_INTERRUPTED)
		return ROW_INTERRUPTED;
	first = first_report(res.artifacts);
	r->clean = rc == 0 && !first && res.rc == 0;
	if (first)
		snprintf(r->clean_report, sizeof(r->clean_report), "%s",
			 json_string_value(json_object_get(first, "signature")));
	else if (res.rc != 0)
		rt_child_rc_str(res.rc, r->clean_report, sizeof(r->clean_report));
	rt_try_release(&res);
	if (!o->common.quiet)
		fprintf(stderr, "matrix: %s: %s (first report: %s) in %.2f s; without it: %s%s\n",
			r->bug->name, r->detected ? "detected" : "NOT detected",
			r->fired[0] ? r->fired : "none", r->seconds,
			r->clean ? "clean" : "REPORTED ", r->clean ? "" : r->clean_report);
	return ROW_DONE;
}

/* The counts over the rows that ran, and the median and worst time to detection. */
static void summarise(struct md_summary *m)
{
	double *times = rt_calloc((size_t)m->nr + 1, sizeof(*times));
	int nr_times = 0;

	for (int i = 0; i < m->nr; i++) {
		const struct matrix_row *r = &m->rows[i];

		m->nr_ran += r->ran;
		m->nr_clean += r->clean;
		if (r->detected) {
			m->nr_detected++;
			times[nr_times++] = r->seconds;
		}
	}
	qsort(times, (size_t)nr_times, sizeof(*times), cmp_double);
	if (nr_times) {
		m->median = nr_times % 2 ? times[nr_times / 2] :
			    (times[nr_times / 2 - 1] + times[nr_times / 2]) / 2;
		m->worst = times[nr_times - 1];
	}
	free(times);
}

/* matrix.json and matrix.md in --out DIR. */
static void write_matrix(const struct matrix_opts *o, struct md_summary *m, bool goal)
{
	json_t *rec, *jrows = json_array();
	char path[4200];

	for (int i = 0; i < m->nr; i++)
		if (m->rows[i].ran)
			row_json(jrows, &m->rows[i]);
	rec = rt_record_new("matrix");
	json_object_update_new(rec, json_pack("{s:o, s:i, s:i, s:i, s:f, s:f, s:b}",
		"rows", jrows, "bugs", m->nr_ran, "detected", m->nr_detected, "clean", m->nr_clean,
		"median_seconds", m->median, "worst_seconds", m->worst, "goal_met", goal));
	snprintf(path, sizeof(path), "%s/matrix.json", o->common.out_dir);
	rt_record_write(rec, path);
	json_decref(rec);
	snprintf(path, sizeof(path), "%s/matrix.md", o->common.out_dir);
	rt_file_write_atomic(path, emit_md, m);
}

int cmd_matrix(int argc, char **argv)
{
	struct matrix_opts o;
	struct matrix_row *rows = rt_calloc((size_t)rt_bug_count(), sizeof(*rows));
	struct md_summary m = { .rows = rows };
	bool goal;

	parse_matrix_opts(argc, argv, &o);
	rt_opt_out_dir("--out", o.common.out_dir);
	rt_child_catch_interrupt();
	for (int b = 0; b < rt_bug_count(); b++) {
		struct matrix_row *r = &rows[m.nr++];
		int st;

		r->bug = &rt_bugs[b];
		if (!wanted(&o, r->bug->name) || rt_child_interrupted())
			continue;
		st = run_row(&o, r, b);
		if (st == ROW_INTERRUPTED)
			break;
		if (st == ROW_ERROR) {
			free(rows);
			return RT_EXIT_INTERNAL;
		}
	}
	summarise(&m);
	goal = m.nr_ran && m.nr_detected == m.nr_ran && m.nr_clean == m.nr_ran &&
	       m.worst <= MATRIX_BOUND_S && m.median < MATRIX_MEDIAN_S;

	print_table(stdout, rows, m.nr);
	printf("\n%d of %d seeded bugs detected by their expected detector; time to detection:"
	       " median %.2f s, worst %.2f s (goal: all, each <= %.0f s, median < %.0f s);"
	       " %d of %d configurations clean without the bug. %s\n",
	       m.nr_detected, m.nr_ran, m.median, m.worst, MATRIX_BOUND_S, MATRIX_MEDIAN_S,
	       m.nr_clean, m.nr_ran, goal ? "Goal met." : "Goal NOT met.");
	write_matrix(&o, &m, goal);
	free(rows);
	if (rt_child_interrupted())
		return RT_EXIT_INTERRUPTED;
	return goal ? RT_EXIT_OK : RT_EXIT_FAILURE;
}
