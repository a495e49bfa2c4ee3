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

#endif /* RT_STRESS_RT_VTIME_REPORT_H */
