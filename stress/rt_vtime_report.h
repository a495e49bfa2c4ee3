/* SPDX-License-Identifier: MIT */
/* What a --sched vtime run reports (rt_vtime.h): summary lines, JSON. */
#ifndef RT_STRESS_RT_VTIME_REPORT_H
#define RT_STRESS_RT_VTIME_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "engine.h"

/* The summary's virtual-time lines; nothing if @r was not a vtime run. */
void rt_vtime_print_summary(FILE *f, const struct rt_run_result *r);
/* The result record's "vtime" object. */
json_t *rt_vtime_json(const struct rt_run_result *r);

/* scale: the vtime cost source if @args (run options) ask for --sched vtime, else NULL. */
const char *rt_vtime_in_args(const char *const *args, int n);
/*
 * scale: add to the point @p what its @n runs' "vtime" objects @vt say: the
 * real seconds, each lock class's share of CPU time spent waiting for it,
 * and the dominant one. @vt's objects must outlive @p's use of the keys.
 */
void rt_vtime_point_json(json_t *p, json_t *const *vt, int n);

#endif /* RT_STRESS_RT_VTIME_REPORT_H */
