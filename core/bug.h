/* SPDX-License-Identifier: MIT */
/*
 * Structured failure reports of the emulated kernel: BUG_ON/WARN_ON,
 * lockdep, sleeping in atomic context, and (later) audit violations.
 *
 * Every report is a struct vm_report handed to one sink. The harness
 * installs a sink that turns it into a failure artifact; the default sink
 * prints it. BUG_ON is always compiled in (never assert()), and after the
 * sink has seen a BUG the process aborts, as an oops would kill the task.
 */
#ifndef RT_CORE_BUG_H
#define RT_CORE_BUG_H

#include <stdbool.h>
#include <stdio.h>

#include "compiler.h"

enum vm_report_kind {
	VM_REPORT_BUG,
	VM_REPORT_WARN,
	VM_REPORT_LOCKDEP_CYCLE,	/* a dependency cycle: possible deadlock */
	VM_REPORT_LOCKDEP_ORDER,	/* an edge against the documented order */
	VM_REPORT_LOCKDEP_RECURSION,	/* same class again, no nesting level */
	VM_REPORT_LOCKDEP_UNHELD,	/* release of a lock this task does not hold */
	VM_REPORT_ATOMIC_SLEEP,		/* sleeping lock or allocation in atomic context */
	VM_REPORT_AUDIT,		/* an invariant of the model broken */
	VM_REPORT_HANG,			/* the watchdog saw no progress */
	VM_REPORT_NR
};

#define VM_REPORT_MAX_SITES	4
#define VM_REPORT_MAX_HELD	16

/* One place in the source, and what was taken or done there. */
struct vm_report_site {
	const char *what;	/* lock class name, or a role such as "holder" */
	const char *file;
	int line;
};

struct vm_report {
	enum vm_report_kind kind;
	char message[256];
	/* Stable across runs: kind and names only, never addresses. */
	char signature[192];
	char task[24];		/* the reporting thread's name */
	const char *op;		/* the operation in flight, or NULL */
	int nr_sites;
	struct vm_report_site sites[VM_REPORT_MAX_SITES];
	int nr_held;		/* the reporting thread's held locks */
	struct vm_report_site held[VM_REPORT_MAX_HELD];
};

typedef void (*vm_report_sink_fn)(const struct vm_report *report, void *arg);

/**
 * vm_report_set_sink() - route every report to @fn (NULL: the default printer)
 * @fn: called once per report, in the reporting thread
 * @arg: passed back to @fn
 *
 * Context: any; not while reports are being emitted by other threads.
 */
void vm_report_set_sink(vm_report_sink_fn fn, void *arg);

/**
 * vm_report_emit() - fill in the task, op and held locks, count, and sink
 * @r: the report; kind, message, signature and sites set by the caller
 *
 * Context: any; takes no emulated lock.
 */
void vm_report_emit(struct vm_report *r);

/* Number of reports of @kind emitted since start (or the last reset). */
unsigned long vm_report_count(enum vm_report_kind kind);
void vm_report_reset_counts(void);
const char *vm_report_kind_name(enum vm_report_kind kind);
void vm_report_print(FILE *f, const struct vm_report *r);

__attribute__((noreturn))
void __vm_bug(const char *file, int line, const char *cond);
bool __vm_warn(const char *file, int line, const char *cond);

#define BUG() __vm_bug(__FILE__, __LINE__, "BUG()")
#define BUG_ON(cond) do {						\
	if (unlikely(cond))						\
		__vm_bug(__FILE__, __LINE__, #cond);			\
} while (0)
#define VM_BUG_ON(cond) BUG_ON(cond)
/* Reports once per occurrence and evaluates to the condition. */
#define WARN_ON(cond) ({						\
	bool __w = !!(cond);						\
	if (unlikely(__w))						\
		__vm_warn(__FILE__, __LINE__, #cond);			\
	__w;								\
})

#endif /* RT_CORE_BUG_H */
