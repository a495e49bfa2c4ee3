/* SPDX-License-Identifier: MIT */
/*
 * --sched vtime's two halves: the schedule's clocks and lock bookkeeping
 * (rt_vtime.c) and the cost of a segment between two scheduling points
 * (rt_vtime_model.c: the calibrated model, measured thread CPU time, the
 * --vtime-calibrate file). Not for use outside stress/rt_vtime*.c.
 */
#ifndef RT_STRESS_RT_VTIME_INTERNAL_H
#define RT_STRESS_RT_VTIME_INTERNAL_H

#include <stdint.h>

#include "rt_vtime.h"

/**
 * rt_vtime_model_init() - set up the segment costs of a run
 * @cfg: the run's configuration: its cost source, design, calibrate file
 *
 * Builds the model of @cfg->design (RT_VTIME_MODEL), measures what a
 * clock read costs (RT_VTIME_MEASURED) and opens the calibration sums
 * (RT_VTIME_MEASURED with @cfg->calibrate); frees the previous run's.
 *
 * Context: rt_vtime_init(), before any thread runs under the schedule.
 */
void rt_vtime_model_init(const struct rt_vtime_config *cfg);

/**
 * rt_vtime_model_fini() - append the run's calibration to its file
 *
 * Context: rt_vtime_fini(), after the workers are joined.
 */
void rt_vtime_model_fini(void);

/**
 * rt_vtime_segment_cost() - the virtual cost of the segment ending now
 * @me: the CPU whose segment ends
 * @kind: the kind of the point that ends it
 * @cls: the lock class named by the point, -1 for none
 *
 * Context: the baton holder, at a scheduling point (rt_vtime_point()).
 * Return: the segment's cost in virtual ns.
 */
uint64_t rt_vtime_segment_cost(int me, enum sched_point_kind kind, int cls);

/**
 * rt_vtime_segment_start() - a segment of the calling thread begins
 *
 * Context: the baton holder, when it resumes (rt_vtime_resume()).
 */
void rt_vtime_segment_start(void);

#endif /* RT_STRESS_RT_VTIME_INTERNAL_H */
