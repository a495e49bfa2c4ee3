// SPDX-License-Identifier: MIT
/*
 * `rmaptorture replay ARTIFACT`: run a failure artifact's command again,
 * in the build that found it, and say whether the same failure signature
 * comes back. A deterministic schedule (random, pct) must reproduce it on
 * every try; a free one is retried until it does or the budget runs out.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "artifact.h"
#include "rt_child.h"
#include "commands.h"
#include "rt_opt.h"
#include "rt_time.h"

struct replay_opts {
	const char *artifact;
	struct rt_common_opts common;	/* --out, --budget, --no-build, --quiet */
	long long times;	/* 0: the default (3 deterministic, 1 free) */
};

static void replay_usage(FILE *f)
{
	fputs("usage: rmaptorture replay ARTIFACT [OPTIONS]\n"
	      "\n"
	      "Run the command recorded in a failure artifact (a failure-*.json that\n"
	      "'rmaptorture run --out DIR' wrote) again, with the binary of the build that\n"
	      "found it, and check that a failure with the same signature comes back.\n"
	      "\n"
	      "A deterministic schedule (sched random or pct) must reproduce it every time:\n"
	      "it runs N tries and passes only if all of them reproduce. A free schedule is\n"
	      "retried until the failure comes back (N times with --times) or the budget\n"
	      "runs out, and passes if it came back at least once. Each try ends at the\n"
	      "first report with the artifact's signature (run --halt-on-signature; another\n"
	      "report does not end it), and its command is printed.\n"
	      "\n"
	      "  -o, --out DIR           copy the reproduced failure artifacts there\n"
	      "  -n, --times N           deterministic: tries (default 3); free: stop after N\n"
	      "                          reproductions (default 1)\n"
	      "  -b, --budget S          free: stop starting tries after S seconds (default 60);\n"
	      "                          deterministic: the same bound, none by default\n"
	      "      --build-if-missing  build the artifact's sanitizer build when it is not\n"
	      "                          there (the default)\n"
	      "      --no-build          fail instead of building it\n"
	      "  -q, --quiet             only the verdict line\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "Exit status: 0 reproduced (every try, for a deterministic schedule),\n"
	      "1 not reproduced, 2 bad usage or a bad artifact, 3 internal error (the build\n"
	      "is missing or a run could not start), 130 interrupted.\n", f);
}

static void parse_replay_opts(int argc, char **argv, struct replay_opts *o)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "times", required_argument, NULL, 'n' },
		{ "budget", required_argument, NULL, 'b' },
		{ "build-if-missing", no_argument, NULL, RT_OPT_BUILD_IF_MISSING },
		{ "no-build", no_argument, NULL, RT_OPT_NO_BUILD },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	rt_common_opts_init(&o->common, "replay", replay_usage, 7 * 86400);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:n:b:qh", opts, NULL)) != -1) {
		if (c == 'n')
			o->times = rt_opt_int("--times", optarg, 1, 1000000);
		else
			rt_common_opt(&o->common, c, optarg, argv[optind - 1]);
	}
	o->artifact = rt_opt_artifact("replay", argc, argv);
}

/* A replay under way: what it aims at, and what it has seen. */
struct replay {
	struct replay_opts o;
	struct rt_try_config cfg;
	json_t *art, *context;
	const char *sig;
	bool deterministic;
	long long target;	/* tries (deterministic) or reproductions (free) */
	double budget;		/* seconds; 0: none */
	double start;
	int tries, reproduced;
};

/* The artifact, its build's binary, a work directory; the header lines. Return: 0 or exit. */
static int replay_setup(struct replay *r, char *binary, size_t blen, char *workdir, size_t wlen)
{
	const char *sched, *build;
	char err[4600];

	r->art = rt_artifact_load(r->o.artifact, rt_opt_design_names(), err, sizeof(err));
	if (!r->art) {
		fprintf(stderr, "rmaptorture: %s\n", err);
		return RT_EXIT_USAGE;
	}
	if (r->o.common.out_dir)
		rt_opt_out_dir("--out", r->o.common.out_dir);
	sched = json_string_value(json_object_get(r->art, "sched"));
	r->sig = json_string_value(json_object_get(r->art, "signature"));
	build = json_string_value(json_object_get(r->art, "build"));
	r->deterministic = strcmp(sched, "free") != 0;
	r->target = r->o.times ? r->o.times : r->deterministic ? 3 : 1;
	r->budget = r->o.common.budget ? r->o.common.budget : r->deterministic ? 0 : 60;
	if (rt_build_binary(build, r->o.common.build_if_missing, binary, blen) ||
	    rt_try_workdir("replay", workdir, wlen))
		return RT_EXIT_INTERNAL;
	r->cfg = (struct rt_try_config){ .binary = binary, .build = build, .workdir = workdir,
					 .timeout_s = rt_try_timeout(r->art) };
	rt_try_warn_revision(r->art, r->o.artifact, "replay");
	if (!r->o.common.quiet) {
		char cmd[16384];

		printf("replay: %s: %s failure, signature %s\n", r->o.artifact,
		       json_string_value(json_object_get(r->art, "kind")), r->sig);
		printf("replay: sched %s, build %s (%s); %s\n", sched, build, binary,
		       r->deterministic ? "every try must reproduce it" :
					  "retrying until it comes back");
		/* What runs, not the artifact's "reproduce": its "args" are what replay runs. */
		rt_try_cmdline(&r->cfg, json_object_get(r->art, "args"), r->sig, 1, cmd, sizeof(cmd));
		printf("replay: try 1 runs%s: %s\n", strcmp(build, "plain") ?
		       " (with the sanitizer's capture options in its environment)" : "", cmd);
		fflush(stdout);
	}
	return RT_EXIT_OK;
}

/* Whether another try is due: the target, the budget. */
static bool replay_more(const struct replay *r)
{
	if (r->deterministic ? r->tries >= r->target : r->reproduced >= r->target)
		return false;
	return !(r->budget > 0 && rt_now_s() - r->start >= r->budget);
}

static void print_try(const struct replay *r, const struct rt_try_result *res, int rc)
{
	char rcs[64];

	printf("try %d%s: %s (%s, %.1f s)", r->tries, r->deterministic ? "" : " (free)",
	       rc == 1 ? "reproduced" : "not reproduced",
	       rt_child_rc_str(res->rc, rcs, sizeof(rcs)), res->seconds);
	if (rc != 1 && json_array_size(res->artifacts))
		printf("; other failure: %s", json_string_value(json_object_get(
			json_array_get(res->artifacts, 0), "signature")));
	putchar('\n');
	fflush(stdout);
}

/* One try. Return: RT_EXIT_OK to go on, else the exit status that ends the replay. */
static int replay_try(struct replay *r)
{
	struct rt_try_result res;
	int rc, ret = RT_EXIT_OK;

	if (rt_child_interrupted())
		return RT_EXIT_INTERRUPTED;
	rc = rt_try_run(&r->cfg, json_object_get(r->art, "args"), r->sig, r->context, ++r->tries,
			&res);
	if (rc == RT_CHILD_INTERRUPTED) {
		rt_try_release(&res);
		r->tries--;	/* not a try that counts */
		return RT_EXIT_INTERRUPTED;
	}
	if (rc == RT_CHILD_ERROR || res.rc == 127) {
		rt_try_release(&res);
		return RT_EXIT_INTERNAL;
	}
	if (res.rc == RT_EXIT_USAGE) {
		char line[1024];

		rt_try_first_line(&res, line, sizeof(line));
		fprintf(stderr, "rmaptorture: replay: the run rejected the artifact's args: %s\n", line);
		rt_try_release(&res);
		return RT_EXIT_USAGE;
	}
	if (rc == 1) {
		r->reproduced++;
		if (r->o.common.out_dir) {
			json_t *copy = json_deep_copy(json_object_get(res.match, "artifact"));

			if (rt_artifact_save(copy, r->o.common.out_dir, NULL, 0) < 0)
				ret = RT_EXIT_INTERNAL;
			json_decref(copy);
		}
	}
	if (!r->o.common.quiet)
		print_try(r, &res, rc);
	rt_try_release(&res);
	return ret;
}

/* The verdict line; @ret: how the tries ended. Return: the exit status. */
static int replay_verdict(const struct replay *r, int ret)
{
	bool ok;

	if (ret == RT_EXIT_INTERRUPTED)
		printf("replay: interrupted: reproduced %d/%d\n", r->reproduced, r->tries);
	if (ret != RT_EXIT_OK)
		return ret;
	ok = r->deterministic ? r->tries == r->target && r->reproduced == r->tries : r->reproduced > 0;
	if (r->deterministic)
		printf("reproduced %d/%d%s\n", r->reproduced, r->tries,
		       r->tries < r->target ? " (the budget ran out)" : "");
	else
		printf("reproduced %d/%d (free schedule, %.0f s)%s\n", r->reproduced, r->tries,
		       rt_now_s() - r->start, r->reproduced < r->target ? ": the budget ran out" : "");
	if (r->o.common.out_dir && r->reproduced)
		printf("replay: the reproduced artifacts are in %s\n", r->o.common.out_dir);
	return ok ? RT_EXIT_OK : RT_EXIT_FAILURE;
}

int cmd_replay(int argc, char **argv)
{
	struct replay r = { 0 };
	char binary[4096], workdir[4096];
	int ret;

	parse_replay_opts(argc, argv, &r.o);
	ret = replay_setup(&r, binary, sizeof(binary), workdir, sizeof(workdir));
	if (ret) {
		json_decref(r.art);
		return ret;
	}
	r.context = rt_try_context(r.art, NULL);
	rt_child_catch_interrupt();
	r.start = rt_now_s();
	while (ret == RT_EXIT_OK && replay_more(&r))
		ret = replay_try(&r);
	rt_remove_tree(workdir);
	json_decref(r.context);
	ret = replay_verdict(&r, ret);
	json_decref(r.art);
	return ret;
}
