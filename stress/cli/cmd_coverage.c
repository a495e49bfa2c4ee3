// SPDX-License-Identifier: MIT
/*
 * `rmaptorture coverage FILES...`: the interleaving coverage of run
 * records, ci --json files and --cover-map files, merged (cover_map.h);
 * and the check of run --cover-map before a run.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "cover_map.h"
#include "plot.h"
#include "record.h"
#include "rt_opt.h"

void rt_cover_map_check(const char *path)
{
	json_t *root, *known;

	/* None yet: this run writes it, where it can. */
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		rt_opt_out_file("--cover-map", path);
		return;
	}
	root = rt_opt_json_file("--cover-map", path);
	known = rt_cover_of_file(root);
	json_decref(root);
	if (!known)
		rt_usage_error("--cover-map %s: no interleaving coverage in it", path);
	json_decref(known);
}

/* ---- rmaptorture coverage FILES... ---- */

static void coverage_usage(FILE *f)
{
	fputs("usage: rmaptorture coverage FILE... [--uncovered N] [--out DIR] [--no-plots]\n"
	      "\n"
	      "The interleaving coverage of run records (run --out/--json), ci --json files\n"
	      "and --cover-map files, merged: each file's distinct pairs; the pairs by\n"
	      "operation (fault x truncate: how often, how many distinct site pairs); the\n"
	      "pairs of known sites of one object kind that no file covered (the first N,\n"
	      "default 20; all with --uncovered -1); and with --out DIR a plot of distinct\n"
	      "pairs over time, one line per run record (DIR/coverage.svg, .png).\n"
	      "\n"
	      "A pair is {site A, site B}: CPU Y reached B on an object while another CPU X\n"
	      "was between its site A on that object and its next site on it (or the end\n"
	      "of its operation). Sites: every emulated lock operation (file:line, lock\n"
	      "class) and every yield point (name, object kind).\n"
	      "\n"
	      "  -u, --uncovered N  list N never-covered pairs (-1: all)\n"
	      "  -o, --out DIR      write the plot there\n"
	      "      --no-plots     no plot\n"
	      "  -h, --help         this text\n"
	      "Exit status: 0; 2 bad usage or a file without coverage; 3 a plot not drawn.\n", f);
}

struct op_row {
	char ops[256];
	unsigned long count, pairs;
};

static int cmp_row(const void *a, const void *b)
{
	const struct op_row *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : strcmp(x->ops, y->ops);
}

static void print_by_op(const json_t *merged)
{
	const json_t *pairs = json_object_get(merged, "pairs");
	struct op_row *rows = NULL;
	size_t n = 0, cap = 0;
	const char *key, *op;
	json_t *v, *c;

	json_object_foreach((json_t *)pairs, key, v) {
		json_object_foreach(json_object_get(v, "ops"), op, c) {
			const char *x = strstr(op, " x ");
			char canon[256];
			size_t i;

			/* Unordered by operation too: "a x b" and "b x a" are one row. */
			if (x && strncmp(op, x + 3, (size_t)(x - op)) > 0)
				snprintf(canon, sizeof(canon), "%s x %.*s", x + 3, (int)(x - op), op);
			else
				snprintf(canon, sizeof(canon), "%s", op);
			for (i = 0; i < n && strcmp(rows[i].ops, canon); i++)
				;
			if (i == n) {
				if (n == cap) {
					cap = cap ? 2 * cap : 64;
					rows = realloc(rows, cap * sizeof(*rows));
					if (!rows)
						return;
				}
				memset(&rows[n], 0, sizeof(rows[n]));
				snprintf(rows[n].ops, sizeof(rows[n].ops), "%s", canon);
				n++;
			}
			rows[i].count += (unsigned long)json_integer_value(c);
			rows[i].pairs++;
		}
	}
	qsort(rows, n, sizeof(*rows), cmp_row);
	printf("\n| operations | times | site pairs |\n|---|---|---|\n");
	for (size_t i = 0; i < n; i++)
		printf("| %s | %lu | %lu |\n", rows[i].ops, rows[i].count, rows[i].pairs);
	free(rows);
}

struct coverage_opts {
	const char *out_dir;
	bool no_plots;
	int list;		/* never-covered pairs to list */
	char **files;
	int nfiles;
};

/* Parse and check the options into @o. Return: -1, or the exit status of --help. */
static int parse_coverage_opts(int argc, char **argv, struct coverage_opts *o)
{
	static const struct option opts[] = {
		{ "uncovered", required_argument, NULL, 'u' },
		{ "out", required_argument, NULL, 'o' },
		{ "no-plots", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct coverage_opts){ .list = 20 };
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":u:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'u': o->list = (int)rt_opt_int("--uncovered", optarg, -1, 1 << 30); break;
		case 'o': o->out_dir = optarg; break;
		case 'N': o->no_plots = true; break;
		case 'h': coverage_usage(stdout); return RT_EXIT_OK;
		default: rt_opt_bad("coverage", c, argv[optind - 1]);
		}
	}
	o->files = argv + optind;
	o->nfiles = argc - optind;
	if (o->nfiles <= 0)
		rt_usage_error("coverage: no files given (see 'rmaptorture coverage --help')");
	if (o->out_dir) {
		if (!*o->out_dir)
			rt_usage_error("--out: empty directory name");
		rt_opt_out_dir("--out", o->out_dir);
	}
	if (o->list < 0)
		o->list = 1 << 30;
	return -1;
}

/* @path's JSON, and its coverage in *@one (new), or exit 2 naming the file. */
static json_t *load_coverage(const char *path, json_t **one)
{
	json_t *root = rt_opt_json_file("coverage", path);

	*one = rt_cover_of_file(root);
	if (!*one) {
		json_decref(root);
		rt_usage_error("coverage: %s: no interleaving coverage in it", path);
	}
	return root;
}

/* The plot's lines: one per run record with a timeline. */
struct coverage_plot {
	struct rt_plot_series *series;
	double **xs, **ys;
	int ns;
};

/* A ci --json: one row per configuration that ran. */
static void print_ci_rows(const char *path, const json_t *root)
{
	const json_t *r;
	size_t k;

	json_array_foreach(json_object_get(root, "results"), k, r) {
		const json_t *ic = json_object_get(r, "interleaving");
		const json_t *cf = json_array_get(json_object_get(root, "configs"), k);

		if (!json_is_object(ic))
			continue;
		printf("| %s #%zu %s | %s | %s | %s | %.1f | %zu |\n", path, k,
		       json_string_value(json_object_get(cf, "build")) ?: "-",
		       json_string_value(json_object_get(cf, "sched")) ?: "-",
		       json_string_value(json_object_get(cf, "scenario")) ?: "-",
		       json_string_value(json_object_get(cf, "rmap")) ?: "-",
		       json_number_value(json_object_get(r, "seconds")),
		       json_object_size(json_object_get(ic, "pairs")));
	}
}

/* A run record's timeline @cov of distinct pairs over time as the next line of @p. */
static void add_timeline(struct coverage_plot *p, const json_t *root, const json_t *cov)
{
	const json_t *t = json_object_get(cov, "timeline");
	size_t n = json_array_size(t), k;
	int ns = p->ns;
	char *name = malloc(512);
	uint64_t seed = 0;

	p->xs[ns] = calloc(n + 1, sizeof(double));
	p->ys[ns] = calloc(n + 1, sizeof(double));
	for (k = 0; k < n; k++) {
		p->xs[ns][k] = json_number_value(json_array_get(json_array_get(t, k), 0));
		p->ys[ns][k] = (double)json_integer_value(json_array_get(json_array_get(t, k), 1));
	}
	rt_seed_of(json_object_get(root, "seed"), &seed);
	snprintf(name, 512, "%s %s/%s seed %" PRIu64,
		 json_string_value(json_object_get(cov, "sched")) ?: "?",
		 json_string_value(json_object_get(root, "scenario")) ?: "?",
		 json_string_value(json_object_get(root, "rmap")) ?: "?", seed);
	p->series[ns] = (struct rt_plot_series){ name, (int)n, p->xs[ns], p->ys[ns] };
	p->ns++;
}

/* @path's rows of the table; its pairs merged into @merged, its timeline into @p. Return: merged. */
static json_t *add_file(const char *path, json_t *merged, struct coverage_plot *p)
{
	json_t *one, *root = load_coverage(path, &one);
	const json_t *cov = json_object_get(root, "coverage");

	if (json_is_array(json_object_get(root, "results"))) {
		cov = NULL;
		print_ci_rows(path, root);
	}
	printf("| %s | %s | %s | %s | %.1f | %zu |\n", path,
	       json_string_value(json_object_get(cov, "sched")) ?: "-",
	       json_string_value(json_object_get(root, "scenario")) ?: "-",
	       json_string_value(json_object_get(root, "rmap")) ?: "-",
	       json_number_value(json_object_get(root, "seconds")),
	       json_object_size(json_object_get(one, "pairs")));
	merged = rt_cover_merge(merged, json_object_get(one, "pairs") ? one : NULL);
	if (json_is_array(json_object_get(cov, "timeline")))
		add_timeline(p, root, cov);
	json_decref(one);
	json_decref(root);
	return merged;
}

/* DIR/coverage.svg and .png. Return: RT_EXIT_OK, or RT_EXIT_INTERNAL if gnuplot failed. */
static int write_plot(const char *out_dir, const struct coverage_plot *cp)
{
	char base[4096];
	struct rt_plot p = {
		.title = "interleaving coverage over time",
		.xlabel = "seconds", .ylabel = "distinct pairs",
		.nr_series = cp->ns, .series = cp->series,
	};

	snprintf(base, sizeof(base), "%s/coverage", out_dir);
	if (!rt_plot_available()) {
		fprintf(stderr, "rmaptorture: coverage: no gnuplot on $PATH: no plot\n");
	} else if (rt_plot_write(&p, base)) {
		fprintf(stderr, "rmaptorture: coverage: gnuplot could not draw %s\n", base);
		return RT_EXIT_INTERNAL;
	} else {
		printf("plot: %s.svg %s.png\n", base, base);
	}
	return RT_EXIT_OK;
}

static void free_plot(struct coverage_plot *p)
{
	for (int i = 0; i < p->ns; i++) {
		free((void *)p->series[i].name);
		free(p->xs[i]);
		free(p->ys[i]);
	}
	free(p->series);
	free(p->xs);
	free(p->ys);
}

int cmd_coverage(int argc, char **argv)
{
	struct coverage_opts o;
	struct coverage_plot p = { 0 };
	json_t *merged = NULL, *one;
	int rc = parse_coverage_opts(argc, argv, &o);

	if (rc >= 0)
		return rc;
	p.series = calloc((size_t)o.nfiles + 1, sizeof(*p.series));
	p.xs = calloc((size_t)o.nfiles + 1, sizeof(*p.xs));
	p.ys = calloc((size_t)o.nfiles + 1, sizeof(*p.ys));
	/* Every file is read and checked before anything is printed. */
	for (int i = 0; i < o.nfiles; i++) {
		json_decref(load_coverage(o.files[i], &one));
		json_decref(one);
	}
	printf("| file | sched | scenario | rmap | seconds | distinct pairs |\n|---|---|---|---|---|---|\n");
	for (int i = 0; i < o.nfiles; i++)
		merged = add_file(o.files[i], merged, &p);
	print_by_op(merged);
	printf("\n");
	rt_cover_print(stdout, merged, o.list);
	rc = RT_EXIT_OK;
	if (o.out_dir && !o.no_plots && p.ns)
		rc = write_plot(o.out_dir, &p);
	free_plot(&p);
	json_decref(merged);
	return rc;
}
