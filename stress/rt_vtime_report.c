// SPDX-License-Identifier: MIT
/*
 * What a --sched vtime run reports: the run summary's virtual-time lines
 * and the result record's "vtime" object (rt_vtime_report.h).
 */
#include "rt_vtime_report.h"

#include <string.h>

#include "lockdep.h"
#include "report.h"

void rt_vtime_print_summary(FILE *f, const struct rt_run_result *r)
{
	const struct rt_vtime_result *v = &r->vtime;
	double share, cpu_ns = (double)v->elapsed_ns * v->nr_cpus;
	int top = rt_vtime_dominant_wait(v, &share);

	if (!v->on)
		return;
	fprintf(f, "\nvirtual time (%s costs): %lu worker ops in %.6f virtual s = %.0f virtual ops/s"
		" on %d virtual CPUs (%d workers); real time %.2f s (%.0fx slower than virtual)\n",
		rt_vtime_cost_name(v->cost), (unsigned long)v->ops, (double)v->elapsed_ns * 1e-9,
		rt_vtime_ops_per_sec(v), v->nr_cpus, v->nr_workers, r->elapsed,
		v->elapsed_ns ? r->elapsed / ((double)v->elapsed_ns * 1e-9) : 0.0);
	fprintf(f, "virtual time: %lu segments charged, %lu lines moved (--vtime-transfer),"
		" busy %.6f s, kswapd idle %.6f s, other waits (TLB flush) %.6f s;"
		" dominant waiting lock: %s (%.1f%% of CPU time)\n",
		(unsigned long)v->points, (unsigned long)v->transfers,
		(double)v->busy_ns * 1e-9, (double)v->idle_ns * 1e-9,
		(double)v->other_wait_ns * 1e-9, top >= 0 ? lock_class_name(top) : "none",
		100.0 * share);
	if (v->transfers || v->transfers_untracked) {
		fputs("lines moved, by what they hold:", f);
		for (int k = 0; k < LINE_NR_KINDS; k++)
			fprintf(f, " %s %lu (%.0f%%)%s", line_kind_names[k],
				(unsigned long)v->transfers_by_kind[k],
				v->transfers ? 100.0 * (double)v->transfers_by_kind[k] /
					       (double)v->transfers : 0.0,
				k < LINE_NR_KINDS - 1 ? "," : "");
		fprintf(f, "; %.1f per operation; %lu writes untracked (owner table full)\n",
			v->ops ? (double)v->transfers / (double)v->ops : 0.0,
			(unsigned long)v->transfers_untracked);
	}
	fprintf(f, "\n%-18s %14s %14s %9s %14s %9s\n", "lock class (vtime)", "wait spin us",
		"wait sleep us", "wait %", "hold us", "hold %");
	for (int c = 0; c < LOCK_CLASS_MAX; c++) {
		const struct rt_vtime_class *k = &v->cls[c];
		uint64_t w = k->wait_spin_ns + k->wait_sleep_ns;

		if (!w && !k->hold_ns)
			continue;
		fprintf(f, "%-18s %14.1f %14.1f %8.2f%% %14.1f %8.2f%%\n", lock_class_name(c),
			(double)k->wait_spin_ns * 1e-3, (double)k->wait_sleep_ns * 1e-3,
			cpu_ns > 0 ? 100.0 * (double)w / cpu_ns : 0.0, (double)k->hold_ns * 1e-3,
			cpu_ns > 0 ? 100.0 * (double)k->hold_ns / cpu_ns : 0.0);
	}
}

json_t *rt_vtime_json(const struct rt_run_result *r)
{
	const struct rt_vtime_result *v = &r->vtime;
	json_t *locks = json_object(), *by_kind = json_object();
	double share;
	int top = rt_vtime_dominant_wait(v, &share);

	for (int k = 0; k < LINE_NR_KINDS; k++)
		json_object_set_new(by_kind, line_kind_names[k],
				    json_integer((json_int_t)v->transfers_by_kind[k]));

	for (int c = 0; c < LOCK_CLASS_MAX; c++) {
		const struct rt_vtime_class *k = &v->cls[c];

		if (!k->wait_spin_ns && !k->wait_sleep_ns && !k->hold_ns)
			continue;
		json_object_set_new(locks, lock_class_name(c), json_pack(
			"{s:I, s:I, s:I, s:I, s:I}",
			"wait_spin_ns", (json_int_t)k->wait_spin_ns,
			"wait_sleep_ns", (json_int_t)k->wait_sleep_ns,
			"hold_ns", (json_int_t)k->hold_ns,
			"waits", (json_int_t)k->waits,
			"holds", (json_int_t)k->holds));
	}
	return json_pack("{s:s, s:f, s:I, s:f, s:f, s:f, s:i, s:i, s:I, s:I, s:I, s:I, s:I, s:o, s:I,"
			 " s:s?, s:f, s:o}",
		"cost", rt_vtime_cost_name(v->cost),
		"virtual_seconds", (double)v->elapsed_ns * 1e-9,
		"ops", (json_int_t)v->ops,
		"virtual_ops_per_sec", rt_vtime_ops_per_sec(v),
		"real_seconds", r->elapsed,
		"real_per_virtual", v->elapsed_ns ? r->elapsed / ((double)v->elapsed_ns * 1e-9) : 0.0,
		"cpus", v->nr_cpus,
		"workers", v->nr_workers,
		"busy_ns", (json_int_t)v->busy_ns,
		"idle_ns", (json_int_t)v->idle_ns,
		"other_wait_ns", (json_int_t)v->other_wait_ns,
		"segments", (json_int_t)v->points,
		"transfers", (json_int_t)v->transfers,
		"transfers_by_kind", by_kind,
		"transfers_untracked", (json_int_t)v->transfers_untracked,
		"dominant_wait", top >= 0 ? lock_class_name(top) : NULL,
		"dominant_wait_share", share,
		"locks", locks);
}

/* ---- scale --sched vtime ---- */

const char *rt_vtime_in_args(const char *const *args, int n)
{
	const char *cost = NULL;
	bool on = false;

	for (int i = 0; i < n; i++) {
		if ((!strcmp(args[i], "--sched") && i + 1 < n && !strcmp(args[i + 1], "vtime")) ||
		    !strcmp(args[i], "--sched=vtime"))
			on = true;
		if (!strcmp(args[i], "--vtime-cost") && i + 1 < n)
			cost = args[i + 1];
		else if (!strncmp(args[i], "--vtime-cost=", 13))
			cost = args[i] + 13;
	}
	return on ? (cost ? cost : "model") : NULL;
}

/* The share of all virtual CPU time that @v's runs waited for class @cls. */
static double wait_share(const json_t *v, const char *cls)
{
	const json_t *l = json_object_get(json_object_get(v, "locks"), cls);
	double cpu = json_number_value(json_object_get(v, "virtual_seconds")) * 1e9 *
		     json_number_value(json_object_get(v, "cpus"));

	if (!l || cpu <= 0)
		return 0;
	return (json_number_value(json_object_get(l, "wait_spin_ns")) +
		json_number_value(json_object_get(l, "wait_sleep_ns"))) / cpu;
}

void rt_vtime_point_json(json_t *p, json_t *const *vt, int n)
{
	double v[64], best = 0;
	struct rt_stat st;
	json_t *shares = json_object(), *cls;
	const char *top = NULL, *key;

	if (n > 64)
		n = 64;
	for (int k = 0; k < n; k++)
		v[k] = json_number_value(json_object_get(vt[k], "real_seconds"));
	rt_stat_of(v, n, &st);
	json_object_set_new(p, "real_seconds", rt_stat_json(&st));
	/* --vtime-transfer: cache lines moved between CPUs per operation (median). */
	for (int k = 0; k < n; k++) {
		double ops = json_number_value(json_object_get(vt[k], "ops"));

		v[k] = ops > 0 ? json_number_value(json_object_get(vt[k], "transfers")) / ops : 0;
	}
	rt_stat_of(v, n, &st);
	json_object_set_new(p, "lines_per_op", json_real(st.median));
	/* Per class: the median over the repeats of its share of CPU time waited. */
	for (int k = 0; k < n; k++)
		json_object_foreach(json_object_get(vt[k], "locks"), key, cls) {
			if (json_object_get(shares, key))
				continue;
			for (int j = 0; j < n; j++)
				v[j] = wait_share(vt[j], key);
			rt_stat_of(v, n, &st);
			json_object_set_new(shares, key, json_real(st.median));
			if (st.median > best) {
				best = st.median;
				top = key;
			}
		}
	json_object_set_new(p, "dominant_wait", top ? json_string(top) : json_null());
	json_object_set_new(p, "dominant_wait_share", json_real(best));
	json_object_set_new(p, "wait_share", shares);
}
