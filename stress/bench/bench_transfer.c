// SPDX-License-Identifier: MIT
/*
 * The machine's cost of moving one cache line from one CPU to another, the
 * price every line two CPUs write pays and that --sched vtime leaves out
 * (it charges each step its one-CPU cost). Two threads pinned to CPUs a
 * and b pass a token on one line: a writes 2k+1 and waits for 2k+2, b
 * waits for 2k+1 and writes 2k+2; a round trip is two transfers. On a
 * virtual machine it is the host's placement of the two vCPUs (the same
 * core complex or not) and may change during a run, hence probed at the
 * start and end of a sweep.
 *
 * A batch is RT_XFER_BATCH round trips; the figure is the fastest of the
 * batches that ran within RT_XFER_BUDGET_S of wall clock (a batch where the
 * partner thread was preempted is only slower, never faster), so a
 * loaded machine gives the figure of its undisturbed moments.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "compiler.h"
#include "die.h"
#include "rt_time.h"

#define RT_XFER_BATCH		2000
#define RT_XFER_BATCHES		25
#define RT_XFER_BUDGET_S	0.25
/* A wait longer than this is a preempted partner: the probe gives up. */
#define RT_XFER_STALL_S		0.05

struct xfer {
	int cpu[2];
	int ok[2];			/* pinned */
	/* The token: its own line. */
	unsigned long token ____cacheline_aligned;
};

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ? -1 : 0;
}

/*
 * Spin until the token reads @want; false when the other side gave up
 * (~0) or after RT_XFER_STALL_S of waiting.
 */
static bool wait_token(struct xfer *x, unsigned long want)
{
	unsigned int spins = 0;
	unsigned long t;
	double t0 = 0;

	while ((t = __atomic_load_n(&x->token, __ATOMIC_ACQUIRE)) != want) {
		if (t == ~0ul)
			return false;	/* the other side gave up */
		if (++spins == 1u << 16) {
			double now = rt_now_s();

			spins = 0;
			if (!t0)
				t0 = now;
			else if (now - t0 > RT_XFER_STALL_S)
				return false;
		}
		cpu_relax();
	}
	return true;
}

static void *xfer_partner(void *arg)
{
	struct xfer *x = arg;
	unsigned long k;

	x->ok[1] = !pin_self(x->cpu[1]);
	for (k = 0; k < (unsigned long)RT_XFER_BATCHES * RT_XFER_BATCH; k++) {
		if (!wait_token(x, 2 * k + 1))
			break;
		__atomic_store_n(&x->token, 2 * k + 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

double rt_bench_transfer_ns(int a, int b)
{
	struct xfer *x = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*x));
	double best = -1, start;
	unsigned long k = 0;
	pthread_attr_t attr;
	cpu_set_t keep;
	pthread_t th;
	bool gave_up = false;

	memset(x, 0, sizeof(*x));
	x->cpu[0] = a;
	x->cpu[1] = b;
	if (pthread_getaffinity_np(pthread_self(), sizeof(keep), &keep)) {
		free(x);
		return -1;
	}
	RT_PTHREAD(pthread_attr_init(&attr));
	RT_PTHREAD(pthread_create(&th, &attr, xfer_partner, x));
	RT_PTHREAD(pthread_attr_destroy(&attr));
	x->ok[0] = !pin_self(a);
	start = rt_now_s();
	for (int n = 0; n < RT_XFER_BATCHES && !gave_up; n++) {
		double t0 = rt_now_s(), dt;

		for (int i = 0; i < RT_XFER_BATCH; i++, k++) {
			__atomic_store_n(&x->token, 2 * k + 1, __ATOMIC_RELEASE);
			if (!wait_token(x, 2 * k + 2)) {
				gave_up = true;
				break;
			}
		}
		if (gave_up)
			break;
		dt = (rt_now_s() - t0) / RT_XFER_BATCH / 2 * 1e9;
		if (best < 0 || dt < best)
			best = dt;
		if (rt_now_s() - start > RT_XFER_BUDGET_S)
			gave_up = true;
	}
	/* Release the partner: one token past anything it waits for. */
	if (gave_up)
		__atomic_store_n(&x->token, ~0ul, __ATOMIC_RELEASE);
	RT_PTHREAD(pthread_join(th, NULL));
	(void)pthread_setaffinity_np(pthread_self(), sizeof(keep), &keep);
	if (!x->ok[0] || !x->ok[1])
		best = -1;
	free(x);
	return best;
}

/* Up to @max CPUs this process may run on, in order; their number. */
static int allowed_cpus(int *cpus, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

json_t *rt_bench_transfer_probe(void)
{
	int cpus[CPU_SETSIZE], n = allowed_cpus(cpus, CPU_SETSIZE), last = -1;
	/* The first allowed CPU against its neighbour, the middle one and the last. */
	int partners[3] = { 1, n / 2, n - 1 };
	json_t *pairs = json_array();
	double lo = -1, hi = -1;

	if (n < 2) {
		json_decref(pairs);
		return NULL;
	}
	for (int i = 0; i < 3; i++) {
		int b = partners[i];
		double ns;

		if (b <= last || b >= n)
			continue;
		last = b;
		ns = rt_bench_transfer_ns(cpus[0], cpus[b]);
		json_array_append_new(pairs, json_pack("{s:[i,i], s:o}", "cpus", cpus[0], cpus[b],
						       "ns", ns < 0 ? json_null() : json_real(ns)));
		if (ns < 0)
			continue;
		if (lo < 0 || ns < lo)
			lo = ns;
		if (ns > hi)
			hi = ns;
	}
	return json_pack("{s:o, s:o, s:o}", "pairs", pairs,
			 "min_ns", lo < 0 ? json_null() : json_real(lo),
			 "max_ns", hi < 0 ? json_null() : json_real(hi));
}
