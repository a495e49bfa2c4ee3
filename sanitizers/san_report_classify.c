// SPDX-License-Identifier: MIT
/*
 * What a sanitizer report is (san_report.h): its type from the header
 * line, its frames with the runtime's own marked, which stacks are the
 * finding's, the emulated task it ran in, and the signature that keys its
 * failure artifact. The parser (san_report.c) calls these line by line.
 */
#include "san_report.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "san_report-internal.h"
#include "san_report_locks.h"

static bool is_hex_token(const char *s)
{
	if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || !isxdigit((unsigned char)s[2]))
		return false;
	return true;
}

/* Drop "at 0x..." and bare "0x..." tokens and double spaces, in place. */
void san_strip_addresses(char *s)
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
void san_strip_pid(char *s)
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

/*
 * @s as [A-Za-z0-9_-], other characters as '-', no leading/trailing/double
 * '-', and without its numbers: an address ("SEGV on unknown address
 * 0x000000000800"), a pid, a size or a thread number varies from run to
 * run and must not reach a signature.
 */
void san_slug(char *dst, size_t len, const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n && s[i] && w + 1 < len; i++) {
		unsigned char c = (unsigned char)s[i];
		bool tok_start = !i || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');

		if (tok_start && isdigit(c)) {
			/* A number (decimal, or hex after "0x"), not a word starting with one. */
			size_t e = i + (c == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X') ? 2 : 0);
			bool hex = e > i;

			while (e < n && (hex ? isxdigit((unsigned char)s[e]) : isdigit((unsigned char)s[e])))
				e++;
			if (e >= n || !(isalnum((unsigned char)s[e]) || s[e] == '_')) {
				i = e - 1;
				continue;
			}
		}
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
void san_tsan_type(char *dst, size_t len, const char *rest)
{
	const char *paren = strstr(rest, " (");
	size_t n = paren ? (size_t)(paren - rest) : strlen(rest);

	if (starts(rest, "signal-unsafe call"))
		snprintf(dst, len, "signal-unsafe-call");
	else
		san_slug(dst, len, rest, n);
	for (char *p = dst; *p; p++)
		*p = (char)tolower((unsigned char)*p);
}

/* AddressSanitizer's type from its ERROR line (the SUMMARY line overrides). */
void san_asan_type(char *dst, size_t len, const char *rest)
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
	san_slug(dst, len, rest, n);
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
void san_ubsan_type(char *dst, size_t len, const char *text)
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
void san_parse_frame(struct rt_san_frame *f, const char *s)
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
	/* Unsymbolized: "<null>", or the pc itself; neither names a function. */
	if (strcmp(p, "<null>") && !is_hex_token(p))
		snprintf(f->func, sizeof(f->func), "%s", p);
	/* gcc's clones ("f.constprop.0", "f.isra.0", "f.cold") are f. */
	sp = strchr(f->func, '.');
	if (sp && sp != f->func)
		*sp = '\0';
	if (!f->loc[0] && mod)
		snprintf(f->loc, sizeof(f->loc), "(%s)", mod);
	f->skip = frame_skipped(f);
}

bool san_tsan_primary(const char *title)
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

bool san_asan_primary(const char *title)
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

void san_find_task(struct rt_san_report *rep)
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
		/* A report about locks names them by class, where known. */
		if (san_lock_signature_part(rep, st, parts[nr], sizeof(parts[nr]))) {
			order[nr] = parts[nr];
			nr++;
			continue;
		}
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
