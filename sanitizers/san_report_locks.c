// SPDX-License-Identifier: MIT
/*
 * Lock classes in TSan reports (san_report_locks.h): the hook's lines
 * (tsan_api.h) read back, the mutexes named in the titles, the artifact's
 * list and the signature's part for a report about locks.
 */
#include "san_report_locks.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "san_report-internal.h"
#include "tsan_api.h"

/* "WORD ... ==": @s's first blank-delimited word into @dst. */
static void first_word(char *dst, size_t len, const char *s)
{
	copy(dst, len, s, strcspn(s, " "));
}

bool rt_san_api_line(const char *line, struct rt_san_api_block *b)
{
	if (starts(line, RT_TSAN_API_REPORT)) {
		b->seen = true;
		first_word(b->type, sizeof(b->type), line + strlen(RT_TSAN_API_REPORT));
		return true;
	}
	if (starts(line, RT_TSAN_API_MUTEX)) {
		const char *s = line + strlen(RT_TSAN_API_MUTEX);
		struct rt_san_mutex *m;
		char *end;

		if (s[0] != 'M' || !isdigit((unsigned char)s[1]) || b->nr >= RT_SAN_MAX_MUTEXES)
			return true;
		m = &b->m[b->nr];
		m->id = strtoul(s + 1, &end, 10);
		if (*end != ' ')
			return true;
		first_word(m->cls, sizeof(m->cls), end + 1);
		if (!strcmp(m->cls, "?") || !strcmp(m->cls, "=="))
			m->cls[0] = '\0';
		b->nr++;
		return true;
	}
	if (starts(line, RT_TSAN_API_ACCESS)) {
		char *end;
		long i = strtol(line + strlen(RT_TSAN_API_ACCESS), &end, 10);

		if (*end != ' ' || i != b->nr_accesses || i >= RT_SAN_MAX_ACCESSES)
			return true;
		first_word(b->accessed[i], sizeof(b->accessed[i]), end + 1);
		if (!strcmp(b->accessed[i], "?") || !strcmp(b->accessed[i], "=="))
			b->accessed[i][0] = '\0';
		b->nr_accesses++;
		return true;
	}
	return false;
}

/* The emulated locks' own functions (core/spinlock.h, rwsem.c, semaphore.c, page.c). */
static bool lock_primitive(const char *func)
{
	static const char *const names[] = {
		"spin_lock_init", "init_rwsem", "sema_init", "_down", "_down_trylock", "_up",
		"_down_read", "_down_read_trylock", "_up_read", "_down_write",
		"_down_write_trylock", "_up_write", "_downgrade_write", "_lock_page",
		"_trylock_page", "_unlock_page",
	};

	if (starts(func, "_spin_") || starts(func, "_bit_spin_"))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(func, names[i]))
			return true;
	return false;
}

/* The first frame of @st that is not the runtime's, or NULL. */
static const char *top_func(const struct rt_san_stack *st)
{
	for (int j = 0; j < st->nr; j++)
		if (!st->f[j].skip)
			return st->f[j].func;
	return NULL;
}

/*
 * The lock a primary stack's access touched, when a lock primitive made
 * it: the class, else NULL. The I-th primary stack of a report with
 * accesses is its I-th access, as TSan prints them.
 */
static const char *access_lock(const struct rt_san_report *rep, const struct rt_san_stack *st)
{
	const char *top = top_func(st);
	int k = 0;

	if (!rep->nr_accesses || !top || !lock_primitive(top))
		return NULL;
	for (int i = 0; i < rep->nr_stacks && &rep->stacks[i] != st; i++)
		k += rep->stacks[i].primary;
	if (k >= rep->nr_accesses || !rep->accessed[k][0])
		return NULL;
	return rep->accessed[k];
}

/* "Read of size 2 by ..." -> "Read of size 2 in CLASS by ..." (once). */
static void name_access_title(char *title, size_t size, const char *cls)
{
	char *p = strstr(title, "of size "), rest[sizeof(((struct rt_san_stack *)0)->title)];
	char in[64];

	if (!p)
		return;
	p += 8;
	p += strspn(p, "0123456789");
	snprintf(in, sizeof(in), " in %s", cls);
	if (starts(p, in))
		return;
	snprintf(rest, sizeof(rest), "%s", p);
	snprintf(p, size - (size_t)(p - title), "%s%s", in, rest);
}

static struct rt_san_mutex *find_mutex(struct rt_san_report *rep, unsigned long id)
{
	for (int i = 0; i < rep->nr_mutexes; i++)
		if (rep->mutexes[i].id == id)
			return &rep->mutexes[i];
	return NULL;
}

static struct rt_san_mutex *add_mutex(struct rt_san_report *rep, unsigned long id)
{
	struct rt_san_mutex *m = find_mutex(rep, id);

	if (m || rep->nr_mutexes >= RT_SAN_MAX_MUTEXES)
		return m;
	m = &rep->mutexes[rep->nr_mutexes++];
	m->id = id;
	m->cls[0] = '\0';
	return m;
}

/* A mutex id "M<digits>" at @s (a token start in a title about mutexes)? */
static bool mutex_token(const char *title, const char *s, unsigned long *id, const char **end)
{
	char *e;

	if (s[0] != 'M' || !isdigit((unsigned char)s[1]) ||
	    (s > title && s[-1] != ' ' && s[-1] != '(' && s[-1] != ','))
		return false;
	*id = strtoul(s + 1, &e, 10);
	if (isalnum((unsigned char)*e) || *e == '_')
		return false;
	*end = e;
	return true;
}

static bool about_mutexes(const char *title)
{
	return strstr(title, "utex") != NULL;
}

/* Every mutex id the titles name, in order. */
static void collect_ids(struct rt_san_report *rep)
{
	for (int i = 0; i < rep->nr_stacks; i++) {
		const char *t = rep->stacks[i].title, *end;
		unsigned long id;

		if (!about_mutexes(t))
			continue;
		for (const char *s = t; *s; s++)
			if (mutex_token(t, s, &id, &end)) {
				add_mutex(rep, id);
				s = end - 1;
			}
	}
}

/* "M1181 ()" or "M1181" -> "M1181 (CLASS)" in @title, for each known class. */
static void name_title(struct rt_san_report *rep, char *title, size_t size)
{
	char out[sizeof(rep->stacks[0].title)];
	size_t w = 0;
	const char *s = title;

	if (!about_mutexes(title))
		return;
	while (*s && w + 1 < sizeof(out)) {
		const char *end;
		unsigned long id;
		struct rt_san_mutex *m;
		char named[64];

		if (!mutex_token(title, s, &id, &end) || !(m = find_mutex(rep, id)) || !m->cls[0]) {
			out[w++] = *s++;
			continue;
		}
		snprintf(named, sizeof(named), " (%s)", m->cls);
		if (starts(end, " ()"))
			end += 3;
		else if (starts(end, named))
			end += strlen(named);
		w += (size_t)snprintf(out + w, sizeof(out) - w, "M%lu%s", id, named);
		if (w >= sizeof(out))
			w = sizeof(out) - 1;
		s = end;
	}
	out[w] = '\0';
	snprintf(title, size, "%s", out);
}

void rt_san_name_mutexes(struct rt_san_report *rep, const struct rt_san_api_block *b)
{
	if (rep->kind != RT_SAN_TSAN)
		return;
	if (b && b->seen) {
		rep->tsan_api = true;
		/* TSan's order first: a misuse report's own mutex leads. */
		for (int i = 0; i < b->nr; i++) {
			struct rt_san_mutex *m = add_mutex(rep, b->m[i].id);

			if (m && b->m[i].cls[0])
				snprintf(m->cls, sizeof(m->cls), "%s", b->m[i].cls);
		}
		rep->nr_accesses = b->nr_accesses;
		memcpy(rep->accessed, b->accessed, sizeof(rep->accessed));
	}
	collect_ids(rep);
	for (int i = 0; i < rep->nr_stacks; i++) {
		struct rt_san_stack *st = &rep->stacks[i];
		const char *cls = st->primary ? access_lock(rep, st) : NULL;

		name_title(rep, st->title, sizeof(st->title));
		if (cls)
			name_access_title(st->title, sizeof(st->title), cls);
	}
	rt_san_signature(rep);
}

void rt_san_mutexes_json(const struct rt_san_report *rep, json_t *art)
{
	json_t *list;

	if (rep->kind != RT_SAN_TSAN)
		return;
	list = json_array();
	for (int i = 0; i < rep->nr_mutexes; i++) {
		const struct rt_san_mutex *m = &rep->mutexes[i];
		char id[32];

		snprintf(id, sizeof(id), "M%lu", m->id);
		json_array_append_new(list, json_pack("{s:s, s:o}", "id", id, "class",
						      m->cls[0] ? json_string(m->cls) : json_null()));
	}
	json_object_set_new(art, "mutexes", list);
	json_object_set_new(art, "tsan_api", json_boolean(rep->tsan_api));
	if (!rep->tsan_api)
		return;
	/* Which lock each access touched (a freed lock's memory, say), null for none. */
	list = json_array();
	for (int i = 0; i < rep->nr_accesses; i++)
		json_array_append_new(list, rep->accessed[i][0] ? json_string(rep->accessed[i]) :
				      json_null());
	json_object_set_new(art, "accessed_locks", list);
}

/* The class of the mutex whose id follows @marker in @title, or NULL. */
static const char *class_after(const struct rt_san_report *rep, const char *title,
			       const char *marker)
{
	const char *p = strstr(title, marker);
	unsigned long id;

	if (!p || !isdigit((unsigned char)p[strlen(marker)]))
		return NULL;
	id = strtoul(p + strlen(marker), NULL, 10);
	for (int i = 0; i < rep->nr_mutexes; i++)
		if (rep->mutexes[i].id == id)
			return rep->mutexes[i].cls[0] ? rep->mutexes[i].cls : NULL;
	return NULL;
}

bool san_lock_signature_part(const struct rt_san_report *rep, const struct rt_san_stack *st,
			     char *buf, size_t len)
{
	bool inversion = !strcmp(rep->type, "lock-order-inversion");
	const char *caller = NULL, *held, *taken, *cls;
	int seen = 0;

	if (rep->kind == RT_SAN_TSAN && (cls = access_lock(rep, st))) {
		snprintf(buf, len, "%s(%s)", top_func(st), cls);
		return true;
	}
	if (rep->kind != RT_SAN_TSAN || !rep->nr_mutexes ||
	    (!inversion && !strstr(rep->type, "mutex")))
		return false;
	/* The frame under the lock primitive (the first frame not the runtime's). */
	for (int j = 0; j < st->nr && !caller; j++)
		if (!st->f[j].skip && seen++ == 1)
			caller = st->f[j].func;
	if (inversion) {
		/* "Mutex M1 acquired here while holding mutex M0 in thread T1:" */
		taken = class_after(rep, st->title, "Mutex M");
		held = class_after(rep, st->title, "holding mutex M");
		if (!taken || !held)
			return false;
		snprintf(buf, len, "%s->%s%s%s", held, taken, caller ? "," : "",
			 caller ? caller : "");
		return true;
	}
	if (!rep->mutexes[0].cls[0])
		return false;
	snprintf(buf, len, "%s%s%s", rep->mutexes[0].cls, caller ? "," : "", caller ? caller : "");
	return true;
}
