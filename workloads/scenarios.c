// SPDX-License-Identifier: MIT
/* The scenario registry: `list` prints them in this order. */
#include <string.h>

#include "workload.h"

extern const struct rt_scenario wl_mixed32;
extern const struct rt_scenario wl_sdet32;
extern const struct rt_scenario wl_shm;
extern const struct rt_scenario wl_forkbomb_cow;
extern const struct rt_scenario wl_mremap_storm;
extern const struct rt_scenario wl_truncate_race;
extern const struct rt_scenario wl_nonlinear;
extern const struct rt_scenario wl_reclaim_pressure;
extern const struct rt_scenario wl_many_vmas;

const struct rt_scenario *const wl_scenarios[] = {
	&wl_mixed32,
	&wl_sdet32,
	&wl_shm,
	&wl_forkbomb_cow,
	&wl_mremap_storm,
	&wl_truncate_race,
	&wl_nonlinear,
	&wl_reclaim_pressure,
	&wl_many_vmas,
	NULL,
};

const struct rt_scenario *wl_find(const char *name)
{
	for (int i = 0; wl_scenarios[i]; i++)
		if (!strcmp(wl_scenarios[i]->name, name))
			return wl_scenarios[i];
	return NULL;
}
