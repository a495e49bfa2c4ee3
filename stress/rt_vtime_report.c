// SPDX-License-Identifier: MIT
/*
 * What a --sched vtime run reports: the run summary's virtual-time lines
 * and the result record's "vtime" object (rt_vtime_report.h).
 */
#include "rt_vtime_report.h"

#include "lockdep.h"

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
	fprintf(f, "virtual time: %lu segments charged, busy %.6f s, kswapd idle %.6f s,"
		" other waits (TLB flush) %.6f s; dominant waiting lock: %s (%.1f%% of CPU time)\n",
		(unsigned long)v->points, (double)v->busy_ns * 1e-9, (double)v->idle_ns * 1e-9,
		(double)v->other_wait_ns * 1e-9, top >= 0 ? lock_class_name(top) : "none",
		100.0 * share);
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
	json_t *locks = json_object();
	double share;
	int top = rt_vtime_dominant_wait(v, &share);

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
	return json_pack("{s:s, s:f, s:I, s:f, s:f, s:f, s:i, s:i, s:I, s:I, s:I, s:I, s:s?, s:f, s:o}",
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
		"dominant_wait", top >= 0 ? lock_class_name(top) : NULL,
		"dominant_wait_share", share,
		"locks", locks);
}
