// SPDX-License-Identifier: MIT
/*
 * The depth-first, preemption-bounded enumerator (rt_explore.h).
 */
#include "rt_explore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"

static bool preempts(const struct rt_sched_decision *d, int slot)
{
	return d->me_enabled && slot != d->me;
}

int rt_explore_preemptions(const struct rt_sched_decision *t, size_t n)
{
	int p = 0;

	for (size_t i = 0; i < n; i++)
		p += preempts(&t[i], t[i].chosen);
	return p;
}

void rt_explore_init(struct rt_explore *x, int k)
{
	memset(x, 0, sizeof(*x));
	x->k = k;
}

void rt_explore_free(struct rt_explore *x)
{
	free(x->lv);
	free(x->prefix);
	memset(x, 0, sizeof(*x));
}

bool rt_explore_next(struct rt_explore *x, const int **prefix, size_t *nr)
{
	if (x->done)
		return false;
	x->started = true;
	*prefix = x->prefix;
	*nr = x->nr_prefix;
	return true;
}

static void grow(struct rt_explore *x, size_t n)
{
	if (n <= x->cap)
		return;
	x->cap = n > 2 * x->cap ? n : 2 * x->cap;
	x->lv = realloc(x->lv, x->cap * sizeof(*x->lv));
	x->prefix = realloc(x->prefix, x->cap * sizeof(*x->prefix));
	if (!x->lv || !x->prefix)
		rt_die("explore: out of memory");
}

/*
 * The deepest level with a slot still to try within the bound: its branch
 * becomes the next prefix. Return: false when there is none.
 */
static bool backtrack(struct rt_explore *x)
{
	int pre = 0;
	int *before = malloc((x->nr + 1) * sizeof(*before));

	if (!before)
		rt_die("explore: out of memory");
	/* before[i]: preemptions of the path's decisions 0..i-1. */
	for (size_t i = 0; i < x->nr; i++) {
		before[i] = pre;
		pre += preempts(&x->lv[i].d, x->lv[i].d.chosen);
	}
	for (size_t i = x->nr; i-- > 0;) {
		struct rt_explore_level *l = &x->lv[i];

		for (int s = 0; s < 32; s++) {
			unsigned int bit = 1u << s;

			if (!(l->d.enabled & bit) || (l->tried & bit))
				continue;
			l->tried |= bit;
			if (before[i] + preempts(&l->d, s) > x->k)
				continue;
			l->d.chosen = s;
			x->nr = i + 1;
			for (size_t j = 0; j <= i; j++)
				x->prefix[j] = x->lv[j].d.chosen;
			x->nr_prefix = i + 1;
			free(before);
			return true;
		}
	}
	free(before);
	return false;
}

void rt_explore_feed(struct rt_explore *x, const struct rt_sched_decision *t, size_t n)
{
	x->schedules++;
	grow(x, n + 1);
	for (size_t i = 0; i < x->nr && i < n; i++)
		if (t[i].chosen != x->lv[i].d.chosen || t[i].enabled != x->lv[i].d.enabled) {
			/* The run left its prefix: cut the path there. */
			x->diverged++;
			x->nr = i;
			break;
		}
	if (x->nr > n)
		x->nr = n;
	for (size_t i = x->nr; i < n; i++) {
		x->lv[i].d = t[i];
		x->lv[i].tried = 1u << t[i].chosen;
	}
	x->nr = n;
	if (!backtrack(x))
		x->done = true;
}

size_t rt_explore_format(const int *d, size_t n, char *buf, size_t len)
{
	size_t out = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int w;

		while (j < n && d[j] == d[i])
			j++;
		if (j - i > 1)
			w = snprintf(buf + (out < len ? out : len), out < len ? len - out : 0,
				     "%s%dx%zu", i ? "," : "", d[i], j - i);
		else
			w = snprintf(buf + (out < len ? out : len), out < len ? len - out : 0,
				     "%s%d", i ? "," : "", d[i]);
		out += (size_t)w;
		i = j;
	}
	return out;
}

int rt_explore_parse(const char *text, int **out, size_t *nr)
{
	size_t n = 0, cap = 64;
	int *d = malloc(cap * sizeof(*d));
	const char *p = text;

	if (!d)
		rt_die("explore: out of memory");
	while (*p) {
		char *end;
		long slot = strtol(p, &end, 10), count = 1;

		if (end == p || slot < 0 || slot > 31)
			goto bad;
		p = end;
		if (*p == 'x') {
			count = strtol(p + 1, &end, 10);
			if (end == p + 1 || count < 1 || count > (long)RT_SCHED_TRACE_MAX)
				goto bad;
			p = end;
		}
		if (n + (size_t)count > RT_SCHED_TRACE_MAX)
			goto bad;
		while (n + (size_t)count > cap) {
			cap *= 2;
			d = realloc(d, cap * sizeof(*d));
			if (!d)
				rt_die("explore: out of memory");
		}
		for (long i = 0; i < count; i++)
			d[n++] = (int)slot;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	*out = d;
	*nr = n;
	return 0;
bad:
	free(d);
	return -EINVAL;
}

int rt_explore_pairs(const unsigned int *weights, int nr, int (*out)[2], int max)
{
	int n = 0;

	for (int a = 0; a < nr; a++)
		for (int b = 0; b < nr; b++) {
			if (!weights[a] || !weights[b])
				continue;
			if (n < max) {
				out[n][0] = a;
				out[n][1] = b;
			}
			n++;
		}
	return n;
}
