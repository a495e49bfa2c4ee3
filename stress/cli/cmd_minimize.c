// SPDX-License-Identifier: MIT
/*
 * `rmaptorture minimize ARTIFACT`: shrink a failing run, greedily, while
 * the same failure signature persists: fewer worker and reclaim threads,
 * fewer operations or scheduling steps, fewer processes, fewer operation
 * kinds, a shorter run. Each candidate is a real child run; an accepted
 * one's own artifact (written by the child, so its fields agree with its
 * args) becomes the new current one, and the last is the result.
 *
 * The result is never larger than the input: every shrunk value is passed
 * explicitly and only ever lowered, and a candidate whose artifact shows
 * more threads, reclaim threads, processes, ops, steps or seconds than the
 * input is refused.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "artifact.h"
#include "record.h"
#include "rt_child.h"
#include "commands.h"
#include "run_opts.h"
#include "rt_opt.h"
#include "rt_time.h"
#include "minimize-internal.h"
#include "rt_explore.h"

static void min_usage(FILE *f)
{
	fputs("usage: rmaptorture minimize ARTIFACT [OPTIONS]\n"
	      "\n"
	      "Shrink the run recorded in a failure artifact while the same failure\n"
	      "signature persists, one change at a time, each tried as a real run:\n"
	      "worker threads (halved, then one by one down to 1), reclaim threads (the\n"
	      "same, down to 0), --ops and, for a deterministic schedule, --sched-steps\n"
	      "(halved), --procs (halved, then bisected), the scenario's operation kinds\n"
	      "(each weight zeroed in turn, kept zero if the failure persists) and, for a\n"
	      "run bounded by time, --seconds (halved). An explore schedule (--decisions)\n"
	      "keeps its pair and world and shrinks only the decision list: fewer switches\n"
	      "between CPUs first (the last one dropped, or a CPU's run moved after the\n"
	      "other's next one), then a shorter list. Up to three passes. The smallest\n"
	      "artifact is written next to the input as NAME-min.json (or into --out DIR):\n"
	      "the artifact its last kept run wrote, never larger than the input.\n"
	      "\n"
	      "  -o, --out DIR           write NAME-min.json there instead\n"
	      "  -b, --budget S          stop trying after S seconds (default 300); the best so\n"
	      "                          far is written\n"
	      "  -n, --tries-per-step N  free schedule: tries per candidate (default 3); a\n"
	      "                          deterministic schedule gets one\n"
	      "      --build-if-missing  build the artifact's sanitizer build when it is not\n"
	      "                          there (the default)\n"
	      "      --no-build          fail instead of building it\n"
	      "  -q, --quiet             no line per candidate\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Exit status: 0 a minimized artifact was written (a copy of the input when\n"
	      "nothing could be shrunk), 1 the input did not reproduce, 2 bad usage or a bad\n"
	      "artifact, 3 internal error, 130 interrupted (the best so far is written).\n", f);
}

static void parse_min_opts(int argc, char **argv, struct min_opts *o)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "budget", required_argument, NULL, 'b' },
		{ "tries-per-step", required_argument, NULL, 'n' },
		{ "build-if-missing", no_argument, NULL, RT_OPT_BUILD_IF_MISSING },
		{ "no-build", no_argument, NULL, RT_OPT_NO_BUILD },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	rt_common_opts_init(&o->common, "minimize", min_usage, 7 * 86400);
	o->common.budget = 300;
	o->tries_per_step = 3;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:b:n:qh", opts, NULL)) != -1) {
		if (c == 'n')
			o->tries_per_step = rt_opt_int("--tries-per-step", optarg, 1, 1000);
		else
			rt_common_opt(&o->common, c, optarg, argv[optind - 1]);
	}
	o->artifact = rt_opt_artifact("minimize", argc, argv);
}

/*
 * The child's artifact names the try directory it was written to (our
 * --out, with --no-progress, appended to its args): drop both, so that its
 * command reproduces it as it stands.
 */
static void drop_try_out(json_t *art, const char *dir)
{
	json_t *args = json_object_get(art, "args");
	const char *repro = json_string_value(json_object_get(art, "reproduce"));
	size_t n = json_array_size(args);

	if (n >= 3 && !strcmp(json_string_value(json_array_get(args, n - 3)), "--out") &&
	    !strcmp(json_string_value(json_array_get(args, n - 2)), dir) &&
	    !strcmp(json_string_value(json_array_get(args, n - 1)), "--no-progress")) {
		json_array_remove(args, n - 1);
		json_array_remove(args, n - 2);
		json_array_remove(args, n - 3);
	}
	if (repro) {
		char needle[4200], *buf = strdup(repro), *at;

		snprintf(needle, sizeof(needle), " --out %s", dir);
		if (buf && (at = strstr(buf, needle))) {
			char *rest = at + strlen(needle);

			if (!strncmp(rest, " --no-progress", 14) && (!rest[14] || rest[14] == ' '))
				rest += 14;
			memmove(at, rest, strlen(rest) + 1);
			json_object_set_new(art, "reproduce", json_string(buf));
		}
		free(buf);
	}
}

static void describe(const char *label, const json_t *art)
{
	char w[4096];
	long long ops = min_field_int(art, "ops");

	min_weights_str(json_object_get(art, "weights"), w, sizeof(w), true);
	printf("%s threads %lld, reclaim_threads %lld, procs %lld, ops %lld%s, sched_steps %lld,"
	       " seconds %g, weights %s\n", label, min_field_int(art, "threads"),
	       min_field_int(art, "reclaim_threads"), min_field_int(art, "procs"), ops,
	       ops ? "" : " (unbounded)", min_field_int(art, "sched_steps"),
	       json_number_value(json_object_get(art, "seconds")), w);
	{
		struct state st = { 0 };
		int *d;
		size_t n;

		min_state_from_art(&st, art);
		if (st.decisions && !rt_explore_parse(st.decisions, &d, &n)) {
			printf("%s decisions %s (%d switches, %zu decisions)\n", label, st.decisions,
			       min_decisions_switches(d, n), n);
			free(d);
		}
		min_state_release(&st);
	}
}

/* NAME-min.json, in @out_dir or next to @input. */
static void output_path(const char *input, const char *out_dir, char *path, size_t len)
{
	const char *slash = strrchr(input, '/'), *base = slash ? slash + 1 : input;
	size_t blen = strlen(base);

	if (blen > 5 && !strcmp(base + blen - 5, ".json"))
		blen -= 5;
	if (out_dir)
		snprintf(path, len, "%s/%.*s-min.json", out_dir, (int)blen, base);
	else if (slash)
		snprintf(path, len, "%.*s%.*s-min.json", (int)(base - input), input, (int)blen, base);
	else
		snprintf(path, len, "%.*s-min.json", (int)blen, base);
}

/* The baseline: does the input reproduce at all? Return: CAND_KEPT, _REJECTED or _STOP. */
static int baseline(struct ctx *x, int *usage)
{
	int tries = x->deterministic ? 1 : x->tries_per_step;
	json_t *context = rt_try_context(x->input, NULL);
	int verdict = CAND_REJECTED;
	char rcs[64];

	for (int t = 1; t <= tries && verdict == CAND_REJECTED; t++) {
		struct rt_try_result res;
		int rc;

		if (rt_child_interrupted() || !min_budget_left(x)) {
			verdict = CAND_STOP;
			break;
		}
		rc = rt_try_run(&x->cfg, x->input_args, x->signature, context, ++x->try_no, &res);
		if (rc == RT_CHILD_INTERRUPTED || rc == RT_CHILD_ERROR || res.rc == 127) {
			rt_try_release(&res);
			verdict = CAND_STOP;
			break;
		}
		*usage = res.rc == RT_EXIT_USAGE;
		if (*usage) {
			char line[512];

			rt_try_first_line(&res, line, sizeof(line));
			fprintf(stderr, "rmaptorture: minimize: the run rejected the artifact's args: %s\n",
				line);
		}
		if (!x->o.common.quiet)
			printf("  the input as it stands: %s (try %d/%d, %s, %.1f s)\n",
			       rc == 1 ? "reproduced" : "not reproduced", t, tries,
			       rt_child_rc_str(res.rc, rcs, sizeof(rcs)), res.seconds);
		fflush(stdout);
		rt_remove_tree(res.dir);
		rt_try_release(&res);
		if (rc == 1)
			verdict = CAND_KEPT;
		else if (*usage)
			break;
	}
	json_decref(context);
	return verdict;
}

static int write_result(struct ctx *x, const char *path)
{
	if (!x->kept && rt_child_interrupted()) {
		printf("minimize: interrupted before anything was shrunk; nothing written\n");
		return RT_EXIT_INTERRUPTED;
	}
	if (!x->kept) {
		int err = rt_copy_file(x->o.artifact, path);

		if (err) {
			fprintf(stderr, "rmaptorture: minimize: cannot write %s: %s\n", path,
				strerror(-err));
			return RT_EXIT_INTERNAL;
		}
		printf("minimize: nothing could be shrunk%s; wrote a copy of the input to %s\n",
		       x->budget_out ? " within the budget" : "", path);
		return RT_EXIT_OK;
	}
	drop_try_out(x->cur.art, x->cur.dir);
	if (rt_record_write(x->cur.art, path))
		return RT_EXIT_INTERNAL;
	printf("minimize: wrote %s (%d of %d candidates kept, %.0f s)\n", path, x->kept,
	       x->candidates, rt_now_s() - x->start);
	describe("before:", x->input);
	describe("after: ", x->cur.art);
	printf("reproduce: %s\n", json_string_value(json_object_get(x->cur.art, "reproduce")));
	return RT_EXIT_OK;
}

/*
 * The binary of the artifact's build (built if missing and allowed), a work
 * directory, the try configuration; the header lines. Return: 0 or -1.
 */
static int min_setup(struct ctx *x, char *binary, size_t blen, char *workdir, size_t wlen)
{
	if (rt_build_binary(json_string_value(json_object_get(x->input, "build")),
			    x->o.common.build_if_missing, binary, blen) ||
	    rt_try_workdir("minimize", workdir, wlen))
		return -1;
	x->cfg = (struct rt_try_config){ .binary = binary,
		.build = json_string_value(json_object_get(x->input, "build")),
		.workdir = workdir, .timeout_s = rt_try_timeout(x->input) };
	rt_try_warn_revision(x->input, x->o.artifact, "minimize");
	if (!x->o.common.quiet) {
		printf("minimize: %s: %s failure, signature %s\n", x->o.artifact,
		       json_string_value(json_object_get(x->input, "kind")), x->signature);
		printf("minimize: sched %s (%d %s per candidate), build %s, budget %g s\n",
		       json_string_value(json_object_get(x->input, "sched")),
		       x->deterministic ? 1 : x->tries_per_step,
		       x->deterministic || x->tries_per_step == 1 ? "try" : "tries",
		       x->cfg.build, x->o.common.budget);
		fflush(stdout);
	}
	return 0;
}

/* The baseline @r did not reproduce: why, and the exit status. */
static int not_reproduced(const struct ctx *x, int r, int usage)
{
	if (rt_child_interrupted()) {
		printf("minimize: interrupted before the input reproduced\n");
		return RT_EXIT_INTERRUPTED;
	}
	if (usage)
		return RT_EXIT_USAGE;
	if (r == CAND_STOP && !x->budget_out)
		return RT_EXIT_INTERNAL;
	printf("minimize: the input did not reproduce (%d %s%s); nothing written\n",
	       x->try_no, x->try_no == 1 ? "try" : "tries",
	       x->budget_out ? ", the budget ran out" : "");
	return RT_EXIT_FAILURE;
}

int cmd_minimize(int argc, char **argv)
{
	struct ctx x;
	char err[4600], binary[4096], workdir[4096], out[4200];
	json_t *input;
	int ret, usage = 0, r = 0;

	memset(&x, 0, sizeof(x));
	parse_min_opts(argc, argv, &x.o);
	input = rt_artifact_load(x.o.artifact, rt_opt_design_names(), err, sizeof(err));
	if (!input) {
		fprintf(stderr, "rmaptorture: %s\n", err);
		return RT_EXIT_USAGE;
	}
	if (x.o.common.out_dir)
		rt_opt_out_dir("--out", x.o.common.out_dir);
	output_path(x.o.artifact, x.o.common.out_dir, out, sizeof(out));
	x.input = input;
	x.input_args = json_object_get(input, "args");
	x.signature = json_string_value(json_object_get(input, "signature"));
	x.deterministic = strcmp(json_string_value(json_object_get(input, "sched")), "free") != 0;
	x.tries_per_step = (int)x.o.tries_per_step;
	x.cur.art = json_incref(input);
	min_state_from_art(&x.cur, input);

	if (min_setup(&x, binary, sizeof(binary), workdir, sizeof(workdir))) {
		min_state_release(&x.cur);
		json_decref(input);
		return RT_EXIT_INTERNAL;
	}

	rt_child_catch_interrupt();
	x.start = rt_now_s();
	r = baseline(&x, &usage);
	if (r != CAND_KEPT) {
		rt_remove_tree(workdir);
		ret = not_reproduced(&x, r, usage);
		min_state_release(&x.cur);
		json_decref(input);
		return ret;
	}

	for (int pass = 0; pass < 3; pass++) {
		if (!x.o.common.quiet) {
			printf("pass %d:\n", pass + 1);
			fflush(stdout);
		}
		r = min_shrink_pass(&x);
		if (r <= 0)
			break;
	}
	ret = write_result(&x, out);
	if (ret == RT_EXIT_OK) {
		if (x.budget_out && x.kept)
			printf("minimize: the budget (%g s) ran out; this is the smallest so far\n",
			       x.o.common.budget);
		if (rt_child_interrupted()) {
			printf("minimize: interrupted; this is the smallest so far\n");
			ret = RT_EXIT_INTERRUPTED;
		} else if (r == CAND_STOP && !x.budget_out) {
			ret = RT_EXIT_INTERNAL;
		}
		printf("replay: rmaptorture replay %s\n", out);
	}
	rt_remove_tree(workdir);
	min_state_release(&x.cur);
	json_decref(input);
	return ret;
}
