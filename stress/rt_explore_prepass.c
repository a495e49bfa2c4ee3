// SPDX-License-Identifier: MIT
/*
 * explore's serial pre-pass: classifying a run's footprint and ordering
 * the pairs (rt_explore_prepass.h).
 */
#include "rt_explore_prepass.h"

#include <stdio.h>
#include <string.h>

static bool seen(const struct rt_prepass *p, const void *obj)
{
	for (int i = 0; i < p->nr_objs; i++)
		if (p->objs[i] == obj)
			return true;
	return false;
}

void rt_prepass_classify(const struct cover_footprint *fp, int nr_cpus, struct rt_prepass *out)
{
	const void *objs[COVER_FP_MAX];
	int kinds[COVER_FP_MAX];

	memset(out, 0, sizeof(*out));
	out->overflow = fp->overflow;
	for (int a = 0; a < nr_cpus; a++)
		for (int b = 0; b < nr_cpus; b++) {
			int n;

			if (a == b)
				continue;
			n = cover_footprint_conflicts(fp, a, b, objs, kinds, COVER_FP_MAX);
			for (int i = 0; i < n && i < COVER_FP_MAX; i++) {
				if (seen(out, objs[i]))
					continue;
				if (out->nr_objs == RT_PREPASS_OBJS) {
					out->overflow = true;
					continue;
				}
				out->objs[out->nr_objs++] = objs[i];
				out->nr++;
				if (kinds[i] >= 0 && kinds[i] < COVER_NR_KINDS)
					out->kinds[kinds[i]]++;
			}
		}
	out->communicates = out->nr > 0;
}

int rt_prepass_kinds(const struct rt_prepass *p, char *buf, size_t len)
{
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (int k = 0; k < COVER_NR_KINDS; k++) {
		int w;

		if (!p->kinds[k])
			continue;
		w = snprintf(buf + (used < len ? used : len), used < len ? len - used : 0, "%s%s %d",
			     used ? ", " : "", cover_kind_name(k), p->kinds[k]);
		used += (size_t)w;
	}
	return (int)used;
}

void rt_prepass_order(const bool *communicates, int n, int *order)
{
	int k = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < n; i++)
			if (communicates[i] == (pass == 0))
				order[k++] = i;
}
