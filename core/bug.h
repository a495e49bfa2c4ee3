/* SPDX-License-Identifier: MIT */
/*
 * Structured failure reports of the emulated kernel: BUG_ON/WARN_ON,
 * lockdep, sleeping in atomic context, and (later) audit violations.
 *
 * Every report is a struct vm_report handed to one sink. The harness
 * installs a sink that turns it into a failure artifact; the default sink
 * prints it. BUG_ON is always compiled in (never assert()). After the sink
 * has seen a BUG the task is finished, as an oops kills it with its locks
 * held: the oops handler (the harness's) takes it out of the model for
 * good; without one the process aborts.
 *
 * Paths (a site's file, __FILE__) are the path from the project root: the
 * build maps them (meson.build), so reports read the same from any build
 * directory.
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
#define VM_REPORT_MAX_HELD	24	/* a task's whole held-lock stack (MAX_LOCK_DEPTH) */

/* One place in the source, and what was taken or done there. */
struct vm_report_site {
	const char *what;	/* lock class name, or a role such as "holder" */
	const char *file;
	int line;
};

/* One task as a report about every task (a hang) describes it. */
struct vm_report_task {
	char task[24];		/* its name */
	const char *op;		/* the operation in flight, or NULL */
	/*
	 * Flight recorder events (locks, yields, decisions) since @op began:
	 * a task that loops waiting for one that cannot run shows millions;
	 * -1 with the recorder off (--no-flight).
	 */
	long events;
	int nr_held;
	struct vm_report_site held[VM_REPORT_MAX_HELD];
};

struct vm_report {
	enum vm_report_kind kind;
	char message[256];	/* a headline: the lists below are kept apart */
	/* Stable across runs: kind and names only, never addresses. */
	char signature[192];
	char task[24];		/* the reporting thread's name */
	const char *op;		/* the operation in flight, or NULL */
	int nr_sites;
	struct vm_report_site sites[VM_REPORT_MAX_SITES];
	int nr_held;		/* the reporting thread's held locks */
	struct vm_report_site held[VM_REPORT_MAX_HELD];
	/*
	 * Every task's state, however many (a hang names each CPU's held
	 * locks): owned by the reporter, valid while the sink runs; a copy
	 * kept after the sink returned has none.
	 */
	int nr_tasks;
	const struct vm_report_task *tasks;
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

/*
 * What becomes of a task after its BUG report: never returns. It plays
 * do_exit() after an oops: the task leaves the model for good, its locks
 * still held.
 */
typedef void (*vm_oops_fn)(const struct vm_report *report, void *arg)
	__attribute__((noreturn));

/**
 * vm_oops_set_handler() - route every task that hits BUG() to @fn
 * @fn: called in the task that hit it, after its report reached the sink;
 *	NULL: abort the process (the default, for unit tests and tools)
 * @arg: passed back to @fn
 *
 * Context: any; not while reports are being emitted by other threads.
 */
void vm_oops_set_handler(vm_oops_fn fn, void *arg);

__attribute__((noreturn))
void _vm_bug(const char *file, int line, const char *cond);
bool _vm_warn(const char *file, int line, const char *cond);

#define BUG() _vm_bug(__FILE__, __LINE__, "BUG()")
#define BUG_ON(cond) do {						\
	if (unlikely(cond))						\
		_vm_bug(__FILE__, __LINE__, #cond);			\
} while (0)
#define VM_BUG_ON(cond) BUG_ON(cond)
/* Reports once per occurrence and evaluates to the condition. */
#define WARN_ON(cond) ({						\
	bool __w = !!(cond);						\
	if (unlikely(__w))						\
		_vm_warn(__FILE__, __LINE__, #cond);			\
	__w;								\
})

#endif /* RT_CORE_BUG_H */
