// SPDX-License-Identifier: MIT
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void rt_bench_stats(const double *v, int n, double *med, double *mn, double *mx)
{
	double tmp[RT_BENCH_MAX_REPEAT];

	if (n <= 0) {
		*med = *mn = *mx = NAN;
		return;
	}
	memcpy(tmp, v, sizeof(*v) * (size_t)n);
	qsort(tmp, (size_t)n, sizeof(*tmp), cmp_double);
	*med = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	*mn = tmp[0];
	*mx = tmp[n - 1];
}
