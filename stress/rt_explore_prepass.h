/* SPDX-License-Identifier: MIT */
/*
 * explore's serial pre-pass, as SnowBoard's "potential memory
 * communication" (Gong et al., SOSP 2021): before the schedules of a
 * pair, its two operations run once in the default schedule (each CPU
 * runs on while it can: no preemption) from the same world, with
 * core/cover.h's footprint recording which objects each CPU's sites
 * touched. The pair communicates when both touched one object (the
 * sites cannot tell a read from a write: cover.h). The walk then takes the
 * communicating pairs first (a walk the budget cuts has covered those),
 * and within a pair every run's footprint marks its communicating switch
 * points, whose preemptions run first (rt_explore_set_hot()).
 *
 * Both operations run in one world, not one each in a world of its own:
 * the CPUs share one target stream (the second draws the targets after
 * the first), and objects are addresses, comparable only within a run.
 *
 * Accesses with no site are not seen. Nothing is pruned for the
 * pre-pass, only ordered: what it misses costs time, not schedules.
 *
 * Pure: no threads, no clock, no I/O.
 */
#ifndef RT_STRESS_RT_EXPLORE_PREPASS_H
#define RT_STRESS_RT_EXPLORE_PREPASS_H

#include <stdbool.h>

#include "cover.h"

#define RT_PREPASS_OBJS		64	/* communicating objects kept, at most */

/* What the pre-pass found of one run's CPUs. */
struct rt_prepass {
	bool communicates;
	int nr;				/* objects they communicate through (all, not only kept) */
	int kinds[COVER_NR_KINDS];	/* of which, by cover_obj_kind */
	bool overflow;			/* the footprint was full: maybe more */
	const void *objs[RT_PREPASS_OBJS];	/* the first of them */
	int nr_objs;
};

/**
 * rt_prepass_classify() - the objects @nr_cpus CPUs of one run communicate through
 * @fp: the run's footprint (slots 0 .. @nr_cpus-1)
 * @nr_cpus: its CPUs, at most COVER_FP_SLOTS
 * @out: receives the verdict
 *
 * An object counts once however many pairs of CPUs share it.
 */
void rt_prepass_classify(const struct cover_footprint *fp, int nr_cpus, struct rt_prepass *out);

/* "mm 2, page 1": the kinds of @p's objects, for the output. Return: as snprintf. */
int rt_prepass_kinds(const struct rt_prepass *p, char *buf, size_t len);

/**
 * rt_prepass_order() - the walk's order of @n pairs
 * @communicates: each pair's verdict, by the pair's index
 * @order: receives the indices: communicating pairs first, each group in
 *	its original order (a stable partition)
 */
void rt_prepass_order(const bool *communicates, int n, int *order);

#endif /* RT_STRESS_RT_EXPLORE_PREPASS_H */
