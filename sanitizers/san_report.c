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

#define LINE_MAX_LEN	1024

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

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void copy(char *dst, size_t len, const char *src, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

static bool is_hex_token(const char *s)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !isxdigit((unsigned char)s[2]))
		return false;
	return true;
}

/* Drop "at 0x..." and bare "0x..." tokens and double spaces, in place. */
static void strip_addresses(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		bool tok_start = r == s || r[-1] == ' ' || r[-1] == '(' || r[-1] == '[';

		if (tok_start && starts(r, "at 0x") && is_hex_token(r + 3)) {
			r += 3;
			while (isxdigit((unsigned char)*r) || *r == 'x' || *r == 'X')
				r++;
			continue;
		}
		if (tok_start && is_hex_token(r)) {
			r += 2;
			while (isxdigit((unsigned char)*r))
				r++;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
	/* Collapse the spaces the removals left, and " :" before a colon. */
	for (r = w = s; *r; r++) {
		if (*r == ' ' && (w == s || w[-1] == ' '))
			continue;
		if ((*r == ':' || *r == ')' || *r == ',') && w > s && w[-1] == ' ')
			w--;
		*w++ = *r;
	}
	while (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

/* Remove " (pid=N)" from @s, in place. */
static void strip_pid(char *s)
{
	char *p = strstr(s, " (pid=");
	char *e;

	if (!p)
		return;
	e = strchr(p, ')');
	if (!e)
		*p = '\0';
	else
		memmove(p, e + 1, strlen(e + 1) + 1);
}

/* @s lowered to [a-z0-9_-], other characters as '-', no leading/trailing/double '-'. */
static void slug(char *dst, size_t len, const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n && s[i] && w + 1 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isalnum(c) || c == '_')
			dst[w++] = (char)c;
		else if (w && dst[w - 1] != '-')
			dst[w++] = '-';
	}
	while (w && dst[w - 1] == '-')
		w--;
	dst[w] = '\0';
}

/*
 * ThreadSanitizer's type: "data race (pid=1)" -> "data-race",
 * "lock-order-inversion (potential deadlock)" -> "lock-order-inversion".
 */
static void tsan_type(char *dst, size_t len, const char *rest)
{
	const char *paren = strstr(rest, " (");
	size_t n = paren ? (size_t)(paren - rest) : strlen(rest);

	if (starts(rest, "signal-unsafe call"))
		snprintf(dst, len, "signal-unsafe-call");
	else
		slug(dst, len, rest, n);
	for (char *p = dst; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

/* AddressSanitizer's type from its ERROR line (the SUMMARY line overrides). */
static void asan_type(char *dst, size_t len, const char *rest)
{
	size_t n = strcspn(rest, " :");

	if (starts(rest, "attempting double-free")) {
		snprintf(dst, len, "double-free");
		return;
	}
	if (starts(rest, "attempting free")) {
		snprintf(dst, len, "bad-free");
		return;
	}
	if (starts(rest, "requested allocation size")) {
		snprintf(dst, len, "allocation-size-too-big");
		return;
	}
	if (starts(rest, "allocator is out of memory")) {
		snprintf(dst, len, "out-of-memory");
		return;
	}
	slug(dst, len, rest, n);
}

static bool has_digit(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (isdigit((unsigned char)s[i]))
			return true;
	return false;
}

/*
 * UBSan's short type: the words of the text before its first ':', ',' or
 * quote, less numbers and a trailing "of type"/"for type":
 * "shift exponent 40 is too large for 32-bit type 'int'" ->
 * "shift-exponent-is-too-large".
 */
static void ubsan_type(char *dst, size_t len, const char *text)
{
	char buf[64] = "";
	size_t n = strcspn(text, ":,'"), w = 0, i = 0;

	while (i < n) {
		size_t t;

		while (i < n && text[i] == ' ')
			i++;
		t = strcspn(text + i, " ");
		if (i + t > n)
			t = n - i;
		if (!t)
			break;
		if (!has_digit(text + i, t) && strspn(text + i,
		    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_") == t) {
			if (w + t + 2 >= sizeof(buf))
				break;
			if (w)
				buf[w++] = '-';
			memcpy(buf + w, text + i, t);
			w += t;
			buf[w] = '\0';
		}
		i += t;
	}
	for (;;) {
		size_t bl = strlen(buf);

		if (bl > 8 && !strcmp(buf + bl - 8, "-of-type"))
			buf[bl - 8] = '\0';
		else if (bl > 9 && !strcmp(buf + bl - 9, "-for-type"))
			buf[bl - 9] = '\0';
		else if (bl > 5 && !strcmp(buf + bl - 5, "-type"))
			buf[bl - 5] = '\0';
		else
			break;
	}
	snprintf(dst, len, "runtime-error:%s", buf[0] ? buf : "unknown");
}

static const char *const skip_prefixes[] = {
	"__tsan_", "__asan_", "__ubsan_", "__lsan_", "__msan_", "__sanitizer_",
	"__interceptor_", "___interceptor_", "_ZN6__tsan", "_ZN6__asan",
	"_ZN7__ubsan", "_ZN6__lsan", "_ZN11__sanitizer",
	/* this module's report hooks (hooks.c) */
	"rt_san_hook",
};

static const char *const skip_funcs[] = {
	"start_thread", "clone", "clone3", "__clone", "_start",
	"__libc_start_main", "__libc_start_main_impl", "__libc_start_call_main", "<null>",
};

/*
 * Interceptors that clang's static runtimes print without a source
 * location, under the libc name ("free (exe+0x...)"): skipped then only.
 */
static const char *const interceptor_prefixes[] = {
	"pthread_", "sem_", "malloc", "calloc", "realloc", "free", "memalign",
	"posix_memalign", "aligned_alloc", "valloc", "pvalloc", "strdup",
	"strndup", "mem", "str", "operator new", "operator delete",
};

static const char *const skip_modules[] = {
	"libtsan.so", "libasan.so", "libubsan.so", "liblsan.so", "libclang_rt.",
	"libc.so", "libpthread.so", "ld-linux",
};

static bool frame_skipped(const struct rt_san_frame *f)
{
	const char *mod;

	if (!f->func[0])
		return true;
	for (size_t i = 0; i < sizeof(skip_prefixes) / sizeof(skip_prefixes[0]); i++)
		if (starts(f->func, skip_prefixes[i]))
			return true;
	for (size_t i = 0; i < sizeof(skip_funcs) / sizeof(skip_funcs[0]); i++)
		if (!strcmp(f->func, skip_funcs[i]))
			return true;
	if (strstr(f->loc, "libsanitizer/") || strstr(f->loc, "compiler-rt/") ||
	    strstr(f->loc, "sanitizer_common/") || strstr(f->loc, "nptl/") ||
	    strstr(f->loc, "sysdeps/") || strstr(f->loc, "csu/"))
		return true;
	if (!strchr(f->loc, ':'))
		for (size_t i = 0; i < sizeof(interceptor_prefixes) / sizeof(interceptor_prefixes[0]); i++)
			if (starts(f->func, interceptor_prefixes[i]))
				return true;
	mod = strrchr(f->loc, '/');
	mod = mod ? mod + 1 : f->loc[0] == '(' ? f->loc + 1 : f->loc;
	for (size_t i = 0; i < sizeof(skip_modules) / sizeof(skip_modules[0]); i++)
		if (starts(mod, skip_modules[i]))
			return true;
	return false;
}

/*
 * A frame line, after "#N ": TSan "FUNC LOC (MODULE+0xOFF)", ASan/UBSan
 * "0xPC in FUNC LOC" or "0xPC  (MODULE+0xOFF)" (maybe "(BuildId: ...)").
 */
static void parse_frame(struct rt_san_frame *f, const char *s)
{
	char buf[LINE_MAX_LEN];
	char *p, *sp, *mod = NULL;
	size_t n;

	snprintf(buf, sizeof(buf), "%s", s);
	p = trim(buf);
	if (is_hex_token(p)) {
		p += strcspn(p, " ");
		p = trim(p);
		if (starts(p, "in "))
			p = trim(p + 3);
	}
	/* A trailing "(BuildId: ...)", then a trailing "(MODULE+0xOFF)". */
	n = strlen(p);
	if (n && p[n - 1] == ')' && (sp = strrchr(p, '(')) && starts(sp, "(BuildId:")) {
		*sp = '\0';
		p = trim(p);
		n = strlen(p);
	}
	if (n && p[n - 1] == ')' && (sp = strrchr(p, '('))) {
		char *plus = strrchr(sp, '+');
		char *slash;

		if (plus)
			*plus = '\0';
		else
			p[n - 1] = '\0';
		slash = strrchr(sp + 1, '/');
		mod = slash ? slash + 1 : sp + 1;
		*sp = '\0';
		p = trim(p);
	}
	/* "FUNC LOC": LOC is the last token when it is FILE:LINE or <null>. */
	sp = strrchr(p, ' ');
	f->func[0] = f->loc[0] = '\0';
	if (sp && (!strcmp(sp + 1, "<null>") ||
		   (strchr(sp + 1, ':') && isdigit((unsigned char)strchr(sp + 1, ':')[1])))) {
		const char *loc = sp + 1;

		*sp = '\0';
		while (starts(loc, "../"))
			loc += 3;
		if (strcmp(loc, "<null>"))
			snprintf(f->loc, sizeof(f->loc), "%s", loc);
	}
	p = trim(p);
	if (strcmp(p, "<null>"))
		snprintf(f->func, sizeof(f->func), "%s", p);
	/* gcc's clones ("f.constprop.0", "f.isra.0", "f.cold") are f. */
	sp = strchr(f->func, '.');
	if (sp && sp != f->func)
		*sp = '\0';
	if (!f->loc[0] && mod)
		snprintf(f->loc, sizeof(f->loc), "(%s)", mod);
	f->skip = frame_skipped(f);
}

static bool tsan_primary(const char *title)
{
	if (!title[0])
		return true;
	if (starts(title, "Thread T") || starts(title, "Main thread") ||
	    starts(title, "Location is") || strstr(title, "previously acquired by the same thread"))
		return false;
	if (starts(title, "Mutex M") && strstr(title, "created at"))
		return false;
	return true;
}

static bool asan_primary(const char *title)
{
	return !starts(title, "Thread T");
}

/* The name of thread @tid ("T2") in @title, as "Thread T2 'name'" or "thread T2 (name)". */
static bool thread_name_in(const char *title, const char *tid, char *out, size_t len)
{
	const char *p = title;
	size_t tl = strlen(tid);

	while ((p = strstr(p, tid))) {
		const char *q = p + tl;

		if (p > title && p[-1] == ' ' && !isdigit((unsigned char)*q)) {
			if (starts(q, " '")) {
				q += 2;
				copy(out, len, q, strcspn(q, "'"));
				return out[0] != '\0';
			}
			if (starts(q, " (") && !starts(q, " (tid=")) {
				q += 2;
				copy(out, len, q, strcspn(q, ")"));
				return out[0] != '\0';
			}
		}
		p = q;
	}
	return false;
}

static void find_task(struct rt_san_report *rep)
{
	const struct rt_san_stack *first = NULL;
	const char *p;
	char tid[16];
	size_t n;

	for (int i = 0; i < rep->nr_stacks && !first; i++)
		if (rep->stacks[i].primary)
			first = &rep->stacks[i];
	if (!first)
		return;
	p = strstr(first->title, "thread T");
	if (!p)
		return;
	p += 7;
	n = 1 + strspn(p + 1, "0123456789");
	if (n < 2 || n >= sizeof(tid))
		return;
	copy(tid, sizeof(tid), p, n);
	for (int i = 0; i < rep->nr_stacks; i++)
		if (thread_name_in(rep->stacks[i].title, tid, rep->task, sizeof(rep->task)))
			return;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void rt_san_signature(struct rt_san_report *rep)
{
	char parts[RT_SAN_MAX_STACKS][200];
	const char *order[RT_SAN_MAX_STACKS];
	int depth = !strcmp(rep->type, "lock-order-inversion") ? 2 : 1;
	int nr = 0, len;
	bool sort = rep->kind == RT_SAN_TSAN || rep->kind == RT_SAN_LSAN;
	bool uniq = rep->kind == RT_SAN_LSAN;

	for (int i = 0; i < rep->nr_stacks; i++) {
		const struct rt_san_stack *st = &rep->stacks[i];
		size_t w = 0;
		int taken = 0;

		if (!st->primary)
			continue;
		parts[nr][0] = '\0';
		for (int j = 0; j < st->nr && taken < depth; j++) {
			if (st->f[j].skip)
				continue;
			w += (size_t)snprintf(parts[nr] + w, sizeof(parts[nr]) - w, "%s%s",
					      taken ? "," : "", st->f[j].func);
			if (w >= sizeof(parts[nr]))
				w = sizeof(parts[nr]) - 1;
			taken++;
		}
		if (!taken)
			snprintf(parts[nr], sizeof(parts[nr]), "?");
		order[nr] = parts[nr];
		nr++;
	}
	/* UBSan without a stack: the file of the report's location. */
	if (!nr && rep->kind == RT_SAN_UBSAN && rep->summary[0]) {
		const char *loc = rep->summary, *slash;

		slash = strrchr(loc, '/');
		loc = slash ? slash + 1 : loc;
		copy(parts[0], sizeof(parts[0]), loc, strcspn(loc, ":"));
		order[0] = parts[0];
		nr = 1;
	}
	if (sort)
		qsort(order, (size_t)nr, sizeof(order[0]), cmp_str);
	len = snprintf(rep->signature, sizeof(rep->signature), "%s:%s:",
		       rt_san_kind_name(rep->kind), rep->type);
	for (int i = 0; i < nr; i++) {
		if (uniq && i && !strcmp(order[i], order[i - 1]))
			continue;
		if (len >= (int)sizeof(rep->signature) - 1)
			break;
		len += snprintf(rep->signature + len, sizeof(rep->signature) - (size_t)len, "%s%s",
				i ? "|" : "", order[i]);
	}
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
	find_task(rep);
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
	strip_addresses(ps->header);
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
		tsan_type(type, sizeof(type), rest);
		snprintf(header, sizeof(header), "ThreadSanitizer: %s", rest);
		strip_pid(header);
	} else if (starts(s, "ERROR: ") && sanitizer_at(s + 7, &kind, &rest)) {
		size_t cut = strlen(rest);
		static const char *const cuts[] = {
			" on address ", " on unknown address", " at pc ", " on 0x", " (pc ",
			" 0x",
		};

		if (kind == RT_SAN_TSAN)
			tsan_type(type, sizeof(type), rest);
		else if (kind == RT_SAN_LSAN)
			slug(type, sizeof(type), rest, strlen(rest));
		else
			asan_type(type, sizeof(type), rest);
		for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
			const char *c = strstr(rest, cuts[i]);

			if (c && (size_t)(c - rest) < cut)
				cut = (size_t)(c - rest);
		}
		snprintf(header, sizeof(header), "%.*s%.*s",
			 (int)(rest - (s + 7)), s + 7, (int)cut, rest);
		strip_pid(header);
	} else if ((p = strstr(s, ": runtime error: ")) && p > s) {
		kind = RT_SAN_UBSAN;
		rest = p + 17;
		ubsan_type(type, sizeof(type), rest);
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
		strip_addresses(title);
		strip_pid(title);
		st = &rep->stacks[rep->nr_stacks];
		memset(st, 0, sizeof(*st));
		snprintf(st->title, sizeof(st->title), "%s", title);
		st->primary = rep->kind == RT_SAN_TSAN ? tsan_primary(st->title) :
			      asan_primary(st->title);
		/* Keep room for the finding's stacks ahead of thread creations. */
		if (!st->primary && rep->nr_stacks >= RT_SAN_MAX_STACKS - 2)
			return;
		rep->nr_stacks++;
		ps->stack = st;
	}
	if (st->nr < RT_SAN_MAX_FRAMES)
		parse_frame(&st->f[st->nr++], s);
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
			slug(ps->cur->type, sizeof(ps->cur->type), rest, strcspn(rest, " "));
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
