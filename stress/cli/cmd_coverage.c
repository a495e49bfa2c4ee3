// SPDX-License-Identifier: MIT
/*
 * `rmaptorture coverage FILES...`: the interleaving coverage of run
 * records, ci --json files and --cover-map files, merged (cover_map.h);
 * and the check of run --cover-map before a run.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "cover_map.h"
#include "plot.h"
#include "rt_opt.h"

void rt_cover_map_check(const char *path)
{
	json_error_t err;
	json_t *root, *known;

	if (access(path, F_OK) != 0)
		return;
	root = json_load_file(path, 0, &err);
	if (!root)
		rt_usage_error("--cover-map %s: not JSON (%s)", path, err.text);
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

int cmd_coverage(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "uncovered", required_argument, NULL, 'u' },
		{ "out", required_argument, NULL, 'o' },
		{ "no-plots", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_dir = NULL;
	bool no_plots = false;
	int c, list = 20, nfiles, rc = RT_EXIT_OK, ns = 0;
	json_t *merged = NULL;
	struct rt_plot_series *series;
	double **xs, **ys;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "u:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'u': list = (int)rt_opt_int("--uncovered", optarg, -1, 1 << 30); break;
		case 'o': out_dir = optarg; break;
		case 'N': no_plots = true; break;
		case 'h': coverage_usage(stdout); return RT_EXIT_OK;
		default: rt_opt_bad("coverage", optopt, argv[optind - 1]);
		}
	}
	nfiles = argc - optind;
	if (nfiles <= 0)
		rt_usage_error("coverage: no files given (see 'rmaptorture coverage --help')");
	if (out_dir) {
		if (!*out_dir)
			rt_usage_error("--out: empty directory name");
		rt_opt_out_dir("--out", out_dir);
	}
	if (list < 0)
		list = 1 << 30;
	series = calloc((size_t)nfiles + 1, sizeof(*series));
	xs = calloc((size_t)nfiles + 1, sizeof(*xs));
	ys = calloc((size_t)nfiles + 1, sizeof(*ys));
	/* Every file is read and checked before anything is printed. */
	for (int i = optind; i < argc; i++) {
		json_error_t err;
		json_t *root = json_load_file(argv[i], 0, &err), *one;

		if (!root)
			rt_usage_error("coverage: %s: not a JSON file (%s)", argv[i], err.text);
		one = rt_cover_of_file(root);
		json_decref(root);
		if (!one)
			rt_usage_error("coverage: %s: no interleaving coverage in it", argv[i]);
		json_decref(one);
	}
	printf("| file | sched | scenario | rmap | seconds | distinct pairs |\n|---|---|---|---|---|---|\n");
	for (int i = optind; i < argc; i++) {
		json_error_t err;
		json_t *root = json_load_file(argv[i], 0, &err), *cov, *one;

		if (!root)
			rt_usage_error("coverage: %s: not a JSON file (%s)", argv[i], err.text);
		one = rt_cover_of_file(root);
		if (!one) {
			json_decref(root);
			rt_usage_error("coverage: %s: no interleaving coverage in it", argv[i]);
		}
		cov = json_object_get(root, "coverage");
		/* A ci --json: one row per configuration that ran. */
		if (json_is_array(json_object_get(root, "results"))) {
			cov = NULL;
			const json_t *r;
			size_t k;

			json_array_foreach(json_object_get(root, "results"), k, r) {
				const json_t *ic = json_object_get(r, "interleaving");
				const json_t *cf = json_array_get(json_object_get(root, "configs"), k);

				if (!json_is_object(ic))
					continue;
				printf("| %s #%zu %s | %s | %s | %s | %.1f | %zu |\n", argv[i], k,
				       json_string_value(json_object_get(cf, "build")) ?: "-",
				       json_string_value(json_object_get(cf, "sched")) ?: "-",
				       json_string_value(json_object_get(cf, "scenario")) ?: "-",
				       json_string_value(json_object_get(cf, "rmap")) ?: "-",
				       json_number_value(json_object_get(r, "seconds")),
				       json_object_size(json_object_get(ic, "pairs")));
			}
		}
		printf("| %s | %s | %s | %s | %.1f | %zu |\n", argv[i],
		       json_string_value(json_object_get(cov, "sched")) ?: "-",
		       json_string_value(json_object_get(root, "scenario")) ?: "-",
		       json_string_value(json_object_get(root, "rmap")) ?: "-",
		       json_number_value(json_object_get(root, "seconds")),
		       json_object_size(json_object_get(one, "pairs")));
		merged = rt_cover_merge(merged, json_object_get(one, "pairs") ? one : NULL);
		if (json_is_array(json_object_get(cov, "timeline"))) {
			const json_t *t = json_object_get(cov, "timeline");
			size_t n = json_array_size(t), k;
			char *name = malloc(512);

			xs[ns] = calloc(n + 1, sizeof(double));
			ys[ns] = calloc(n + 1, sizeof(double));
			for (k = 0; k < n; k++) {
				xs[ns][k] = json_number_value(json_array_get(json_array_get(t, k), 0));
				ys[ns][k] = (double)json_integer_value(
					json_array_get(json_array_get(t, k), 1));
			}
			snprintf(name, 512, "%s %s/%s seed %lld",
				 json_string_value(json_object_get(cov, "sched")) ?: "?",
				 json_string_value(json_object_get(root, "scenario")) ?: "?",
				 json_string_value(json_object_get(root, "rmap")) ?: "?",
				 (long long)json_integer_value(json_object_get(root, "seed")));
			series[ns] = (struct rt_plot_series){ name, (int)n, xs[ns], ys[ns] };
			ns++;
		}
		json_decref(one);
		json_decref(root);
	}
	print_by_op(merged);
	printf("\n");
	rt_cover_print(stdout, merged, list);
	if (out_dir && !no_plots && ns) {
		char base[4096];
		struct rt_plot p = {
			.title = "interleaving coverage over time",
			.xlabel = "seconds", .ylabel = "distinct pairs",
			.nr_series = ns, .series = series,
		};

		snprintf(base, sizeof(base), "%s/coverage", out_dir);
		if (!rt_plot_available()) {
			fprintf(stderr, "rmaptorture: coverage: no gnuplot on $PATH: no plot\n");
		} else if (rt_plot_write(&p, base)) {
			fprintf(stderr, "rmaptorture: coverage: gnuplot could not draw %s\n", base);
			rc = RT_EXIT_INTERNAL;
		} else {
			printf("plot: %s.svg %s.png\n", base, base);
		}
	}
	for (int i = 0; i < ns; i++) {
		free((void *)series[i].name);
		free(xs[i]);
		free(ys[i]);
	}
	free(series);
	free(xs);
	free(ys);
	json_decref(merged);
	return rc;
}
