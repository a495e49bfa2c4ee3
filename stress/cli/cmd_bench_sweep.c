// SPDX-License-Identifier: MIT
/*
 * `bench`'s sweeps of child runs: the peak rmap bytes per mapped page of
 * the shm scenario at several process counts, and the trylock fallbacks
 * per page scanned by reclaim at several reclaim thread counts, through
 * `run` children (rt_run_child_records(), cmd_scale.c) interleaved as
 * the in-process measurements are.
 */
#include <stdio.h>

#include "cmd_bench-internal.h"
#include "record.h"
#include "rt_child.h"
#include "commands.h"
#include "report.h"
#include "rt_opt.h"

/*
 * Run the sweep: for repeat k, every parameter and every design in turn
 * (the order reversed on odd k), one child `run` each. Return: 0, or
 * RT_EXIT_USAGE / RT_EXIT_INTERRUPTED to stop.
 */
int run_sweep(struct sweep *sw, const char *const *modes, int nm, struct bench_all_opts *bo)
{
	char secs[32], seed[32], par[16], thr[16], dir[4600], line[512];
	int total = bo->repeat * sw->np * nm, done = 0;

	snprintf(secs, sizeof(secs), "%.17g", bo->run_seconds);
	snprintf(thr, sizeof(thr), "%d", bo->threads);
	for (int k = 0; k < bo->repeat; k++) {
		snprintf(seed, sizeof(seed), "%d", 1 + k);
		for (int pi = 0; pi < sw->np; pi++) {
			int p = k % 2 ? sw->np - 1 - pi : pi;

			snprintf(par, sizeof(par), "%d", sw->params[p]);
			for (int mi = 0; mi < nm; mi++) {
				int m = k % 2 ? nm - 1 - mi : mi, crc;
				const char *args[] = {
					"--scenario", sw->scenario, "--rmap", modes[m], "--threads", thr,
					sw->param_opt, par, "--seconds", secs, "--seed", seed, NULL,
				};
				double ops, fb_scan, fb_kop, val;
				json_t *recs, *r;

				snprintf(dir, sizeof(dir), "%s/%s-%s-%d-r%d", bo->workdir, sw->scenario,
					 modes[m], sw->params[p], k);
				crc = rt_run_child_records(args, dir, bo->run_seconds * 4 + 120, &recs,
							   line, sizeof(line));
				done++;
				if (crc == RT_CHILD_INTERRUPTED) {
					json_decref(recs);
					return RT_EXIT_INTERRUPTED;
				}
				if (crc == RT_EXIT_USAGE) {
					fprintf(stderr, "rmaptorture: bench: run refused its options: %s\n",
						rt_child_says(line));
					json_decref(recs);
					return RT_EXIT_USAGE;
				}
				if ((crc != RT_EXIT_OK && crc != RT_EXIT_FAILURE) || json_array_size(recs) != 1) {
					char why[64];

					fprintf(stderr, "rmaptorture: bench: %s %s %s %d, repeat %d: %s (%s)\n",
						sw->scenario, modes[m], sw->param_opt, sw->params[p], k,
						rt_child_rc_str(crc, why, sizeof(why)), line);
					bo->errors++;
					json_decref(recs);
					continue;
				}
				r = json_array_get(recs, 0);
				rt_sample_of_run(r, &ops, &fb_scan, &fb_kop);
				val = sw->what == SWEEP_FALLBACKS ? fb_scan :
					json_number_value(json_object_get(json_object_get(r, "rmap_bytes"),
									  "peak_bytes_per_mapped_page"));
				sw->share[m][p][sw->n[m][p]] = json_number_value(json_object_get(
					json_object_get(r, "reclaim"), "unmap_share"));
				sw->v[m][p][sw->n[m][p]++] = val;
				fprintf(stderr, "[%d/%d] %s %-8s %s %d, repeat %d: %.4g %s\n", done, total,
					sw->scenario, modes[m], sw->param_opt, sw->params[p], k, val,
					sw->what == SWEEP_FALLBACKS ? "fallbacks/scan" : "rmap B/mapped page");
				if (crc == RT_EXIT_FAILURE) {
					bo->failures++;
					fprintf(stderr, "rmaptorture: bench: that run found a failure: %s"
						" (artifacts kept in %s)\n", line, dir);
				} else {
					rt_remove_tree(dir);
				}
				json_decref(recs);
			}
		}
	}
	return 0;
}

void sweep_json(const struct sweep *sw, const char *const *modes, int nm, json_t *designs,
		const char *key, bool share)
{
	for (int m = 0; m < nm; m++) {
		json_t *o = json_object(), *d = json_object_get(designs, modes[m]);

		for (int p = 0; p < sw->np; p++) {
			struct rt_stat st;
			char k[16];

			rt_stat_of(share ? sw->share[m][p] : sw->v[m][p], sw->n[m][p], &st);
			snprintf(k, sizeof(k), "%d", sw->params[p]);
			json_object_set_new(o, k, rt_stat_json(&st));
		}
		if (d)
			json_object_set_new(d, key, o);
		else
			json_decref(o);
	}
}
