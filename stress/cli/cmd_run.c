// SPDX-License-Identifier: MIT
/*
 * `rmaptorture run`: the start line, the runs (each design in turn), the
 * end summary, the records (run_record.c), --check-determinism,
 * and --build (the same run in a sanitizer build's binary).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "inject.h"
#include "lockdep.h"
#include "record.h"
#include "rt_child.h"
#include "capture.h"
#include "variant.h"
#include "commands.h"
#include "cover_map.h"
#include "rt_opt.h"
#include "rt_time.h"
#include "run_opts.h"
#include "run_record.h"
#include "rt_vtime_report.h"

static void print_summary(FILE *f, const struct rt_run_opts *o, enum rmap_mode mode,
			  const struct rt_run_result *r)
{
	fprintf(f, "\n%s / %s: %lu ops in %.2f s = %.0f ops/s (%d workers, %d kswapd, %d processes at the end)\n",
		o->cfg.scenario->name, rmap_mode_name(mode), r->ops, r->elapsed,
		r->elapsed > 0 ? (double)r->ops / r->elapsed : 0.0, o->cfg.threads,
		o->cfg.reclaim_threads, r->procs_end);
	if (r->interrupted)
		fprintf(f, "INTERRUPTED after %.2f s: the numbers below are of a partial run\n",
			r->elapsed);
	fprintf(f, "\n%-18s %12s\n", "operation", "count");
	for (int k = 0; k < WL_NR_OPS; k++)
		if (r->ops_by_kind[k])
			fprintf(f, "%-18s %12lu\n", wl_op_name((enum wl_op)k), r->ops_by_kind[k]);
	fprintf(f, "%-18s %12lu   (skipped %lu: no target)\n", "backed off (OOM)", r->oom, r->skipped);

	fprintf(f, "\n%-18s %12s %11s %7s %11s %11s\n", "lock class", "acquired",
		"contended", "cont%", "try", "try-failed");
	for (int cls = 0; cls < LOCK_CLASS_NR_STATIC; cls++) {
		const struct lock_class_stats *s = &r->locks[cls];

		if (!s->acquired && !s->try_attempts)
			continue;
		fprintf(f, "%-18s %12lu %11lu %6.2f%% %11lu %11lu\n", lock_class_name(cls),
			s->acquired, s->contended,
			s->acquired ? 100.0 * (double)s->contended / (double)s->acquired : 0.0,
			s->try_attempts, s->try_failures);
	}
	fprintf(f, "\n%-42s %10s\n", "trylock fallback site", "fired");
	for (int s = 0; s < FB_NR_SITES; s++)
		if (r->fallbacks[s])
			fprintf(f, "%-42s %10lu\n", rmap_fallback_name((enum rmap_fallback_site)s),
				r->fallbacks[s]);
	fprintf(f, "\nreclaim: scanned %lu, freed %lu (swapped out %lu, file dropped %lu, written %lu),"
		" referenced %lu, SWAP_AGAIN %lu, SWAP_FAIL %lu, locked %lu, busy %lu, swap full %lu\n",
		r->reclaim.scanned, r->reclaim.freed, r->reclaim.swapped_out, r->reclaim.file_dropped,
		r->reclaim.file_written, r->reclaim.referenced, r->reclaim.unmap_again,
		r->reclaim.unmap_fail, r->reclaim.locked_skip, r->reclaim.busy, r->reclaim.swap_full);
	fprintf(f, "reclaim: %lu scanned pages were mapped, %lu of them reached try_to_unmap (%.1f%%)\n",
		r->reclaim.mapped_scanned, r->reclaim.unmap_tried, 100.0 * rt_unmap_share(&r->reclaim));
	fprintf(f, "reclaim: direct reclaim (try_to_free_pages) %lu calls, %lu pages freed\n",
		r->reclaim.direct_calls, r->reclaim.direct_freed);
	fprintf(f, "tlb: %lu accesses used a cached translation, %lu walked (hit rate %.1f%%);"
		" flushes page/range/mm %lu/%lu/%lu, found a CPU's entry to drop %lu/%lu/%lu\n",
		r->tlb.hits, r->tlb.misses,
		r->tlb.hits + r->tlb.misses ?
			100.0 * (double)r->tlb.hits / (double)(r->tlb.hits + r->tlb.misses) : 0.0,
		r->tlb.flushes[TLB_FLUSH_PAGE], r->tlb.flushes[TLB_FLUSH_RANGE],
		r->tlb.flushes[TLB_FLUSH_MM], r->tlb.drops[TLB_FLUSH_PAGE],
		r->tlb.drops[TLB_FLUSH_RANGE], r->tlb.drops[TLB_FLUSH_MM]);
	fprintf(f, "rmap bytes: pte_chains %lu now / %lu peak, anon_vmas %lu / %lu, vma fields %lu / %lu;"
		" %lu pages mapped at the peak audit\n",
		r->rmap_bytes.pte_chain_now, r->rmap_bytes.pte_chain_peak,
		r->rmap_bytes.anon_vma_now, r->rmap_bytes.anon_vma_peak,
		r->rmap_bytes.vma_extra_now, r->rmap_bytes.vma_extra_peak, r->mapped_pages_peak);
	if (o->cfg.sched == RT_SCHED_PCT || o->cfg.sched == RT_SCHED_COVER)
		fprintf(f, "schedule: %lu decisions; the longest operation took %lu of one thread's;"
			" %lu ticks dropped a thread that kept the CPU through one operation\n",
			r->sched_steps, r->longest_op, r->tick_drops);
	fprintf(f, "audits: %lu run, %lu violations; reports: %lu; teardown: %s\n",
		r->audits, r->audit_violations, rt_result_failures(r),
		r->oops ? "not run (a task died in BUG holding locks)" :
		r->hang ? "not run (hung tasks hold locks)" :
		r->halted ? "not run (halted at --halt-on-signature)" :
		r->teardown_violations ? "LEAKS" : "clean");
	rt_vtime_print_summary(f, r);
}

/*
 * run --build tsan|asan: run this very command in that build's binary
 * (the seed fixed, so it is the same run), with the sanitizer options the
 * capture needs, turn each root cause its reports show into an artifact
 * next to the run's own and print the new ones. Exit: the child's, a
 * sanitizer report counting as 1.
 */
static int run_in_build(struct rt_run_opts *o, enum rmap_mode *modes, int nr_modes)
{
	char binary[4096], dir[4096], prefix[4200], line[256];
	int worst = RT_EXIT_OK;

	if (rt_build_binary(o->build, !o->no_build, binary, sizeof(binary)))
		return RT_EXIT_INTERNAL;
	if (o->out_dir) {
		snprintf(dir, sizeof(dir), "%s", o->out_dir);
	} else {
		if (rt_try_workdir(o->build, dir, sizeof(dir)))
			return RT_EXIT_INTERNAL;
		fprintf(stderr, "rmaptorture: artifacts go to %s\n", dir);
	}
	rt_child_catch_interrupt();
	for (int i = 0; i < nr_modes && !rt_child_interrupted(); i++) {
		json_t *args = rt_reproduce_args(o, modes[i], 0), *context, *a;
		char **argv = rt_calloc(json_array_size(args) + 6, sizeof(*argv));
		int n = 0, nr_new = 0, nr_repeat = 0, rc, found;
		size_t k;

		argv[n++] = binary;
		json_array_foreach(args, k, a)
			argv[n++] = (char *)json_string_value(a);
		argv[n++] = "--out";
		argv[n++] = dir;
		if (!o->cfg.progress)
			argv[n++] = "--no-progress";
		argv[n] = NULL;
		snprintf(prefix, sizeof(prefix), "%s/sanitizer-%s-%s", dir, o->build,
			 rmap_mode_name(modes[i]));
		rt_sanitizer_logs_remove(prefix);
		rt_variant_setenv(o->build, prefix);
		fprintf(stderr, "rmaptorture: running in the %s build: %s\n", o->build, binary);
		rc = rt_child_run(binary, argv, 0, NULL, NULL);
		context = rt_failure_context(o, modes[i], rt_run_record_stop_step(o, modes[i], dir), o->build);
		found = rt_sanitizer_collect(prefix, context, dir, stdout, &nr_new, &nr_repeat);
		json_decref(context);
		json_decref(args);
		free(argv);
		if (found > 0)
			printf("SANITIZER: %d reports in %d groups: %d new, %d repeats; artifacts in %s\n"
			       "END: FAILURE (%s reports)\n", found, nr_new + nr_repeat, nr_new,
			       nr_repeat, dir, o->build);
		if (rc == RT_CHILD_INTERRUPTED)
			return RT_EXIT_INTERRUPTED;
		if (rc < 0 || (rc != RT_EXIT_OK && rc != RT_EXIT_FAILURE && rc != 66 &&
			       rc != RT_EXIT_INTERRUPTED)) {
			fprintf(stderr, "rmaptorture: the %s build's run ended with %s\n", o->build,
				rt_child_rc_str(rc, line, sizeof(line)));
			if (found <= 0)
				return rc == RT_EXIT_USAGE ? RT_EXIT_USAGE : RT_EXIT_INTERNAL;
		}
		if (rc == RT_EXIT_INTERRUPTED)
			return RT_EXIT_INTERRUPTED;
		if (rc != RT_EXIT_OK || found > 0)
			worst = RT_EXIT_FAILURE;
	}
	return worst;
}

static const char *inject_list(const struct rt_run_opts *o)
{
	static char buf[512];
	int n = 0;

	buf[0] = '\0';
	for (int b = 0; b < INJECT_NR_BUGS; b++)
		if (o->cfg.inject_mask & (1ULL << b))
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "%s%s", n ? "," : "",
				      inject_name((enum inject_bug)b));
	return n ? buf : "none";
}

/*
 * --check-determinism: replay the run just done, bounded by the decision
 * at which it stopped, and compare every thread's operation sequence and
 * the outcome. A difference is a bug of the harness (exit 3).
 */
static int check_determinism(struct rt_run_opts *o, const struct rt_run_result *first, FILE *out)
{
	struct rt_run_config cfg = o->cfg;
	struct rt_run_result *again = rt_calloc(1, sizeof(*again));
	int rc, bad = -1;

	cfg.sched_steps = first->stop_step ? first->stop_step : cfg.sched_steps;
	cfg.seconds = 0;
	cfg.on_report = NULL;
	cfg.progress = false;
	fprintf(out, "determinism: replaying %lu decisions...\n", first->stop_step);
	fflush(out);
	rc = rt_run(&cfg, again);
	if (rc == 3) {
		free(again);
		fprintf(out, "END: FAILURE (internal: the determinism replay could not start)\n");
		return RT_EXIT_INTERNAL;
	}
	for (int i = 0; i < first->nr_threads && i < RT_MAX_THREADS; i++) {
		if (first->thread_ops[i] != again->thread_ops[i] ||
		    first->thread_hash[i] != again->thread_hash[i]) {
			bad = i;
			break;
		}
	}
	if (bad >= 0 || first->nr_threads != again->nr_threads || first->ops != again->ops ||
	    first->nr_failures != again->nr_failures ||
	    first->audit_violations != again->audit_violations ||
	    (first->nr_failures && strcmp(first->failures[0].signature, again->failures[0].signature))) {
		if (bad >= 0)
			fprintf(out, "determinism: MISMATCH (a harness bug): thread %d did %lu operations"
				" (sequence %016" PRIx64 ") then %lu (%016" PRIx64 ")\n", bad,
				first->thread_ops[bad], first->thread_hash[bad],
				again->thread_ops[bad], again->thread_hash[bad]);
		else
			fprintf(out, "determinism: MISMATCH (a harness bug): outcome %lu ops, %d failures,"
				" %lu violations then %lu ops, %d failures, %lu violations\n",
				first->ops, first->nr_failures, first->audit_violations,
				again->ops, again->nr_failures, again->audit_violations);
		fprintf(out, "END: FAILURE (internal: nondeterministic schedule)\n");
		free(again);
		return RT_EXIT_INTERNAL;
	}
	fprintf(out, "determinism: OK: %d threads, %lu operations, %lu decisions, %d failures:"
		" the same sequences twice\n", first->nr_threads, first->ops,
		again->sched_steps, first->nr_failures);
	free(again);
	return 0;
}

/*
 * The report hook. Without --out, the first report makes a directory for
 * the artifacts ($TMPDIR/rmaptorture-run-XXXXXX, as `run --build` makes
 * one), said on stderr, which the run's record then joins: a failure is
 * never lost, and a clean run leaves nothing behind.
 * Context: the engine's report lock held; any thread.
 */
static void run_on_report(const struct vm_report *r, void *arg)
{
	static char default_out[4096];
	static bool tried;
	struct rt_run_opts *o = arg;

	if (!o->out_dir && !tried) {
		tried = true;
		if (!rt_try_workdir("run", default_out, sizeof(default_out))) {
			o->out_dir = default_out;
			fprintf(stderr, "rmaptorture: no --out: artifacts go to %s\n", default_out);
		}
	}
	rt_run_on_report(r, arg);
}

static void on_signal(int sig)
{
	(void)sig;
	rt_interrupted = 1;
}

/* The START line, and for PCT the probability bound it gives. */
static void print_start(FILE *out, const struct rt_run_opts *o, enum rmap_mode mode)
{
	const struct rt_run_config *c = &o->cfg;

	fprintf(out, "START: rmaptorture run scenario=%s rmap=%s threads=%d reclaim_threads=%d seconds=%g ops=%lu seed=%" PRIu64 " pages=%lu swap=%lu audit_every=%g perturb=%d sched=%s inject=%s build=%s cores=%d version=%s\n",
		c->scenario->name, rmap_mode_name(mode), c->threads,
		c->reclaim_threads, c->seconds, c->ops, c->seed,
		c->params.pages, c->params.swap_slots, c->audit_every,
		c->perturb, rt_sched_name(c->sched), inject_list(o),
		RT_BUILD_KIND, rt_machine_cores(), rt_version());
	if (c->sched == RT_SCHED_PCT) {
		int n = c->threads + c->reclaim_threads;

		fprintf(out, "PCT: %d threads, depth %d, change points in the first %lu decisions:"
			" a depth-%d bug is hit with probability >= 1/(n*k^(d-1)) = %.3g per run\n",
			n, c->pct_depth, c->pct_steps, c->pct_depth,
			rt_sched_pct_bound(n, c->pct_steps, c->pct_depth));
	}
	fflush(out);
}

/*
 * One design: the run, --check-determinism, the summary, the records and
 * the END line; the record printed as one line of JSON (--json: one line
 * per design). A hang or an oops exits the process. Return: RT_EXIT_OK or
 * RT_EXIT_FAILURE (go on to the next design), RT_EXIT_INTERNAL (stop).
 */
static int run_mode(struct rt_run_opts *o, enum rmap_mode mode, FILE *out)
{
	struct rt_run_result *res = rt_calloc(1, sizeof(*res));
	json_t *rec;
	int rc, ret = RT_EXIT_OK;

	o->cfg.mode = mode;
	o->mode_now = mode;
	o->first_artifact[0] = '\0';
	print_start(out, o, mode);
	o->run_start = rt_now_s();
	rc = rt_run(&o->cfg, res);
	if (rc != 3 && o->check_determinism && !res->hang && !res->oops && !res->halted &&
	    !res->interrupted) {
		int d = check_determinism(o, res, out);

		if (d) {
			free(res);
			return d;
		}
	}
	if (rc == 3) {
		fprintf(out, "END: FAILURE (internal: setup failed)\n");
		free(res);
		return RT_EXIT_INTERNAL;
	}
	print_summary(out, o, mode, res);
	rec = rt_run_record_json(o, mode, res, rc);
	if (rt_cover_finish_run(out, rec, rt_sched_name(o->cfg.sched), o->cover_map))
		ret = RT_EXIT_INTERNAL;
	rt_run_record_write(o, mode, rec);
	if (o->json)
		rt_record_print_line(rec);
	json_decref(rec);
	if (rc) {
		if (o->first_artifact[0])
			fprintf(out, "reproduce: %s\nreplay:    rmaptorture replay %s\n",
				o->first_reproduce, o->first_artifact);
		fprintf(out, "END: FAILURE (%s)\n", res->nr_failures ?
			res->failures[0].signature : "audit");
		ret = RT_EXIT_FAILURE;
		if (res->hang || res->oops || res->halted) {
			/* The model is abandoned: stuck threads cannot be joined. */
			fflush(NULL);
			_exit(RT_EXIT_FAILURE);
		}
	} else if (res->interrupted) {
		fprintf(out, "END: INTERRUPTED\n");
	} else {
		fprintf(out, "END: SUCCESS\n");
	}
	fflush(out);
	free(res);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct rt_run_opts o;
	enum rmap_mode modes[RMAP_NR_MODES];
	int nr_modes = 0, worst = RT_EXIT_OK;
	struct sigaction sa;
	FILE *out;

	rt_run_parse_opts(argc, argv, &o);
	out = o.json ? stderr : stdout;
	if (o.all_modes) {
		for (int m = 0; m < RMAP_NR_MODES; m++)
			modes[nr_modes++] = (enum rmap_mode)m;
	} else {
		modes[nr_modes++] = o.cfg.mode;
	}
	if (o.out_dir)
		rt_opt_out_dir("--out", o.out_dir);
	/* A sanitizer build always runs as a child: its options are set at exec. */
	if (o.build && !(!strcmp(o.build, "plain") && !strcmp(RT_BUILD_KIND, "plain"))) {
		if (o.json || o.check_determinism)
			rt_usage_error("--build: --json and --check-determinism run in this build only");
		return run_in_build(&o, modes, nr_modes);
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	o.cfg.on_report = run_on_report;
	o.cfg.on_report_arg = &o;
	inject_mask = o.cfg.inject_mask;
	for (int i = 0; i < nr_modes && !rt_interrupted; i++) {
		int rc = run_mode(&o, modes[i], out);

		if (rc == RT_EXIT_INTERNAL)
			return rc;
		if (rc == RT_EXIT_FAILURE)
			worst = RT_EXIT_FAILURE;
	}
	if (rt_interrupted && worst == RT_EXIT_OK)
		return RT_EXIT_INTERRUPTED;
	return worst;
}
