// SPDX-License-Identifier: MIT
/*
 * Sanitizer capture (capture.h): a child's sanitizer logs and flight dumps
 * into failure artifacts.
 */
#include "capture.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "artifact.h"
#include "die.h"
#include "record.h"
#include "san_report_locks.h"

struct flight_block {
	json_t *flight;		/* [{"task", "events"}] */
	char task[32];		/* the hook's reporting task, "" if unknown */
	char op[64];		/* its operation, "" if unknown */
	double elapsed;		/* seconds from the process's start; < 0 unknown */
	struct rt_san_api_block api;	/* TSan's report interface (tsan_api.h) */
};

struct log_list {
	char **paths;
	long *pids;
	int nr;
};

/* Model frames printed per stack on the terminal; the artifact has them all. */
#define RT_SAN_PRINT_FRAMES	8

static const char hook_head[] = "== rmaptorture sanitizer hook: ";
static const char dump_head[] = "== rmaptorture flight recorder ==";
static const char dump_tail[] = "== end ==";

/* Split @prefix into its directory (@dir, "." if none) and its base name. */
static const char *split_prefix(const char *prefix, char *dir, size_t len)
{
	const char *slash = strrchr(prefix, '/');

	if (!slash) {
		snprintf(dir, len, ".");
		return prefix;
	}
	if (slash == prefix)
		snprintf(dir, len, "/");
	else
		snprintf(dir, len, "%.*s", (int)(slash - prefix), prefix);
	return slash + 1;
}

static int cmp_pid(const void *a, const void *b, void *arg)
{
	const long *pids = arg;
	long x = pids[*(const int *)a], y = pids[*(const int *)b];

	return (x > y) - (x < y);
}

static void free_logs(struct log_list *l)
{
	for (int i = 0; i < l->nr; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->pids);
	memset(l, 0, sizeof(*l));
}

/* Every PREFIX.<pid> and PREFIX.ubsan.<pid> file, ordered by pid. */
static int list_logs(const char *prefix, struct log_list *l)
{
	char dir[PATH_MAX];
	const char *base = split_prefix(prefix, dir, sizeof(dir));
	size_t blen = strlen(base);
	struct dirent *de;
	int cap = 0, err = 0;
	int *order = NULL;
	DIR *d;

	memset(l, 0, sizeof(*l));
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		const char *s = de->d_name;

		const char *pid = s + blen + 1;

		if (strncmp(s, base, blen) || s[blen] != '.')
			continue;
		/* LOG.PID, and LOG.ubsan.PID from gcc's separate libubsan (hooks.c) */
		if (!strncmp(pid, "ubsan.", 6))
			pid += 6;
		if (!*pid || strspn(pid, "0123456789") != strlen(pid))
			continue;
		if (l->nr == cap) {
			int ncap = cap ? cap * 2 : 8;
			char **np = realloc(l->paths, (size_t)ncap * sizeof(*np));
			long *pp;

			if (!np) {
				err = -ENOMEM;
				break;
			}
			l->paths = np;
			pp = realloc(l->pids, (size_t)ncap * sizeof(*pp));
			if (!pp) {
				err = -ENOMEM;
				break;
			}
			l->pids = pp;
			cap = ncap;
		}
		l->pids[l->nr] = strtol(pid, NULL, 10);
		if (asprintf(&l->paths[l->nr], "%s/%s", dir, s) < 0) {
			err = -ENOMEM;
			break;
		}
		l->nr++;
	}
	closedir(d);
	if (!err && l->nr > 1) {
		char **paths = malloc((size_t)l->nr * sizeof(*paths));
		long *pids = malloc((size_t)l->nr * sizeof(*pids));

		order = malloc((size_t)l->nr * sizeof(*order));
		if (!paths || !pids || !order) {
			free(paths);
			free(pids);
			err = -ENOMEM;
		} else {
			for (int i = 0; i < l->nr; i++)
				order[i] = i;
			qsort_r(order, (size_t)l->nr, sizeof(*order), cmp_pid, l->pids);
			for (int i = 0; i < l->nr; i++) {
				paths[i] = l->paths[order[i]];
				pids[i] = l->pids[order[i]];
			}
			free(l->paths);
			free(l->pids);
			l->paths = paths;
			l->pids = pids;
		}
	}
	free(order);
	if (err)
		free_logs(l);
	return err;
}

static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		size_t got;

		if (cap - *len < 4096) {
			char *n = realloc(buf, cap + 65536);

			if (!n)
				break;
			buf = n;
			cap += 65536;
		}
		got = fread(buf + *len, 1, cap - *len - 1, f);
		*len += got;
		if (!got)
			break;
	}
	fclose(f);
	if (buf)
		buf[*len] = '\0';
	return buf;
}

/* "... task NAME op OP ==": NAME and OP ("-" means unknown: ""). */
static void parse_hook_line(const char *s, struct flight_block *b)
{
	const char *t = strstr(s, " task "), *o;
	size_t n;

	b->task[0] = b->op[0] = '\0';
	b->elapsed = -1;
	if (strstr(s, " elapsed "))
		b->elapsed = strtod(strstr(s, " elapsed ") + 9, NULL);
	if (!t)
		return;
	t += 6;
	o = strstr(t, " op ");
	n = o ? (size_t)(o - t) : strcspn(t, " ");
	if (n && n < sizeof(b->task) && strncmp(t, "-", n))
		snprintf(b->task, sizeof(b->task), "%.*s", (int)n, t);
	if (!o)
		return;
	o += 4;
	n = strcspn(o, " ");
	if (n && n < sizeof(b->op) && strncmp(o, "-", n))
		snprintf(b->op, sizeof(b->op), "%.*s", (int)n, o);
}

/*
 * The blocks of a flight log, in order. A task's events start with
 * "in OP", as flight_for_each() gives them, then "#SEQ EVENT" lines.
 */
static int parse_flight(const char *path, struct flight_block **blocks)
{
	size_t len, i = 0;
	char *text = read_text(path, &len);
	struct flight_block pending = { 0 }, *cur = NULL;
	json_t *events = NULL;
	int nr = 0, cap = 0;

	*blocks = NULL;
	if (!text)
		return 0;
	while (i < len) {
		size_t n = strcspn(text + i, "\n");
		char line[512];
		char *s;

		snprintf(line, sizeof(line), "%.*s", (int)n, text + i);
		i += n + 1;
		for (s = line; *s; s++)
			if ((unsigned char)*s < 0x20)
				*s = ' ';
		s = line;
		if (!strncmp(s, hook_head, sizeof(hook_head) - 1)) {
			parse_hook_line(s, &pending);
		} else if (rt_san_api_line(s, &pending.api)) {
			continue;
		} else if (!strncmp(s, dump_head, sizeof(dump_head) - 1)) {
			if (nr == cap) {
				int ncap = cap ? cap * 2 : 8;
				struct flight_block *nb = realloc(*blocks, (size_t)ncap * sizeof(*nb));

				if (!nb)
					break;
				*blocks = nb;
				cap = ncap;
			}
			cur = &(*blocks)[nr++];
			*cur = pending;
			cur->flight = json_array();
			memset(&pending, 0, sizeof(pending));
			events = NULL;
		} else if (!cur) {
			continue;
		} else if (!strncmp(s, dump_tail, sizeof(dump_tail) - 1)) {
			cur = NULL;
			events = NULL;
		} else if (!strncmp(s, "task ", 5)) {
			const char *name = s + 5, *op = strstr(name, " op ");
			json_t *t = json_object();
			char in[128];

			snprintf(in, sizeof(in), "in %s", op ? op + 4 : "-");
			events = json_array();
			json_object_set_new(t, "task", json_stringn(name, op ? (size_t)(op - name) :
								     strlen(name)));
			json_array_append_new(events, json_string(in));
			json_object_set_new(t, "events", events);
			json_array_append_new(cur->flight, t);
		} else if (events && (s[0] == ' ' || s[0] == '#')) {
			while (*s == ' ')
				s++;
			if (*s)
				json_array_append_new(events, json_string(s));
		}
	}
	free(text);
	return nr;
}

static json_t *stack_json(const struct rt_san_report *rep)
{
	json_t *a = json_array();

	for (int i = 0; i < rep->nr_stacks; i++) {
		const struct rt_san_stack *st = &rep->stacks[i];
		char buf[400];

		snprintf(buf, sizeof(buf), "-- %s", st->title[0] ? st->title : "stack:");
		json_array_append_new(a, json_string(buf));
		for (int j = 0; j < st->nr; j++) {
			const struct rt_san_frame *f = &st->f[j];

			snprintf(buf, sizeof(buf), "#%d %s%s%s", j, f->func[0] ? f->func : "?",
				 f->loc[0] ? " " : "", f->loc);
			json_array_append_new(a, json_string(buf));
		}
	}
	return a;
}

json_t *rt_sanitizer_report_json(const struct rt_san_report *rep, json_t *context,
				 json_t *flight, const char *task, const char *op)
{
	const char *kind = rt_san_kind_name(rep->kind);
	json_t *art = context ? json_deep_copy(context) : rt_record_new("failure");

	if (!art) {
		json_decref(flight);
		return NULL;
	}
	if (!json_object_get(art, "record"))
		json_object_set_new(art, "record", json_string("failure"));
	json_object_set_new(art, "kind", json_string(kind));
	json_object_set_new(art, "message", json_string(rep->message));
	json_object_set_new(art, "signature", json_string(rep->signature));
	json_object_set_new(art, "op", op && *op ? json_string(op) : json_null());
	json_object_set_new(art, "task", json_string(task && *task ? task : rep->task));
	json_object_set_new(art, "stack", stack_json(rep));
	rt_san_mutexes_json(rep, art);
	if (flight)
		json_object_set_new(art, "flight", flight);
	return art;
}

/* Every report of every log, in pid order, into one array; -ENOMEM. */
static int parse_logs(const struct log_list *logs, struct rt_san_report **all)
{
	int total = 0;

	*all = NULL;
	for (int i = 0; i < logs->nr; i++) {
		struct rt_san_report *reps, *n;
		int nr = rt_san_parse_file(logs->paths[i], &reps);

		if (nr < 0) {
			fprintf(stderr, "rmaptorture: cannot read the sanitizer log %s: %s\n",
				logs->paths[i], strerror(-nr));
			if (nr == -ENOMEM)
				goto out_nomem;
			continue;
		}
		if (!nr)
			continue;
		n = realloc(*all, (size_t)(total + nr) * sizeof(*n));
		if (!n) {
			free(reps);
			goto out_nomem;
		}
		*all = n;
		memcpy(n + total, reps, (size_t)nr * sizeof(*n));
		total += nr;
		free(reps);
	}
	return total;

out_nomem:
	free(*all);
	*all = NULL;
	return -ENOMEM;
}

/* "group": each distinct report signature of group @g, its count and first message. */
static json_t *group_json(const struct rt_san_report *reps, int nr, const int *group_of, int g)
{
	json_t *list = json_array();

	for (int i = 0; i < nr; i++) {
		json_t *e = NULL, *x;
		size_t k;

		if (group_of[i] != g)
			continue;
		json_array_foreach(list, k, x)
			if (!strcmp(json_string_value(json_object_get(x, "signature")),
				    reps[i].signature))
				e = x;
		if (e) {
			json_object_set_new(e, "count", json_integer(
				json_integer_value(json_object_get(e, "count")) + 1));
			continue;
		}
		e = json_object();
		json_object_set_new(e, "signature", json_string(reps[i].signature));
		json_object_set_new(e, "count", json_integer(1));
		json_object_set_new(e, "message", json_string(reps[i].message));
		json_array_append_new(list, e);
	}
	return list;
}

/*
 * The artifact of group @grp (index @g): its first report's, with @b's
 * flight block (taken), the group's signature and title, and its reports'
 * signatures listed. Return: rt_artifact_save()'s.
 */
static int save_group(const struct rt_san_report *reps, int nr, const int *group_of,
		      const struct rt_san_group *grp, int g, struct flight_block *b,
		      json_t *context, const char *out_dir)
{
	json_t *art;
	int ret;

	art = rt_sanitizer_report_json(&reps[grp->first], context, b ? b->flight : NULL,
				       b ? b->task : NULL, b ? b->op : NULL);
	if (b)
		b->flight = NULL;	/* the artifact holds it now */
	if (!art)
		return -ENOMEM;
	if (b && b->elapsed >= 0)
		json_object_set_new(art, "elapsed_s", json_real(b->elapsed));
	json_object_set_new(art, "signature", json_string(grp->signature));
	json_object_set_new(art, "title", json_string(grp->title));
	json_object_set_new(art, "group", group_json(reps, nr, group_of, g));
	ret = rt_artifact_save(art, out_dir, NULL, 0);
	json_decref(art);
	return ret;
}

/* @rep's primary stacks, the model's frames only, at most RT_SAN_PRINT_FRAMES each. */
static void print_stacks(FILE *f, const struct rt_san_report *rep)
{
	for (int i = 0; i < rep->nr_stacks; i++) {
		const struct rt_san_stack *st = &rep->stacks[i];
		int printed = 0;

		if (!st->primary)
			continue;
		fprintf(f, "  %s\n", st->title[0] ? st->title : "stack:");
		for (int j = 0; j < st->nr; j++) {
			if (st->f[j].skip)
				continue;
			if (printed++ == RT_SAN_PRINT_FRAMES) {
				fprintf(f, "      ...\n");
				break;
			}
			fprintf(f, "    #%d %s%s%s\n", j, st->f[j].func, st->f[j].loc[0] ? " " : "",
				st->f[j].loc);
		}
	}
}

void rt_sanitizer_print(FILE *f, const struct rt_san_report *reps, int nr,
			const struct rt_san_group *groups, int nr_groups,
			const bool *fresh, const char *dir)
{
	bool *shown = rt_calloc((size_t)nr + 1, sizeof(*shown));
	int nr_shown = 0, rest_sigs = 0;

	for (int g = 0; g < nr_groups; g++) {
		const struct rt_san_report *rep = &reps[groups[g].first];

		if (!fresh[g])
			continue;
		fprintf(f, "==================\n%s\n  %s\n", groups[g].title, rep->message);
		print_stacks(f, rep);
		fprintf(f, "  signature %s (%d report%s)\n", groups[g].signature, groups[g].nr,
			groups[g].nr == 1 ? "" : "s");
		shown[groups[g].first] = true;
		nr_shown++;
	}
	if (nr_shown)
		fprintf(f, "==================\n");
	/* The rest: the reports not printed, and how many signatures they have. */
	for (int i = 0; i < nr; i++) {
		bool seen = shown[i];

		for (int j = 0; j < i && !seen; j++)
			seen = !shown[j] && !strcmp(reps[j].signature, reps[i].signature);
		rest_sigs += !seen;
	}
	if (nr > nr_shown)
		fprintf(f, "and %d more report%s (%d signature%s) in %s\n", nr - nr_shown,
			nr - nr_shown == 1 ? "" : "s", rest_sigs, rest_sigs == 1 ? "" : "s", dir);
	free(shown);
}

int rt_sanitizer_collect(const char *log_prefix, json_t *context, const char *out_dir,
			 FILE *term, int *nr_new, int *nr_repeat)
{
	struct flight_block *blocks = NULL;
	struct rt_san_group *groups = NULL;
	struct rt_san_report *reps = NULL;
	struct log_list logs;
	char path[PATH_MAX];
	int nr_blocks, total, nr_groups = 0, fresh = 0, again = 0, err;
	int *group_of = NULL;
	bool *is_new = NULL;

	if (nr_new)
		*nr_new = 0;
	if (nr_repeat)
		*nr_repeat = 0;
	err = list_logs(log_prefix, &logs);
	if (err) {
		fprintf(stderr, "rmaptorture: cannot list the sanitizer logs %s.*: %s\n",
			log_prefix, strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "%s.flight", log_prefix);
	nr_blocks = parse_flight(path, &blocks);
	total = parse_logs(&logs, &reps);
	err = total < 0 ? total : 0;
	/* Lock classes first: they are part of the signatures the groups use. */
	for (int i = 0; i < total; i++)
		rt_san_name_mutexes(&reps[i], i < nr_blocks ? &blocks[i].api : NULL);
	if (total > 0) {
		group_of = malloc((size_t)total * sizeof(*group_of));
		nr_groups = group_of ? rt_san_group(reps, total, group_of, &groups) : -ENOMEM;
		is_new = nr_groups > 0 ? calloc((size_t)nr_groups, sizeof(*is_new)) : NULL;
		if (nr_groups < 0 || !is_new)
			err = -ENOMEM;
	}
	for (int g = 0; g < nr_groups && !err; g++) {
		int i = groups[g].first;

		err = save_group(reps, total, group_of, &groups[g], g,
				 i < nr_blocks ? &blocks[i] : NULL, context, out_dir);
		is_new[g] = err == 1;
		if (err == 1)
			fresh++;
		else if (err == 0)
			again++;
		if (err > 0)
			err = 0;
	}
	if (!err && term && total > 0)
		rt_sanitizer_print(term, reps, total, groups, nr_groups, is_new, out_dir);
	for (int i = 0; i < nr_blocks; i++)
		json_decref(blocks[i].flight);
	free(blocks);
	free(is_new);
	free(groups);
	free(group_of);
	free(reps);
	free_logs(&logs);
	if (nr_new)
		*nr_new = fresh;
	if (nr_repeat)
		*nr_repeat = again;
	return err ? err : total;
}

int rt_sanitizer_logs_remove(const char *log_prefix)
{
	struct log_list logs;
	char path[PATH_MAX];
	int removed = 0;

	if (!list_logs(log_prefix, &logs)) {
		for (int i = 0; i < logs.nr; i++)
			removed += unlink(logs.paths[i]) == 0;
		free_logs(&logs);
	}
	snprintf(path, sizeof(path), "%s.flight", log_prefix);
	removed += unlink(path) == 0;
	return removed;
}
