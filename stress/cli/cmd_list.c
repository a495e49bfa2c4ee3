// SPDX-License-Identifier: MIT
/* `rmaptorture list`: the scenarios, the rmap designs, and (--bugs) the seeded bugs. */
#include <stdio.h>
#include <string.h>

#include "rmap.h"
#include "rt_inject.h"
#include "commands.h"
#include "rt_opt.h"
#include "workload.h"

int cmd_list(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: rmaptorture list [--bugs]\n\nThe scenarios, one line each, then the rmap designs.\n"
		     "--bugs: the seeded bugs (--inject NAME): where each comes from, the\n"
		     "configuration and build that catch it, the detector expected to, and\n"
		     "the one-liner that reproduces it.");
		return RT_EXIT_OK;
	}
	if (argc >= 2 && !strcmp(argv[1], "--bugs")) {
		if (argc > 2)
			rt_usage_error("list: unexpected argument '%s'", argv[2]);
		rt_bug_list(stdout);
		return RT_EXIT_OK;
	}
	if (argc > 1)
		rt_usage_error("list: unexpected argument '%s'", argv[1]);
	printf("%-18s %-8s %s\n", "scenario", "threads", "what it does");
	for (int i = 0; wl_scenarios[i]; i++)
		printf("%-18s %3d+%-4d %s\n", wl_scenarios[i]->name, wl_scenarios[i]->default_threads,
		       wl_scenarios[i]->default_reclaim_threads, wl_scenarios[i]->summary);
	printf("\nrmap designs:");
	for (int m = 0; m < RMAP_NR_MODES; m++)
		printf(" %s", rmap_mode_name((enum rmap_mode)m));
	putchar('\n');
	return RT_EXIT_OK;
}
