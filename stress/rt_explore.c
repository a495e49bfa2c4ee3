// SPDX-License-Identifier: MIT
/*
 * The depth-first, preemption-bounded enumerator (rt_explore.h).
 */
#include "rt_explore.h"

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
