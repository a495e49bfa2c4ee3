// SPDX-License-Identifier: MIT
/*
 * Sanitizer report parser (san_report.h). Formats, as gcc 12's libsanitizer
 * and compiler-rt 14 print them:
 *
 *   WARNING: ThreadSanitizer: data race (pid=N)
 *     Write of size 4 at 0x... by thread T2:
 *       #0 func file.c:30 (module+0x...)
 *   ...
 *   SUMMARY: ThreadSanitizer: data race file.c:30 in func
 *
 *   ==N==ERROR: AddressSanitizer: heap-use-after-free on address 0x...
 *   READ of size 8 at 0x... thread T1
 *       #0 0x... in func file.c:30
 *   ...
 *   SUMMARY: AddressSanitizer: heap-use-after-free file.c:30 in func
 *
 *   file.c:50:12: runtime error: signed integer overflow: ...
 *       #0 0x... in func file.c:50
 *
 * Everything else (shadow byte maps, "reported N warnings", garbage) is
 * ignored.
 */
#include "san_report.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "san_report-internal.h"

const char *rt_san_kind_name(enum rt_san_kind kind)
{
	switch (kind) {
	case RT_SAN_TSAN:
		return "tsan";
	case RT_SAN_ASAN:
		return "asan";
	case RT_SAN_UBSAN:
		return "ubsan";
	case RT_SAN_LSAN:
		return "lsan";
	}
	return "?";
}

/* Header + " at FUNC (LOC), FUNC (LOC)": the first two frames of the first primary stack. */
static void finish_message(struct rt_san_report *rep, const char *header)
{
	int len = snprintf(rep->message, sizeof(rep->message), "%s", header);
	int shown = 0;

	for (int i = 0; i < rep->nr_stacks && !shown; i++) {
		const struct rt_san_stack *st = &rep->stacks[i];

		if (!st->primary)
			continue;
		for (int j = 0; j < st->nr && shown < 2; j++) {
			const struct rt_san_frame *f = &st->f[j];

			if (f->skip)
				continue;
			if (len >= (int)sizeof(rep->message) - 1)
				break;
			len += snprintf(rep->message + len, sizeof(rep->message) - (size_t)len,
					"%s%s%s%s%s", shown ? ", " : " at ", f->func,
					f->loc[0] ? " (" : "", f->loc, f->loc[0] ? ")" : "");
			shown++;
		}
	}
}

struct parser {
	struct rt_san_report *reps;
	int nr, cap;
	struct rt_san_report *cur;	/* the report being filled, or NULL */
	char header[256];		/* its normalized header line */
	struct rt_san_stack *stack;	/* the open stack, or NULL */
	char last_text[LINE_MAX_LEN];	/* the last non-frame line: the next stack's title */
	bool after_summary;
};

static void close_report(struct parser *ps)
{
	struct rt_san_report *rep = ps->cur;
	bool any_primary = false;

	if (!rep)
		return;
	ps->cur = NULL;
	ps->stack = NULL;
	for (int i = 0; i < rep->nr_stacks; i++)
		any_primary |= rep->stacks[i].primary;
	if (!any_primary && rep->nr_stacks)
		rep->stacks[0].primary = 1;
	san_find_task(rep);
	rt_san_signature(rep);
	finish_message(rep, ps->header);
}

static int open_report(struct parser *ps, enum rt_san_kind kind, const char *type,
		       const char *header)
{
	struct rt_san_report *rep;

	close_report(ps);
	if (!type[0])
		return 0;
	if (ps->nr == ps->cap) {
		int cap = ps->cap ? ps->cap * 2 : 8;
		struct rt_san_report *n = realloc(ps->reps, (size_t)cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ps->reps = n;
		ps->cap = cap;
	}
	rep = &ps->reps[ps->nr++];
	memset(rep, 0, sizeof(*rep));
	rep->kind = kind;
	snprintf(rep->type, sizeof(rep->type), "%s", type);
	snprintf(ps->header, sizeof(ps->header), "%s", header);
	san_strip_addresses(ps->header);
	ps->cur = rep;
	ps->stack = NULL;
	ps->last_text[0] = '\0';
	ps->after_summary = false;
	return 0;
}

static const struct {
	const char *name;
	enum rt_san_kind kind;
} sanitizers[] = {
	{ "ThreadSanitizer", RT_SAN_TSAN },
	{ "AddressSanitizer", RT_SAN_ASAN },
	{ "LeakSanitizer", RT_SAN_LSAN },
	{ "UndefinedBehaviorSanitizer", RT_SAN_UBSAN },
};

/* "NAME: " at @s: its kind, and @rest after it. */
static bool sanitizer_at(const char *s, enum rt_san_kind *kind, const char **rest)
{
	for (size_t i = 0; i < sizeof(sanitizers) / sizeof(sanitizers[0]); i++) {
		size_t n = strlen(sanitizers[i].name);

		if (!strncmp(s, sanitizers[i].name, n) && s[n] == ':' && s[n + 1] == ' ') {
			*kind = sanitizers[i].kind;
			*rest = s + n + 2;
			return true;
		}
	}
	return false;
}

/* "<X>Sanitizer: CHECK failed:": the runtime's internal assertion. */
static bool check_failed(const char *s, enum rt_san_kind *kind)
{
	for (size_t i = 0; i < sizeof(sanitizers) / sizeof(sanitizers[0]); i++) {
		char pat[64];

		snprintf(pat, sizeof(pat), "%s: CHECK failed:", sanitizers[i].name);
		if (strstr(s, pat)) {
			*kind = sanitizers[i].kind;
			return true;
		}
	}
	return false;
}

/* A report's first line? Then open it; 1 if so, 0 if not, -ENOMEM. */
static int try_header(struct parser *ps, char *s)
{
	char type[64] = "", header[256];
	enum rt_san_kind kind;
	const char *rest, *p = NULL;
	int ret;

	if (starts(s, "WARNING: ") && sanitizer_at(s + 9, &kind, &rest) && kind == RT_SAN_TSAN) {
		san_tsan_type(type, sizeof(type), rest);
		snprintf(header, sizeof(header), "ThreadSanitizer: %s", rest);
		san_strip_pid(header);
	} else if (starts(s, "ERROR: ") && sanitizer_at(s + 7, &kind, &rest)) {
		size_t cut = strlen(rest);
		static const char *const cuts[] = {
			" on address ", " on unknown address", " at pc ", " on 0x", " (pc ",
			" 0x",
		};

		if (kind == RT_SAN_TSAN)
			san_tsan_type(type, sizeof(type), rest);
		else if (kind == RT_SAN_LSAN)
			san_slug(type, sizeof(type), rest, strlen(rest));
		else
			san_asan_type(type, sizeof(type), rest);
		for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			const char *c = strstr(rest, cuts[i]);

			if (c && (size_t)(c - rest) < cut)
				cut = (size_t)(c - rest);
		}
		snprintf(header, sizeof(header), "%.*s%.*s",
			 (int)(rest - (s + 7)), s + 7, (int)cut, rest);
		san_strip_pid(header);
	} else if ((p = strstr(s, ": runtime error: ")) && p > s) {
		kind = RT_SAN_UBSAN;
		rest = p + 17;
		san_ubsan_type(type, sizeof(type), rest);
		snprintf(header, sizeof(header), "UndefinedBehaviorSanitizer: runtime error: %s", rest);
	} else if (check_failed(s, &kind)) {
		snprintf(type, sizeof(type), "check-failed");
		snprintf(header, sizeof(header), "%s", s);
	} else {
		return 0;
	}
	ret = open_report(ps, kind, type, header);
	if (ret < 0)
		return ret;
	/* UBSan's location, for a report without a stack (SUMMARY: replaces it). */
	if (kind == RT_SAN_UBSAN && ps->cur && p)
		copy(ps->cur->summary, sizeof(ps->cur->summary), s, (size_t)(p - s));
	return 1;
}

static void frame_line(struct parser *ps, const char *s)
{
	struct rt_san_report *rep = ps->cur;
	struct rt_san_stack *st = ps->stack;

	if (!st) {
		char title[LINE_MAX_LEN];

		if (rep->nr_stacks >= RT_SAN_MAX_STACKS)
			return;
		snprintf(title, sizeof(title), "%s", ps->last_text);
		san_strip_addresses(title);
		san_strip_pid(title);
		st = &rep->stacks[rep->nr_stacks];
		memset(st, 0, sizeof(*st));
		snprintf(st->title, sizeof(st->title), "%s", title);
		st->primary = rep->kind == RT_SAN_TSAN ? san_tsan_primary(st->title) :
			      san_asan_primary(st->title);
		/* Keep room for the finding's stacks ahead of thread creations. */
		if (!st->primary && rep->nr_stacks >= RT_SAN_MAX_STACKS - 2)
			return;
		rep->nr_stacks++;
		ps->stack = st;
	}
	if (st->nr < RT_SAN_MAX_FRAMES)
		san_parse_frame(&st->f[st->nr++], s);
}

static int parse_line(struct parser *ps, char *line)
{
	char *s = line;
	int ret;

	/* "==1234==" prefixes ASan's lines. */
	if (s[0] == '=' && s[1] == '=' && isdigit((unsigned char)s[2])) {
		char *e = s + 2 + strspn(s + 2, "0123456789");

		if (e[0] == '=' && e[1] == '=')
			s = e + 2;
	}
	s = trim(s);
	ret = try_header(ps, s);
	if (ret)
		return ret < 0 ? ret : 0;
	if (!ps->cur || ps->after_summary)
		return 0;
	if (s[0] == '#' && isdigit((unsigned char)s[1])) {
		const char *f = s + 1 + strspn(s + 1, "0123456789");

		if (*f == ' ') {
			frame_line(ps, f + 1);
			return 0;
		}
	}
	ps->stack = NULL;
	if (starts(s, "SUMMARY: ")) {
		enum rt_san_kind kind;
		const char *rest;

		snprintf(ps->cur->summary, sizeof(ps->cur->summary), "%s", s + 9);
		/* ASan's SUMMARY names the bug type as ASan classifies it. */
		if (ps->cur->kind == RT_SAN_ASAN && sanitizer_at(s + 9, &kind, &rest) &&
		    kind == RT_SAN_ASAN && rest[0] && !isdigit((unsigned char)rest[0]))
			san_slug(ps->cur->type, sizeof(ps->cur->type), rest, strcspn(rest, " "));
		if (ps->cur->kind == RT_SAN_UBSAN && sanitizer_at(s + 9, &kind, &rest))
			snprintf(ps->cur->summary, sizeof(ps->cur->summary), "%s",
				 rest + strcspn(rest, " ") + (rest[strcspn(rest, " ")] ? 1 : 0));
		ps->after_summary = true;
		close_report(ps);
		return 0;
	}
	if (s[0])
		snprintf(ps->last_text, sizeof(ps->last_text), "%s", s);
	return 0;
}

int rt_san_parse(const char *text, size_t len, struct rt_san_report **reps)
{
	struct parser ps;
	char line[LINE_MAX_LEN];
	size_t i = 0;
	int err = 0;

	memset(&ps, 0, sizeof(ps));
	*reps = NULL;
	while (i < len && !err) {
		size_t w = 0;

		for (; i < len && text[i] != '\n'; i++) {
			unsigned char c = (unsigned char)text[i];

			if (w + 1 < sizeof(line))
				line[w++] = (char)(c == '\t' ? ' ' : c < 0x20 || c == 0x7f ? '?' : c);
		}
		i++;	/* the '\n' */
		line[w] = '\0';
		err = parse_line(&ps, line);
	}
	if (!err)
		close_report(&ps);
	if (err) {
		free(ps.reps);
		return err;
	}
	*reps = ps.reps;
	return ps.nr;
}

int rt_san_parse_file(const char *path, struct rt_san_report **reps)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int ret;

	*reps = NULL;
	if (!f)
		return -errno;
	for (;;) {
		size_t got;

		if (cap - len < 65536) {
			char *n = realloc(buf, cap + 262144);

			if (!n) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = n;
			cap += 262144;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (!got)
			break;
	}
	ret = ferror(f) ? -EIO : 0;
	fclose(f);
	if (!ret)
		ret = rt_san_parse(buf, len, reps);
	free(buf);
	return ret;
}
