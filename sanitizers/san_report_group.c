// SPDX-License-Identifier: MIT
/*
 * One bug, one artifact (san_report.h): the reports of one run grouped by
 * root cause, each group keyed and titled as syzbot keys and titles its
 * crashes ("KASAN: use-after-free Read in page_referenced_anon_vma").
 *
 * A use-after-free shows up wherever the freed memory is touched: ASan's
 * heap-use-after-free, TSan's heap-use-after-free and TSan's data race
 * whose one side is free() (the object was freed under a reader's feet),
 * and ASan's use-after-poison: only the model's slab poisons memory, a
 * dead object's (core/slab.c). Its reports are grouped by the site that
 * freed the object: the first frame of the free stack (else of the
 * allocation stack) beyond the allocator, libc's and the model's slab.
 * Any other report is its own signature's group: a race by the first
 * frames of its pair of accesses, a SEGV by its first frame, and so on.
 *
 * Freed memory is handed out again: TSan then reports the stale access as
 * a race with the block's new allocation (malloc(), the slab's block
 * allocator) or construction (the allocating function's stores, in the
 * thread that allocated the block "Location is heap block" names). A race
 * with the allocator itself is a use-after-free: nobody holds a pointer
 * to a block its allocation does not happen before, unless that pointer
 * is older than the block. Keyed by the allocation site until a freed
 * stack names the free. A race with anything else (the new object's
 * construction, or a writer of a live object) may be a bug of its own;
 * it joins a use-after-free only when one of this run's use-after-frees
 * made the same access (the same first two frames): one unsafe access,
 * which met objects freed, reused and still live. Use-after-frees with
 * one access site are one group too (a walk that follows a stale pointer
 * finds several dead objects); a group's key is the free site of one of
 * its reports, else its allocation site.
 */
#include "san_report.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "san_report-internal.h"

/* libc's and the runtimes' names for free (the frame itself is skipped). */
static const char *const free_funcs[] = {
	"free", "__interceptor_free", "___interceptor_free", "cfree", "operator delete",
	"operator delete[]",
};

/* The model's allocator: its frames say nothing of which object died. */
static const char *const allocator_prefixes[] = {
	"slab_", "kmem_cache_", "cache_", "kfree", "kmalloc", "kzalloc",
};

/* libc's and the runtimes' names for allocation (the frame itself is skipped). */
static const char *const alloc_funcs[] = {
	"malloc", "calloc", "realloc", "aligned_alloc", "posix_memalign", "memalign",
	"valloc", "__interceptor_malloc", "__interceptor_calloc", "operator new",
	"operator new[]",
};

/* The model's frees: TSan may show their write without libc's free() above it. */
static const char *const model_free_funcs[] = {
	"kmem_cache_free", "kfree",
};

static bool is_allocator_frame(const struct rt_san_frame *f);

/* Does @st free memory: free() on top, or the model's free below allocator frames only? */
static bool is_free_stack(const struct rt_san_stack *st)
{
	for (int j = 0; j < st->nr; j++) {
		const struct rt_san_frame *f = &st->f[j];

		for (size_t i = 0; i < sizeof(free_funcs) / sizeof(free_funcs[0]); i++)
			if (f->skip && !strcmp(f->func, free_funcs[i]))
				return true;
		for (size_t i = 0; i < sizeof(model_free_funcs) / sizeof(model_free_funcs[0]); i++)
			if (!strcmp(f->func, model_free_funcs[i]))
				return true;
		if (!f->skip && !is_allocator_frame(f))
			return false;
	}
	return false;
}

static bool is_allocator_frame(const struct rt_san_frame *f)
{
	if (strstr(f->loc, "slab.c:"))
		return true;
	for (size_t i = 0; i < sizeof(allocator_prefixes) / sizeof(allocator_prefixes[0]); i++)
		if (starts(f->func, allocator_prefixes[i]))
			return true;
	return false;
}

/* The first frame of @st that is the model's and not its allocator's, or NULL. */
static const char *site_of(const struct rt_san_stack *st)
{
	const char *last = NULL;

	for (int j = 0; j < st->nr; j++) {
		if (st->f[j].skip)
			continue;
		if (!is_allocator_frame(&st->f[j]))
			return st->f[j].func;
		last = st->f[j].func;
	}
	return last;	/* freed by the allocator itself */
}

/* The first model frame of @st, or NULL. */
static const char *top_of(const struct rt_san_stack *st)
{
	for (int j = 0; j < st->nr; j++)
		if (!st->f[j].skip)
			return st->f[j].func;
	return NULL;
}

/* The heap block a TSan report's location names: its allocation stack, or NULL. */
static const struct rt_san_stack *block_of(const struct rt_san_report *rep)
{
	for (int i = 0; i < rep->nr_stacks; i++)
		if (starts(rep->stacks[i].title, "Location is heap block") &&
		    strstr(rep->stacks[i].title, "allocated by"))
			return &rep->stacks[i];
	return NULL;
}

/* Is @st the allocator's own store: malloc() on top, or only the model's allocator frames? */
static bool is_alloc_stack(const struct rt_san_stack *st)
{
	if (is_free_stack(st))
		return false;
	for (int j = 0; j < st->nr; j++) {
		const struct rt_san_frame *f = &st->f[j];

		for (size_t i = 0; i < sizeof(alloc_funcs) / sizeof(alloc_funcs[0]); i++)
			if (f->skip && !strcmp(f->func, alloc_funcs[i]))
				return true;
		if (!f->skip)
			return is_allocator_frame(f);
	}
	return false;
}

/* A use-after-free's stacks: the access, the free, the allocation (each may be NULL). */
struct uaf {
	const struct rt_san_stack *access, *freed, *alloc;
};

/* The two primary stacks of a TSan race into @p. Return: false if @rep is no race. */
static bool race_sides(const struct rt_san_report *rep, const struct rt_san_stack *p[2])
{
	int nr = 0;

	if (rep->kind != RT_SAN_TSAN || strcmp(rep->type, "data-race"))
		return false;
	for (int i = 0; i < rep->nr_stacks && nr < 2; i++)
		if (rep->stacks[i].primary)
			p[nr++] = &rep->stacks[i];
	return nr == 2;
}

/* A TSan race of an access with the allocation of its (handed out again) block. */
static bool find_reuse(const struct rt_san_report *rep, struct uaf *u)
{
	const struct rt_san_stack *loc = block_of(rep), *p[2];

	if (!loc || !race_sides(rep, p))
		return false;
	for (int k = 0; k < 2; k++) {
		if (is_alloc_stack(p[k]) && !is_alloc_stack(p[!k])) {
			u->access = p[!k];
			u->alloc = loc;
			return true;
		}
	}
	return false;
}

static bool find_uaf(const struct rt_san_report *rep, struct uaf *u)
{
	memset(u, 0, sizeof(*u));
	if (find_reuse(rep, u))
		return true;
	for (int i = 0; i < rep->nr_stacks; i++) {
		const struct rt_san_stack *st = &rep->stacks[i];

		if (starts(st->title, "freed by thread") || (st->primary && is_free_stack(st)))
			u->freed = u->freed ? u->freed : st;
		else if (starts(st->title, "previously allocated by") ||
			 starts(st->title, "allocated by thread") ||
			 (starts(st->title, "Location is heap block") && strstr(st->title, "allocated by")))
			u->alloc = u->alloc ? u->alloc : st;
		else if (st->primary && !u->access)
			u->access = st;
	}
	if (strstr(rep->type, "use-after-free") || !strcmp(rep->type, "use-after-poison"))
		return true;
	/* TSan: a race with free() is an access to memory freed under it. */
	return rep->kind == RT_SAN_TSAN && !strcmp(rep->type, "data-race") && u->freed;
}

/* The type a use-after-free's title names: the sanitizer's, when it says so. */
static const char *uaf_type(const struct rt_san_report *rep)
{
	return strstr(rep->type, "use-after-") ? rep->type : "use-after-free";
}

/* "Read"/"Write" from an access stack's title ("READ of size 8", "Atomic write of ..."), or "". */
static const char *access_word(const struct rt_san_stack *st)
{
	const char *t = st ? st->title : "";

	if (!strncasecmp(t, "previous ", 9))
		t += 9;
	if (!strncasecmp(t, "atomic ", 7))
		t += 7;
	if (!strncasecmp(t, "read", 4))
		return "Read";
	if (!strncasecmp(t, "write", 5))
		return "Write";
	return "";
}

void rt_san_group_key(const struct rt_san_report *rep, char *key, size_t len)
{
	const char *site = NULL;
	struct uaf u;

	if (find_uaf(rep, &u)) {
		if (u.freed)
			site = site_of(u.freed);
		if (!site && u.alloc)
			site = site_of(u.alloc);
	}
	if (!site) {
		snprintf(key, len, "%s", rep->signature);
		return;
	}
	/* One type for all: TSan reports one freed object as a race and as a use-after-free. */
	snprintf(key, len, "%s:use-after-free:%s", rt_san_kind_name(rep->kind), site);
}

static const char *const title_kinds[] = {
	[RT_SAN_TSAN] = "TSan", [RT_SAN_ASAN] = "ASan", [RT_SAN_UBSAN] = "UBSan",
	[RT_SAN_LSAN] = "LSan",
};

void rt_san_title(const struct rt_san_report *rep, char *buf, size_t len)
{
	const char *kind = title_kinds[rep->kind];
	const char *tops[2] = { NULL, NULL };
	const char *sig_funcs;
	int nr = 0;
	struct uaf u;

	if (find_uaf(rep, &u) && u.access) {
		const char *word = access_word(u.access);
		const char *top = top_of(u.access);

		snprintf(buf, len, "%s: %s%s%s in %s", kind,
			 uaf_type(rep), word[0] ? " " : "", word, top ? top : "?");
		return;
	}
	for (int i = 0; i < rep->nr_stacks && nr < 2; i++)
		if (rep->stacks[i].primary && top_of(&rep->stacks[i]))
			tops[nr++] = top_of(&rep->stacks[i]);
	/* KCSAN's "data-race in a / b"; the access's kind for ASan's one-stack findings. */
	if (nr == 2 && rep->kind == RT_SAN_TSAN) {
		bool swap = strcmp(tops[0], tops[1]) > 0;

		snprintf(buf, len, "%s: %s in %s / %s", kind, rep->type, tops[swap],
			 tops[!swap]);
		return;
	}
	if (nr) {
		const char *word = rep->kind == RT_SAN_ASAN ? access_word(&rep->stacks[0]) : "";

		snprintf(buf, len, "%s: %s%s%s in %s", kind, rep->type, word[0] ? " " : "", word,
			 tops[0]);
		return;
	}
	/* No model frame: the signature's last field (UBSan's file) stands for it. */
	sig_funcs = strrchr(rep->signature, ':');
	snprintf(buf, len, "%s: %s in %s", kind, rep->type, sig_funcs ? sig_funcs + 1 : "?");
}

/* An access site: the first two model frames of @st ("" if none). */
static void use_site(const struct rt_san_stack *st, char *buf, size_t len)
{
	const char *f[2] = { NULL, NULL };
	int n = 0;

	buf[0] = '\0';
	for (int j = 0; st && j < st->nr && n < 2; j++)
		if (!st->f[j].skip)
			f[n++] = st->f[j].func;
	if (n)
		snprintf(buf, len, "%s<%s", f[0], n > 1 ? f[1] : "");
}

/*
 * Per report: what the grouping needs. @use: a use-after-free's access
 * site, or each side's of another race ("" where none).
 */
struct grouping {
	char key[RT_SAN_SIG_LEN];
	char use[2][200];
	bool uaf, freed;
	int parent;
};

/* Do @x and @y meet at one access, one of them a use-after-free's? */
static bool same_access(const struct grouping *x, const struct grouping *y)
{
	if (!x->uaf && !y->uaf)
		return false;
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			if (x->use[a][0] && !strcmp(x->use[a], y->use[b]))
				return true;
	return false;
}

static int root_of(struct grouping *m, int i)
{
	while (m[i].parent != i)
		i = m[i].parent = m[m[i].parent].parent;
	return i;
}

static void join(struct grouping *m, int a, int b)
{
	a = root_of(m, a);
	b = root_of(m, b);
	if (a != b)
		m[a > b ? a : b].parent = a < b ? a : b;	/* the earlier report roots */
}

/* Of two group keys: a free site's before an allocation site's, then the smaller. */
static bool better_key(const struct grouping *x, const struct grouping *y)
{
	if (x->freed != y->freed)
		return x->freed;
	if (x->uaf != y->uaf)
		return x->uaf;
	return strcmp(x->key, y->key) < 0;
}

int rt_san_group(const struct rt_san_report *reps, int nr, int *group_of,
		 struct rt_san_group **groups)
{
	struct grouping *m = nr ? calloc((size_t)nr, sizeof(*m)) : NULL;
	int *best = nr ? malloc((size_t)nr * sizeof(*best)) : NULL;
	struct rt_san_group *g = NULL;
	int nr_groups = 0;

	*groups = NULL;
	if (nr && (!m || !best)) {
		free(m);
		free(best);
		return -ENOMEM;
	}
	for (int i = 0; i < nr; i++) {
		const struct rt_san_stack *p[2];
		struct uaf u;

		rt_san_group_key(&reps[i], m[i].key, sizeof(m[i].key));
		m[i].uaf = find_uaf(&reps[i], &u);
		m[i].freed = m[i].uaf && u.freed;
		if (m[i].uaf) {
			use_site(u.access, m[i].use[0], sizeof(m[i].use[0]));
		} else if (race_sides(&reps[i], p)) {
			use_site(p[0], m[i].use[0], sizeof(m[i].use[0]));
			use_site(p[1], m[i].use[1], sizeof(m[i].use[1]));
		}
		m[i].parent = i;
	}
	/* One key, one group; one access that met a freed object, one group. */
	for (int i = 0; i < nr; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(m[i].key, m[j].key) || same_access(&m[i], &m[j]))
				join(m, i, j);
	for (int i = 0; i < nr; i++)
		best[i] = -1;
	for (int i = 0; i < nr; i++) {
		int r = root_of(m, i);

		if (best[r] < 0 || better_key(&m[i], &m[best[r]]))
			best[r] = i;
	}
	for (int i = 0; i < nr; i++) {
		int r = root_of(m, i), k;

		for (k = 0; k < nr_groups; k++)
			if (root_of(m, g[k].first) == r)
				break;
		if (k == nr_groups) {
			struct rt_san_group *n = realloc(g, (size_t)(nr_groups + 1) * sizeof(*n));

			if (!n) {
				free(g);
				free(m);
				free(best);
				return -ENOMEM;
			}
			g = n;
			memset(&g[k], 0, sizeof(g[k]));
			snprintf(g[k].signature, sizeof(g[k].signature), "%s", m[best[r]].key);
			/* Titled by the report that gave the key: the use-after-free, not a race. */
			rt_san_title(&reps[best[r]], g[k].title, sizeof(g[k].title));
			g[k].first = best[r];
			nr_groups++;
		}
		g[k].nr++;
		if (group_of)
			group_of[i] = k;
	}
	free(m);
	free(best);
	*groups = g;
	return nr_groups;
}
