/* SPDX-License-Identifier: MIT */
/* The harness's clock: monotonic seconds, for timeouts, rates and budgets. */
#ifndef RT_STRESS_RT_TIME_H
#define RT_STRESS_RT_TIME_H

#include <time.h>

static inline double rt_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#endif /* RT_STRESS_RT_TIME_H */
