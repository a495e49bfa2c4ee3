// SPDX-License-Identifier: MIT
#include "junit.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record.h"

struct junit_case {
	char *classname, *name, *message, *type, *text, *out;
	double time;
	enum rt_junit_result result;
	int suite;
};

struct junit_suite {
	char *name;
	char **props;		/* name, value, name, value, ... */
	int nr_props;
	double time;		/* < 0: the sum of the cases' */
};

struct rt_junit {
	char *name;
	char timestamp[32];
	char hostname[256];
	struct junit_suite *suites;
	int nr_suites;
	struct junit_case *cases;
	int nr_cases, cap_cases;
};

static char *dup_or_null(const char *s, bool *oom)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*oom = true;
	return d;
}

struct rt_junit *rt_junit_new(const char *name)
{
	struct rt_junit *j = calloc(1, sizeof(*j));
	time_t now = time(NULL);
	struct tm tm;

	if (!j)
		return NULL;
	j->name = strdup(name);
	if (!j->name) {
		free(j);
		return NULL;
	}
	/* xs:dateTime as the schema's pattern has it: no zone suffix (UTC). */
	gmtime_r(&now, &tm);
	strftime(j->timestamp, sizeof(j->timestamp), "%Y-%m-%dT%H:%M:%S", &tm);
	if (gethostname(j->hostname, sizeof(j->hostname) - 1) || !j->hostname[0])
		snprintf(j->hostname, sizeof(j->hostname), "localhost");
	return j;
}

void rt_junit_free(struct rt_junit *j)
{
	if (!j)
		return;
	for (int i = 0; i < j->nr_cases; i++) {
		struct junit_case *c = &j->cases[i];

		free(c->classname);
		free(c->name);
		free(c->message);
		free(c->type);
		free(c->text);
		free(c->out);
	}
	for (int i = 0; i < j->nr_suites; i++) {
		for (int p = 0; p < 2 * j->suites[i].nr_props; p++)
			free(j->suites[i].props[p]);
		free(j->suites[i].props);
		free(j->suites[i].name);
	}
	free(j->cases);
	free(j->suites);
	free(j->name);
	free(j);
}

int rt_junit_suite(struct rt_junit *j, const char *name)
{
	struct junit_suite *s = realloc(j->suites, (size_t)(j->nr_suites + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	j->suites = s;
	s = &j->suites[j->nr_suites];
	memset(s, 0, sizeof(*s));
	s->time = -1;
	s->name = strdup(name);
	if (!s->name)
		return -ENOMEM;
	return j->nr_suites++;
}

int rt_junit_property(struct rt_junit *j, int suite, const char *name, const char *value)
{
	struct junit_suite *s = &j->suites[suite];
	char **p = realloc(s->props, (size_t)(2 * s->nr_props + 2) * sizeof(*p));
	bool oom = false;

	if (!p)
		return -ENOMEM;
	s->props = p;
	p[2 * s->nr_props] = dup_or_null(name, &oom);
	p[2 * s->nr_props + 1] = dup_or_null(value ? value : "", &oom);
	s->nr_props++;
	return oom ? -ENOMEM : 0;
}

void rt_junit_suite_time(struct rt_junit *j, int suite, double time)
{
	j->suites[suite].time = isfinite(time) && time > 0 ? time : 0;
}

int rt_junit_case(struct rt_junit *j, int suite, const char *classname, const char *name,
		  double time, enum rt_junit_result result, const char *message,
		  const char *type, const char *text, const char *out)
{
	struct junit_case *c;
	bool oom = false;

	if (j->nr_cases == j->cap_cases) {
		int cap = j->cap_cases ? 2 * j->cap_cases : 64;

		c = realloc(j->cases, (size_t)cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		j->cases = c;
		j->cap_cases = cap;
	}
	c = &j->cases[j->nr_cases];
	memset(c, 0, sizeof(*c));
	c->suite = suite;
	c->time = isfinite(time) && time > 0 ? time : 0;
	c->result = result;
	c->classname = dup_or_null(classname, &oom);
	c->name = dup_or_null(name, &oom);
	c->message = dup_or_null(message, &oom);
	c->type = dup_or_null(type, &oom);
	c->text = dup_or_null(text, &oom);
	c->out = dup_or_null(out, &oom);
	j->nr_cases++;
	return oom ? -ENOMEM : j->nr_cases - 1;
}

int rt_junit_count(const struct rt_junit *j, enum rt_junit_result result)
{
	int n = 0;

	for (int i = 0; i < j->nr_cases; i++)
		n += j->cases[i].result == result;
	return n;
}

/* Length of the valid UTF-8 sequence XML 1.0 allows at @s, 0 if none. */
static int utf8_len(const unsigned char *s)
{
	uint32_t cp;
	int n;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates, U+FFFE/U+FFFF and beyond U+10FFFF. */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff || cp > 0x10ffff)
		return 0;
	return n;
}

void rt_xml_escape(FILE *f, const char *str, int attr)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	while (*s) {
		int n;

		switch (*s) {
		case '&': fputs("&amp;", f); s++; continue;
		case '<': fputs("&lt;", f); s++; continue;
		case '>': fputs("&gt;", f); s++; continue;
		case '"': fputs(attr ? "&quot;" : "\"", f); s++; continue;
		case '\'': fputs(attr ? "&apos;" : "'", f); s++; continue;
		case '\n': fputs(attr ? "&#10;" : "\n", f); s++; continue;
		case '\t': fputs(attr ? "&#9;" : "\t", f); s++; continue;
		case '\r': fputs("&#13;", f); s++; continue;
		default: break;
		}
		if (*s < 0x20 || *s == 0x7f) {	/* not allowed in XML 1.0 (DEL is, but unprintable) */
			fputc('?', f);
			s++;
			continue;
		}
		n = utf8_len(s);
		if (!n) {
			fputc('?', f);
			s++;
			continue;
		}
		fwrite(s, 1, (size_t)n, f);
		s += n;
	}
}

static void attr(FILE *f, const char *name, const char *value)
{
	fprintf(f, " %s=\"", name);
	rt_xml_escape(f, value, 1);
	fputc('"', f);
}

static double suite_time(const struct rt_junit *j, int suite)
{
	double t = 0;

	if (j->suites[suite].time >= 0)
		return j->suites[suite].time;
	for (int i = 0; i < j->nr_cases; i++)
		if (j->cases[i].suite == suite)
			t += j->cases[i].time;
	return t;
}

static void counts(const struct rt_junit *j, int suite, int n[4])
{
	n[0] = n[1] = n[2] = n[3] = 0;
	for (int i = 0; i < j->nr_cases; i++) {
		if (suite >= 0 && j->cases[i].suite != suite)
			continue;
		n[0]++;
		if (j->cases[i].result == RT_JUNIT_FAILURE)
			n[1]++;
		else if (j->cases[i].result == RT_JUNIT_ERROR)
			n[2]++;
		else if (j->cases[i].result == RT_JUNIT_SKIPPED)
			n[3]++;
	}
}

/*
 * The counts of a <testsuite>, or of <testsuites>, which has no skipped
 * attribute in the xunit plugin's junit-10.xsd (readers sum the suites').
 */
static void print_counts(FILE *f, const int n[4], double time, bool skipped)
{
	fprintf(f, " tests=\"%d\" failures=\"%d\" errors=\"%d\"", n[0], n[1], n[2]);
	if (skipped)
		fprintf(f, " skipped=\"%d\"", n[3]);
	fprintf(f, " time=\"%.3f\"", time);
}

static void print_case(FILE *f, const struct junit_case *c)
{
	fputs("    <testcase", f);
	attr(f, "name", c->name);
	attr(f, "classname", c->classname);
	fprintf(f, " time=\"%.3f\"", c->time);
	if (c->result == RT_JUNIT_PASS && !c->out) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n", f);
	if (c->result == RT_JUNIT_FAILURE || c->result == RT_JUNIT_ERROR) {
		const char *el = c->result == RT_JUNIT_FAILURE ? "failure" : "error";

		fprintf(f, "      <%s", el);
		attr(f, "message", c->message ? c->message : "");
		attr(f, "type", c->type ? c->type : el);
		/* GitLab shows only the element's text: never leave it empty. */
		fputc('>', f);
		rt_xml_escape(f, c->text ? c->text : c->message ? c->message : el, 0);
		fprintf(f, "</%s>\n", el);
	} else if (c->result == RT_JUNIT_SKIPPED) {
		fputs("      <skipped", f);
		if (c->message)
			attr(f, "message", c->message);
		fputs("/>\n", f);
	}
	if (c->out) {
		fputs("      <system-out>", f);
		rt_xml_escape(f, c->out, 0);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

int rt_junit_fprint(const struct rt_junit *j, FILE *f)
{
	double total = 0;
	int n[4];

	for (int s = 0; s < j->nr_suites; s++)
		total += suite_time(j, s);
	counts(j, -1, n);
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
	attr(f, "name", j->name);
	print_counts(f, n, total, false);
	fputs(">\n", f);
	for (int s = 0; s < j->nr_suites; s++) {
		const struct junit_suite *su = &j->suites[s];

		counts(j, s, n);
		fputs("  <testsuite", f);
		attr(f, "name", su->name);
		print_counts(f, n, suite_time(j, s), true);
		attr(f, "timestamp", j->timestamp);
		attr(f, "hostname", j->hostname);
		fprintf(f, " id=\"%d\"", s);
		attr(f, "package", su->name);
		fputs(">\n    <properties>\n", f);
		for (int p = 0; p < su->nr_props; p++) {
			fputs("      <property", f);
			attr(f, "name", su->props[2 * p]);
			attr(f, "value", su->props[2 * p + 1]);
			fputs("/>\n", f);
		}
		fputs("    </properties>\n", f);
		for (int i = 0; i < j->nr_cases; i++)
			if (j->cases[i].suite == s)
				print_case(f, &j->cases[i]);
		fputs("    <system-out/>\n    <system-err/>\n  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
	return ferror(f) ? -EIO : 0;
}

static int emit_junit(FILE *f, void *j)
{
	return rt_junit_fprint(j, f);
}

int rt_junit_write(const struct rt_junit *j, const char *path)
{
	if (!strcmp(path, "-")) {
		int err = rt_junit_fprint(j, stdout);

		fflush(stdout);
		return err;
	}
	return rt_file_write_atomic(path, emit_junit, (void *)j);
}
