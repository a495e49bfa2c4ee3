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

void rt_explore_init(struct rt_explore *x, int k, bool prune)
{
	memset(x, 0, sizeof(*x));
	x->k = k;
	x->prune = prune;
}

void rt_explore_free(struct rt_explore *x)
{
	free(x->frames);
	free(x->saved);
	free(x->before);
	free(x->lv);
	free(x->prefix);
	memset(x, 0, sizeof(*x));
}

bool rt_explore_next(struct rt_explore *x, const int **prefix, size_t *nr)
{
	if (x->done)
		return false;
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
	x->before = realloc(x->before, (x->cap + 1) * sizeof(*x->before));
	if (!x->lv || !x->prefix || !x->before)
		rt_die("explore: out of memory");
}

/* A child of frame @f: its level @i (in @f) and slot @s. */
static bool take_child(struct rt_explore *x, struct rt_explore_frame *f, size_t i, int s)
{
	struct rt_explore_level *saved = &x->saved[f->at];

	saved[i].tried |= 1u << s;
	memcpy(&x->lv[f->start], saved, (i + 1) * sizeof(*saved));
	x->lv[f->start + i].d.chosen = s;
	x->nr = f->start + i + 1;
	for (size_t j = 0; j < x->nr; j++)
		x->prefix[j] = x->lv[j].d.chosen;
	x->nr_prefix = x->nr;
	return true;
}

/*
 * The next child of the innermost schedule that has one within the
 * bound: at a communicating switch point first, then anywhere; deepest
 * first within each. A frame with none left is done. Return: false when
 * no frame has one.
 */
static bool backtrack(struct rt_explore *x)
{
	while (x->nr_frames) {
		struct rt_explore_frame *f = &x->frames[x->nr_frames - 1];
		struct rt_explore_level *saved = &x->saved[f->at];
		int base = 0, *before = x->before;

		for (size_t i = 0; i < f->start; i++)
			base += preempts(&x->lv[i].d, x->lv[i].d.chosen);
		/* before[i]: preemptions of the path up to the frame's level i, excluded. */
		for (size_t i = 0; i < f->n; i++) {
			before[i] = base;
			base += preempts(&saved[i].d, saved[i].d.chosen);
		}
		for (int pass = 0; pass < 2; pass++)
			for (size_t i = f->n; i-- > 0;) {
				struct rt_explore_level *l = &saved[i];

				if (pass == 0 && !l->hot)
					continue;
				for (int s = 0; s < 32; s++) {
					unsigned int bit = 1u << s;

					if (!(l->d.enabled & bit) || (l->tried & bit))
						continue;
					if (before[i] + preempts(&l->d, s) > x->k) {
						l->tried |= bit;
						continue;
					}
					return take_child(x, f, i, s);
				}
			}
		x->nr_saved = f->at;
		x->nr_frames--;
	}
	return false;
}

void rt_explore_set_hot(struct rt_explore *x, const void *const *objs, int nr)
{
	x->hot = objs;
	x->nr_hot = nr;
}

static bool fp_hot(const struct rt_explore *x, const struct rt_explore_fp *f)
{
	if (f->nr < 0)
		return true;	/* too many to list: may be any */
	for (int i = 0; i < f->nr; i++)
		for (int j = 0; j < x->nr_hot; j++)
			if (f->o[i] == x->hot[j])
				return true;
	return false;
}

#define SLEEP_SLOTS	4	/* pruning only among the first slots (explore runs 2) */

static bool independent(const struct rt_explore_fp *a, const struct rt_explore_fp *b)
{
	if (a->nr <= 0 || b->nr <= 0)
		return false;
	for (int i = 0; i < a->nr; i++)
		for (int j = 0; j < b->nr; j++)
			if (a->o[i] == b->o[j])
				return false;
	return true;
}

/* The segment after decision @i of @t: what its thread reported at its next decision. */
static struct rt_explore_fp seg_of(const struct rt_sched_decision *t, size_t n, size_t i)
{
	struct rt_explore_fp f = { .nr = 0 };

	if (i + 1 < n && t[i + 1].me == t[i].chosen && t[i + 1].nr_objs > 0) {
		f.nr = t[i + 1].nr_objs;
		memcpy(f.o, t[i + 1].objs, sizeof(f.o));
	}
	return f;
}

static bool two_enabled(unsigned int m)
{
	unsigned int rest = m & (m - 1);	/* all but the lowest */

	return rest && !(rest & (rest - 1));
}

/*
 * Sleep sets along the path (rt_explore.h): a sleeping slot is marked
 * tried at each level it sleeps at, so backtrack() never picks it there.
 */
static void apply_sleep(struct rt_explore *x)
{
	struct rt_explore_fp fp[SLEEP_SLOTS];
	unsigned int sleep = 0;
	int pre = 0;

	for (size_t i = 0; i < x->nr; i++) {
		struct rt_explore_level *l = &x->lv[i];
		int me = l->d.me, c = l->d.chosen;

		for (int u = 0; u < SLEEP_SLOTS; u++) {
			unsigned int bit = 1u << u;

			if (!(sleep & bit) || u == c || !(l->d.enabled & bit) || (l->tried & bit))
				continue;
			l->tried |= bit;
			if (pre + preempts(&l->d, u) <= x->k)
				x->pruned++;
		}
		pre += preempts(&l->d, c);
		/* The child's sleepers: the parent's, and a continuation given up for a preemption. */
		sleep &= ~(1u << c);
		if (l->have_first && c != me && l->d.me_enabled && me >= 0 && me < SLEEP_SLOTS &&
		    two_enabled(l->d.enabled)) {
			sleep |= 1u << me;
			fp[me] = l->first;
		}
		for (int u = 0; u < SLEEP_SLOTS; u++)
			if ((sleep & (1u << u)) && !independent(&fp[u], &l->seg))
				sleep &= ~(1u << u);
	}
}

void rt_explore_feed(struct rt_explore *x, const struct rt_sched_decision *t, size_t n)
{
	struct rt_explore_frame *f;
	size_t start;

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
	start = x->nr;
	for (size_t i = x->nr; i < n; i++) {
		struct rt_explore_level *l = &x->lv[i];

		l->d = t[i];
		l->tried = 1u << t[i].chosen;
		l->seg = seg_of(t, n, i);
		l->have_first = t[i].me_enabled && t[i].chosen == t[i].me;
		l->first = l->seg;
		l->hot = false;
		if (x->nr_hot > 0) {
			/* A preemption here lets the others run before @me's next segment. */
			l->hot = t[i].me >= 0 && l->have_first && fp_hot(x, &l->first);
			x->hot_levels += l->hot;
		}
	}
	x->hot = NULL;
	x->nr_hot = 0;
	/* The level the last backtrack branched at ran a new segment. */
	if (x->nr_prefix && x->nr_prefix <= n)
		x->lv[x->nr_prefix - 1].seg = seg_of(t, n, x->nr_prefix - 1);
	x->nr = n;
	if (x->prune)
		apply_sleep(x);
	/* This run's children: the untried slots of the levels it added. */
	if (x->nr_frames == x->cap_frames) {
		x->cap_frames = x->cap_frames ? 2 * x->cap_frames : 16;
		x->frames = realloc(x->frames, x->cap_frames * sizeof(*x->frames));
		if (!x->frames)
			rt_die("explore: out of memory");
	}
	if (x->nr_saved + (n - start) > x->cap_saved) {
		x->cap_saved = 2 * (x->nr_saved + (n - start)) + 64;
		x->saved = realloc(x->saved, x->cap_saved * sizeof(*x->saved));
		if (!x->saved)
			rt_die("explore: out of memory");
	}
	f = &x->frames[x->nr_frames++];
	f->start = start;
	f->n = n - start;
	f->at = x->nr_saved;
	memcpy(&x->saved[f->at], &x->lv[start], f->n * sizeof(*x->saved));
	x->nr_saved += f->n;
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

int rt_explore_pairs_kswapd(const unsigned int *weights, int nr, int kswapd, int (*out)[2],
			    int max)
{
	int n = rt_explore_pairs(weights, nr, out, max);

	for (int a = 0; a < nr; a++)
		for (int kcpu = 1; kcpu >= 0 && weights[a]; kcpu--) {
			if (n < max) {
				out[n][kcpu] = kswapd;
				out[n][1 - kcpu] = a;
			}
			n++;
		}
	return n;
}
