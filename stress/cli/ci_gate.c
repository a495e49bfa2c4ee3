// SPDX-License-Identifier: MIT
/*
 * The merge gate's judging, however the gate was filled (run here by
 * `ci`, or read back from its shards by `ci-merge`): the trylock fallback
 * coverage summed over every configuration, the verdict and the END line;
 * the summary and the files it writes are ci_output.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "die.h"
#include "inject.h"
#include "junit.h"
#include "record.h"
#include "rt_opt.h"
#include "ci-internal.h"
#include "cover_map.h"

/* Sum every record's fallbacks per site; judge coverage unless the gate is partial. */
static void coverage(struct ci_gate *g)
{
	const char *key;
	json_t *v;

	g->coverage = json_object();
	g->coverage_configs = json_object();
	for (int s = 0; s < FB_NR_SITES; s++) {
		const char *name = rmap_fallback_name((enum rmap_fallback_site)s);

		json_object_set_new(g->coverage, name, json_integer(0));
		json_object_set_new(g->coverage_configs, name, json_integer(0));
	}
	for (int i = 0; i < g->nr_cfgs; i++) {
		const struct ci_config *c = &g->cfgs[i];

		json_object_foreach(c->fallbacks, key, v) {
			json_int_t sum = json_integer_value(json_object_get(g->coverage, key));
			json_int_t cfgs = json_integer_value(json_object_get(g->coverage_configs, key));

			json_object_set_new(g->coverage, key, json_integer(sum + json_integer_value(v)));
			json_object_set_new(g->coverage_configs, key,
					    json_integer(cfgs + (json_integer_value(v) > 0)));
		}
	}
	g->interleaving = NULL;
	for (int i = 0; i < g->nr_cfgs; i++)
		g->interleaving = rt_cover_merge(g->interleaving, g->cfgs[i].interleaving);
	g->never_fired = 0;
	json_object_foreach(g->coverage, key, v)
		g->never_fired += json_integer_value(v) == 0;
	g->coverage_judged = false;
	if (g->o.shard_n > 1)
		snprintf(g->coverage_note, sizeof(g->coverage_note),
			 "not judged: shard %d/%d runs only part of the gate; 'rmaptorture"
			 " ci-merge' of every shard's --json judges it", g->o.shard_i, g->o.shard_n);
	else if (g->o.filtered)
		snprintf(g->coverage_note, sizeof(g->coverage_note),
			 "not judged: --scenarios/--rmaps/--scheds restrict the gate");
	else if (g->interrupted)
		snprintf(g->coverage_note, sizeof(g->coverage_note), "not judged: interrupted");
	else if (g->usage_rc)
		snprintf(g->coverage_note, sizeof(g->coverage_note), "not judged: the gate stopped");
	else {
		g->coverage_judged = true;
		if (g->never_fired)
			snprintf(g->coverage_note, sizeof(g->coverage_note),
				 "FAILED: %d of %d sites never fired in the whole gate", g->never_fired,
				 (int)json_object_size(g->coverage));
		else
			snprintf(g->coverage_note, sizeof(g->coverage_note),
				 "held: every site fired");
	}
}

/* The directory of @path must exist and be writable: checked before hours of runs. */
/* The exit status of the gate, as `ci --help` states it. */
static int verdict(const struct ci_gate *g)
{
	int n[CI_NR_STATES], x[CI_X_NR_STATES];

	ci_count_states(g, n);
	ci_count_xstates(g, x);
	if (g->interrupted)
		return RT_EXIT_INTERRUPTED;
	if (n[CI_FAIL] || x[CI_X_FAILED] || (g->coverage_judged && g->never_fired))
		return RT_EXIT_FAILURE;
	if (n[CI_ERROR] || x[CI_X_ERROR])
		return RT_EXIT_INTERNAL;
	return RT_EXIT_OK;
}

static void gate_free(struct ci_gate *g)
{
	for (int i = 0; i < g->nr_cfgs; i++) {
		json_decref(g->cfgs[i].fallbacks);
		json_decref(g->cfgs[i].failures);
		json_decref(g->cfgs[i].interleaving);
	}
	for (int i = 0; i < g->x.nr_cells; i++)
		json_decref(g->x.cells[i].failure);
	free(g->x.cells);
	json_decref(g->interleaving);
	json_decref(g->coverage);
	json_decref(g->coverage_configs);
	free(g->cfgs);
	free(g);
}

int ci_finish(struct ci_gate *g)
{
	int exit_code, n[CI_NR_STATES], x[CI_X_NR_STATES];

	coverage(g);
	ci_print_summary(g);
	ci_count_states(g, n);
	ci_count_xstates(g, x);
	exit_code = verdict(g);
	if (g->o.junit && ci_write_junit(g) && exit_code != RT_EXIT_INTERRUPTED)
		exit_code = RT_EXIT_INTERNAL;
	if (g->o.json && ci_write_json(g, exit_code) && exit_code != RT_EXIT_INTERRUPTED)
		exit_code = RT_EXIT_INTERNAL;
	if (g->o.junit)
		printf("ci: JUnit: %s\n", g->o.junit);
	if (g->o.json)
		printf("ci: JSON: %s\n", g->o.json);
	if (exit_code == RT_EXIT_OK)
		printf("END: SUCCESS\n");
	else if (exit_code == RT_EXIT_INTERRUPTED)
		printf("END: INTERRUPTED\n");
	else
		printf("END: FAILURE (%d failed, %d errors, %d fallback sites never fired%s)\n",
		       n[CI_FAIL] + x[CI_X_FAILED], n[CI_ERROR] + x[CI_X_ERROR],
		       g->coverage_judged ? g->never_fired : 0,
		       g->coverage_judged ? "" : ", coverage not judged");
	gate_free(g);
	return exit_code;
}
