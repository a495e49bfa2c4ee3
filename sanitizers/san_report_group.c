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

/* A use-after-free's stacks: the access, the free, the allocation (each may be NULL). */
struct uaf {
	const struct rt_san_stack *access, *freed, *alloc;
};

static bool find_uaf(const struct rt_san_report *rep, struct uaf *u)
{
	memset(u, 0, sizeof(*u));
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

int rt_san_group(const struct rt_san_report *reps, int nr, int *group_of,
		 struct rt_san_group **groups)
{
	struct rt_san_group *g = NULL;
	int nr_groups = 0;

	*groups = NULL;
	for (int i = 0; i < nr; i++) {
		char key[RT_SAN_SIG_LEN];
		int k;

		rt_san_group_key(&reps[i], key, sizeof(key));
		for (k = 0; k < nr_groups; k++)
			if (!strcmp(g[k].signature, key))
				break;
		if (k == nr_groups) {
			struct rt_san_group *n = realloc(g, (size_t)(nr_groups + 1) * sizeof(*n));

			if (!n) {
				free(g);
				return -ENOMEM;
			}
			g = n;
			memset(&g[k], 0, sizeof(g[k]));
			snprintf(g[k].signature, sizeof(g[k].signature), "%s", key);
			rt_san_title(&reps[i], g[k].title, sizeof(g[k].title));
			g[k].first = i;
			nr_groups++;
		}
		g[k].nr++;
		if (group_of)
			group_of[i] = k;
	}
	*groups = g;
	return nr_groups;
}
