// SPDX-License-Identifier: MIT
/*
 * The record of a run (run_record.h): the result record, the reproduce
 * command, the failure context and the artifacts with their flight
 * recorder dump.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "die.h"
#include "flight.h"
#include "inject.h"
#include "lockdep.h"
#include "perturb.h"
#include "record.h"
#include "rt_explore.h"
#include "rt_time.h"
#include "run_record.h"
#include "rt_vtime_report.h"


double rt_unmap_share(const struct reclaim_stats *rs)
{
	return rs->mapped_scanned ? (double)rs->unmap_tried / (double)rs->mapped_scanned : 0.0;
}

/* An option and its value, the value printf-formatted. */
static void args_opt(json_t *args, const char *opt, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void args_opt(json_t *args, const char *opt, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	json_array_append_new(args, json_string(opt));
	json_array_append_new(args, json_string(buf));
}

/* Append ",NAME" (no comma first) to the list in @buf of @len, @n bytes long. */
static int name_list_add(char *buf, size_t len, int n, const char *name)
{
	if ((size_t)n >= len)
		return n;
	return n + snprintf(buf + n, len - (size_t)n, "%s%s", n ? "," : "", name);
}

/* --weights op=weight,...: the whole mix, as the run had it. */
static void weights_arg(json_t *args, const struct rt_run_config *c)
{
	char l[1024], w[64];
	int n = 0;

	l[0] = '\0';
	for (int k = 0; k < WL_NR_OPS; k++) {
		snprintf(w, sizeof(w), "%s=%u", wl_op_name((enum wl_op)k), c->scenario->weights[k]);
		n = name_list_add(l, sizeof(l), n, w);
	}
	args_opt(args, "--weights", "%s", l);
}

/* --yield-points and --long-hold: the lists that say them. */
static void perturb_list_args(json_t *args, const struct rt_run_config *c)
{
	char l[1024];
	int n;

	if (c->perturb && c->yield_filter) {
		l[0] = '\0';
		n = 0;
		for (int i = 0; yield_point_names[i]; i++)
			if (c->yield_filter[i])
				n = name_list_add(l, sizeof(l), n, yield_point_names[i]);
		args_opt(args, "--yield-points", "%s", l);
	}
	if (c->long_hold_mask) {
		l[0] = '\0';
		n = 0;
		for (int cls = 0; cls < LOCK_CLASS_NR_STATIC; cls++)
			if (c->long_hold_mask & (1ULL << cls))
				n = name_list_add(l, sizeof(l), n, lock_class_name(cls));
		args_opt(args, "--long-hold", "%s", l);
	}
}

/* The schedule and the bound: --sched ..., --ops, --sched-steps or --seconds. */
/* One CPU's sequence from @p up to @end (exclusive). Return: 0, or -1 with @err. */
static int parse_seq(const char *p, const char *end, struct rt_fixed_seq *seq, char *err,
		     size_t len)
{
	seq->nr = 0;
	for (;;) {
		const char *plus = memchr(p, '+', (size_t)(end - p));
		const char *stop = plus ? plus : end;
		char name[64];
		int op;

		if (stop == p) {
			snprintf(err, len, "an empty operation");
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(stop - p), p);
		op = rt_fixed_op_by_name(name);
		if (op < 0) {
			snprintf(err, len, "unknown operation '%s'", name);
			return -1;
		}
		if (seq->nr == RT_FIXED_SEQ_MAX) {
			snprintf(err, len, "at most %d operations on one CPU", RT_FIXED_SEQ_MAX);
			return -1;
		}
		seq->ops[seq->nr++] = op;
		if (!plus)
			return 0;
		p = plus + 1;
	}
}

int rt_fixed_ops_parse(const char *arg, struct rt_fixed_seq *cpus, int max, char *err,
		       size_t len)
{
	const char *p = arg;
	int n = 0;

	for (;;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);

		if (n == max) {
			snprintf(err, len, "at most %d CPUs", max);
			return -1;
		}
		if (parse_seq(p, end, &cpus[n], err, len))
			return -1;
		n++;
		if (!comma)
			return n;
		p = comma + 1;
	}
}

size_t rt_fixed_ops_format(const struct rt_fixed_seq *cpus, int n, char *buf, size_t len)
{
	size_t out = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n; i++)
		for (int j = 0; j < cpus[i].nr; j++)
			out += (size_t)snprintf(buf + (out < len ? out : len), out < len ? len - out : 0,
						"%s%s", !j ? (i ? "," : "") : "+",
						rt_fixed_op_name(cpus[i].ops[j]));
	return out;
}

/* --fixed-ops A+B,C (explore's runs). */
static void fixed_ops_arg(json_t *args, const struct rt_run_config *c)
{
	char buf[512];

	rt_fixed_ops_format(c->fixed_ops, c->threads, buf, sizeof(buf));
	args_opt(args, "--fixed-ops", "%s", buf);
}

/* --decisions LIST: the explore schedule, run-length coded (rt_explore.h). */
static void decisions_arg(json_t *args, const struct rt_run_config *c)
{
	size_t len = rt_explore_format(c->decisions, c->nr_decisions, NULL, 0) + 1;
	char *buf = malloc(len);

	if (!buf)
		rt_die("out of memory");
	rt_explore_format(c->decisions, c->nr_decisions, buf, len);
	json_array_append_new(args, json_string("--decisions"));
	json_array_append_new(args, json_string(buf));
	free(buf);
}

static void bound_args(json_t *args, const struct rt_run_config *c, unsigned long sched_steps)
{
	if (!c->cover)
		json_array_append_new(args, json_string("--no-cover"));
	if (c->sched != RT_SCHED_FREE) {
		args_opt(args, "--sched", "%s", rt_sched_name(c->sched));
		if (c->sched == RT_SCHED_PCT) {
			args_opt(args, "--pct-depth", "%d", c->pct_depth);
			args_opt(args, "--pct-steps", "%lu", c->pct_steps);
		}
		if (c->sched == RT_SCHED_VTIME && c->vtime_cost != RT_VTIME_MODEL)
			args_opt(args, "--vtime-cost", "%s", rt_vtime_cost_name(c->vtime_cost));
		if (c->sched == RT_SCHED_EXPLORE && c->nr_decisions)
			decisions_arg(args, c);
		if (c->sched == RT_SCHED_VTIME && c->vtime_transfer_ns)
			args_opt(args, "--vtime-transfer", "%" PRIu64, c->vtime_transfer_ns);
		if (!sched_steps)
			sched_steps = c->sched_steps;
	}
	if (c->ops)
		args_opt(args, "--ops", "%lu", c->ops);
	if (c->until_fallbacks) {
		char l[1024];
		int n = 0;

		l[0] = '\0';
		for (int s = 0; s < FB_NR_SITES; s++)
			if (c->until_fallbacks & (1u << s))
				n = name_list_add(l, sizeof(l), n,
						  rmap_fallback_name((enum rmap_fallback_site)s));
		args_opt(args, "--until-fallbacks", "%s", l);
	}
	if (sched_steps)
		args_opt(args, "--sched-steps", "%lu", sched_steps);
	else if (c->seconds > 0)
		args_opt(args, "--seconds", "%g", c->seconds);
}

json_t *rt_reproduce_args(const struct rt_run_opts *o, enum rmap_mode mode,
			  unsigned long sched_steps)
{
	const struct rt_run_config *c = &o->cfg;
	json_t *args = json_array();

	json_array_append_new(args, json_string("run"));
	args_opt(args, "--scenario", "%s", c->scenario->name);
	args_opt(args, "--rmap", "%s", rmap_mode_name(mode));
	args_opt(args, "--threads", "%d", c->threads);
	args_opt(args, "--reclaim-threads", "%d", c->reclaim_threads);
	args_opt(args, "--seed", "%" PRIu64, c->seed);
	args_opt(args, "--pages", "%lu", c->params.pages);
	args_opt(args, "--swap", "%lu", c->params.swap_slots);
	if (o->procs_set)
		args_opt(args, "--procs", "%d", c->params.procs_max);
	if (o->weights_set)
		weights_arg(args, c);
	if (c->fixed_ops)
		fixed_ops_arg(args, c);
	for (int b = 0; b < INJECT_NR_BUGS; b++)
		if (c->inject_mask & (1ULL << b))
			args_opt(args, "--inject", "%s", inject_name((enum inject_bug)b));
	bound_args(args, c, sched_steps);
	if (c->audit_every != 1)
		args_opt(args, "--audit-every", "%g", c->audit_every);
	if (c->perturb)
		args_opt(args, "--perturb", "%d", c->perturb);
	perturb_list_args(args, c);
	if (c->test_hang)
		args_opt(args, "--test-hang", "%s", c->test_hang);
	if (c->watchdog != RT_WATCHDOG_DEFAULT)
		args_opt(args, "--watchdog", "%g", c->watchdog);
	if (c->test_race)
		json_array_append_new(args, json_string("--test-race"));
	if (c->test_spin)
		json_array_append_new(args, json_string("--test-spin"));
	if (c->test_window)
		json_array_append_new(args, json_string(c->test_window_bug ? "--test-window-bug" :
								 "--test-window"));
	return args;
}

void rt_reproduce_cmd(json_t *args, char *buf, size_t len)
{
	size_t i, n = (size_t)snprintf(buf, len, "rmaptorture");
	json_t *a;

	json_array_foreach(args, i, a)
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, " %s", json_string_value(a));
}

static void reproduce_line(const struct rt_run_opts *o, enum rmap_mode mode, char *buf, size_t len)
{
	json_t *args = rt_reproduce_args(o, mode, 0);

	rt_reproduce_cmd(args, buf, len);
	json_decref(args);
}

/* The TLB statistics of the record: lookups, and flushes by kind. */
static json_t *tlb_json(const struct tlb_stats *t)
{
	return json_pack("{s:I, s:I, s:{s:I, s:I, s:I}, s:{s:I, s:I, s:I}}",
			 "hits", (json_int_t)t->hits,
			 "misses", (json_int_t)t->misses,
			 "flushes", "page", (json_int_t)t->flushes[TLB_FLUSH_PAGE],
			 "range", (json_int_t)t->flushes[TLB_FLUSH_RANGE],
			 "mm", (json_int_t)t->flushes[TLB_FLUSH_MM],
			 "flushes_that_dropped", "page", (json_int_t)t->drops[TLB_FLUSH_PAGE],
			 "range", (json_int_t)t->drops[TLB_FLUSH_RANGE],
			 "mm", (json_int_t)t->drops[TLB_FLUSH_MM]);
}

/* The reclaim statistics of the record. */
static json_t *reclaim_json(const struct reclaim_stats *rs)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I,"
			 " s:f, s:I, s:I}",
			 "scanned", (json_int_t)rs->scanned,
			 "locked_skip", (json_int_t)rs->locked_skip,
			 "referenced", (json_int_t)rs->referenced,
			 "swap_full", (json_int_t)rs->swap_full,
			 "unmap_again", (json_int_t)rs->unmap_again,
			 "unmap_fail", (json_int_t)rs->unmap_fail,
			 "swapped_out", (json_int_t)rs->swapped_out,
			 "file_dropped", (json_int_t)rs->file_dropped,
			 "file_written", (json_int_t)rs->file_written,
			 "busy", (json_int_t)rs->busy,
			 "freed", (json_int_t)rs->freed,
			 "refilled", (json_int_t)rs->refilled,
			 "mapped_scanned", (json_int_t)rs->mapped_scanned,
			 "unmap_tried", (json_int_t)rs->unmap_tried,
			 "unmap_share", rt_unmap_share(rs),
			 "direct_calls", (json_int_t)rs->direct_calls,
			 "direct_freed", (json_int_t)rs->direct_freed);
}

/* The rmap metadata's bytes, now and at their peak, and per mapped page. */
static json_t *rmap_bytes_json(const struct rt_run_result *res)
{
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f}",
			 "pte_chain_now", (json_int_t)res->rmap_bytes.pte_chain_now,
			 "pte_chain_peak", (json_int_t)res->rmap_bytes.pte_chain_peak,
			 "anon_vma_now", (json_int_t)res->rmap_bytes.anon_vma_now,
			 "anon_vma_peak", (json_int_t)res->rmap_bytes.anon_vma_peak,
			 "vma_extra_now", (json_int_t)res->rmap_bytes.vma_extra_now,
			 "vma_extra_peak", (json_int_t)res->rmap_bytes.vma_extra_peak,
			 "mapped_pages_peak", (json_int_t)res->mapped_pages_peak,
			 "peak_bytes_per_mapped_page", res->mapped_pages_peak ?
			(double)(res->rmap_bytes.pte_chain_peak + res->rmap_bytes.anon_vma_peak +
				 res->rmap_bytes.vma_extra_peak) /
			(double)res->mapped_pages_peak : 0.0);
}

json_t *rt_run_record_json(const struct rt_run_opts *o, enum rmap_mode mode,
			   const struct rt_run_result *res, int rc)
{
	const struct rt_run_config *c = &o->cfg;
	json_t *rec = rt_record_new("run"), *ops = json_object(), *locks = json_object();
	json_t *fb = json_object(), *fails = json_array(), *cmd = json_array();
	char repro[1024];

	for (int i = 0; i < o->argc; i++)
		json_array_append_new(cmd, json_string(o->argv[i]));
	for (int k = 0; k < WL_NR_OPS; k++)
		json_object_set_new(ops, wl_op_name((enum wl_op)k), json_integer((json_int_t)res->ops_by_kind[k]));
	for (int cls = 0; cls < LOCK_CLASS_NR_STATIC; cls++) {
		const struct lock_class_stats *s = &res->locks[cls];

		json_object_set_new(locks, lock_class_name(cls),
			json_pack("{s:I, s:I, s:I, s:I}",
				  "acquired", (json_int_t)s->acquired,
				  "contended", (json_int_t)s->contended,
				  "try_attempts", (json_int_t)s->try_attempts,
				  "try_failures", (json_int_t)s->try_failures));
	}
	for (int s = 0; s < FB_NR_SITES; s++)
		json_object_set_new(fb, rmap_fallback_name((enum rmap_fallback_site)s),
				    json_integer((json_int_t)res->fallbacks[s]));
	for (int i = 0; i < res->nr_failures && i < RT_MAX_FAILURES; i++)
		json_array_append_new(fails, json_pack("{s:s, s:s, s:s, s:s?}",
			"kind", vm_report_kind_name(res->failures[i].kind),
			"message", res->failures[i].message,
			"signature", res->failures[i].signature,
			"op", res->failures[i].op));
	reproduce_line(o, mode, repro, sizeof(repro));
	json_object_update_new(rec, json_pack(
		"{s:o, s:s, s:s, s:i, s:i, s:o, s:f, s:I, s:f, s:o, s:o, s:o,"
		" s:o, s:{s:I, s:I}, s:o, s:o,"
		" s:{s:I, s:I, s:I}, s:b, s:b, s:s, s:s, s:I, s:I, s:I}",
		"command", cmd,
		"scenario", c->scenario->name,
		"rmap", rmap_mode_name(mode),
		"threads", c->threads,
		"reclaim_threads", c->reclaim_threads,
		"seed", rt_seed_json(c->seed),
		"seconds", res->vtime.on ? (double)res->vtime.elapsed_ns * 1e-9 : res->elapsed,
		"ops", (json_int_t)res->ops,
		"ops_per_sec", res->vtime.on ? rt_vtime_ops_per_sec(&res->vtime) :
			       res->elapsed > 0 ? (double)res->ops / res->elapsed : 0.0,
		"ops_by_kind", ops,
		"lock_stats", locks,
		"trylock_fallbacks", fb,
		"reclaim", reclaim_json(&res->reclaim),
		"audits", "passed", (json_int_t)(res->audits - (res->audit_violations ? 1 : 0)),
		"violations", (json_int_t)res->audit_violations,
		"failures", fails,
		"rmap_bytes", rmap_bytes_json(res),
		"outcomes", "oom", (json_int_t)res->oom, "skipped", (json_int_t)res->skipped,
		"corrupt", (json_int_t)res->corrupt,
		"hang", res->hang,
		"interrupted", res->interrupted,
		/* A finding outranks the interruption; a clean interrupted run did not pass. */
		"result", rc ? "fail" : res->interrupted ? "interrupted" : "pass",
		"reproduce", repro,
		"sched_steps", (json_int_t)res->stop_step,
		"pages", (json_int_t)c->params.pages,
		"swap_slots", (json_int_t)c->params.swap_slots));
	json_object_set_new(rec, "sched", json_string(rt_sched_name(c->sched)));
	json_object_set_new(rec, "tlb", tlb_json(&res->tlb));
	if (res->vtime.on)
		json_object_set_new(rec, "vtime", rt_vtime_json(res));
	return rec;
}

/* DIR/run-SCENARIO-RMAP-SEED.json */
static void record_path(const struct rt_run_opts *o, enum rmap_mode mode, const char *dir,
			char *path, size_t len)
{
	snprintf(path, len, "%s/run-%s-%s-%" PRIu64 ".json", dir,
		 o->cfg.scenario->name, rmap_mode_name(mode), o->cfg.seed);
}

void rt_run_record_write(const struct rt_run_opts *o, enum rmap_mode mode, json_t *rec)
{
	char path[4096];

	if (!o->out_dir)
		return;
	record_path(o, mode, o->out_dir, path, sizeof(path));
	rt_record_write(rec, path);
}

/*
 * The fields every failure artifact of this run shares: the whole
 * configuration and the command that reproduces it, bounded (for a
 * deterministic schedule) by @sched_steps decisions.
 */
json_t *rt_failure_context(const struct rt_run_opts *o, enum rmap_mode mode,
			       unsigned long sched_steps, const char *build)
{
	const struct rt_run_config *c = &o->cfg;
	json_t *art = rt_record_new("failure"), *inject = json_array(), *weights = json_object();
	json_t *args = rt_reproduce_args(o, mode, sched_steps);
	char repro[2048];

	for (int b = 0; b < INJECT_NR_BUGS; b++)
		if (c->inject_mask & (1ULL << b))
			json_array_append_new(inject, json_string(inject_name((enum inject_bug)b)));
	for (int k = 0; k < WL_NR_OPS; k++)
		json_object_set_new(weights, wl_op_name((enum wl_op)k),
				    json_integer(c->scenario->weights[k]));
	rt_reproduce_cmd(args, repro, sizeof(repro));
	/* A sanitizer's finding reproduces in its build; "args" stay the run's own. */
	if (strcmp(build, "plain"))
		snprintf(repro + strlen(repro), sizeof(repro) - strlen(repro), " --build %s", build);
	json_object_update_new(art, json_pack(
		"{s:s, s:s, s:i, s:i, s:o, s:s, s:I, s:o, s:I, s:I, s:I, s:f, s:i, s:i,"
		" s:o, s:s, s:s, s:o, s:i}",
		"scenario", c->scenario->name,
		"rmap", rmap_mode_name(mode),
		"threads", c->threads,
		"reclaim_threads", c->reclaim_threads,
		"seed", rt_seed_json(c->seed),
		"sched", rt_sched_name(c->sched),
		"sched_steps", (json_int_t)(c->sched == RT_SCHED_FREE ? 0 : sched_steps),
		"inject", inject,
		"pages", (json_int_t)c->params.pages,
		"swap", (json_int_t)c->params.swap_slots,
		"ops", (json_int_t)c->ops,
		"seconds", c->seconds,
		"perturb", c->perturb,
		"procs", c->params.procs_max,
		"weights", weights,
		"build", build,
		"reproduce", repro,
		"args", args,
		"count", 1));
	if (c->sched == RT_SCHED_PCT)
		json_object_set_new(art, "pct_depth", json_integer(c->pct_depth));
	return art;
}

static json_t *sites_json(const struct vm_report_site *sites, int nr)
{
	json_t *a = json_array();

	for (int i = 0; i < nr; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:i}",
			"what", sites[i].what ? sites[i].what : "?",
			"file", sites[i].file ? sites[i].file : "?",
			"line", sites[i].line));
	return a;
}

static void flight_task_json(const char *task, const char *const *events, int nr, void *arg)
{
	json_t *ev = json_array();

	for (int i = 0; i < nr; i++)
		json_array_append_new(ev, json_string(events[i]));
	json_array_append_new(arg, json_pack("{s:s, s:o}", "task", task, "events", ev));
}

/* A hang report's every task: [{task, op, held: [{what, file, line}]}]. */
static json_t *tasks_json(const struct vm_report *r)
{
	json_t *a = json_array();

	for (int i = 0; i < r->nr_tasks; i++)
		json_array_append_new(a, json_pack("{s:s, s:s?, s:o, s:o}", "task", r->tasks[i].task,
			"op", r->tasks[i].op,
			"events_in_op", r->tasks[i].events >= 0 ? json_integer(r->tasks[i].events) :
								  json_null(),
			"held",
			sites_json(r->tasks[i].held, r->tasks[i].nr_held)));
	return a;
}

/*
 * Every report of the model becomes an artifact at once (a BUG's task
 * then leaves the model, which is abandoned), deduplicated by signature.
 * Context: the engine's report lock held; any thread.
 */
void rt_run_on_report(const struct vm_report *r, void *arg)
{
	struct rt_run_opts *o = arg;
	unsigned long steps = 0;
	json_t *art, *flight;
	char path[4096];
	int ret;

	if (!o->out_dir)
		return;
	if (o->cfg.sched != RT_SCHED_FREE)
		steps = rt_sched_running() ? rt_sched_steps() + 1 : rt_sched_stop_step();
	art = rt_failure_context(o, o->mode_now, steps, RT_BUILD_KIND);
	flight = json_array();
	if (flight_enabled)
		flight_for_each(flight_task_json, flight);
	json_object_update_new(art, json_pack("{s:s, s:s, s:s, s:s?, s:s, s:o, s:o, s:o}",
		"kind", vm_report_kind_name(r->kind),
		"message", r->message,
		"signature", r->signature,
		"op", r->op,
		"task", r->task,
		"sites", sites_json(r->sites, r->nr_sites),
		"held", sites_json(r->held, r->nr_held),
		"flight", flight));
	if (r->nr_tasks)
		json_object_set_new(art, "tasks", tasks_json(r));
	json_object_set_new(art, "elapsed_s", json_real(rt_now_s() - o->run_start));
	ret = rt_artifact_save(art, o->out_dir, path, sizeof(path));
	if (ret == 1) {
		o->artifacts_new++;
		fprintf(stderr, "rmaptorture: artifact %s\n", path);
		if (!o->first_artifact[0]) {
			snprintf(o->first_artifact, sizeof(o->first_artifact), "%s", path);
			snprintf(o->first_reproduce, sizeof(o->first_reproduce), "%s",
				 json_string_value(json_object_get(art, "reproduce")));
		}
	} else if (ret == 0) {
		o->artifacts_repeat++;
	}
	json_decref(art);
}

unsigned long rt_run_record_stop_step(const struct rt_run_opts *o, enum rmap_mode mode,
				     const char *dir)
{
	char path[4096];
	unsigned long steps = 0;
	json_t *rec;

	record_path(o, mode, dir, path, sizeof(path));
	rec = json_load_file(path, 0, NULL);
	if (rec) {
		steps = (unsigned long)json_integer_value(json_object_get(rec, "sched_steps"));
		json_decref(rec);
	}
	return steps;
}
