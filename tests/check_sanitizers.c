// SPDX-License-Identifier: MIT
/*
 * The sanitizers module: the report parser on real report texts
 * (tests/data/: racy_probe and tsan_lock_probe logs from gcc 12's runtimes,
 * racy_probe's shape under clang 14's), exact signatures, several reports
 * per log, garbage, no address in any signature; the grouping by root
 * cause; the terminal print of new findings; the capture into
 * deduplicated failure artifacts, one per group, with their flight
 * recorder blocks; the variant lookup and environment. In
 * the TSan and ASan builds, racy_probe runs under rt_variant_setenv()'s
 * environment and its real reports are parsed into the expected
 * signatures, hooks included; and the defaults built into every binary
 * (sanitizers/defaults): rmaptorture and racy_probe started with an empty
 * environment, a clean run through rcu_barrier() and real findings, each
 * default overridden by the environment.
 *
 * The fixtures are unedited logs: tests/data/tsan-*.log and *.flight from
 * `racy_probe MODE` (and tsan-abba.log from `tsan_lock_probe abba`) in
 * build-tsan with TSAN_OPTIONS=log_path=...:halt_on_error=0:
 * second_deadlock_stack=1 and RT_FLIGHT_LOG=... (tsan-locked.* from
 * `racy_probe locked`, whose flight log holds the hook's mutex lines,
 * tsan_api.h; tsan-lockmem.* one report and its block, the flight cut
 * short, of `run --build tsan --inject anon-vma-walk-unlocked`); asan-*, ubsan-*, lsan-*
 * from build-asan with ASAN_OPTIONS/UBSAN_OPTIONS log_path=...; clang-*
 * from racy_probe's race and use-after-free alone, built with clang 14
 * (-fsanitize=thread, -fsanitize=address,undefined). garbage.log is made
 * up. Their line numbers need not match racy_probe.c. tsan-uaf-vma.log is
 * four unedited reports of `rmaptorture run --build tsan --inject
 * anon-vma-walk-unlocked` (gcc 12); tsan-walk-unlocked.log is all 29 of
 * another such run, and tsan-uaf-reuse.log all 3 of `run --build tsan
 * --inject anon-vma-free-now` (both at 1d0c1bb). san-kinds.log is written in gcc 12's
 * formats, with the model's function names: one report of each type the
 * others lack (TSan's heap-use-after-free, SEGV and unlock of an unlocked
 * mutex, every ASan kind, every UBSan runtime error).
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "artifact.h"
#include "capture.h"
#include "compiler.h"
#include "san_report.h"
#include "san_report_locks.h"
#include "rt_check.h"
#include "variant.h"

#define SIG_RACE	"tsan:data-race:racy_probe_writer_a|racy_probe_writer_b"
#define SIG_RACE2	"tsan:data-race:racy_probe_writer_c|racy_probe_writer_d"
#define SIG_ABBA	"tsan:lock-order-inversion:__spin_lock,first|__spin_lock,second"
#define SIG_UAF \
	"asan:heap-use-after-free:racy_probe_use_after_free|racy_probe_free|racy_probe_alloc"
/* Its artifact's: the root cause, the freed object's free site (rt_san_group_key()). */
#define SIG_UAF_GROUP	"asan:use-after-free:racy_probe_free"
#define SIG_OVERFLOW	"ubsan:runtime-error:signed-integer-overflow:racy_probe_overflow"
#define SIG_LEAK	"lsan:detected-memory-leaks:racy_probe_leak"
#define SIG_ABBA_PROBE	"tsan:lock-order-inversion:" \
	"lru_lock->page_table_lock,racy_probe_lock_ba|page_table_lock->lru_lock,racy_probe_lock_ab"

static bool starts_with(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(f, "cannot open %s: %s", path, strerror(errno));
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	ck_assert_int_ge(n, 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int parse_fixture(const char *name, struct rt_san_report **reps)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", RT_TEST_DATA, name);
	return rt_san_parse_file(path, reps);
}

static bool stack_has(const struct rt_san_report *r, const char *func)
{
	for (int i = 0; i < r->nr_stacks; i++)
		for (int j = 0; j < r->stacks[i].nr; j++)
			if (!strcmp(r->stacks[i].f[j].func, func))
				return true;
	return false;
}

static void assert_clean_text(const char *s)
{
	ck_assert_msg(!strstr(s, "0x"), "an address in \"%s\"", s);
	ck_assert_msg(!strstr(s, "pid="), "a pid in \"%s\"", s);
}

START_TEST(test_sanitizers_tsan_race)
{
	struct rt_san_report *r;
	int nr = parse_fixture("tsan-race.log", &r), primary = 0;

	ck_assert_int_eq(nr, 1);
	ck_assert_int_eq(r[0].kind, RT_SAN_TSAN);
	ck_assert_str_eq(rt_san_kind_name(r[0].kind), "tsan");
	ck_assert_str_eq(r[0].type, "data-race");
	ck_assert_str_eq(r[0].signature, SIG_RACE);
	ck_assert_msg(starts_with(r[0].message, "ThreadSanitizer: data race at racy_probe_writer_"),
		      "message: %s", r[0].message);
	ck_assert_msg(strstr(r[0].message, "racy_probe.c:"), "message: %s", r[0].message);
	assert_clean_text(r[0].message);
	ck_assert_msg(starts_with(r[0].summary, "ThreadSanitizer: data race"), "%s", r[0].summary);
	for (int i = 0; i < r[0].nr_stacks; i++) {
		primary += r[0].stacks[i].primary;
		assert_clean_text(r[0].stacks[i].title);
	}
	ck_assert_int_eq(primary, 2);	/* the two accesses, not the thread creations */
	ck_assert(stack_has(&r[0], "racy_probe_writer_a"));
	ck_assert(stack_has(&r[0], "racy_probe_writer_b"));
	ck_assert(stack_has(&r[0], "racer"));
	ck_assert_str_eq(r[0].stacks[0].f[0].loc, "tests/racy_probe.c:63");
	free(r);
}
END_TEST

START_TEST(test_sanitizers_tsan_many)
{
	struct rt_san_report *r;
	int nr = parse_fixture("tsan-many.log", &r);

	ck_assert_int_eq(nr, 2);
	ck_assert_str_eq(r[0].signature, SIG_RACE);
	ck_assert_str_eq(r[1].signature, SIG_RACE2);
	free(r);
}
END_TEST

START_TEST(test_sanitizers_tsan_deadlock)
{
	struct rt_san_report *r;
	int nr = parse_fixture("tsan-abba.log", &r);

	ck_assert_int_eq(nr, 1);
	ck_assert_str_eq(r[0].type, "lock-order-inversion");
	/* The lock primitive and its caller; "previously acquired" stacks left out. */
	ck_assert_str_eq(r[0].signature, SIG_ABBA);
	ck_assert_msg(starts_with(r[0].message,
				  "ThreadSanitizer: lock-order-inversion (potential deadlock) at __spin_lock"),
		      "message: %s", r[0].message);
	assert_clean_text(r[0].message);
	free(r);
}
END_TEST

START_TEST(test_sanitizers_tsan_other_types)
{
	struct rt_san_report *r;
	int nr = parse_fixture("tsan-threadleak.log", &r);

	/* The creation stack is the finding: its top frame of ours. */
	ck_assert_int_eq(nr, 1);
	ck_assert_str_eq(r[0].signature, "tsan:thread-leak:racy_probe_spawn");
	free(r);
	/* malloc and free in one handler: two reports, one signature. */
	nr = parse_fixture("tsan-signal.log", &r);
	ck_assert_int_eq(nr, 2);
	ck_assert_str_eq(r[0].signature, "tsan:signal-unsafe-call:racy_probe_on_signal");
	ck_assert_str_eq(r[1].signature, r[0].signature);
	ck_assert_msg(starts_with(r[0].message, "ThreadSanitizer: signal-unsafe call inside of a "
				  "signal at racy_probe_on_signal"), "%s", r[0].message);
	free(r);
}
END_TEST

START_TEST(test_sanitizers_asan_uaf)
{
	struct rt_san_report *r;
	int nr = parse_fixture("asan-uaf.log", &r);

	ck_assert_int_eq(nr, 1);
	ck_assert_int_eq(r[0].kind, RT_SAN_ASAN);
	ck_assert_str_eq(r[0].type, "heap-use-after-free");
	/* Roles kept: access, free, allocation; malloc/free interceptors skipped. */
	ck_assert_str_eq(r[0].signature, SIG_UAF);
	ck_assert_msg(starts_with(r[0].message, "AddressSanitizer: heap-use-after-free at "
				  "racy_probe_use_after_free (tests/racy_probe.c:"), "%s", r[0].message);
	assert_clean_text(r[0].message);
	ck_assert_int_eq(r[0].nr_stacks, 3);
	ck_assert_str_eq(r[0].stacks[1].title, "freed by thread T0 here:");
	free(r);
}
END_TEST

START_TEST(test_sanitizers_ubsan_lsan)
{
	struct rt_san_report *r;
	int nr = parse_fixture("ubsan-overflow.log", &r);

	ck_assert_int_eq(nr, 1);
	ck_assert_int_eq(r[0].kind, RT_SAN_UBSAN);
	ck_assert_str_eq(r[0].signature, SIG_OVERFLOW);
	ck_assert_msg(strstr(r[0].message, "runtime error: signed integer overflow"), "%s",
		      r[0].message);
	free(r);

	nr = parse_fixture("lsan-leak.log", &r);
	ck_assert_int_eq(nr, 1);
	ck_assert_int_eq(r[0].kind, RT_SAN_LSAN);
	ck_assert_str_eq(r[0].signature, SIG_LEAK);
	free(r);
}
END_TEST

/* compiler-rt 14 (clang): static runtime, "(BuildId: ...)", columns: the same signatures. */
START_TEST(test_sanitizers_clang_runtime)
{
	struct rt_san_report *r;
	int nr = parse_fixture("clang-tsan-race.log", &r);

	ck_assert_int_eq(nr, 1);
	ck_assert_str_eq(r[0].signature, SIG_RACE);
	free(r);
	nr = parse_fixture("clang-asan-uaf.log", &r);
	ck_assert_int_eq(nr, 1);
	ck_assert_str_eq(r[0].signature, SIG_UAF);
	assert_clean_text(r[0].message);
	free(r);
}
END_TEST

/* Other addresses, pids, thread ids, line numbers, stack order: one signature. */
START_TEST(test_sanitizers_signature_stable)
{
	size_t len;
	char *text = read_all(RT_TEST_DATA "/tsan-race.log", &len);
	char *second = strstr(text, "  Previous write");
	char *loc = strstr(text, "  Location is");
	struct rt_san_report *r;
	char *swapped;
	size_t a, b;

	for (size_t i = 0; i < len; i++)
		if (text[i] >= '0' && text[i] <= '9')
			text[i] = (char)('0' + (text[i] - '0' + 3) % 10);
	ck_assert_int_eq(rt_san_parse(text, len, &r), 1);
	ck_assert_str_eq(r[0].signature, SIG_RACE);
	free(r);

	/* The other thread reporting: the two access stacks swapped. */
	ck_assert_ptr_nonnull(second);
	ck_assert_ptr_nonnull(loc);
	a = (size_t)(strstr(text, "  Read of size") - text);
	b = (size_t)(second - text);
	swapped = malloc(len + 1);
	ck_assert_ptr_nonnull(swapped);
	memcpy(swapped, text, a);
	memcpy(swapped + a, second, (size_t)(loc - second));
	memcpy(swapped + a + (size_t)(loc - second), text + a, b - a);
	memcpy(swapped + (size_t)(loc - text), loc, len - (size_t)(loc - text) + 1);
	ck_assert_int_eq(rt_san_parse(swapped, len, &r), 1);
	ck_assert_str_eq(r[0].signature, SIG_RACE);
	free(r);
	free(swapped);
	free(text);
}
END_TEST

static const struct {
	const char *msg;
	const char *type;
} ubsan_types[] = {
	{ "signed integer overflow: 1 + 2 cannot be represented", "runtime-error:signed-integer-overflow" },
	{ "shift exponent 40 is too large for 32-bit type 'int'", "runtime-error:shift-exponent-is-too-large" },
	{ "index 10 out of bounds for type 'int [4]'", "runtime-error:index-out-of-bounds" },
	{ "load of null pointer of type 'int'", "runtime-error:load-of-null-pointer" },
	{ "division by zero", "runtime-error:division-by-zero" },
	{ "load of misaligned address 0x55e1 for type 'int', which requires 4 byte alignment",
	  "runtime-error:load-of-misaligned-address" },
	{ "null pointer passed as argument 1, which is declared to never be null",
	  "runtime-error:null-pointer-passed-as-argument" },
	{ "12 34", "runtime-error:unknown" },
};

START_TEST(test_sanitizers_ubsan_types)
{
	for (size_t i = 0; i < sizeof(ubsan_types) / sizeof(ubsan_types[0]); i++) {
		struct rt_san_report *r;
		char text[256];
		int nr;

		snprintf(text, sizeof(text), "noise\n../core/x.c:12:3: runtime error: %s\n",
			 ubsan_types[i].msg);
		nr = rt_san_parse(text, strlen(text), &r);
		ck_assert_int_eq(nr, 1);
		ck_assert_str_eq(r[0].type, ubsan_types[i].type);
		/* No stack: the file of the location stands for the function. */
		ck_assert_msg(strstr(r[0].signature, ":x.c") &&
			      !strcmp(strstr(r[0].signature, ":x.c"), ":x.c"), "%s", r[0].signature);
		assert_clean_text(r[0].message);
		free(r);
	}
}
END_TEST

START_TEST(test_sanitizers_garbage)
{
	static const char *const texts[] = {
		"",
		"\n\n\n",
		"WARNING: ThreadSanitizer: \n",
		"WARNING: ThreadSanitizer:\n    #0 foo bar.c:1 (x+0x1)\n",
		"ERROR: AddressSanitizer:\n",
		"==12==ERROR: \n#0\n#1 \n#99999999999999999999 0x in\n",
		"SUMMARY: ThreadSanitizer: data race x.c:1 in f\n==================\n",
		"ThreadSanitizer: reported 3 warnings\n",
		"  Write of size 4 at 0x1 by thread T1:\n    #0 f x.c:1 (a+0x1)\n",
		": runtime error: x\n",
	};
	uint64_t rng = rt_test_seed();
	char *buf = malloc(1 << 16);
	struct rt_san_report *r;
	size_t len;
	char *fixture;

	ck_assert_ptr_nonnull(buf);
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		ck_assert_msg(rt_san_parse(texts[i], strlen(texts[i]), &r) == 0, "text %zu", i);
		ck_assert_ptr_null(r);
	}
	ck_assert_int_eq(parse_fixture("garbage.log", &r), 0);
	ck_assert_int_eq(parse_fixture("no-such-file.log", &r), -ENOENT);

	/* Random bytes, random printable lines, one very long line: no report. */
	for (int round = 0; round < 50; round++) {
		for (size_t i = 0; i < (1 << 16); i++) {
			uint64_t x = rt_rand(&rng);

			buf[i] = round & 1 ? (char)x : (char)(x % 3 == 0 ? '\n' : ' ' + x % 90);
		}
		ck_assert_int_eq(rt_san_parse(buf, 1 << 16, &r), 0);
	}
	memset(buf, '#', 1 << 16);
	ck_assert_int_eq(rt_san_parse(buf, 1 << 16, &r), 0);

	/* Every truncation of a real log: at most its one report, never a crash. */
	fixture = read_all(RT_TEST_DATA "/asan-uaf.log", &len);
	/* Every truncation (every 7th under a sanitizer, which is 10x slower). */
	for (size_t n = 0; n <= len; n += (RT_TSAN || RT_ASAN) ? 7 : 1) {
		int nr = rt_san_parse(fixture, n, &r);

		ck_assert_int_le(nr, 1);
		ck_assert_int_ge(nr, 0);
		free(r);
	}
	free(fixture);
	free(buf);
}
END_TEST

/* Does @s hold an address or a number that varies from run to run? */
static bool has_varying_number(const char *s)
{
	size_t digits = 0, hex = 0;
	bool hex_digit = false;

	if (strstr(s, "0x") || strstr(s, "0X") || strstr(s, "pid"))
		return true;
	for (; *s; s++) {
		bool d = *s >= '0' && *s <= '9';
		bool h = d || (*s >= 'a' && *s <= 'f') || (*s >= 'A' && *s <= 'F');

		digits = d ? digits + 1 : 0;
		hex = h ? hex + 1 : 0;
		hex_digit = h ? hex_digit || d : false;
		/* A long number, or an address printed without its "0x". */
		if (digits >= 4 || (hex >= 8 && hex_digit))
			return true;
	}
	return false;
}

/* Every report type of every sanitizer, as gcc 12's runtimes print them. */
static const char *const all_types[] = {
	/* tsan-race.log, tsan-abba.log, tsan-threadleak.log, tsan-signal.log, san-kinds.log */
	"data-race", "lock-order-inversion", "thread-leak", "signal-unsafe-call",
	"heap-use-after-free", "segv-on-unknown-address", "unlock-of-an-unlocked-mutex",
	/* asan-uaf.log, san-kinds.log */
	"heap-buffer-overflow", "stack-buffer-overflow", "double-free", "SEGV",
	"global-buffer-overflow", "use-after-poison",
	/* each UBSan runtime error (san-kinds.log) */
	"runtime-error:signed-integer-overflow", "runtime-error:shift-exponent-is-too-large",
	"runtime-error:division-by-zero", "runtime-error:index-out-of-bounds",
	"runtime-error:load-of-null-pointer", "runtime-error:member-access-within-null-pointer",
	"runtime-error:load-of-misaligned-address", "runtime-error:store-to-misaligned-address",
	"runtime-error:load-of-value", "runtime-error:null-pointer-passed-as-argument",
	"runtime-error:pointer-index-expression-with-base-overflowed-to",
	"runtime-error:applying-non-zero-offset-to-null-pointer",
	"runtime-error:execution-reached-an-unreachable-program-point",
	"runtime-error:is-outside-the-range-of-representable-values",
	/* lsan-leak.log, san-kinds.log */
	"detected-memory-leaks",
};

/* No address, pid, thread number or size in any signature or group signature. */
START_TEST(test_sanitizers_signature_no_address)
{
	static const char *const logs[] = {
		"tsan-race.log", "tsan-many.log", "tsan-abba.log", "tsan-threadleak.log",
		"tsan-signal.log", "tsan-uaf-vma.log", "asan-uaf.log", "ubsan-overflow.log",
		"lsan-leak.log", "clang-tsan-race.log", "clang-asan-uaf.log", "san-kinds.log",
		"tsan-uaf-reuse.log", "tsan-walk-unlocked.log",
	};
	bool seen[sizeof(all_types) / sizeof(all_types[0])] = { false };

	for (size_t l = 0; l < sizeof(logs) / sizeof(logs[0]); l++) {
		struct rt_san_report *r;
		int nr = parse_fixture(logs[l], &r);

		ck_assert_msg(nr > 0, "%s: %d reports", logs[l], nr);
		for (int i = 0; i < nr; i++) {
			char key[RT_SAN_SIG_LEN], title[256];

			rt_san_group_key(&r[i], key, sizeof(key));
			rt_san_title(&r[i], title, sizeof(title));
			ck_assert_msg(!has_varying_number(r[i].signature), "%s: %s", logs[l],
				      r[i].signature);
			ck_assert_msg(!has_varying_number(key), "%s: %s", logs[l], key);
			ck_assert_msg(!has_varying_number(title), "%s: %s", logs[l], title);
			for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++)
				seen[t] |= !strncmp(r[i].type, all_types[t], strlen(all_types[t]));
		}
		free(r);
	}
	for (size_t t = 0; t < sizeof(all_types) / sizeof(all_types[0]); t++)
		ck_assert_msg(seen[t], "no report of type %s", all_types[t]);

	/* clang's TSan names the faulting address in the header (seen in a run). */
	{
		static const char segv[] =
			"==9==ERROR: ThreadSanitizer: SEGV on unknown address 0x000000000800 "
			"(pc 0x55d0c3a1b2c3 bp 0x7f7cbc737a90 sp 0x7f7cbc737a00 T16197)\n"
			"    #0 pgd_table core/pgtable.c:88 (rmaptorture+0xb1c2d)\n";
		struct rt_san_report *r;

		ck_assert_int_eq(rt_san_parse(segv, strlen(segv), &r), 1);
		ck_assert_str_eq(r[0].signature, "tsan:segv-on-unknown-address:pgd_table");
		free(r);
	}
}
END_TEST

/* --- groups ----------------------------------------------------------- */

/*
 * tests/data/tsan-uaf-vma.log: four reports of `run --build tsan --inject
 * anon-vma-walk-unlocked`: three accesses to one freed vma (free() on
 * top of the free stack or not), and a race of the same walk.
 */
START_TEST(test_sanitizers_group_uaf)
{
	struct rt_san_report *r;
	struct rt_san_group *g;
	char key[RT_SAN_SIG_LEN], title[256];
	int of[4], nr = parse_fixture("tsan-uaf-vma.log", &r);

	ck_assert_int_eq(nr, 4);
	ck_assert_str_ne(r[1].signature, r[2].signature);
	ck_assert_int_eq(rt_san_group(r, nr, of, &g), 2);
	ck_assert_str_eq(g[0].signature, "tsan:data-race:list_del_init|page_referenced_anon_vma");
	ck_assert_str_eq(g[0].title, "TSan: data-race in list_del_init / page_referenced_anon_vma");
	ck_assert_int_eq(g[0].nr, 1);
	/* The freed vma: one group, titled by its first report's access. */
	ck_assert_str_eq(g[1].signature, "tsan:use-after-free:vm_area_free");
	ck_assert_str_eq(g[1].title, "TSan: use-after-free Read in page_referenced_anon_one");
	ck_assert_int_eq(g[1].first, 1);
	ck_assert_int_eq(g[1].nr, 3);
	ck_assert_int_eq(of[0], 0);
	ck_assert_int_eq(of[1], 1);
	ck_assert_int_eq(of[2], 1);
	ck_assert_int_eq(of[3], 1);
	free(g);
	free(r);

	/* TSan's own heap-use-after-free of a vma goes with its race with free(). */
	ck_assert_int_gt(parse_fixture("san-kinds.log", &r), 9);
	ck_assert_str_eq(r[0].type, "heap-use-after-free");
	rt_san_group_key(&r[0], key, sizeof(key));
	ck_assert_str_eq(key, "tsan:use-after-free:vm_area_free");
	/* ASan: the model's slab poisons a dead object; keyed by its allocation site. */
	ck_assert_str_eq(r[8].type, "use-after-poison");
	rt_san_group_key(&r[8], key, sizeof(key));
	ck_assert_str_eq(key, "asan:use-after-free:vm_area_alloc");
	rt_san_title(&r[8], title, sizeof(title));
	ck_assert_str_eq(title, "ASan: use-after-poison Read in vma_address");
	free(r);
}
END_TEST

/*
 * tsan-uaf-reuse.log: a freed anon_vma read twice (TSan's heap-use-after-
 * free), then once more after malloc() handed its block out again (a race
 * with the allocation): one use-after-free, keyed by its free site.
 */
START_TEST(test_sanitizers_group_reuse)
{
	struct rt_san_report *r;
	struct rt_san_group *g;
	char key[RT_SAN_SIG_LEN], title[256];
	int of[3], nr = parse_fixture("tsan-uaf-reuse.log", &r);

	ck_assert_int_eq(nr, 3);
	ck_assert_str_eq(r[2].type, "data-race");
	/* Alone, the race with malloc() is a use-after-free keyed by the allocation. */
	rt_san_group_key(&r[2], key, sizeof(key));
	ck_assert_str_eq(key, "tsan:use-after-free:anon_vma_alloc");
	rt_san_title(&r[2], title, sizeof(title));
	ck_assert_str_eq(title, "TSan: use-after-free Read in _spin_lock");
	ck_assert_int_eq(rt_san_group(r, nr, of, &g), 1);
	ck_assert_str_eq(g[0].signature, "tsan:use-after-free:anon_vma_free");
	ck_assert_str_eq(g[0].title, "TSan: heap-use-after-free Read in _spin_lock");
	ck_assert_int_eq(g[0].nr, 3);
	ck_assert_int_eq(g[0].first, 0);
	ck_assert_int_eq(of[2], 0);
	free(g);

	/* Without the use-after-frees, the race keeps its own key: no free site to name. */
	ck_assert_int_eq(rt_san_group(r + 2, 1, NULL, &g), 1);
	ck_assert_str_eq(g[0].signature, "tsan:use-after-free:anon_vma_alloc");
	free(g);
	free(r);
}
END_TEST

/*
 * tsan-walk-unlocked.log: the 29 reports of one unlocked anon_vma walk
 * (13 signatures). The walk's reads met vmas freed, reused by the slab
 * and live: every race whose side made an access a use-after-free of the
 * run made joins it; the freed mm and page table are groups of their own;
 * a race no use-after-free shares an access with stays alone.
 */
START_TEST(test_sanitizers_group_walk)
{
	static const char *const joined[] = {
		"tsan:data-race:list_del_init|page_referenced_anon_vma",
		"tsan:data-race:page_referenced_anon_one|vm_area_alloc",
		"tsan:data-race:dup_mm|vma_address",
		"tsan:data-race:INIT_LIST_HEAD|page_referenced_anon_vma",
		"tsan:data-race:slab_block_alloc|vma_address",
		"tsan:data-race:slab_obj_kill|vma_address",
	};
	struct rt_san_report *r;
	struct rt_san_group *g;
	int of[29], nr = parse_fixture("tsan-walk-unlocked.log", &r), vma = -1;

	ck_assert_int_eq(nr, 29);
	ck_assert_int_eq(rt_san_group(r, nr, of, &g), 4);
	for (int k = 0; k < 4; k++)
		if (!strcmp(g[k].signature, "tsan:use-after-free:vm_area_free"))
			vma = k;
	ck_assert_int_ge(vma, 0);
	ck_assert_str_eq(g[vma].title, "TSan: use-after-free Read in page_referenced_anon_one");
	ck_assert_int_eq(g[vma].nr, 23);
	for (size_t j = 0; j < sizeof(joined) / sizeof(joined[0]); j++) {
		bool found = false;

		for (int i = 0; i < nr; i++)
			if (!strcmp(r[i].signature, joined[j])) {
				found = true;
				ck_assert_msg(of[i] == vma, "%s: group %d", joined[j], of[i]);
			}
		ck_assert_msg(found, "%s not in the fixture", joined[j]);
	}
	ck_assert_str_eq(g[1].signature, "tsan:use-after-free:mm_free_rcu");
	ck_assert_str_eq(g[2].signature, "tsan:use-after-free:pte_free");
	ck_assert_str_eq(g[3].signature, "tsan:data-race:find_pte|mmput");
	ck_assert_int_eq(g[3].nr, 1);
	free(g);
	free(r);
}
END_TEST

/* ASan: two accesses to one freed object, other addresses and pids: one group. */
START_TEST(test_sanitizers_group_asan_uaf)
{
	size_t len;
	char *text = read_all(RT_TEST_DATA "/asan-uaf.log", &len);
	char *two = malloc(2 * len + 1), *p;
	struct rt_san_report *r;
	struct rt_san_group *g;

	ck_assert_ptr_nonnull(two);
	memcpy(two, text, len);
	/* The second: another reader, other digits everywhere. */
	for (size_t i = 0; i < len; i++)
		two[len + i] = text[i] >= '0' && text[i] <= '9' && text[i + 1] != 'x' ?
			       (char)('0' + (text[i] - '0' + 7) % 10) : text[i];
	two[2 * len] = '\0';
	p = strstr(two + len, "in racy_probe_use_after_free ");
	ck_assert_ptr_nonnull(p);
	memcpy(p, "in racy_probe_read_again_____ ", 29);
	ck_assert_int_eq(rt_san_parse(two, 2 * len, &r), 2);
	ck_assert_str_ne(r[0].signature, r[1].signature);
	ck_assert_int_eq(rt_san_group(r, 2, NULL, &g), 1);
	ck_assert_str_eq(g[0].signature, SIG_UAF_GROUP);
	ck_assert_str_eq(g[0].title, "ASan: heap-use-after-free Read in racy_probe_use_after_free");
	ck_assert_int_eq(g[0].nr, 2);
	free(g);
	free(r);
	free(two);
	free(text);
}
END_TEST

/* --- terminal --------------------------------------------------------- */

static char *print_findings(const char *log, const bool *fresh, int nr_groups)
{
	struct rt_san_report *r;
	struct rt_san_group *g;
	char *out = NULL;
	size_t len = 0;
	int nr = parse_fixture(log, &r);
	FILE *f = open_memstream(&out, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_gt(nr, 0);
	ck_assert_int_eq(rt_san_group(r, nr, NULL, &g), nr_groups);
	rt_sanitizer_print(f, r, nr, g, nr_groups, fresh, "/the/dir");
	fclose(f);
	free(g);
	free(r);
	return out;
}

START_TEST(test_sanitizers_print_first)
{
	static const bool race_only[] = { true, false }, both[] = { true, true };
	static const char *const runtime[] = {
		"libtsan", "__tsan", "tsan_interceptors", "pthread_create", "start_thread",
		"#0 free", "#0 malloc", "created at", "Location is", "0x",
	};
	char *out = print_findings("tsan-uaf-vma.log", race_only, 2);

	/* The new race: its title, header and both accesses, the model's frames only. */
	ck_assert_msg(strstr(out, "TSan: data-race in list_del_init / page_referenced_anon_vma\n"
			     "  ThreadSanitizer: data race at page_referenced_anon_vma"), "%s", out);
	ck_assert_msg(strstr(out, "  Read of size 8 by thread T5"), "%s", out);
	ck_assert_msg(strstr(out, "    #0 page_referenced_anon_vma core/rmap_anonvma.c:567\n"), "%s", out);
	ck_assert_msg(strstr(out, "    #0 list_del_init core/list.h:53\n"), "%s", out);
	ck_assert_msg(strstr(out, "      ...\n"), "%s", out);	/* eight frames a stack */
	ck_assert_msg(!strstr(out, "kswapd_step stress/engine.c:334\n    #8"), "%s", out);
	ck_assert_msg(!strstr(out, "use-after-free"), "%s", out);	/* not new */
	for (size_t i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++)
		ck_assert_msg(!strstr(out, runtime[i]), "%s in:\n%s", runtime[i], out);
	ck_assert_msg(strstr(out, "\nand 3 more reports (2 signatures) in /the/dir\n"), "%s", out);
	free(out);

	/* Both new: the use-after-free's first report too, without free()'s frame. */
	out = print_findings("tsan-uaf-vma.log", both, 2);
	ck_assert_msg(strstr(out, "TSan: use-after-free Read in page_referenced_anon_one\n"), "%s", out);
	ck_assert_msg(strstr(out, "    #1 slab_obj_kill core/slab.c:364\n"), "%s", out);
	ck_assert_msg(strstr(out, "  signature tsan:use-after-free:vm_area_free (3 reports)\n"), "%s",
		      out);
	for (size_t i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++)
		ck_assert_msg(!strstr(out, runtime[i]), "%s in:\n%s", runtime[i], out);
	ck_assert_msg(strstr(out, "\nand 2 more reports (1 signature) in /the/dir\n"), "%s", out);
	free(out);
}
END_TEST

/* --- capture ---------------------------------------------------------- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *dir)
{
	nftw(dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void copy_file(const char *from, const char *to, bool append)
{
	size_t len;
	char *text = read_all(from, &len);
	FILE *f = fopen(to, append ? "ab" : "wb");

	ck_assert_msg(f, "cannot write %s", to);
	ck_assert_uint_eq(fwrite(text, 1, len, f), len);
	fclose(f);
	free(text);
}

static int count_artifacts(const char *dir)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls %s/failure-*.json 2>/dev/null | wc -l", dir);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static json_t *load_artifact(const char *dir, const char *kind, const char *signature)
{
	char path[PATH_MAX];
	json_error_t err;
	json_t *art;

	snprintf(path, sizeof(path), "%s/failure-%s-%016llx.json", dir, kind,
		 (unsigned long long)rt_signature_hash(signature));
	art = json_load_file(path, 0, &err);
	ck_assert_msg(art, "no artifact %s: %s", path, err.text);
	ck_assert_str_eq(json_string_value(json_object_get(art, "signature")), signature);
	return art;
}

static json_t *test_context(void)
{
	return json_pack("{s:s, s:s, s:s, s:i, s:s, s:s, s:s, s:[s]}",
			 "record", "failure", "scenario", "probe", "rmap", "anonvma",
			 "threads", 2, "seed", "42", "sched", "free", "build", RT_BUILD_KIND,
			 "args", "run");
}

static const char *flight_task_event(json_t *flight, const char *task, int idx)
{
	size_t i;
	json_t *t;

	json_array_foreach(flight, i, t)
		if (!strcmp(json_string_value(json_object_get(t, "task")), task))
			return json_string_value(json_array_get(json_object_get(t, "events"),
								(size_t)idx));
	return NULL;
}

START_TEST(test_sanitizers_collect_dedupe)
{
	char dir[] = "/tmp/rt-sancap-XXXXXX", prefix[PATH_MAX], path[PATH_MAX], out[PATH_MAX];
	json_t *ctx = test_context(), *art, *flight;
	int nr_new = -1, nr_repeat = -1;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/log", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	ck_assert_int_eq(mkdir(out, 0755), 0);
	/* The same race from two processes, two hook blocks. */
	snprintf(path, sizeof(path), "%s.100", prefix);
	copy_file(RT_TEST_DATA "/tsan-race.log", path, false);
	snprintf(path, sizeof(path), "%s.200", prefix);
	copy_file(RT_TEST_DATA "/tsan-race.log", path, false);
	snprintf(path, sizeof(path), "%s.flight", prefix);
	copy_file(RT_TEST_DATA "/tsan-race.flight", path, true);
	copy_file(RT_TEST_DATA "/tsan-race.flight", path, true);
	snprintf(path, sizeof(path), "%s.notapid", prefix);
	copy_file(RT_TEST_DATA "/asan-uaf.log", path, false);

	ck_assert_int_eq(rt_sanitizer_collect(prefix, ctx, out, NULL, &nr_new, &nr_repeat), 2);
	/* One root cause: one artifact, saved once, listing its two reports. */
	ck_assert_int_eq(nr_new, 1);
	ck_assert_int_eq(nr_repeat, 0);
	ck_assert_int_eq(count_artifacts(out), 1);
	art = load_artifact(out, "tsan", SIG_RACE);
	ck_assert_int_eq(json_integer_value(json_object_get(art, "count")), 1);
	ck_assert_int_eq(json_array_size(json_object_get(art, "group")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(
		json_object_get(art, "group"), 0), "count")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(art, "kind")), "tsan");
	ck_assert_str_eq(json_string_value(json_object_get(art, "record")), "failure");
	ck_assert_str_eq(json_string_value(json_object_get(art, "scenario")), "probe");
	ck_assert_str_eq(json_string_value(json_object_get(art, "task")), "racer-b");
	ck_assert_str_eq(json_string_value(json_object_get(art, "op")), "racy_write");
	ck_assert(starts_with(json_string_value(json_object_get(art, "message")),
			      "ThreadSanitizer: data race"));
	ck_assert_int_ge(json_array_size(json_object_get(art, "stack")), 4);
	flight = json_object_get(art, "flight");
	ck_assert_int_eq(json_array_size(flight), 3);
	ck_assert_str_eq(flight_task_event(flight, "racer-a", 0), "in racy_write");
	ck_assert_str_eq(flight_task_event(flight, "racer-b", 1), "#0 op racy_write");
	json_decref(art);

	/* Again (no flight log now): count 2; the context is untouched. */
	snprintf(path, sizeof(path), "%s.flight", prefix);
	ck_assert_int_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s.200", prefix);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rt_sanitizer_collect(prefix, ctx, out, NULL, &nr_new, &nr_repeat), 1);
	ck_assert_int_eq(nr_new, 0);
	ck_assert_int_eq(nr_repeat, 1);
	art = load_artifact(out, "tsan", SIG_RACE);
	ck_assert_int_eq(json_integer_value(json_object_get(art, "count")), 2);
	ck_assert(json_is_null(json_object_get(art, "op")));
	ck_assert_str_eq(json_string_value(json_object_get(art, "task")), "");
	ck_assert_ptr_null(json_object_get(art, "flight"));
	json_decref(art);
	ck_assert_ptr_null(json_object_get(ctx, "signature"));

	ck_assert_int_eq(rt_sanitizer_logs_remove(prefix), 1);
	ck_assert_int_eq(rt_sanitizer_collect(prefix, ctx, out, NULL, &nr_new, &nr_repeat), 0);
	json_decref(ctx);
	rm_tree(dir);
}
END_TEST

START_TEST(test_sanitizers_collect_many)
{
	char dir[] = "/tmp/rt-sancap-XXXXXX", prefix[PATH_MAX], path[PATH_MAX];
	int nr_new = -1, nr_repeat = -1;
	json_t *art;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/log", dir);
	snprintf(path, sizeof(path), "%s.7", prefix);
	copy_file(RT_TEST_DATA "/tsan-many.log", path, false);
	snprintf(path, sizeof(path), "%s.flight", prefix);
	copy_file(RT_TEST_DATA "/tsan-many.flight", path, false);
	snprintf(path, sizeof(path), "%s.ubsan.9", prefix);
	copy_file(RT_TEST_DATA "/ubsan-overflow.log", path, false);
	snprintf(path, sizeof(path), "%s.8", prefix);
	copy_file(RT_TEST_DATA "/garbage.log", path, false);

	/* No context: a record of its own. */
	ck_assert_int_eq(rt_sanitizer_collect(prefix, NULL, dir, NULL, &nr_new, &nr_repeat), 3);
	ck_assert_int_eq(nr_new, 3);
	ck_assert_int_eq(nr_repeat, 0);
	ck_assert_int_eq(count_artifacts(dir), 3);
	art = load_artifact(dir, "tsan", SIG_RACE2);
	ck_assert_str_eq(json_string_value(json_object_get(art, "op")), "racy_write_other");
	ck_assert_str_eq(json_string_value(json_object_get(art, "task")), "racer-b");
	ck_assert_str_eq(json_string_value(json_object_get(art, "record")), "failure");
	ck_assert_int_eq(json_integer_value(json_object_get(art, "count")), 1);
	json_decref(art);
	art = load_artifact(dir, "ubsan", SIG_OVERFLOW);
	ck_assert(json_is_null(json_object_get(art, "op")));	/* blocks ran out */
	json_decref(art);
	rm_tree(dir);
}
END_TEST

/* One artifact per root cause, the other reports listed in it; printed when new. */
START_TEST(test_sanitizers_collect_groups)
{
	char dir[] = "/tmp/rt-sancap-XXXXXX", prefix[PATH_MAX], path[PATH_MAX];
	int nr_new = -1, nr_repeat = -1;
	char *out = NULL;
	size_t len = 0;
	json_t *art, *group;
	FILE *term;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/log", dir);
	snprintf(path, sizeof(path), "%s.5", prefix);
	copy_file(RT_TEST_DATA "/tsan-uaf-vma.log", path, false);
	term = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(term);
	ck_assert_int_eq(rt_sanitizer_collect(prefix, NULL, dir, term, &nr_new, &nr_repeat), 4);
	fclose(term);
	ck_assert_int_eq(nr_new, 2);
	ck_assert_int_eq(nr_repeat, 0);
	ck_assert_int_eq(count_artifacts(dir), 2);
	ck_assert_msg(strstr(out, "TSan: use-after-free Read in page_referenced_anon_one\n"), "%s", out);
	ck_assert_msg(strstr(out, "and 2 more reports (1 signature) in "), "%s", out);
	free(out);
	art = load_artifact(dir, "tsan", "tsan:use-after-free:vm_area_free");
	ck_assert_str_eq(json_string_value(json_object_get(art, "title")),
			 "TSan: use-after-free Read in page_referenced_anon_one");
	group = json_object_get(art, "group");
	ck_assert_int_eq(json_array_size(group), 2);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(group, 0), "signature")),
			 "tsan:data-race:page_referenced_anon_one|slab_obj_kill");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(group, 0), "count")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(group, 1), "signature")),
			 "tsan:data-race:slab_obj_kill|vma_address");
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(group, 1), "count")), 2);
	json_decref(art);

	/* Again: the same two signatures, nothing new, nothing printed but the count line. */
	out = NULL;
	term = open_memstream(&out, &len);
	ck_assert_ptr_nonnull(term);
	ck_assert_int_eq(rt_sanitizer_collect(prefix, NULL, dir, term, &nr_new, &nr_repeat), 4);
	fclose(term);
	ck_assert_int_eq(nr_new, 0);
	ck_assert_int_eq(nr_repeat, 2);
	ck_assert_int_eq(count_artifacts(dir), 2);
	ck_assert_msg(!strncmp(out, "and 4 more reports (3 signatures) in ", 37), "%s", out);
	free(out);
	rm_tree(dir);
}
END_TEST

/* --- lock classes (san_report_locks.h) ---------------------------------- */

/* The hook's lines (tsan_api.h) of one report, read into a block. */
static void api_block(struct rt_san_api_block *b, const char *const *lines)
{
	memset(b, 0, sizeof(*b));
	for (; *lines; lines++)
		ck_assert_msg(rt_san_api_line(*lines, b), "not taken: %s", *lines);
}

static const char *const abba_api[] = {
	"== rmaptorture tsan report: lock-order-inversion mutexes 2 ==",
	"== rmaptorture tsan mutex: M0 page_table_lock ==",
	"== rmaptorture tsan mutex: M1 lru_lock ==",
	NULL,
};

#define SIG_ABBA_NAMED \
	"tsan:lock-order-inversion:lru_lock->page_table_lock,second|page_table_lock->lru_lock,first"
#define ABBA_TITLE_NAMED \
	"Mutex M1 (lru_lock) acquired here while holding mutex M0 (page_table_lock) in thread T1:"

START_TEST(test_sanitizers_locks_inversion_named)
{
	struct rt_san_api_block b;
	struct rt_san_report *r;
	json_t *art, *want;

	ck_assert_int_eq(parse_fixture("tsan-abba.log", &r), 1);
	api_block(&b, abba_api);
	ck_assert(b.seen);
	ck_assert_str_eq(b.type, "lock-order-inversion");
	ck_assert_int_eq(b.nr, 2);
	rt_san_name_mutexes(&r[0], &b);
	ck_assert(r[0].tsan_api);
	ck_assert_str_eq(r[0].stacks[0].title, ABBA_TITLE_NAMED);
	/* Each edge by class, with the caller of the lock primitive. */
	ck_assert_str_eq(r[0].signature, SIG_ABBA_NAMED);
	/* Once more: nothing named twice. */
	rt_san_name_mutexes(&r[0], &b);
	ck_assert_str_eq(r[0].stacks[0].title, ABBA_TITLE_NAMED);
	ck_assert_str_eq(r[0].signature, SIG_ABBA_NAMED);
	art = rt_sanitizer_report_json(&r[0], NULL, NULL, NULL, NULL);
	ck_assert_ptr_nonnull(art);
	ck_assert(json_is_true(json_object_get(art, "tsan_api")));
	want = json_pack("[{s:s, s:s}, {s:s, s:s}]", "id", "M0", "class", "page_table_lock",
			 "id", "M1", "class", "lru_lock");
	ck_assert_int_eq(json_equal(json_object_get(art, "mutexes"), want), 1);
	json_decref(want);
	ck_assert_str_eq(json_string_value(json_object_get(art, "signature")), SIG_ABBA_NAMED);
	json_decref(art);
	free(r);
}
END_TEST

START_TEST(test_sanitizers_locks_text_fallback)
{
	static const char *const one_unknown[] = {
		"== rmaptorture tsan report: lock-order-inversion mutexes 2 ==",
		"== rmaptorture tsan mutex: M0 page_table_lock ==",
		"== rmaptorture tsan mutex: M1 ? ==",
		NULL,
	};
	struct rt_san_api_block b;
	struct rt_san_report *r;
	json_t *art, *want;

	/* No hook block (a runtime without the report interface): the text's ids, unnamed. */
	ck_assert_int_eq(parse_fixture("tsan-abba.log", &r), 1);
	rt_san_name_mutexes(&r[0], NULL);
	ck_assert(!r[0].tsan_api);
	ck_assert_str_eq(r[0].signature, SIG_ABBA);
	ck_assert_str_eq(r[0].stacks[0].title,
			 "Mutex M1 acquired here while holding mutex M0 in thread T1:");
	art = rt_sanitizer_report_json(&r[0], NULL, NULL, NULL, NULL);
	ck_assert(json_is_false(json_object_get(art, "tsan_api")));
	want = json_pack("[{s:s, s:n}, {s:s, s:n}]", "id", "M1", "class", "id", "M0", "class");
	ck_assert_int_eq(json_equal(json_object_get(art, "mutexes"), want), 1);
	json_decref(want);
	json_decref(art);
	free(r);

	/* One class unknown: that one stays unnamed, the signature the text's. */
	ck_assert_int_eq(parse_fixture("tsan-abba.log", &r), 1);
	api_block(&b, one_unknown);
	rt_san_name_mutexes(&r[0], &b);
	ck_assert(r[0].tsan_api);
	ck_assert_str_eq(r[0].signature, SIG_ABBA);
	ck_assert_str_eq(r[0].stacks[0].title,
			 "Mutex M1 acquired here while holding mutex M0 (page_table_lock) in thread T1:");
	free(r);

	/* ASan's reports have no mutexes: nothing added. */
	ck_assert_int_eq(parse_fixture("asan-uaf.log", &r), 1);
	rt_san_name_mutexes(&r[0], &b);
	art = rt_sanitizer_report_json(&r[0], NULL, NULL, NULL, NULL);
	ck_assert_ptr_null(json_object_get(art, "mutexes"));
	ck_assert_ptr_null(json_object_get(art, "tsan_api"));
	json_decref(art);
	free(r);
}
END_TEST

/* The artifact's stack: does a line contain @text? */
static bool stack_line_has(json_t *art, const char *text)
{
	size_t i;
	json_t *l;

	json_array_foreach(json_object_get(art, "stack"), i, l)
		if (strstr(json_string_value(l), text))
			return true;
	return false;
}

/* A race's artifact names the classes of the mutexes the racer held. */
static void assert_race_locks_named(json_t *art, bool api)
{
	json_t *m = json_object_get(art, "mutexes"), *want;

	ck_assert(json_is_boolean(json_object_get(art, "tsan_api")));
	ck_assert(json_boolean_value(json_object_get(art, "tsan_api")) == api);
	ck_assert_int_eq(json_array_size(m), 2);
	ck_assert(stack_line_has(art, "(mutexes: write M"));
	if (!api) {
		ck_assert(json_is_null(json_object_get(json_array_get(m, 0), "class")));
		return;
	}
	want = json_pack("[s, s]", "page_table_lock", "PG_maplock");
	for (size_t i = 0; i < 2; i++)
		ck_assert_str_eq(json_string_value(json_object_get(json_array_get(m, i), "class")),
				 json_string_value(json_array_get(want, i)));
	json_decref(want);
	ck_assert(stack_line_has(art, "(page_table_lock) created at:"));
	ck_assert(stack_line_has(art, "(PG_maplock) created at:"));
	ck_assert(stack_line_has(art, " (page_table_lock), write M"));
}

START_TEST(test_sanitizers_locks_collect)
{
	char dir[] = "/tmp/rt-sancap-XXXXXX", prefix[PATH_MAX], path[PATH_MAX];
	json_t *art;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/log", dir);
	snprintf(path, sizeof(path), "%s.5", prefix);
	copy_file(RT_TEST_DATA "/tsan-locked.log", path, false);
	snprintf(path, sizeof(path), "%s.flight", prefix);
	copy_file(RT_TEST_DATA "/tsan-locked.flight", path, false);
	ck_assert_int_eq(rt_sanitizer_collect(prefix, NULL, dir, NULL, NULL, NULL), 1);
	/* A race's signature stays its racing functions'. */
	art = load_artifact(dir, "tsan", SIG_RACE);
	assert_race_locks_named(art, true);
	json_decref(art);

	/* The same report without the hook's block: the text's mutexes, unnamed. */
	rm_tree(dir);
	ck_assert_ptr_nonnull(mkdtemp(strcpy(dir, "/tmp/rt-sancap-XXXXXX")));
	snprintf(prefix, sizeof(prefix), "%s/log", dir);
	snprintf(path, sizeof(path), "%s.5", prefix);
	copy_file(RT_TEST_DATA "/tsan-locked.log", path, false);
	ck_assert_int_eq(rt_sanitizer_collect(prefix, NULL, dir, NULL, NULL, NULL), 1);
	art = load_artifact(dir, "tsan", SIG_RACE);
	assert_race_locks_named(art, false);
	ck_assert(stack_line_has(art, "Mutex M8 () created at:"));
	json_decref(art);
	rm_tree(dir);
}
END_TEST

/*
 * A lock primitive's access to a freed lock's memory: the lock named in the
 * report's signature, which its use-after-free group (keyed by the site
 * that freed it) lists.
 */
START_TEST(test_sanitizers_locks_access_named)
{
	static const char sig[] =
		"tsan:data-race:_spin_trylock(page_table_lock)|slab_obj_kill";
	static const char group_sig[] = "tsan:use-after-free:mm_free_rcu";
	char dir[] = "/tmp/rt-sancap-XXXXXX", prefix[PATH_MAX], path[PATH_MAX];
	json_t *art, *want;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(prefix, sizeof(prefix), "%s/log", dir);
	snprintf(path, sizeof(path), "%s.5", prefix);
	copy_file(RT_TEST_DATA "/tsan-lockmem.log", path, false);
	snprintf(path, sizeof(path), "%s.flight", prefix);
	copy_file(RT_TEST_DATA "/tsan-lockmem.flight", path, false);
	ck_assert_int_eq(rt_sanitizer_collect(prefix, NULL, dir, NULL, NULL, NULL), 1);
	art = load_artifact(dir, "tsan", group_sig);
	ck_assert_str_eq(json_string_value(json_object_get(json_array_get(
		json_object_get(art, "group"), 0), "signature")), sig);
	ck_assert(stack_line_has(art, "-- Previous read of size 2 in page_table_lock by thread T5"));
	/* free()'s write is to the lock's memory too, but not by a lock primitive. */
	ck_assert(stack_line_has(art, "-- Write of size 8 by thread T6"));
	want = json_pack("[s, s]", "page_table_lock", "page_table_lock");
	ck_assert_int_eq(json_equal(json_object_get(art, "accessed_locks"), want), 1);
	json_decref(want);
	json_decref(art);
	rm_tree(dir);
}
END_TEST

/* A mutex misuse (text in gcc 12's shape, made up): signed by the lock's class. */
START_TEST(test_sanitizers_locks_misuse_named)
{
	static const char text[] =
		"==================\n"
		"WARNING: ThreadSanitizer: unlock of an unlocked mutex (or by a wrong thread) (pid=7)\n"
		"    #0 __tsan_mutex_pre_unlock ../../../../src/libsanitizer/tsan/tsan_interface_ann.cpp:389 (libtsan.so.2+0x71010)\n"
		"    #1 _spin_unlock core/spinlock.h:95 (rmaptorture+0xa8c1)\n"
		"    #2 page_remove_rmap core/rmap_anonvma.c:300 (rmaptorture+0xb1c2)\n"
		"\n"
		"  Mutex M42 (0x7b0c00001230) created at:\n"
		"    #0 __tsan_mutex_create ../../../../src/libsanitizer/tsan/tsan_interface_ann.cpp:352 (libtsan.so.2+0x70a80)\n"
		"    #1 spin_lock_init core/spinlock.c:83 (rmaptorture+0xf6e7)\n"
		"    #2 anon_vma_ctor core/rmap_anonvma.c:158 (rmaptorture+0xb000)\n"
		"\n"
		"SUMMARY: ThreadSanitizer: unlock of an unlocked mutex (or by a wrong thread) core/spinlock.h:95 in _spin_unlock\n"
		"==================\n";
	static const char *const api[] = {
		"== rmaptorture tsan report: mutex-bad-unlock mutexes 1 ==",
		"== rmaptorture tsan mutex: M42 anon_vma->lock ==",
		NULL,
	};
	struct rt_san_api_block b;
	struct rt_san_report *r;

	ck_assert_int_eq(rt_san_parse(text, sizeof(text) - 1, &r), 1);
	ck_assert_str_eq(r[0].signature, "tsan:unlock-of-an-unlocked-mutex:_spin_unlock");
	api_block(&b, api);
	rt_san_name_mutexes(&r[0], &b);
	ck_assert_str_eq(r[0].signature,
			 "tsan:unlock-of-an-unlocked-mutex:anon_vma->lock,page_remove_rmap");
	ck_assert_str_eq(r[0].stacks[1].title, "Mutex M42 (anon_vma->lock) created at:");
	free(r);
}
END_TEST

START_TEST(test_sanitizers_locks_api_lines)
{
	struct rt_san_api_block b;
	char line[128];

	memset(&b, 0, sizeof(b));
	ck_assert(!rt_san_api_line("== rmaptorture flight recorder ==", &b));
	ck_assert(!rt_san_api_line("task racer-a op racy_write", &b));
	ck_assert(!b.seen);
	/* Malformed mutex lines are taken and dropped. */
	ck_assert(rt_san_api_line("== rmaptorture tsan mutex: ==", &b));
	ck_assert(rt_san_api_line("== rmaptorture tsan mutex: Mx lru_lock ==", &b));
	ck_assert(rt_san_api_line("== rmaptorture tsan mutex: M12x lru_lock ==", &b));
	ck_assert_int_eq(b.nr, 0);
	/* At most RT_SAN_MAX_MUTEXES kept. */
	for (int i = 0; i < RT_SAN_MAX_MUTEXES + 3; i++) {
		snprintf(line, sizeof(line), "== rmaptorture tsan mutex: M%d anon_vma->lock ==", i);
		ck_assert(rt_san_api_line(line, &b));
	}
	ck_assert_int_eq(b.nr, RT_SAN_MAX_MUTEXES);
	ck_assert_uint_eq(b.m[3].id, 3);
	ck_assert_str_eq(b.m[3].cls, "anon_vma->lock");
	/* Accesses in order, "?" for none; one out of order is dropped. */
	ck_assert(rt_san_api_line("== rmaptorture tsan access: 0 ? ==", &b));
	ck_assert(rt_san_api_line("== rmaptorture tsan access: 5 mmap_sem ==", &b));
	ck_assert(rt_san_api_line("== rmaptorture tsan access: 1 mmap_sem ==", &b));
	ck_assert_int_eq(b.nr_accesses, 2);
	ck_assert_str_eq(b.accessed[0], "");
	ck_assert_str_eq(b.accessed[1], "mmap_sem");
}
END_TEST

/* --- variants --------------------------------------------------------- */

START_TEST(test_sanitizers_variant_path)
{
	char path[PATH_MAX], want[PATH_MAX];
	int err;

	ck_assert_int_eq(rt_variant_path("msan", path, sizeof(path), false), -EINVAL);
	ck_assert_int_eq(rt_variant_path(NULL, path, sizeof(path), false), -EINVAL);

	setenv("RT_BUILD_ASAN", RT_RACY_PROBE_PATH, 1);
	ck_assert_int_eq(rt_variant_path("asan", path, sizeof(path), false), 0);
	ck_assert_str_eq(path, RT_RACY_PROBE_PATH);
	ck_assert_int_eq(rt_variant_path("asan", path, 8, false), -ENAMETOOLONG);
	setenv("RT_BUILD_ASAN", "/nonexistent/rmaptorture", 1);
	ck_assert_int_eq(rt_variant_path("asan", path, sizeof(path), true), -ENOENT);
	unsetenv("RT_BUILD_ASAN");

	/* The layout: <source root>/build/stress/rmaptorture, when it is there. */
	unsetenv("RT_BUILD_PLAIN");
	snprintf(want, sizeof(want), "%s/build/stress/rmaptorture", RT_SOURCE_ROOT);
	err = rt_variant_path("plain", path, sizeof(path), false);
	if (access(want, X_OK) == 0) {
		ck_assert_int_eq(err, 0);
		ck_assert_str_eq(path, want);
	} else {
		ck_assert_int_eq(err, -ENOENT);
	}
}
END_TEST

static int count_of(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

START_TEST(test_sanitizers_variant_setenv)
{
	const char *v;

	setenv("TSAN_OPTIONS", "verbosity=0:history_size=2:halt_on_error=1", 1);
	rt_variant_setenv("tsan", "/tmp/rt-x/log");
	rt_variant_setenv("tsan", "/tmp/rt-y/log");	/* replaces, never piles up */
	v = getenv("TSAN_OPTIONS");
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(count_of(v, "log_path="), 1);
	ck_assert_msg(strstr(v, "log_path=/tmp/rt-y/log"), "%s", v);
	ck_assert_msg(strstr(v, "exitcode=66"), "%s", v);
	/* What makes a run correct is built into the binary, not set here. */
	ck_assert_msg(!strstr(v, "suppressions="), "%s", v);
	/* The user's options: kept (they override the binary's defaults) ... */
	ck_assert_msg(strstr(v, "verbosity=0") && strstr(v, "history_size=2"), "%s", v);
	/* ... and before what the capture needs (ours win). */
	ck_assert(strstr(v, "halt_on_error=1") && strstr(v, "halt_on_error=0") >
		  strstr(v, "halt_on_error=1"));
	ck_assert_str_eq(getenv("RT_FLIGHT_LOG"), "/tmp/rt-y/log.flight");

	rt_variant_setenv("asan", "/tmp/rt-z/log");
	v = getenv("ASAN_OPTIONS");
	ck_assert_ptr_nonnull(v);
	ck_assert_msg(strstr(v, "log_path=/tmp/rt-z/log") && strstr(v, "exitcode=66") &&
		      strstr(v, "halt_on_error=1"), "%s", v);
	v = getenv("UBSAN_OPTIONS");
	ck_assert_ptr_nonnull(v);
	ck_assert_msg(strstr(v, "log_path=/tmp/rt-z/log") && strstr(v, "exitcode=66") &&
		      strstr(v, "halt_on_error=1"), "%s", v);
	ck_assert_str_eq(getenv("RT_FLIGHT_LOG"), "/tmp/rt-z/log.flight");
}
END_TEST

/* --- the built-in defaults (sanitizers/defaults), in the sanitizer builds - */

#if RT_TSAN || RT_ASAN
static char direct_out[1 << 16];	/* the last direct run's output */

/*
 * Run @argv with no environment but @env (NULL or one "NAME=value"), as a
 * CI job or `env -i` would: whatever the sanitizer does comes from the
 * defaults built into the binary. Return: the exit status, -1 if none.
 */
static int run_direct(char *const argv[], const char *env)
{
	char *envp[2] = { (char *)env, NULL };
	int st;

	ck_assert_msg(access(argv[0], X_OK) == 0, "no binary at %s", argv[0]);
	st = rt_run_capture_envp(argv, envp, direct_out, sizeof(direct_out));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A short run of the model that ends normally: its teardown calls rcu_barrier(). */
static int run_model_direct(const char *env)
{
	char *argv[] = { RT_BINARY_PATH, "run", "--scenario", "mixed32", "--threads", "2",
			 "--seconds", "1", "--no-progress", NULL };

	return run_direct(argv, env);
}

static int run_racy_probe_direct(const char *mode, const char *env)
{
	char *argv[] = { RT_RACY_PROBE_PATH, (char *)mode, NULL };

	return run_direct(argv, env);
}

/* The run's own verdict: audited and clean, whatever the sanitizer said. */
static void assert_model_clean(int rc, const char *what)
{
	ck_assert_msg(rc == 0, "exit %d, want 0 (%s):\n%s", rc, what, direct_out);
	ck_assert_msg(strstr(direct_out, "END: SUCCESS") &&
		      strstr(direct_out, "0 violations; reports: 0"), "%s", direct_out);
}
#endif /* RT_TSAN || RT_ASAN */

#if RT_TSAN
const char *__tsan_default_suppressions(void);

/* The built-in suppressions are tsan.supp's entries, all of them, in order. */
START_TEST(test_sanitizers_defaults_tsan_supp)
{
	char path[PATH_MAX], line[1024], want[1 << 12] = "";
	const char *off;
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sanitizers/tsan.supp", RT_SOURCE_ROOT);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *e = p + strlen(p);

		while (e > p && strchr(" \t\r\n", e[-1]))
			*--e = '\0';
		if (!*p || *p == '#')
			continue;
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%s\n", p);
		ck_assert(n < sizeof(want));
	}
	fclose(f);
	ck_assert_msg(n > 0, "%s has no entry", path);
	/* None when this process started with RT_TSAN_DEFAULT_SUPPRESSIONS=0. */
	off = getenv("RT_TSAN_DEFAULT_SUPPRESSIONS");
	ck_assert_str_eq(__tsan_default_suppressions(), off && !strcmp(off, "0") ? "" : want);
}
END_TEST

/*
 * The case: started directly, with no TSAN_OPTIONS, a run of the
 * model ends clean through rcu_barrier(). Without the built-in
 * suppressions the same run reports liburcu's false race: the test can
 * fail, and it is the suppression that makes it pass.
 */
START_TEST(test_sanitizers_defaults_tsan_barrier)
{
	int rc = run_model_direct(NULL);

	assert_model_clean(rc, "empty environment");
	ck_assert_msg(!strstr(direct_out, "WARNING: ThreadSanitizer"), "%s", direct_out);

	rc = run_model_direct("RT_TSAN_DEFAULT_SUPPRESSIONS=0");
	ck_assert_msg(rc == 66 && strstr(direct_out, "WARNING: ThreadSanitizer") &&
		      strstr(direct_out, "liburcu-memb"),
		      "exit %d, want 66 and liburcu's report:\n%s", rc, direct_out);
}
END_TEST

/*
 * A real race is still reported with the defaults alone, which halt at
 * the first report (mode many makes two); the environment overrides them.
 */
START_TEST(test_sanitizers_defaults_tsan_race)
{
	int rc = run_racy_probe_direct("race", NULL);

	ck_assert_msg(rc == 66, "exit %d:\n%s", rc, direct_out);
	ck_assert_msg(strstr(direct_out, "WARNING: ThreadSanitizer: data race") &&
		      strstr(direct_out, "racy_probe_writer_"), "%s", direct_out);

	rc = run_racy_probe_direct("many", NULL);
	ck_assert_msg(rc == 66 && count_of(direct_out, "WARNING: ThreadSanitizer: data race") == 1,
		      "exit %d, want 66 and one report (halt_on_error=1):\n%s", rc, direct_out);
	rc = run_racy_probe_direct("many", "TSAN_OPTIONS=halt_on_error=0:exitcode=7");
	ck_assert_msg(rc == 7 && count_of(direct_out, "WARNING: ThreadSanitizer: data race") == 2,
		      "exit %d, want 7 and two reports (TSAN_OPTIONS wins):\n%s", rc, direct_out);

	rc = run_racy_probe_direct("clean", NULL);
	ck_assert_msg(rc == 0 && !strstr(direct_out, "ThreadSanitizer"), "exit %d:\n%s", rc,
		      direct_out);
}
END_TEST
#endif /* RT_TSAN */

#if RT_ASAN
/* Started directly, a run of the model ends clean under ASan and UBSan. */
START_TEST(test_sanitizers_defaults_asan_clean)
{
	int rc = run_model_direct(NULL);

	assert_model_clean(rc, "empty environment");
	ck_assert_msg(!strstr(direct_out, "Sanitizer") && !strstr(direct_out, "runtime error"),
		      "%s", direct_out);
}
END_TEST

/*
 * The defaults alone: ASan, LeakSanitizer and UBSan findings exit 66 (their
 * own default is 1), UBSan prints the stack; the environment overrides.
 */
START_TEST(test_sanitizers_defaults_asan_findings)
{
	int rc = run_racy_probe_direct("uaf", NULL);

	ck_assert_msg(rc == 66 && strstr(direct_out, "ERROR: AddressSanitizer: heap-use-after-free"),
		      "exit %d:\n%s", rc, direct_out);
	rc = run_racy_probe_direct("uaf", "ASAN_OPTIONS=exitcode=7");
	ck_assert_msg(rc == 7, "exit %d, want 7 (ASAN_OPTIONS wins):\n%s", rc, direct_out);

	rc = run_racy_probe_direct("leak", NULL);
	ck_assert_msg(rc == 66 && strstr(direct_out, "ERROR: LeakSanitizer: detected memory leaks"),
		      "exit %d:\n%s", rc, direct_out);

	rc = run_racy_probe_direct("overflow", NULL);
	ck_assert_msg(rc == 66 && strstr(direct_out, "runtime error: signed integer overflow"),
		      "exit %d:\n%s", rc, direct_out);
	ck_assert_msg(strstr(direct_out, "in racy_probe_overflow"),
		      "no stack (print_stacktrace=1):\n%s", direct_out);
	rc = run_racy_probe_direct("overflow", "UBSAN_OPTIONS=print_stacktrace=0");
	ck_assert_msg(rc == 66 && strstr(direct_out, "runtime error:") &&
		      !strstr(direct_out, "in racy_probe_overflow"),
		      "exit %d, want no stack (UBSAN_OPTIONS wins):\n%s", rc, direct_out);
}
END_TEST
#endif /* RT_ASAN */

/* --- the probes, in the sanitizer builds --------------------------------- */

#if RT_TSAN || RT_ASAN
static char last_output[1 << 12];	/* the last probe's mode and output */

/*
 * Run racy_probe @mode under rt_variant_setenv()'s environment for this
 * build, collect into a fresh directory's out/; the probe's exit status.
 */
static int run_probe(const char *mode, char *dir, char *out, size_t len,
		     int *nr, int *nr_new, int *nr_repeat)
{
	const char *env = getenv("RT_RACY_PROBE");
	char probe[PATH_MAX], prefix[PATH_MAX], output[1 << 14];
	char *argv[3] = { probe, (char *)mode, NULL };
	json_t *ctx = test_context();
	int st;

	snprintf(probe, sizeof(probe), "%s", env && *env ? env : RT_RACY_PROBE_PATH);
	ck_assert_msg(access(probe, X_OK) == 0, "no probe at %s", probe);
	if (!dir[0]) {
		snprintf(dir, PATH_MAX, "/tmp/rt-sanprobe-XXXXXX");
		ck_assert_ptr_nonnull(mkdtemp(dir));
	}
	snprintf(prefix, sizeof(prefix), "%s/%s", dir, mode);
	snprintf(out, len, "%s/out", dir);
	mkdir(out, 0755);
	rt_sanitizer_logs_remove(prefix);
	rt_variant_setenv(RT_BUILD_KIND, prefix);
	st = rt_run_capture(argv, NULL, output, sizeof(output));
	*nr = rt_sanitizer_collect(prefix, ctx, out, NULL, nr_new, nr_repeat);
	json_decref(ctx);
	ck_assert_msg(*nr >= 0, "collect: %d; probe output:\n%s", *nr, output);
	snprintf(last_output, sizeof(last_output), "%s: %s", mode, output);
	return st;
}

#if RT_ASAN
static void assert_probe(const char *mode, const char *kind, const char *sig,
			 const char *task, const char *op)
{
	char dir[PATH_MAX] = "", out[PATH_MAX];
	int nr, nr_new, nr_repeat, st;
	json_t *art;

	st = run_probe(mode, dir, out, sizeof(out), &nr, &nr_new, &nr_repeat);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 66, "status %#x, %s", st, last_output);
	ck_assert_int_eq(nr, 1);
	ck_assert_int_eq(nr_new, 1);
	art = load_artifact(out, kind, sig);
	if (task)
		ck_assert_str_eq(json_string_value(json_object_get(art, "task")), task);
	if (op)
		ck_assert_str_eq(json_string_value(json_object_get(art, "op")), op);
	else
		ck_assert(json_is_null(json_object_get(art, "op")));
	/* The hook's block is there; at exit (LSan) it holds no task. */
	ck_assert(json_is_array(json_object_get(art, "flight")));
	if (task && *task)
		ck_assert_int_ge(json_array_size(json_object_get(art, "flight")), 1);
	ck_assert_str_eq(json_string_value(json_object_get(art, "build")), RT_BUILD_KIND);
	json_decref(art);
	rm_tree(dir);
}
#endif /* RT_ASAN */
#endif /* RT_TSAN || RT_ASAN */

#if RT_TSAN
START_TEST(test_sanitizers_tsan_probe)
{
	char dir[PATH_MAX] = "", out[PATH_MAX];
	int nr, nr_new, nr_repeat, st;
	const char *task;
	json_t *art;

	/* The test: a real run's race, parsed into the expected signature. */
	st = run_probe("race", dir, out, sizeof(out), &nr, &nr_new, &nr_repeat);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 66, "status %#x, %s", st, last_output);
	ck_assert_int_eq(nr, 1);
	ck_assert_int_eq(nr_new, 1);
	art = load_artifact(out, "tsan", SIG_RACE);
	/* racer-b writes second: its access is the one TSan reports at. */
	task = json_string_value(json_object_get(art, "task"));
	ck_assert_msg(!strcmp(task, "racer-b"), "task %s", task);
	ck_assert_str_eq(json_string_value(json_object_get(art, "op")), "racy_write");
	ck_assert_int_eq(json_array_size(json_object_get(art, "flight")), 3);
	json_decref(art);

	/* Run again: the same signature, a repeat. */
	st = run_probe("race", dir, out, sizeof(out), &nr, &nr_new, &nr_repeat);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 66, "status %#x, %s", st, last_output);
	ck_assert_int_eq(nr_repeat, 1);
	art = load_artifact(out, "tsan", SIG_RACE);
	ck_assert_int_eq(json_integer_value(json_object_get(art, "count")), 2);
	json_decref(art);

	/* Two races in one run (halt_on_error=0): two reports, two hook blocks. */
	st = run_probe("many", dir, out, sizeof(out), &nr, &nr_new, &nr_repeat);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 66, "status %#x, %s", st, last_output);
	ck_assert_int_eq(nr, 2);
	ck_assert_int_eq(nr_new, 1);
	ck_assert_int_eq(nr_repeat, 1);
	art = load_artifact(out, "tsan", SIG_RACE2);
	ck_assert_str_eq(json_string_value(json_object_get(art, "op")), "racy_write_other");
	json_decref(art);

	/* Two reports of one signature in one run: one artifact listing both. */
	st = run_probe("signal", dir, out, sizeof(out), &nr, &nr_new, &nr_repeat);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 66, "status %#x, %s", st, last_output);
	ck_assert_int_eq(nr, 2);
	ck_assert_int_eq(nr_new, 1);
	ck_assert_int_eq(nr_repeat, 0);
	art = load_artifact(out, "tsan", "tsan:signal-unsafe-call:racy_probe_on_signal");
	ck_assert_int_eq(json_integer_value(json_object_get(art, "count")), 1);
	ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(
		json_object_get(art, "group"), 0), "count")), 2);
	ck_assert_str_eq(json_string_value(json_object_get(art, "task")), "prober");
	ck_assert_str_eq(json_string_value(json_object_get(art, "op")), "racy_signal");
	json_decref(art);

	/* The writes ordered: nothing reported, nothing saved. */
	st = run_probe("clean", dir, out, sizeof(out), &nr, &nr_new, &nr_repeat);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x, %s", st, last_output);
	ck_assert_int_eq(nr, 0);
	ck_assert_int_eq(count_artifacts(out), 3);
	rm_tree(dir);
}
END_TEST
#endif

#if RT_TSAN
/* The test: a real race names its lock classes; so does an inversion. */
START_TEST(test_sanitizers_tsan_probe_locks)
{
	char dir[PATH_MAX] = "", out[PATH_MAX];
	int nr, nr_new, nr_repeat, st;
	json_t *art;

	st = run_probe("locked", dir, out, sizeof(out), &nr, &nr_new, &nr_repeat);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 66, "status %#x, %s", st, last_output);
	ck_assert_int_eq(nr, 1);
	art = load_artifact(out, "tsan", SIG_RACE);
	assert_race_locks_named(art, true);
	json_decref(art);

	st = run_probe("abba", dir, out, sizeof(out), &nr, &nr_new, &nr_repeat);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 66, "status %#x, %s", st, last_output);
	ck_assert_int_eq(nr, 1);
	art = load_artifact(out, "tsan", SIG_ABBA_PROBE);
	ck_assert(json_is_true(json_object_get(art, "tsan_api")));
	ck_assert(stack_line_has(art, "(lru_lock) acquired here while holding mutex M"));
	json_decref(art);
	rm_tree(dir);
}
END_TEST
#endif

#if RT_ASAN
START_TEST(test_sanitizers_asan_probe)
{
	assert_probe("uaf", "asan", SIG_UAF_GROUP, "prober", "racy_uaf");
}
END_TEST

/* gcc's separate libubsan: its log and death callback reached by hooks.c. */
START_TEST(test_sanitizers_ubsan_probe)
{
	assert_probe("overflow", "ubsan", SIG_OVERFLOW, "prober", "racy_overflow");
}
END_TEST

START_TEST(test_sanitizers_lsan_probe)
{
	/* At exit: the tasks are gone, the hook still writes its block. */
	assert_probe("leak", "lsan", SIG_LEAK, "", NULL);
}
END_TEST
#endif

int main(void)
{
	Suite *s = suite_create("sanitizers");
	TCase *tc;

	tc = tcase_create("parse");
	tcase_set_timeout(tc, rt_tmo(30));
	tcase_add_test(tc, test_sanitizers_tsan_race);
	tcase_add_test(tc, test_sanitizers_tsan_many);
	tcase_add_test(tc, test_sanitizers_tsan_deadlock);
	tcase_add_test(tc, test_sanitizers_tsan_other_types);
	tcase_add_test(tc, test_sanitizers_asan_uaf);
	tcase_add_test(tc, test_sanitizers_ubsan_lsan);
	tcase_add_test(tc, test_sanitizers_clang_runtime);
	tcase_add_test(tc, test_sanitizers_signature_stable);
	tcase_add_test(tc, test_sanitizers_ubsan_types);
	tcase_add_test(tc, test_sanitizers_garbage);
	tcase_add_test(tc, test_sanitizers_signature_no_address);
	suite_add_tcase(s, tc);

	tc = tcase_create("group");
	tcase_set_timeout(tc, rt_tmo(30));
	tcase_add_test(tc, test_sanitizers_group_uaf);
	tcase_add_test(tc, test_sanitizers_group_asan_uaf);
	tcase_add_test(tc, test_sanitizers_group_reuse);
	tcase_add_test(tc, test_sanitizers_group_walk);
	suite_add_tcase(s, tc);

	tc = tcase_create("terminal");
	tcase_set_timeout(tc, rt_tmo(30));
	tcase_add_test(tc, test_sanitizers_print_first);
	suite_add_tcase(s, tc);

	tc = tcase_create("capture");
	tcase_set_timeout(tc, rt_tmo(30));
	tcase_add_test(tc, test_sanitizers_collect_dedupe);
	tcase_add_test(tc, test_sanitizers_collect_many);
	tcase_add_test(tc, test_sanitizers_collect_groups);
	suite_add_tcase(s, tc);

	tc = tcase_create("locks");
	tcase_set_timeout(tc, rt_tmo(30));
	tcase_add_test(tc, test_sanitizers_locks_inversion_named);
	tcase_add_test(tc, test_sanitizers_locks_text_fallback);
	tcase_add_test(tc, test_sanitizers_locks_api_lines);
	tcase_add_test(tc, test_sanitizers_locks_collect);
	tcase_add_test(tc, test_sanitizers_locks_access_named);
	tcase_add_test(tc, test_sanitizers_locks_misuse_named);
	suite_add_tcase(s, tc);

	tc = tcase_create("variant");
	tcase_set_timeout(tc, rt_tmo(30));
	tcase_add_test(tc, test_sanitizers_variant_path);
	tcase_add_test(tc, test_sanitizers_variant_setenv);
	suite_add_tcase(s, tc);

#if RT_TSAN || RT_ASAN
	/* Child runs of the model and the probe: in the sanitizer builds only. */
	tc = tcase_create("defaults");
	tcase_set_timeout(tc, rt_tmo(60));
#if RT_TSAN
	tcase_add_test(tc, test_sanitizers_defaults_tsan_supp);
	tcase_add_test(tc, test_sanitizers_defaults_tsan_barrier);
	tcase_add_test(tc, test_sanitizers_defaults_tsan_race);
#else
	tcase_add_test(tc, test_sanitizers_defaults_asan_clean);
	tcase_add_test(tc, test_sanitizers_defaults_asan_findings);
#endif
	suite_add_tcase(s, tc);

	tc = tcase_create("probe");
	tcase_set_timeout(tc, rt_tmo(60));
# if RT_TSAN
	tcase_add_test(tc, test_sanitizers_tsan_probe);
	tcase_add_test(tc, test_sanitizers_tsan_probe_locks);
# endif
# if RT_ASAN
	tcase_add_test(tc, test_sanitizers_asan_probe);
	tcase_add_test(tc, test_sanitizers_ubsan_probe);
	tcase_add_test(tc, test_sanitizers_lsan_probe);
# endif
	suite_add_tcase(s, tc);
#endif
	return rt_check_main(s);
}
