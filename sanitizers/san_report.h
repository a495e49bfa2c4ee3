/* SPDX-License-Identifier: MIT */
/*
 * Sanitizer report text (ThreadSanitizer, AddressSanitizer, LeakSanitizer,
 * UndefinedBehaviorSanitizer, as gcc's libsanitizer and compiler-rt print
 * them) parsed into reports with a signature that is stable across runs:
 * the failure artifact of a sanitizer finding is keyed on it.
 *
 * The parser is line based and bounded: any text, garbage included, is
 * accepted; what is not a report header yields no report. Long lines and
 * deep stacks are truncated, never overrun.
 */
#ifndef RT_SANITIZERS_SAN_REPORT_H
#define RT_SANITIZERS_SAN_REPORT_H

#include <stdbool.h>
#include <stddef.h>

enum rt_san_kind {
	RT_SAN_TSAN,
	RT_SAN_ASAN,
	RT_SAN_UBSAN,
	RT_SAN_LSAN,
};

#define RT_SAN_MAX_STACKS	8	/* stacks kept per report */
#define RT_SAN_MAX_FRAMES	24	/* frames kept per stack */
#define RT_SAN_SIG_LEN		512
#define RT_SAN_MAX_MUTEXES	8	/* mutexes kept per report (san_report_locks.h) */
#define RT_SAN_MAX_ACCESSES	4	/* memory accesses named per report (idem) */

struct rt_san_frame {
	char func[96];		/* "racy_probe_writer_a"; "" when unknown */
	char loc[128];		/* "../tests/racy_probe.c:30" or "(libc.so.6+0x29d90)" */
	unsigned char skip;	/* a sanitizer runtime, libc or hook frame */
};

struct rt_san_stack {
	char title[160];	/* "Write of size 4 by thread T2:", addresses removed */
	unsigned char primary;	/* part of the finding (not thread creation, not location) */
	int nr;
	struct rt_san_frame f[RT_SAN_MAX_FRAMES];
};

/* A mutex of a TSan report: its id, and its lock class where known. */
struct rt_san_mutex {
	unsigned long id;	/* TSan's "M1181" */
	char cls[40];		/* "PG_maplock"; "" when unknown */
};

struct rt_san_report {
	enum rt_san_kind kind;
	char type[64];		/* "data-race", "heap-use-after-free", "runtime-error:..." */
	char message[384];	/* header without addresses or pid, then the first two frames */
	char signature[RT_SAN_SIG_LEN];
	char task[32];		/* thread name the sanitizer printed for the first stack, or "" */
	char summary[256];	/* the SUMMARY: line, or "" */
	int nr_stacks;
	struct rt_san_stack stacks[RT_SAN_MAX_STACKS];
	/* The mutexes, named by class (san_report_locks.h: rt_san_name_mutexes()). */
	int nr_mutexes;
	struct rt_san_mutex mutexes[RT_SAN_MAX_MUTEXES];
	bool tsan_api;		/* classes from TSan's report interface, not the text alone */
	/* The lock each memory access (the I-th access stack) touched, "" for none. */
	int nr_accesses;
	char accessed[RT_SAN_MAX_ACCESSES][40];
};

/* "tsan", "asan", "ubsan", "lsan": the artifact kind of @kind. */
const char *rt_san_kind_name(enum rt_san_kind kind);

/**
 * rt_san_parse() - parse every report in sanitizer output @text
 * @text, @len: the text (need not be NUL-terminated; NUL bytes are garbage)
 * @reps: receives a malloc()ed array of the reports, in order (NULL when none)
 *
 * A report starts at "WARNING: ThreadSanitizer: TYPE", "ERROR: <X>Sanitizer:
 * TYPE" or "FILE:LINE:COL: runtime error: TEXT", and runs to its SUMMARY:
 * line, the next report's header or the end of the text.
 *
 * Context: any; allocates. Return: the number of reports, or -ENOMEM.
 */
int rt_san_parse(const char *text, size_t len, struct rt_san_report **reps);

/**
 * rt_san_parse_file() - rt_san_parse() on the contents of @path
 * Return: the number of reports, -errno when @path cannot be read.
 */
int rt_san_parse_file(const char *path, struct rt_san_report **reps);

/**
 * rt_san_signature() - recompute @rep->signature from its kind, type and stacks
 *
 * "KIND:TYPE:STACKS", STACKS the primary stacks joined by '|', each its
 * top function names (skipping sanitizer runtime, libc and report-hook
 * frames; two names joined by ',' for a lock-order-inversion, whose top
 * frame is the lock primitive; one otherwise). TSan's stacks are
 * symmetric (which thread of a race reports it is timing), so theirs are
 * sorted; ASan's keep their roles (access, free, allocation). No
 * addresses, pids, thread ids or line numbers: stable across runs. Where
 * the report's locks are named (rt_san_name_mutexes()), a report about
 * locks names their classes instead of the lock primitive's frame
 * (san_lock_signature_part()). rt_san_parse() calls it; exposed for tests.
 */
void rt_san_signature(struct rt_san_report *rep);

/*
 * A root cause: the reports of one run that one bug explains (one
 * artifact). A use-after-free's reports go together by the site that
 * freed the object (the first frame of the free stack, else of the
 * allocation stack, beyond libc's and the model's allocator), whichever
 * access touched it and whether ASan (use-after-free, or use-after-poison
 * of a dead slab object) or TSan (a race with free(), with the block's
 * allocation once it was handed out again, or with its construction where
 * a use-after-free of the run made the same access) saw it, and with the
 * use-after-frees that made the same access; any other report is its
 * signature's own group (san_report_group.c).
 */
struct rt_san_group {
	char signature[RT_SAN_SIG_LEN];	/* "tsan:use-after-free:vm_area_free": stable across runs */
	char title[256];		/* "TSan: use-after-free Read in page_referenced_anon_one" */
	int first;			/* the index of the report that keys and titles it */
	int nr;				/* its reports */
};

/**
 * rt_san_group_key() - the signature of @rep's group into @key
 *
 * "KIND:use-after-free:SITE" for a use-after-free, whichever type the
 * sanitizer gave it ("tsan:use-after-free:vm_area_free" for TSan's
 * heap-use-after-free and its race with free() alike,
 * "asan:use-after-free:vm_area_alloc" for a dead slab object's
 * use-after-poison), else @rep->signature. Made of
 * function names only, as the signature is: stable across runs.
 */
void rt_san_group_key(const struct rt_san_report *rep, char *key, size_t len);

/**
 * rt_san_title() - a one-line title of @rep, as syzbot titles its crashes
 *
 * "TSan: use-after-free Read in page_referenced_anon_one" (the access and
 * its first model frame), "TSan: data-race in a / b" (KCSAN's), "ASan:
 * heap-buffer-overflow Write in f", "UBSan: runtime-error:... in f".
 */
void rt_san_title(const struct rt_san_report *rep, char *buf, size_t len);

/**
 * rt_san_group() - group the @nr reports @reps of one run by root cause
 * @group_of: receives each report's group index (NULL: not wanted)
 * @groups: receives a malloc()ed array of the groups, in the order of
 *	their first reports (NULL when none); each keyed and titled by one
 *	report (@first): a use-after-free with a free stack where it has one
 *
 * Context: any; allocates. Return: the number of groups, or -ENOMEM.
 */
int rt_san_group(const struct rt_san_report *reps, int nr, int *group_of,
		 struct rt_san_group **groups);

#endif /* RT_SANITIZERS_SAN_REPORT_H */
