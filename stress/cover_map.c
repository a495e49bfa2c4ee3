// SPDX-License-Identifier: MIT
/*
 * Interleaving coverage, the harness side (cover_map.h).
 */
#include "cover_map.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cover.h"
#include "record.h"

/* ---- the timeline: main samples it while the run goes ---- */

#define TL_MAX		4096
#define TL_STEP		0.25	/* seconds between samples */

static struct {
	double start, next;
	int n;
	double t[TL_MAX];
	unsigned long d[TL_MAX];
} tl;

static void timeline_start(double start)
{
	tl.start = start;
	tl.next = start;
	tl.n = 0;
}

void rt_cover_run_start(double start, bool record, bool deterministic)
{
	cover_reset_exact(record, deterministic);
	timeline_start(start);
}

void rt_cover_run_start_sites(double start)
{
	cover_reset_sites_only(true);
	timeline_start(start);
}

void rt_cover_sample(double now)
{
	if (now < tl.next || tl.n >= TL_MAX)
		return;
	tl.t[tl.n] = now - tl.start;
	tl.d[tl.n] = cover_distinct();
	tl.n++;
	tl.next = now + TL_STEP;
}

/* ---- the record ---- */

static void pair_key(const char *a, const char *b, char *buf, size_t len)
{
	if (strcmp(a, b) > 0) {
		const char *t = a;

		a = b;
		b = t;
	}
	snprintf(buf, len, "%s | %s", a, b);
}

struct rec_ctx {
	json_t *pairs;
};

static void rec_pair(int a, int b, int oa, int ob, unsigned long count, void *arg)
{
	struct rec_ctx *x = arg;
	char sa[512], sb[512], key[1100], ops[256];
	const char *na = cover_op_name(oa), *nb = cover_op_name(ob);
	json_t *p, *o;

	cover_site_format(a, sa, sizeof(sa));
	cover_site_format(b, sb, sizeof(sb));
	if (strcmp(sa, sb) > 0) {
		const char *t = na;

		na = nb;
		nb = t;
	}
	pair_key(sa, sb, key, sizeof(key));
	snprintf(ops, sizeof(ops), "%s x %s", na ? na : "?", nb ? nb : "?");
	p = json_object_get(x->pairs, key);
	if (!p) {
		p = json_pack("{s:I, s:{}}", "count", (json_int_t)0, "ops");
		json_object_set_new(x->pairs, key, p);
	}
	json_object_set_new(p, "count", json_integer(json_integer_value(json_object_get(p, "count")) +
						     (json_int_t)count));
	o = json_object_get(p, "ops");
	json_object_set_new(o, ops, json_integer(json_integer_value(json_object_get(o, ops)) +
						 (json_int_t)count));
}

json_t *rt_cover_record(const char *sched)
{
	struct cover_stats st;
	struct rec_ctx x = { .pairs = json_object() };
	json_t *sites = json_object(), *timeline = json_array();

	cover_get_stats(&st);
	for (int i = 0; i < cover_nr_sites(); i++) {
		struct cover_site_info si;
		char s[512];

		if (!cover_site(i, &si))
			continue;
		cover_site_format(i, s, sizeof(s));
		json_object_set_new(sites, s, json_string(cover_kind_name(si.kind)));
	}
	cover_for_each(rec_pair, &x);
	for (int i = 0; i < tl.n; i++)
		json_array_append_new(timeline, json_pack("[f, I]", tl.t[i], (json_int_t)tl.d[i]));
	return json_pack("{s:s, s:I, s:n, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
			 "sched", sched, "distinct", (json_int_t)st.distinct, "new",
			 "events", (json_int_t)st.events, "hits", (json_int_t)st.hits,
			 "dropped_sites", (json_int_t)st.dropped_sites,
			 "dropped_pairs", (json_int_t)st.dropped_pairs,
			 "evicted_open", (json_int_t)st.evicted_open,
			 "sites", sites, "pairs", x.pairs, "timeline", timeline);
}

/* ---- merging ---- */

json_t *rt_cover_merge(json_t *acc, const json_t *cov)
{
	json_t *sites, *pairs, *v, *p;
	const char *key;

	if (!acc)
		acc = json_pack("{s:{}, s:{}, s:i}", "sites", "pairs", "records", 0);
	if (!json_is_object(cov))
		return acc;
	json_object_set_new(acc, "records",
			    json_integer(json_integer_value(json_object_get(acc, "records")) + 1));
	sites = json_object_get(acc, "sites");
	pairs = json_object_get(acc, "pairs");
	json_object_foreach((json_t *)json_object_get(cov, "sites"), key, v)
		if (!json_object_get(sites, key))
			json_object_set(sites, key, v);
	json_object_foreach((json_t *)json_object_get(cov, "pairs"), key, v) {
		const char *op;
		json_t *n, *ops;

		p = json_object_get(pairs, key);
		if (!p) {
			p = json_pack("{s:I, s:i, s:{}}", "count", (json_int_t)0, "configs", 0, "ops");
			json_object_set_new(pairs, key, p);
		}
		json_object_set_new(p, "count",
				    json_integer(json_integer_value(json_object_get(p, "count")) +
						 json_integer_value(json_object_get(v, "count"))));
		json_object_set_new(p, "configs",
				    json_integer(json_integer_value(json_object_get(p, "configs")) + 1));
		ops = json_object_get(p, "ops");
		json_object_foreach((json_t *)json_object_get(v, "ops"), op, n)
			json_object_set_new(ops, op,
					    json_integer(json_integer_value(json_object_get(ops, op)) +
							 json_integer_value(n)));
	}
	return acc;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

unsigned long rt_cover_uncovered(const json_t *merged,
				 void (*fn)(const char *a, const char *b, const char *kind, void *arg),
				 void *arg)
{
	const json_t *sites = json_object_get(merged, "sites");
	const json_t *pairs = json_object_get(merged, "pairs");
	size_t n = json_object_size(sites), i = 0;
	const char **names = calloc(n + 1, sizeof(*names));
	unsigned long missing = 0;
	const char *key;
	json_t *v;

	if (!names)
		return 0;
	json_object_foreach((json_t *)sites, key, v)
		names[i++] = key;
	qsort(names, n, sizeof(*names), cmp_str);
	for (size_t a = 0; a < n; a++) {
		const char *ka = json_string_value(json_object_get(sites, names[a]));

		for (size_t b = a; b < n; b++) {
			char pk[1100];

			if (strcmp(ka ? ka : "", json_string_value(json_object_get(sites, names[b])) ?: ""))
				continue;
			pair_key(names[a], names[b], pk, sizeof(pk));
			if (json_object_get(pairs, pk))
				continue;
			missing++;
			if (fn)
				fn(names[a], names[b], ka, arg);
		}
	}
	free(names);
	return missing;
}

struct kind_count {
	char kind[32];
	unsigned long sites, covered, missing;
};

#define MAX_KINDS	16

static struct kind_count *kind_of(struct kind_count *k, const char *name)
{
	for (int i = 0; i < MAX_KINDS; i++) {
		if (!k[i].kind[0])
			snprintf(k[i].kind, sizeof(k[i].kind), "%s", name);
		if (!strcmp(k[i].kind, name))
			return &k[i];
	}
	return &k[MAX_KINDS - 1];
}

struct print_ctx {
	FILE *f;
	int left;
	struct kind_count *kinds;
};

static void print_missing(const char *a, const char *b, const char *kind, void *arg)
{
	struct print_ctx *x = arg;

	kind_of(x->kinds, kind ? kind : "?")->missing++;
	if (x->left > 0) {
		fprintf(x->f, "  never: %s | %s  (%s)\n", a, b, kind ? kind : "?");
		x->left--;
	}
}

void rt_cover_print(FILE *f, const json_t *merged, int list)
{
	struct kind_count kinds[MAX_KINDS] = { 0 };
	const json_t *sites = json_object_get(merged, "sites");
	const json_t *pairs = json_object_get(merged, "pairs");
	struct print_ctx x = { f, list, kinds };
	unsigned long missing;
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)sites, key, v)
		kind_of(kinds, json_string_value(v) ?: "?")->sites++;
	json_object_foreach((json_t *)pairs, key, v) {
		const char *bar = strstr(key, " | ");
		const char *k;

		if (!bar)
			continue;
		k = json_string_value(json_object_get(sites, bar + 3));
		kind_of(kinds, k ? k : "?")->covered++;
	}
	x.left = 0;
	missing = rt_cover_uncovered(merged, print_missing, &x);
	fprintf(f, "interleaving coverage: %zu distinct pairs of %zu sites; %lu pairs of sites"
		" of one object kind never covered\n", json_object_size(pairs),
		json_object_size(sites), missing);
	fprintf(f, "  %-10s %6s %9s %9s\n", "object", "sites", "covered", "never");
	for (int i = 0; i < MAX_KINDS && kinds[i].kind[0]; i++)
		fprintf(f, "  %-10s %6lu %9lu %9lu\n", kinds[i].kind, kinds[i].sites,
			kinds[i].covered, kinds[i].missing);
	if (list > 0 && missing) {
		struct kind_count scratch[MAX_KINDS] = { 0 };

		x.left = list;
		x.kinds = scratch;
		rt_cover_uncovered(merged, print_missing, &x);
		if ((unsigned long)list < missing)
			fprintf(f, "  ... %lu more (--uncovered N)\n", missing - (unsigned long)list);
	}
}

/* ---- --cover-map ---- */

json_t *rt_cover_of_file(json_t *root)
{
	json_t *acc = NULL, *r;
	size_t i;

	if (json_object_get(root, "coverage") && json_object_get(json_object_get(root, "coverage"),
								 "pairs"))
		return rt_cover_merge(NULL, json_object_get(root, "coverage"));
	json_array_foreach(json_object_get(root, "results"), i, r)
		acc = rt_cover_merge(acc, json_object_get(r, "interleaving"));
	return acc;
}

int rt_cover_map_update(const char *path, json_t *cov)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err), *known, *map, *v;
	unsigned long fresh = 0;
	const char *key;

	if (!root && access(path, F_OK) == 0) {
		fprintf(stderr, "rmaptorture: --cover-map %s: not JSON (%s)\n", path, err.text);
		return -1;
	}
	known = root ? rt_cover_of_file(root) : NULL;
	if (root && !known) {
		fprintf(stderr, "rmaptorture: --cover-map %s: no coverage in it\n", path);
		json_decref(root);
		return -1;
	}
	json_object_foreach(json_object_get(cov, "pairs"), key, v)
		if (!known || !json_object_get(json_object_get(known, "pairs"), key))
			fresh++;
	json_object_set_new(cov, "new", json_integer((json_int_t)fresh));
	known = rt_cover_merge(known, cov);
	map = rt_record_new("cover-map");
	json_object_set_new(map, "coverage", known);
	if (rt_record_write(map, path)) {
		fprintf(stderr, "rmaptorture: --cover-map %s: cannot write it\n", path);
		json_decref(map);
		json_decref(root);
		return -1;
	}
	json_decref(map);
	json_decref(root);
	return 0;
}

int rt_cover_finish_run(FILE *out, json_t *rec, const char *sched, const char *map)
{
	json_t *cov = rt_cover_record(sched);
	int rc = map ? rt_cover_map_update(map, cov) : 0;
	const json_t *fresh = json_object_get(cov, "new");
	char line[256];

	if (json_is_integer(fresh))
		snprintf(line, sizeof(line), "%lld new (not in %s)",
			 (long long)json_integer_value(fresh), map);
	else
		snprintf(line, sizeof(line), "new: no --cover-map to compare with");
	fprintf(out, "\ninterleaving coverage: %lld distinct pairs of %zu sites, %s;"
		" %lld pair hits in %lld events\n",
		(long long)json_integer_value(json_object_get(cov, "distinct")),
		json_object_size(json_object_get(cov, "sites")), line,
		(long long)json_integer_value(json_object_get(cov, "hits")),
		(long long)json_integer_value(json_object_get(cov, "events")));
	json_object_set_new(rec, "coverage", cov);
	return rc;
}
