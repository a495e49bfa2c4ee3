// SPDX-License-Identifier: MIT
/*
 * `rmaptorture explore`'s work on one pair of operations in one design
 * (the command, its options and its loop over the pairs are
 * cmd_explore.c's): the run options of the pair's schedules (`run --sched
 * explore --fixed-ops A,B ...`), its serial pre-pass, every schedule with
 * at most K preemptions (stress/rt_explore.h enumerates, the explore kind
 * of stress/rt_sched.h runs each one), the failing schedule's
 * preemptions, and the pair's line and JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cover.h"
#include "die.h"
#include "explore-internal.h"
#include "inject.h"
#include "lockdep.h"
#include "rmap.h"
#include "rt_explore.h"
#include "rt_explore_prepass.h"
#include "rt_opt.h"
#include "rt_time.h"
#include "run_opts.h"
#include "run_record.h"

/*
 * The run options of one schedule of @pair: `run --sched explore
 * --fixed-ops A,B [--reclaim-threads 1] ...`.
 */
static void pair_run_opts(const struct explore_opts *eo, const struct pair_result *pr,
			  struct rt_run_opts *ro)
{
	char fixed[400];
	char *argv[32];
	int argc = 0;

	snprintf(fixed, sizeof(fixed), "%s,%s", pr->name[0], pr->name[1]);
	argv[argc++] = "run";
	argv[argc++] = "--scenario";
	argv[argc++] = (char *)eo->scenario;
	argv[argc++] = "--rmap";
	argv[argc++] = (char *)rmap_mode_name(pr->mode);
	argv[argc++] = "--sched";
	argv[argc++] = "explore";
	argv[argc++] = "--fixed-ops";
	argv[argc++] = fixed;
	argv[argc++] = "--seed";
	argv[argc++] = (char *)eo->seed;
	argv[argc++] = "--no-progress";
	if (eo->kswapd) {
		argv[argc++] = "--reclaim-threads";
		argv[argc++] = "1";
	}
	if (eo->inject) {
		argv[argc++] = "--inject";
		argv[argc++] = (char *)eo->inject;
	}
	if (eo->test_window)
		argv[argc++] = "--test-window";
	if (eo->test_window_bug)
		argv[argc++] = "--test-window-bug";
	if (eo->common.out_dir) {
		argv[argc++] = "--out";
		argv[argc++] = (char *)eo->common.out_dir;
	}
	argv[argc] = NULL;
	rt_run_parse_opts(argc, argv, ro);
	ro->argc = 0;		/* @argv is ours, and gone on return */
	ro->argv = NULL;
	/* The world is the same for every schedule: no seeded bug's own sched. */
	ro->cfg.sched = RT_SCHED_EXPLORE;
	ro->cfg.threads = 2;
	ro->cfg.reclaim_threads = eo->kswapd;
	ro->cfg.on_report = rt_run_on_report;
	ro->cfg.on_report_arg = ro;
	/* Its schedules' pairs are never read: record the sites only. */
	ro->cfg.cover_sites_only = true;
	ro->mode_now = pr->mode;
	ro->cfg.mode = pr->mode;
}

/* The CPUs of a schedule, scheduler slots 0.. (the workers, then kswapd): the footprint's. */
static int explore_cpus(const struct rt_run_opts *ro)
{
	int n = ro->cfg.threads + ro->cfg.reclaim_threads;

	return n < COVER_FP_SLOTS ? n : COVER_FP_SLOTS;
}

/*
 * What a preempted CPU was about to do at its switch point, after its
 * last site (@buf): a lock's own site is recorded once it is taken, so a
 * preemption before an acquisition names the lock class it was about to
 * take. A yield point and a release are their own sites.
 */
static void switch_point_format(const struct rt_sched_decision *d, char *buf, size_t len)
{
	size_t n = strlen(buf);
	const char *what = NULL;

	switch (d->point) {
	case SP_LOCK: what = "about to take"; break;
	case SP_WAIT: what = "waiting for"; break;
	default: return;
	}
	if (d->point_cls >= 0 && n < len)
		snprintf(buf + n, len - n, ", %s %s", what, lock_class_name(d->point_cls));
}

/* The failing schedule's preemptions, with the site each CPU was at: the report. */
static void note_failure(struct pair_result *pr, const struct rt_run_result *res,
			 const struct rt_sched_decision *t, unsigned long n, const int *prefix,
			 size_t nr)
{
	snprintf(pr->signature, sizeof(pr->signature), "%s",
		 res->nr_failures ? res->failures[0].signature : "audit");
	pr->in_warmup = res->nr_failures && res->failures[0].op &&
			!strcmp(res->failures[0].op, "warm-up");
	rt_explore_format(prefix, nr, pr->decisions, sizeof(pr->decisions));
	pr->preempted = json_array();
	for (unsigned long i = 0; i < n; i++) {
		char site[256] = "(no site)";

		if (!t[i].me_enabled || t[i].chosen == t[i].me)
			continue;
		if (t[i].site >= 0)
			cover_site_format(t[i].site, site, sizeof(site));
		switch_point_format(&t[i], site, sizeof(site));
		json_array_append_new(pr->preempted, json_pack("{s:I, s:i, s:s}",
			"decision", (json_int_t)i, "cpu", t[i].me, "site", site));
	}
}

/* Every schedule of one pair within K, or until the budget ends. Return: 0, or exit status 3. */
int explore_pair(const struct explore_opts *eo, struct pair_result *pr, double deadline)
{
	struct rt_run_opts *ro = rt_calloc(1, sizeof(*ro));
	struct rt_run_result *res = rt_calloc(1, sizeof(*res));
	struct rt_explore x;
	struct cover_footprint *fp = NULL;
	struct rt_prepass run_pp;
	const int *prefix;
	size_t nr;
	double start = rt_now_s();
	int ret = 0;

	pair_run_opts(eo, pr, ro);
	inject_mask = ro->cfg.inject_mask;
	rt_explore_init(&x, eo->k, eo->prune);
	if (!eo->no_prepass)
		fp = rt_calloc(1, sizeof(*fp));
	while (!rt_interrupted && rt_explore_next(&x, &prefix, &nr)) {
		const struct rt_sched_decision *t;
		unsigned long n;
		int rc;

		if (deadline > 0 && rt_now_s() >= deadline)
			break;
		ro->cfg.decisions = prefix;
		ro->cfg.nr_decisions = nr;
		ro->run_start = rt_now_s();
		cover_footprint_record(fp);
		rc = rt_run(&ro->cfg, res);
		cover_footprint_record(NULL);
		if (rc == 3) {
			fprintf(stderr, "rmaptorture: explore: a schedule's setup failed\n");
			ret = RT_EXIT_INTERNAL;
			break;
		}
		t = rt_sched_trace(&n);
		if (rc) {
			pr->schedules = x.schedules + 1;
			note_failure(pr, res, t, n, prefix, nr);
			pr->failed = true;
			pr->abandoned = res->hang || res->oops;
			break;
		}
		if (fp) {
			/* This run's communicating objects mark its switch points. */
			rt_prepass_classify(fp, explore_cpus(ro), &run_pp);
			rt_explore_set_hot(&x, run_pp.objs, run_pp.nr_objs);
		}
		rt_explore_feed(&x, t, n);
		if (eo->progress && x.schedules % 16 == 0)
			fprintf(stderr, "\r\033[Kexplore %s %s,%s%s: %lu schedules, %.1f s",
				rmap_mode_name(pr->mode), pr->name[0], pr->name[1],
				eo->kswapd ? " +kswapd" : "", x.schedules, rt_now_s() - start);
	}
	if (eo->progress)
		fputs("\r\033[K", stderr);
	if (!pr->failed)
		pr->schedules = x.schedules;
	pr->exhausted = x.done && !pr->failed;
	pr->diverged = x.diverged;
	pr->pruned = x.pruned;
	pr->seconds = rt_now_s() - start;
	if (pr->abandoned)
		return ret;	/* threads left in the model still read ro->cfg: the caller exits */
	free(fp);
	rt_explore_free(&x);
	free(ro->decisions);
	free(ro);
	free(res);
	return ret;
}

/*
 * The serial pre-pass of one pair (rt_explore_prepass.h): its default
 * schedule, no preemption, with the footprint recorded. A failure there
 * is the pair's failure, found in its first schedule (@pr says so).
 * Return: 0, or exit status 3.
 */
int explore_prepass(const struct explore_opts *eo, struct pair_result *pr)
{
	struct rt_run_opts *ro = rt_calloc(1, sizeof(*ro));
	struct rt_run_result *res = rt_calloc(1, sizeof(*res));
	struct cover_footprint *fp = rt_calloc(1, sizeof(*fp));
	int rc, ret = 0;

	pair_run_opts(eo, pr, ro);
	inject_mask = ro->cfg.inject_mask;
	ro->cfg.decisions = NULL;
	ro->cfg.nr_decisions = 0;
	ro->run_start = rt_now_s();
	cover_footprint_record(fp);
	rc = rt_run(&ro->cfg, res);
	cover_footprint_record(NULL);
	if (rc == 3) {
		fprintf(stderr, "rmaptorture: explore: a pre-pass run's setup failed\n");
		ret = RT_EXIT_INTERNAL;
	} else {
		rt_prepass_classify(fp, explore_cpus(ro), &pr->prepass);
		pr->have_prepass = true;
	}
	if (rc && rc != 3) {
		/* The schedule with no preemption fails: the pair's failure, as the walk would find it. */
		const struct rt_sched_decision *t;
		unsigned long n;

		t = rt_sched_trace(&n);
		pr->schedules = 1;
		note_failure(pr, res, t, n, NULL, 0);
		pr->failed = true;
		pr->abandoned = res->hang || res->oops;
		if (pr->abandoned)
			return ret;	/* threads left in the model still read ro->cfg */
	}
	free(fp);
	free(ro->decisions);
	free(ro);
	free(res);
	return ret;
}

/* "; communicating (mm 1, page 2)", "; not communicating", or nothing (no pre-pass). */
static void print_comm(FILE *out, const struct pair_result *pr)
{
	char kinds[256];

	if (!pr->have_prepass)
		return;
	if (!pr->prepass.communicates) {
		fputs("; not communicating", out);
		return;
	}
	rt_prepass_kinds(&pr->prepass, kinds, sizeof(kinds));
	fprintf(out, "; communicating (%s%s)", kinds, pr->prepass.overflow ? ", maybe more" : "");
}

void explore_print_pair(FILE *out, const struct explore_opts *eo, const struct pair_result *pr)
{
	const char *a = pr->name[0], *b = pr->name[1];

	if (pr->failed) {
		size_t i;
		json_t *p;

		fprintf(out, "%s %s,%s: FAILURE after %lu schedules (%.2f s): %s",
			rmap_mode_name(pr->mode), a, b, pr->schedules, pr->seconds, pr->signature);
		print_comm(out, pr);
		fputc('\n', out);
		fprintf(out, "  the two operations: CPU 0 %s, CPU 1 %s%s; decisions %s\n", a, b,
			eo->kswapd ? ", CPU 2 kswapd" : "", pr->decisions);
		json_array_foreach(pr->preempted, i, p)
			fprintf(out, "  preempted: CPU %d at %s (decision %" JSON_INTEGER_FORMAT ")\n",
				(int)json_integer_value(json_object_get(p, "cpu")),
				json_string_value(json_object_get(p, "site")),
				json_integer_value(json_object_get(p, "decision")));
		return;
	}
	if (eo->common.quiet)
		return;
	if (pr->exhausted)
		fprintf(out, "%s %s,%s: exhausted at K=%d: %lu schedules (%lu pruned), %.2f s: no failure"
			" in any schedule of this world with at most %d preemptions%s",
			rmap_mode_name(pr->mode), a, b, eo->k, pr->schedules, pr->pruned, pr->seconds, eo->k,
			pr->diverged ? " (some runs left their prefix: not a proof)" :
			pr->pruned ? " (--prune compared objects by address across runs: not a proof)" : "");
	else
		fprintf(out, "%s %s,%s: cut by the budget after %lu schedules (%lu pruned), %.2f s",
			rmap_mode_name(pr->mode), a, b, pr->schedules, pr->pruned, pr->seconds);
	print_comm(out, pr);
	fputc('\n', out);
}

json_t *explore_pair_json(const struct pair_result *pr)
{
	json_t *j = json_pack("{s:s, s:[s,s], s:I, s:I, s:b, s:b, s:f, s:I}",
		"rmap", rmap_mode_name(pr->mode),
		"ops", pr->name[0], pr->name[1],
		"schedules", (json_int_t)pr->schedules,
		"pruned", (json_int_t)pr->pruned,
		"exhausted", pr->exhausted,
		"failed", pr->failed,
		"seconds", pr->seconds,
		"diverged", (json_int_t)pr->diverged);

	if (pr->have_prepass) {
		json_t *kinds = json_object();

		for (int k = 0; k < COVER_NR_KINDS; k++)
			if (pr->prepass.kinds[k])
				json_object_set_new(kinds, cover_kind_name(k),
						    json_integer(pr->prepass.kinds[k]));
		json_object_set_new(j, "communicates", json_boolean(pr->prepass.communicates));
		json_object_set_new(j, "communicating_objects", json_pack("{s:i, s:b, s:o}",
			"count", pr->prepass.nr, "maybe_more", pr->prepass.overflow, "kinds", kinds));
	}
	if (pr->failed)
		json_object_set_new(j, "failure", json_pack("{s:s, s:s, s:O}",
			"signature", pr->signature, "decisions", pr->decisions,
			"preempted", pr->preempted));
	return j;
}
