// SPDX-License-Identifier: MIT
/*
 * --sched vtime's segment costs (rt_vtime.h, rt_vtime-internal.h): the
 * calibrated model (the table of rt_vtime_costs.c, built from
 * stress/vtime-costs.tsv, folded into one cost per operation, point kind
 * and lock class), the thread CPU time of --vtime-cost measured, and the
 * --vtime-calibrate file that records it.
 *
 * Only the baton holder of rt_sched.c runs, so one thread at a time
 * changes this state: the model is read-only after rt_vtime_model_init(),
 * the calibration sums are added to by the baton holder alone. The segment
 * start and the op name cache are thread-local.
 */
#include "rt_vtime-internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "die.h"
#include "rmap.h"
#include "task.h"
#include "workload.h"

/* The model's keys: operation in flight, point kind, lock class. */
#define OP_SHRINK	WL_NR_OPS		/* kswapd's shrink_zone */
#define OP_OTHER	(WL_NR_OPS + 1)		/* none, audit, a test */
#define NR_OPK		(WL_NR_OPS + 2)
#define NR_KINDS	8			/* > every enum sched_point_kind */
#define NR_CLS		(LOCK_CLASS_MAX + 1)	/* class + 1: 0 is "no lock" */
#define MODEL_DEFAULT_NS	100		/* no calibration at all */
#define CALIB_MAX_NS	1000000			/* a longer segment is an outlier */

struct cost_key {
	uint64_t sum, n;
};

static struct {
	struct rt_vtime_config cfg;
	uint64_t clock_cost;	/* measured: what reading the clock adds to a segment */
	struct cost_key *calib;	/* measured + calibrate: [design][op][kind][cls] */
	uint32_t *model;	/* [op][kind][cls] for cfg.design, fallbacks folded in */
} M;

static _Thread_local uint64_t seg_start;	/* measured: thread CPU time */
static _Thread_local const char *op_ptr;	/* cache of the op name's index */
static _Thread_local int op_idx = OP_OTHER;

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The model's operation index of the name @op (a static string). */
static int op_index_of(const char *op)
{
	if (!op)
		return OP_OTHER;
	if (op == op_ptr)
		return op_idx;
	op_ptr = op;
	op_idx = OP_OTHER;
	for (int k = 0; k < WL_NR_OPS; k++)
		if (!strcmp(op, wl_op_name((enum wl_op)k)))
			op_idx = k;
	if (!strcmp(op, "shrink_zone"))
		op_idx = OP_SHRINK;
	return op_idx;
}

static const char *op_index_name(int i)
{
	return i < WL_NR_OPS ? wl_op_name((enum wl_op)i) : i == OP_SHRINK ? "shrink_zone" : "other";
}

static const char *const kind_names[NR_KINDS] = {
	[SP_LOCK] = "lock", [SP_UNLOCK] = "unlock", [SP_WAIT] = "wait", [SP_YIELD] = "yield",
	[SP_RELEASE] = "release",
};

static int kind_by_name(const char *s)
{
	for (int k = 0; k < NR_KINDS; k++)
		if (kind_names[k] && !strcmp(s, kind_names[k]))
			return k;
	return -1;
}

static size_t key3(int op, int kind, int cls1)
{
	return ((size_t)op * NR_KINDS + (size_t)kind) * NR_CLS + (size_t)cls1;
}

/*
 * The model for design @d: every (op, kind, class) seen in calibration
 * gets its mean; an unseen one the mean of its (kind, class) over all
 * operations, else of its kind, else the design's overall mean.
 */
static void model_build(int d)
{
	static struct cost_key by_kc[NR_KINDS][NR_CLS], by_k[NR_KINDS], all;
	size_t n = key3(NR_OPK, 0, 0);
	struct cost_key *exact = rt_calloc(n, sizeof(*exact));

	memset(by_kc, 0, sizeof(by_kc));
	memset(by_k, 0, sizeof(by_k));
	memset(&all, 0, sizeof(all));
	M.model = rt_calloc(n, sizeof(*M.model));
	for (int i = 0; i < rt_vtime_nr_cost_rows; i++) {
		const struct rt_vtime_cost_row *r = &rt_vtime_cost_rows[i];
		int op = OP_OTHER, kind = kind_by_name(r->kind), cls = -1;

		if (strcmp(r->design, rmap_mode_name((enum rmap_mode)d)) || kind < 0)
			continue;
		for (int k = 0; k < NR_OPK; k++)
			if (!strcmp(r->op, op_index_name(k)))
				op = k;
		if (strcmp(r->cls, "-")) {
			cls = lock_class_by_name(r->cls);
			if (cls < 0)
				continue;
		}
		exact[key3(op, kind, cls + 1)].sum += r->sum_ns;
		exact[key3(op, kind, cls + 1)].n += r->count;
		by_kc[kind][cls + 1].sum += r->sum_ns;
		by_kc[kind][cls + 1].n += r->count;
		by_k[kind].sum += r->sum_ns;
		by_k[kind].n += r->count;
		all.sum += r->sum_ns;
		all.n += r->count;
	}
	for (int op = 0; op < NR_OPK; op++)
		for (int k = 0; k < NR_KINDS; k++)
			for (int c = 0; c < NR_CLS; c++) {
				const struct cost_key *e = &exact[key3(op, k, c)];

				if (!e->n)
					e = &by_kc[k][c];
				if (!e->n)
					e = &by_k[k];
				if (!e->n)
					e = &all;
				M.model[key3(op, k, c)] = e->n ? (uint32_t)(e->sum / e->n) :
							 MODEL_DEFAULT_NS;
			}
	free(exact);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * A segment's measured cost spans the end of one clock read and the start
 * of the next: the same as two reads back to back. Their median is taken
 * off every segment (CLOCK_THREAD_CPUTIME_ID is a system call, a few
 * hundred ns where a segment's own work is often less).
 */
static uint64_t clock_read_cost(void)
{
	enum { N = 1001 };
	uint64_t d[N], prev = thread_cpu_ns();

	for (int i = 0; i < N; i++) {
		uint64_t now = thread_cpu_ns();

		d[i] = now - prev;
		prev = now;
	}
	qsort(d, N, sizeof(d[0]), cmp_u64);
	return d[N / 2];
}

void rt_vtime_model_init(const struct rt_vtime_config *cfg)
{
	free(M.calib);
	free(M.model);
	memset(&M, 0, sizeof(M));
	M.cfg = *cfg;
	if (cfg->cost == RT_VTIME_MODEL)
		model_build(cfg->design >= 0 && cfg->design < RMAP_NR_MODES ? cfg->design : 0);
	if (cfg->cost == RT_VTIME_MEASURED)
		M.clock_cost = clock_read_cost();
	if (cfg->cost == RT_VTIME_MEASURED && cfg->calibrate)
		M.calib = rt_calloc(key3(NR_OPK, 0, 0), sizeof(*M.calib));
}

/* Append the calibration of this run to cfg.calibrate: one row per key. */
static void calib_write(void)
{
	FILE *f = fopen(M.cfg.calibrate, "a");

	if (!f) {
		fprintf(stderr, "rmaptorture: --vtime-calibrate %s: %s\n", M.cfg.calibrate,
			strerror(errno));
		return;
	}
	for (int op = 0; op < NR_OPK; op++)
		for (int k = 0; k < NR_KINDS; k++)
			for (int c = 0; c < NR_CLS; c++) {
				const struct cost_key *e = &M.calib[key3(op, k, c)];

				if (e->n && kind_names[k])
					fprintf(f, "%s %s %s %s %llu %llu\n",
						rmap_mode_name((enum rmap_mode)M.cfg.design),
						op_index_name(op), kind_names[k],
						c ? lock_class_name(c - 1) : "-",
						(unsigned long long)e->sum, (unsigned long long)e->n);
			}
	fclose(f);
}

void rt_vtime_model_fini(void)
{
	if (M.calib)
		calib_write();
}

uint64_t rt_vtime_segment_cost(int me, enum sched_point_kind kind, int cls)
{
	uint64_t c = 0;

	(void)me;
	switch (M.cfg.cost) {
	case RT_VTIME_MODEL:
		c = M.model[key3(op_index_of(current->op), kind < NR_KINDS ? (int)kind : 0,
				 cls + 1)];
		break;
	case RT_VTIME_MEASURED: {
		uint64_t now = thread_cpu_ns();

		c = now > seg_start + M.clock_cost ? now - seg_start - M.clock_cost : 0;
		if (M.calib && c <= CALIB_MAX_NS) {
			struct cost_key *e = &M.calib[key3(op_index_of(current->op),
						 kind < NR_KINDS ? (int)kind : 0, cls + 1)];

			e->sum += c;
			e->n++;
		}
		break;
	}
	case RT_VTIME_EXPLICIT:
		break;
	}
	return c;
}

void rt_vtime_segment_start(void)
{
	if (M.cfg.cost == RT_VTIME_MEASURED)
		seg_start = thread_cpu_ns();
}
