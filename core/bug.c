// SPDX-License-Identifier: MIT
/*
 * The report path: every BUG, WARN, lockdep and atomic-sleep report of the
 * emulated kernel passes through vm_report_emit() to one sink.
 */
#include "bug.h"

#include <stdlib.h>
#include <string.h>

#include "lockdep.h"
#include "task.h"

static vm_report_sink_fn report_sink;	/* set while single-threaded */
static void *report_sink_arg;
static vm_oops_fn oops_handler;		/* set while single-threaded */
static void *oops_handler_arg;

_Static_assert(VM_REPORT_MAX_HELD >= MAX_LOCK_DEPTH,
	       "a report lists every lock a task can hold");
static unsigned long report_counts[VM_REPORT_NR];	/* relaxed atomics */

static const char *const kind_names[VM_REPORT_NR] = {
	[VM_REPORT_BUG] = "bug",
	[VM_REPORT_WARN] = "warn",
	[VM_REPORT_LOCKDEP_CYCLE] = "lockdep-cycle",
	[VM_REPORT_LOCKDEP_ORDER] = "lockdep-order",
	[VM_REPORT_LOCKDEP_RECURSION] = "lockdep-recursion",
	[VM_REPORT_LOCKDEP_UNHELD] = "lockdep-unheld-release",
	[VM_REPORT_ATOMIC_SLEEP] = "atomic-sleep",
	[VM_REPORT_AUDIT] = "audit",
	[VM_REPORT_HANG] = "hang",
};

const char *vm_report_kind_name(enum vm_report_kind kind)
{
	return (unsigned)kind < VM_REPORT_NR ? kind_names[kind] : "unknown";
}

void vm_report_set_sink(vm_report_sink_fn fn, void *arg)
{
	__atomic_store_n(&report_sink_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&report_sink, fn, __ATOMIC_RELEASE);
}

void vm_oops_set_handler(vm_oops_fn fn, void *arg)
{
	__atomic_store_n(&oops_handler_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&oops_handler, fn, __ATOMIC_RELEASE);
}

unsigned long vm_report_count(enum vm_report_kind kind)
{
	return __atomic_load_n(&report_counts[kind], __ATOMIC_RELAXED);
}

void vm_report_reset_counts(void)
{
	for (int i = 0; i < VM_REPORT_NR; i++)
		__atomic_store_n(&report_counts[i], 0, __ATOMIC_RELAXED);
}

/* "cpu-0 in fork holding mmap_sem (core/fork.c:26) page_table_lock (...)" */
static void print_task(FILE *f, const struct vm_report_task *t)
{
	fprintf(f, "task %s in %s", t->task, t->op ? t->op : "?");
	if (t->events >= 0)
		fprintf(f, " (%ld events in it)", t->events);
	fputs(" holding", f);
	for (int i = 0; i < t->nr_held; i++)
		fprintf(f, " %s (%s:%d)", t->held[i].what,
			t->held[i].file ? t->held[i].file : "?", t->held[i].line);
	fprintf(f, "%s\n", t->nr_held ? "" : " nothing");
}

void vm_report_print(FILE *f, const struct vm_report *r)
{
	fprintf(f, "=== rmaptorture report: %s ===\n", vm_report_kind_name(r->kind));
	fprintf(f, "message:   %s\n", r->message);
	fprintf(f, "signature: %s\n", r->signature);
	fprintf(f, "task:      %s%s%s\n", r->task, r->op ? " in " : "", r->op ? r->op : "");
	for (int i = 0; i < r->nr_sites; i++)
		fprintf(f, "site %d:    %s at %s:%d\n", i, r->sites[i].what,
			r->sites[i].file ? r->sites[i].file : "?", r->sites[i].line);
	if (r->nr_held)
		fprintf(f, "held locks (%d):\n", r->nr_held);
	for (int i = 0; i < r->nr_held; i++)
		fprintf(f, "  #%d %s at %s:%d\n", i, r->held[i].what,
			r->held[i].file ? r->held[i].file : "?", r->held[i].line);
	for (int i = 0; i < r->nr_tasks; i++)
		print_task(f, &r->tasks[i]);
	fflush(f);
}

void vm_report_emit(struct vm_report *r)
{
	struct task_struct *t = current_task;
	vm_report_sink_fn sink;

	if (t) {
		snprintf(r->task, sizeof(r->task), "%s", t->comm);
		r->op = READ_ONCE(t->op);
		r->nr_held = 0;
		for (int i = 0; i < t->lockdep_depth && i < VM_REPORT_MAX_HELD; i++) {
			const struct held_lock *h = &t->held_locks[i];

			r->held[r->nr_held++] = (struct vm_report_site){
				.what = lock_class_name(h->class_id),
				.file = h->file, .line = h->line };
		}
	} else {
		snprintf(r->task, sizeof(r->task), "?");
	}
	__atomic_fetch_add(&report_counts[r->kind], 1, __ATOMIC_RELAXED);
	/* Acquire pairs with the release in vm_report_set_sink(). */
	sink = __atomic_load_n(&report_sink, __ATOMIC_ACQUIRE);
	if (sink)
		sink(r, __atomic_load_n(&report_sink_arg, __ATOMIC_RELAXED));
	else
		vm_report_print(stderr, r);
}

static void report_at(enum vm_report_kind kind, const char *file, int line,
		      const char *cond, struct vm_report *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	snprintf(r->message, sizeof(r->message), "%s: %s at %s:%d",
		 kind == VM_REPORT_BUG ? "BUG" : "WARNING", cond, file, line);
	snprintf(r->signature, sizeof(r->signature), "%s:%s:%s",
		 vm_report_kind_name(kind), file, cond);
	r->nr_sites = 1;
	r->sites[0] = (struct vm_report_site){ .what = cond, .file = file, .line = line };
	vm_report_emit(r);
}

void _vm_bug(const char *file, int line, const char *cond)
{
	vm_oops_fn oops;
	struct vm_report r;

	report_at(VM_REPORT_BUG, file, line, cond, &r);
	/*
	 * An oops kills the task with its locks held: nothing sane follows
	 * in this task. Acquire pairs with the release in
	 * vm_oops_set_handler().
	 */
	oops = __atomic_load_n(&oops_handler, __ATOMIC_ACQUIRE);
	if (oops)
		oops(&r, __atomic_load_n(&oops_handler_arg, __ATOMIC_RELAXED));
	/*
	 * The default oops aborts the process. A sink (a test's capture)
	 * kept the report to itself: print it too, with the held locks, so
	 * that the log of whatever aborted names the BUG.
	 */
	if (__atomic_load_n(&report_sink, __ATOMIC_ACQUIRE))
		vm_report_print(stderr, &r);
	abort();
}

bool _vm_warn(const char *file, int line, const char *cond)
{
	struct vm_report r;

	report_at(VM_REPORT_WARN, file, line, cond, &r);
	return true;
}
