// SPDX-License-Identifier: MIT
/*
 * `rmaptorture report FILES...`: Markdown tables (and, with --out, the
 * plots) of `scale` and `bench` result records, from the JSON alone.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "plot.h"
#include "record.h"
#include "report.h"
#include "commands.h"
#include "rt_opt.h"

static void usage(FILE *f)
{
	fputs("usage: rmaptorture report FILE... [--out DIR] [--no-plots]\n"
	      "\n"
	      "Markdown tables of `scale` (DIR/scale.json) and `bench` (--json FILE) result\n"
	      "records, on stdout. With --out DIR: DIR/report.md (the same, with links to the\n"
	      "plots) and the plots of each record, NAME-*.svg and NAME-*.png, NAME being the\n"
	      "record file's name without .json (gnuplot).\n"
	      "\n"
	      "  -o, --out DIR    write report.md and the plots there\n"
	      "      --no-plots   no plots (no gnuplot needed)\n"
	      "  -h, --help       this text\n"
	      "Exit status: 0; 2 bad usage or a file that is not a scale or bench record;\n"
	      "3 a file that cannot be written or a plot that gnuplot could not draw.\n", f);
}

/* NAME of DIR/NAME.json, made unique with -N when an earlier file had it. */
static void plot_prefix(const char *path, int idx, char *buf, size_t len)
{
	const char *b = strrchr(path, '/');
	size_t l;

	b = b ? b + 1 : path;
	l = strlen(b);
	if (l > 5 && !strcmp(b + l - 5, ".json"))
		l -= 5;
	snprintf(buf, len, "%.*s-%d", (int)l, b, idx);
}

/* The scale or bench record at @path into *@rec; else false and the one line in @err. */
static bool load_record(const char *path, json_t **rec, char *err, size_t len)
{
	const char *kind;

	*rec = rt_opt_json_load("report", path, err, len);
	if (!*rec)
		return false;
	if (rt_record_check_format(*rec, path, err, len)) {
		json_decref(*rec);
		*rec = NULL;
		return false;
	}
	kind = rt_record_kind(*rec);
	if (kind && (!strcmp(kind, "scale") || !strcmp(kind, "bench") || !strcmp(kind, "bench-vm")))
		return true;
	snprintf(err, len, "report: %s is %s%s%s, not a scale or bench record (scale --out DIR's"
		 " scale.json, bench --json FILE)", path, kind ? "a " : "",
		 kind ? kind : "JSON without a \"record\"", kind ? " record" : "");
	json_decref(*rec);
	*rec = NULL;
	return false;
}

static void free_records(json_t **recs, int n)
{
	for (int i = 0; i < n; i++)
		json_decref(recs[i]);
	free(recs);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "no-plots", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_dir = NULL;
	bool no_plots = false;
	char *md = NULL, err[4400];
	size_t mdlen = 0;
	int c, rc = RT_EXIT_OK, nfiles;
	json_t **recs;
	FILE *f;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out_dir = optarg; break;
		case 'N': no_plots = true; break;
		case 'h': usage(stdout); return RT_EXIT_OK;
		default: rt_opt_bad("report", c, argv[optind - 1]);
		}
	}
	nfiles = argc - optind;
	if (nfiles <= 0)
		rt_usage_error("report: no result files given (see 'rmaptorture report --help')");
	if (out_dir && !*out_dir)
		rt_usage_error("--out: empty directory name");
	/* Every file is read and checked before anything is written. */
	recs = calloc((size_t)nfiles, sizeof(*recs));
	if (!recs)
		return RT_EXIT_INTERNAL;
	for (int i = 0; i < nfiles; i++) {
		if (!load_record(argv[optind + i], &recs[i], err, sizeof(err))) {
			free_records(recs, i);
			rt_usage_error("%s", err);
		}
	}
	if (out_dir) {
		if (!no_plots && !rt_plot_available())
			rt_usage_error("report: gnuplot not found on PATH: install gnuplot-nox, or pass --no-plots");
		rt_opt_out_dir("--out", out_dir);
	}
	f = open_memstream(&md, &mdlen);
	if (!f)
		return RT_EXIT_INTERNAL;
	fputs("# rmaptorture results\n\n", f);
	for (int i = 0; i < nfiles; i++) {
		const char *path = argv[optind + i];

		fprintf(f, "<!-- from %s -->\n", path);
		rt_report_markdown(recs[i], f);
		if (out_dir && !no_plots) {
			char prefix[512];
			json_t *written = json_array(), *v;
			size_t k;

			plot_prefix(path, i + 1, prefix, sizeof(prefix));
			if (rt_report_plots(recs[i], out_dir, prefix, written))
				rc = RT_EXIT_INTERNAL;
			fputs("Plots:\n\n", f);
			json_array_foreach(written, k, v) {
				const char *p = json_string_value(v), *b = strrchr(p, '/');
				size_t l = strlen(p);

				if (l > 4 && !strcmp(p + l - 4, ".svg"))
					fprintf(f, "![%s](%s)\n", b ? b + 1 : p, b ? b + 1 : p);
			}
			fputc('\n', f);
			json_decref(written);
		}
	}
	fclose(f);
	fwrite(md, 1, mdlen, stdout);
	if (out_dir) {
		char path[4200];

		snprintf(path, sizeof(path), "%s/report.md", out_dir);
		if (rt_write_text(path, md, mdlen))
			rc = RT_EXIT_INTERNAL;
	}
	free(md);
	free_records(recs, nfiles);
	return rc;
}
