// SPDX-License-Identifier: MIT
/* rmaptorture: the command line. */
#include <stdio.h>
#include <string.h>

#include "record.h"
#include "commands.h"
#include "rt_opt.h"

static void usage(FILE *f)
{
	fputs("usage: rmaptorture COMMAND [OPTIONS]\n"
	      "\n"
	      "A concurrency stress harness for a userspace model of the Linux 2.6\n"
	      "reverse-mapping VM (pte_chain rmap, objrmap, anon_vma).\n"
	      "\n"
	      "commands:\n"
	      "  run          run a stress scenario (see 'rmaptorture run --help')\n"
	      "  replay       run a failure artifact again and check that it reproduces\n"
	      "  minimize     shrink a failure artifact while the failure persists\n"
	      "  ci           the merge gate: every configuration within a time budget\n"
	      "  ci-merge     judge a gate run in shards (ci --shard I/N) as one\n"
	      "  matrix       the detection matrix: every seeded bug, caught by its detector?\n"
	      "  list         the scenarios and rmap designs\n"
	      "  locks        torture the emulated locks along the VM's lock paths\n"
	      "  bench locks  the cost of the emulated locks against pthreads\n"
	      "  bench        every rmap design side by side: memory, faults, fork/exit,\n"
	      "               try_to_unmap, trylock fallbacks; --compare BASELINE\n"
	      "  scale        throughput, speedup and contention against thread count\n"
	      "  report       Markdown tables and plots of scale and bench result files\n"
	      "  coverage     interleaving coverage of run, ci and map files: pairs, gaps, plot\n"
	      "  explore      pairs of operations: every schedule with at most K preemptions\n"
	      "\n"
	      "'rmaptorture COMMAND --help' describes each command.\n"
	      "Exit status: 0 clean, 1 failure found, 2 bad usage, 3 internal error.\n", f);
}

/* Each command and its entry point (commands.h), given the argv after its name. */
static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "run", cmd_run },
	{ "replay", cmd_replay },
	{ "minimize", cmd_minimize },
	{ "ci", cmd_ci },
	{ "ci-merge", cmd_ci_merge },
	{ "matrix", cmd_matrix },
	{ "list", cmd_list },
	{ "locks", cmd_locks },
	{ "bench", cmd_bench },
	{ "scale", cmd_scale },
	{ "report", cmd_report },
	{ "coverage", cmd_coverage },
	{ "explore", cmd_explore },
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RT_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return RT_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rmaptorture %s\n", rt_version());
		return RT_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	rt_usage_error("unknown command '%s' (see 'rmaptorture --help')", argv[1]);
}
