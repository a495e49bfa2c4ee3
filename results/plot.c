// SPDX-License-Identifier: MIT
#include "plot.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

bool rt_plot_available(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");

		if (len && (size_t)snprintf(buf, sizeof(buf), "%.*s/gnuplot", (int)len, path) < sizeof(buf) &&
		    !access(buf, X_OK))
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* A gnuplot string literal: double quotes, backslash escapes ("\n" a new line). */
static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

bool rt_plot_series_drawn(const struct rt_plot_series *s)
{
	for (int i = 0; i < s->n; i++)
		if (!isnan(s->y[i]))
			return true;
	return false;
}

static void put_plot(FILE *f, const struct rt_plot *p)
{
	bool first = true;

	fputs("set title ", f);
	if (p->note) {
		char t[1024];

		snprintf(t, sizeof(t), "%s\n%s", p->title, p->note);
		put_str(f, t);
	} else {
		put_str(f, p->title);
	}
	fputs(" noenhanced\nset xlabel ", f);
	put_str(f, p->xlabel);
	fputs("\nset ylabel ", f);
	put_str(f, p->ylabel);
	fputs("\nset key top left\nset grid\nset yrange [0:*]\n", f);
	if (p->logx)
		fputs("set logscale x 2\n", f);
	if (p->logy)
		fputs("set logscale y\nset yrange [*:*]\n", f);
	if (p->vline > 0)
		fprintf(f, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dashtype 3 lc rgb 'gray40'\n"
			"set label 'cores' at %.17g, graph 0.05 right offset -0.5,0 tc rgb 'gray40'\n",
			p->vline, p->vline, p->vline);
	fputs("plot ", f);
	for (int s = 0; s < p->nr_series; s++) {
		if (!rt_plot_series_drawn(&p->series[s]))
			continue;
		fprintf(f, "%s$d%d using 1:2 with linespoints lw 2 title ", first ? "" : ", ", s);
		first = false;
		put_str(f, p->series[s].name);
		fputs(" noenhanced", f);
	}
	if (p->ideal && p->nr_series && p->series[0].n)
		fprintf(f, ", x / %.17g with lines dashtype 2 lc rgb 'gray50' title 'ideal'",
			p->series[0].x[0]);
	fputc('\n', f);
}

static int run_gnuplot(const char *script)
{
	char *argv[] = { "gnuplot", (char *)script, NULL };
	pid_t pid;
	int err, st;

	err = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
	if (err)
		return -err;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -EIO;
}

int rt_plot_write(const struct rt_plot *p, const char *base)
{
	char script[4096], svg[4096], png[4096], tsvg[4200], tpng[4200];
	FILE *f;
	int err = 0;

	if ((size_t)snprintf(script, sizeof(script), "%s.gp.%ld", base, (long)getpid()) >= sizeof(script))
		return -ENAMETOOLONG;
	snprintf(svg, sizeof(svg), "%s.svg", base);
	snprintf(png, sizeof(png), "%s.png", base);
	snprintf(tsvg, sizeof(tsvg), "%s.tmp.%ld", svg, (long)getpid());
	snprintf(tpng, sizeof(tpng), "%s.tmp.%ld", png, (long)getpid());
	f = fopen(script, "w");
	if (!f) {
		err = -errno;
		fprintf(stderr, "rmaptorture: cannot write %s: %s\n", script, strerror(-err));
		return err;
	}
	/* The data as inline blocks, then the same plot on both terminals. */
	for (int s = 0; s < p->nr_series; s++) {
		fprintf(f, "$d%d << EOD\n", s);
		for (int i = 0; i < p->series[s].n; i++) {
			if (isnan(p->series[s].y[i]))
				fputc('\n', f);
			else
				fprintf(f, "%.17g %.17g\n", p->series[s].x[i], p->series[s].y[i]);
		}
		fputs("EOD\n", f);
	}
	fputs("set terminal svg size 800,500 dynamic font 'sans,11'\nset output ", f);
	put_str(f, tsvg);
	fputc('\n', f);
	put_plot(f, p);
	fputs("set output\n"
	      "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
	      "  set terminal pngcairo size 800,500 font 'sans,10'\n"
	      "} else {\n"
	      "  set terminal png size 800,500\n"
	      "}\nset output ", f);
	put_str(f, tpng);
	fputs("\nreplot\nset output\n", f);
	if (fclose(f)) {
		err = -errno;
		goto out;
	}
	err = run_gnuplot(script);
	if (err)
		goto out;
	if (rename(tsvg, svg) || rename(tpng, png))
		err = -errno;
out:
	unlink(script);
	unlink(tsvg);
	unlink(tpng);
	if (err)
		fprintf(stderr, "rmaptorture: gnuplot could not draw %s.{svg,png}: %s\n", base,
			err == -EIO ? "gnuplot failed" : strerror(-err));
	return err;
}
