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
	      "runs out, and passes if it came back at least once.\n"
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
	while ((c = getopt_long(argc, argv, "o:n:b:qh", opts, NULL)) != -1) {
		if (c == 'n')
			o->times = rt_opt_int("--times", optarg, 1, 1000000);
		else
			rt_common_opt(&o->common, c, optarg, argv[optind - 1]);
	}
	o->artifact = rt_opt_artifact("replay", argc, argv);
}

int cmd_replay(int argc, char **argv)
{
	struct replay_opts o;
	struct rt_try_config cfg;
	char err[4600], binary[4096], workdir[4096], rcs[64];
	const char *sched, *sig, *build, *tmp;
	bool deterministic;
	long long target;
	int tries = 0, reproduced = 0, ret;
	double start, budget;
	json_t *art, *context;

	parse_replay_opts(argc, argv, &o);
	art = rt_artifact_load(o.artifact, err, sizeof(err));
	if (!art) {
		fprintf(stderr, "rmaptorture: %s\n", err);
		return RT_EXIT_USAGE;
	}
	if (o.common.out_dir)
		rt_opt_out_dir("--out", o.common.out_dir);
	sched = json_string_value(json_object_get(art, "sched"));
	sig = json_string_value(json_object_get(art, "signature"));
	build = json_string_value(json_object_get(art, "build"));
	deterministic = strcmp(sched, "free") != 0;
	target = o.times ? o.times : deterministic ? 3 : 1;
	budget = o.common.budget ? o.common.budget : deterministic ? 0 : 60;

	if (rt_build_binary(build, o.common.build_if_missing, binary, sizeof(binary))) {
		json_decref(art);
		return RT_EXIT_INTERNAL;
	}
	tmp = getenv("TMPDIR");
	snprintf(workdir, sizeof(workdir), "%s/rmaptorture-replay-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(workdir)) {
		fprintf(stderr, "rmaptorture: replay: cannot create a work directory: %s\n",
			strerror(errno));
		json_decref(art);
		return RT_EXIT_INTERNAL;
	}
	cfg = (struct rt_try_config){ .binary = binary, .build = build, .workdir = workdir,
				      .timeout_s = rt_try_timeout(art) };
	if (!o.common.quiet) {
		printf("replay: %s: %s failure, signature %s\n", o.artifact,
		       json_string_value(json_object_get(art, "kind")), sig);
		printf("replay: sched %s, build %s (%s); %s\n", sched, build, binary,
		       deterministic ? "every try must reproduce it" :
				       "retrying until it comes back");
		printf("reproduce: %s\n", json_string_value(json_object_get(art, "reproduce")));
		fflush(stdout);
	}

	context = rt_try_context(art, NULL);
	rt_child_catch_interrupt();
	start = rt_now_s();
	ret = RT_EXIT_OK;
	for (;;) {
		struct rt_try_result res;
		int rc;

		if (deterministic ? tries >= target : reproduced >= target)
			break;
		if (budget > 0 && rt_now_s() - start >= budget)
			break;
		if (rt_child_interrupted()) {
			ret = RT_EXIT_INTERRUPTED;
			break;
		}
		rc = rt_try_run(&cfg, json_object_get(art, "args"), sig, context, ++tries, &res);
		if (rc == RT_CHILD_INTERRUPTED) {
			rt_try_release(&res);
			tries--;	/* not a try that counts */
			ret = RT_EXIT_INTERRUPTED;
			break;
		}
		if (rc == RT_CHILD_ERROR || res.rc == 127) {
			rt_try_release(&res);
			ret = RT_EXIT_INTERNAL;
			break;
		}
		if (res.rc == RT_EXIT_USAGE) {
			char line[1024];

			rt_try_first_line(&res, line, sizeof(line));
			fprintf(stderr, "rmaptorture: replay: the run rejected the artifact's args: %s\n",
				line);
			rt_try_release(&res);
			ret = RT_EXIT_USAGE;
			break;
		}
		if (rc == 1) {
			reproduced++;
			if (o.common.out_dir) {
				json_t *copy = json_deep_copy(json_object_get(res.match, "artifact"));

				if (rt_artifact_save(copy, o.common.out_dir, NULL, 0) < 0)
					ret = RT_EXIT_INTERNAL;
				json_decref(copy);
			}
		}
		if (!o.common.quiet) {
			printf("try %d%s: %s (%s, %.1f s)", tries,
			       deterministic ? "" : " (free)",
			       rc == 1 ? "reproduced" : "not reproduced",
			       rt_child_rc_str(res.rc, rcs, sizeof(rcs)), res.seconds);
			if (rc != 1 && json_array_size(res.artifacts))
				printf("; other failure: %s", json_string_value(json_object_get(
					json_array_get(res.artifacts, 0), "signature")));
			putchar('\n');
			fflush(stdout);
		}
		rt_try_release(&res);
		if (ret != RT_EXIT_OK)
			break;
	}
	rt_remove_tree(workdir);
	json_decref(context);

	if (ret == RT_EXIT_INTERRUPTED) {
		printf("replay: interrupted: reproduced %d/%d\n", reproduced, tries);
	} else if (ret == RT_EXIT_OK) {
		bool ok = deterministic ? tries == target && reproduced == tries : reproduced > 0;

		if (deterministic)
			printf("reproduced %d/%d%s\n", reproduced, tries,
			       tries < target ? " (the budget ran out)" : "");
		else
			printf("reproduced %d/%d (free schedule, %.0f s)%s\n", reproduced, tries,
			       rt_now_s() - start, reproduced < target ? ": the budget ran out" : "");
		if (o.common.out_dir && reproduced)
			printf("replay: the reproduced artifacts are in %s\n", o.common.out_dir);
		ret = ok ? RT_EXIT_OK : RT_EXIT_FAILURE;
	}
	json_decref(art);
	return ret;
}
