// SPDX-License-Identifier: MIT
/*
 * The merge gate's runs: each selected configuration as one `run` child of
 * its build's binary (rt_try_run(): sanitizer environment, capture,
 * artifacts), re-planned from the clock before each (ci_child_seconds()),
 * and judged from its exit, its run record and its artifacts. Explore's
 * share of the gate, which runs first, is ci_explore.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "die.h"
#include "record.h"
#include "rt_child.h"
#include "rt_opt.h"
#include "rt_time.h"
#include "ci-internal.h"

static json_t *run_args(const struct ci_gate *g, const struct ci_config *c)
{
	json_t *a = json_array();
	char num[64];

#define ADD(s) json_array_append_new(a, json_string(s))
	ADD("run");
	ADD("--scenario");
	ADD(c->scenario->name);
	ADD("--rmap");
	ADD(rmap_mode_name(c->mode));
	ADD("--threads");
	snprintf(num, sizeof(num), "%d", c->threads);
	ADD(num);
	ADD("--reclaim-threads");
	snprintf(num, sizeof(num), "%d", c->reclaim_threads);
	ADD(num);
	ADD("--seed");
	snprintf(num, sizeof(num), "%" PRIu64, c->seed);
	ADD(num);
	if (c->sched != RT_SCHED_FREE) {
		ADD("--sched");
		ADD(rt_sched_name(c->sched));
	} else {
		/*
		 * Free runs widen the race windows, as locktorture does: random
		 * yields at the model's yield points and i_shared_sem held
		 * longer now and then. Without that, try_to_unmap_obj()'s
		 * i_shared_sem fallback (another CPU taking the semaphore
		 * between page_referenced() and try_to_unmap()) never fires in a
		 * short gate: the coverage check below would fail on it.
		 */
		ADD("--perturb");
		ADD("2");
		ADD("--long-hold");
		ADD("i_shared_sem");
	}
	ADD("--seconds");
	snprintf(num, sizeof(num), "%.1f", c->seconds);
	ADD(num);
	if (c->sites) {
		char list[1024];
		int n = 0;

		list[0] = '\0';
		for (int s = 0; s < FB_NR_SITES; s++)
			if (c->sites & (1u << s))
				n += snprintf(list + n, sizeof(list) - (size_t)n, "%s%s", n ? "," : "",
					      rmap_fallback_name((enum rmap_fallback_site)s));
		ADD("--until-fallbacks");
		ADD(list);
	}
	for (int i = 0; i < g->o.nr_inject; i++) {
		ADD("--inject");
		ADD(g->o.inject[i]);
	}
#undef ADD
	return a;
}

/*
 * The run fields every sanitizer report's artifact carries (as
 * run_record.c's rt_failure_context() writes them for the run's own reports).
 */
static json_t *sanitizer_context(const struct ci_gate *g, const struct ci_config *c,
				 json_t *args)
{
	json_t *art = rt_record_new("failure"), *inject = json_array(), *weights = json_object();
	char seed[32];

	for (int i = 0; i < g->o.nr_inject; i++)
		json_array_append_new(inject, json_string(g->o.inject[i]));
	for (int k = 0; k < WL_NR_OPS; k++)
		json_object_set_new(weights, wl_op_name((enum wl_op)k),
				    json_integer(c->scenario->weights[k]));
	snprintf(seed, sizeof(seed), "%" PRIu64, c->seed);
	json_object_update_new(art, json_pack(
		"{s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:i, s:o, s:I, s:I, s:i, s:f, s:i, s:i,"
		" s:o, s:s, s:s, s:O, s:i}",
		"record", "failure",
		"scenario", c->scenario->name,
		"rmap", rmap_mode_name(c->mode),
		"threads", c->threads,
		"reclaim_threads", c->reclaim_threads,
		"seed", seed,
		"sched", rt_sched_name(c->sched),
		"sched_steps", 0,
		"inject", inject,
		"pages", (json_int_t)c->scenario->params.pages,
		"swap", (json_int_t)c->scenario->params.swap_slots,
		"ops", 0,
		"seconds", c->seconds,
		"perturb", 0,
		"procs", c->scenario->params.procs_max,
		"weights", weights,
		"build", ci_builds[c->build].name,
		"reproduce", c->reproduce,
		"args", args,
		"count", 1));
	if (c->sched == RT_SCHED_PCT)
		json_object_set_new(art, "pct_depth", json_integer(3));
	return art;
}

/* The run record the child wrote (run-*.json in its directory), or NULL. */
static json_t *load_run_record(const char *dir)
{
	struct dirent *de;
	json_t *rec = NULL;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while (!rec && (de = readdir(d))) {
		size_t len = strlen(de->d_name);
		char path[8300];

		if (strncmp(de->d_name, "run-", 4) || len < 9 || strcmp(de->d_name + len - 5, ".json"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		rec = json_load_file(path, 0, NULL);
		if (rec && !json_is_object(rec)) {
			json_decref(rec);
			rec = NULL;
		}
	}
	closedir(d);
	return rec;
}

static void add_failure(struct ci_config *c, const char *kind, const char *signature,
			const char *message, const char *artifact, const char *reproduce)
{
	json_array_append_new(c->failures, json_pack("{s:s, s:s, s:s, s:s?, s:s}",
		"kind", kind, "signature", signature, "message", message ? message : "",
		"artifact", artifact, "reproduce", reproduce));
}

/* A failure that left no artifact: what the run record or the exit says. */
static void failure_without_artifact(struct ci_config *c, json_t *rec, int rc)
{
	json_t *fails = json_object_get(rec, "failures"), *f;
	char what[256];
	size_t i;

	json_array_foreach(fails, i, f) {
		const char *kind = json_string_value(json_object_get(f, "kind"));
		const char *sig = json_string_value(json_object_get(f, "signature"));

		add_failure(c, kind ? kind : "run", sig ? sig : "?",
			    json_string_value(json_object_get(f, "message")), NULL, c->reproduce);
	}
	if (json_array_size(c->failures))
		return;
	if (rc == RT_CHILD_TIMEOUT) {
		snprintf(what, sizeof(what), "timeout: killed after %.0f s (run time %.1f s)",
			 c->wall, c->seconds);
		add_failure(c, "timeout", "timeout", what, NULL, c->reproduce);
	} else if (rc > 128) {
		snprintf(what, sizeof(what), "crash:signal-%d", rc - 128);
		add_failure(c, "crash", what, c->verdict, NULL, c->reproduce);
	} else {
		snprintf(what, sizeof(what), "run:exit-%d", rc);
		add_failure(c, "run", rec ? "audit" : what, c->verdict, NULL, c->reproduce);
	}
}

/* Fill @c from the try: its verdict, its record's numbers, its failures. */
static void judge(struct ci_gate *g, struct ci_config *c, const struct rt_try_result *res)
{
	json_t *rec = load_run_record(c->rundir), *a;
	int rc = res->rc;
	size_t i;

	rt_child_rc_str(rc, c->verdict, sizeof(c->verdict));
	c->wall = res->seconds;
	c->failures = json_array();
	if (rec) {
		c->have_record = true;
		c->ops = (long long)json_integer_value(json_object_get(rec, "ops"));
		c->ops_per_sec = json_number_value(json_object_get(rec, "ops_per_sec"));
		c->ran = json_number_value(json_object_get(rec, "seconds"));
		c->fallbacks = json_incref(json_object_get(rec, "trylock_fallbacks"));
		c->interleaving = json_incref(json_object_get(rec, "coverage"));
	}
	json_array_foreach(res->artifacts, i, a) {
		const json_t *art = json_object_get(a, "artifact");
		const char *repro = json_string_value(json_object_get(art, "reproduce"));

		const char *kind = json_string_value(json_object_get(a, "kind"));
		const char *sig = json_string_value(json_object_get(a, "signature"));

		add_failure(c, kind ? kind : "?", sig ? sig : "?",
			    json_string_value(json_object_get(art, "message")),
			    json_string_value(json_object_get(a, "path")),
			    repro ? repro : c->reproduce);
	}
	if (rc == RT_EXIT_USAGE && !json_array_size(c->failures)) {
		rt_try_first_line(res, g->usage_line, sizeof(g->usage_line));
		g->usage_rc = RT_EXIT_USAGE;
		c->state = CI_ERROR;
	} else if (rc == RT_EXIT_INTERNAL || rc == 127) {
		c->state = CI_ERROR;
	} else if (rc == RT_EXIT_OK && !json_array_size(c->failures)) {
		c->state = CI_PASS;
	} else {
		c->state = CI_FAIL;
		if (!json_array_size(c->failures))
			failure_without_artifact(c, rec, rc);
	}
	/* A sanitizer build's overhead, measured: wall less the run's own time. */
	if (rc == RT_EXIT_OK || rc == RT_EXIT_FAILURE || rc == 66) {
		g->overhead_sum[c->build] += c->wall - c->seconds;
		g->overhead_n[c->build]++;
	}
	json_decref(rec);
}

/* A site run: " sites fired at T s", or the first of its sites that did not fire. */
static void site_note(const struct ci_config *c, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!c->sites || !c->have_record)
		return;
	for (int s = 0; s < FB_NR_SITES; s++) {
		const char *site = rmap_fallback_name((enum rmap_fallback_site)s);
		json_int_t fired = json_integer_value(json_object_get(c->fallbacks, site));

		if ((c->sites & (1u << s)) && fired <= 0) {
			snprintf(buf, len, "  site %s did not fire", site);
			return;
		}
	}
	snprintf(buf, len, "  sites fired at %.1f s", c->ran);
}

static void print_progress(const struct ci_config *c, int n, int total)
{
	char name[128], ops[32], note[160];
	json_t *f;
	size_t i;

	ci_config_name(c, name, sizeof(name));
	if (c->have_record)
		snprintf(ops, sizeof(ops), "%9.0f ops/s", c->ops_per_sec);
	else
		snprintf(ops, sizeof(ops), "%15s", "- ops/s");
	site_note(c, note, sizeof(note));
	printf("ci [%3d/%d] %-5s %-6s %-28s %-5s %s  run %5.1f s  wall %5.1f s%s%s%s\n", n, total,
	       ci_builds[c->build].name, rt_sched_name(c->sched), name,
	       c->state == CI_PASS ? "pass" : c->state == CI_FAIL ? "FAIL" : "ERROR", ops,
	       c->seconds, c->wall, c->state == CI_PASS ? "" : "  ",
	       c->state == CI_PASS ? "" : c->verdict, note);
	json_array_foreach(c->failures, i, f) {
		const char *art = json_string_value(json_object_get(f, "artifact"));

		printf("    %s %s\n", json_string_value(json_object_get(f, "kind")),
		       json_string_value(json_object_get(f, "signature")));
		printf("      artifact:  %s\n", art ? art : "(none: see the log)");
		printf("      reproduce: %s\n", json_string_value(json_object_get(f, "reproduce")));
	}
	if (c->state != CI_PASS)
		printf("      log:       %s/output.log\n", c->rundir);
	fflush(stdout);
}

/* Run one planned configuration. Return: false when the gate must stop. */
static bool run_config(struct ci_gate *g, struct ci_config *c, int n, int total)
{
	const struct ci_build *cb = &ci_builds[c->build];
	struct rt_try_config cfg;
	struct rt_try_result res;
	json_t *args, *context = NULL;
	int rc;

	rt_remove_tree(c->dir);
	if (mkdir(c->dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "rmaptorture: ci: cannot create %s: %s\n", c->dir, strerror(errno));
		c->state = CI_ERROR;
		snprintf(c->verdict, sizeof(c->verdict), "cannot create its directory");
		c->failures = json_array();
		return false;
	}
	args = run_args(g, c);
	rt_args_cmdline(args, c->reproduce, sizeof(c->reproduce));
	if (strcmp(cb->name, "plain"))
		snprintf(c->reproduce + strlen(c->reproduce), sizeof(c->reproduce) - strlen(c->reproduce),
			 " --build %s", cb->name);
	if (strcmp(cb->name, "plain"))
		context = sanitizer_context(g, c, args);
	cfg = (struct rt_try_config){
		.binary = g->binary[c->build],
		.build = cb->name,
		.workdir = c->dir,
		.timeout_s = c->seconds + 3 * ci_overhead_est(g, c->build) + cb->slack_s,
	};
	rc = rt_try_run(&cfg, args, "", context, 1, &res);
	snprintf(c->rundir, sizeof(c->rundir), "%s", res.dir);
	json_decref(context);
	json_decref(args);
	if (rc == RT_CHILD_INTERRUPTED || res.rc == RT_EXIT_INTERRUPTED) {
		rt_try_release(&res);
		c->state = CI_SKIPPED;
		snprintf(c->skip_reason, sizeof(c->skip_reason), "interrupted");
		g->interrupted = true;
		return false;
	}
	if (rc == RT_CHILD_ERROR) {
		c->state = CI_ERROR;
		c->failures = json_array();
		snprintf(c->verdict, sizeof(c->verdict), "could not start");
		rt_try_release(&res);
		print_progress(c, n, total);
		return false;
	}
	judge(g, c, &res);
	rt_try_release(&res);
	print_progress(c, n, total);
	return !g->usage_rc;
}

/* Where the gate stands: its progress, whether it must stop, its site runs' time. */
struct gate_pass {
	int n, total;
	bool stop;
	double sites_end;	/* the end of the site runs' part of their build's share */
	int sites_left;
};

/* Run or skip the selected configuration @c of build @b, whose deadline is @build_end. */
static void run_selected(struct ci_gate *g, struct gate_pass *p, struct ci_config *c,
			 double build_end, bool last, int left)
{
	const struct ci_build *cb = &ci_builds[c->build];
	char name[128];
	double t;

	if (p->stop || rt_child_interrupted()) {
		if (rt_child_interrupted())
			g->interrupted = true;
		c->state = CI_SKIPPED;
		snprintf(c->skip_reason, sizeof(c->skip_reason), "%s",
			 g->interrupted ? "interrupted" : "the gate stopped early");
		return;
	}
	t = ci_child_seconds(g, c->build, rt_now_s(), build_end, last, left, c->sites != 0);
	if (c->sites)
		t = ci_site_seconds(g, c->build, t, rt_now_s(), p->sites_end, p->sites_left--);
	if (t < 0) {
		c->state = CI_SKIPPED;
		snprintf(c->skip_reason, sizeof(c->skip_reason), "the budget ran out (%s's share)",
			 cb->name);
		ci_config_name(c, name, sizeof(name));
		printf("ci [%3d/%d] %-5s %-6s %-28s skip  %s\n", ++p->n, p->total, cb->name,
		       rt_sched_name(c->sched), name, c->skip_reason);
		fflush(stdout);
		return;
	}
	c->seconds = t;
	if (!run_config(g, c, ++p->n, p->total))
		p->stop = true;
}

void ci_run_gate(struct ci_gate *g)
{
	double start = rt_now_s(), deadline = start + g->usable, build_end = start;
	int *order = rt_calloc((size_t)g->nr_cfgs + 1, sizeof(*order));
	struct gate_pass p = { 0 };

	for (int b = 0; b < CI_NR_BUILDS; b++)
		p.total += g->nr_selected[b];
	rt_child_catch_interrupt();
	if (g->x.scenario) {
		ci_run_explore(g, start + g->x.share);
		build_end = rt_now_s();
		p.stop = g->usage_rc != 0;
	}
	for (int b = 0; b < CI_NR_BUILDS; b++) {
		int n = ci_plan_order(g, b, order);
		bool last = true;

		for (int k = b + 1; k < CI_NR_BUILDS; k++)
			if (g->nr_selected[k])
				last = false;
		build_end += g->share[b];
		if (last)
			build_end = deadline;
		p.sites_left = b == g->site_build ? g->nr_sites : 0;
		p.sites_end = rt_now_s() + p.sites_left * ci_site_cost(b);
		if (p.sites_end > build_end)
			p.sites_end = build_end;
		for (int k = 0; k < n; k++)
			run_selected(g, &p, &g->cfgs[order[k]], build_end, last, n - k);
	}
	free(order);
	g->wall = rt_now_s() - start;
}

/* Building counts apart (build_seconds). */
int ci_find_binaries(struct ci_gate *g)
{
	double t0 = rt_now_s();

	for (int b = 0; b < CI_NR_BUILDS; b++) {
		if (!g->nr_selected[b] && !(b == 0 && g->x.scenario))
			continue;
		if (rt_build_binary(ci_builds[b].name, !g->o.no_build, g->binary[b],
				    sizeof(g->binary[b])))
			return -1;
	}
	g->build_seconds = rt_now_s() - t0;
	return 0;
}
