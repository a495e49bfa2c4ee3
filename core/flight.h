/* SPDX-License-Identifier: MIT */
/*
 * The flight recorder: a per-task ring of the last operations, lock
 * events and scheduling points, cheap enough to stay on in every run (a
 * handful of relaxed stores per event). Dumped into every failure
 * artifact, and by the sanitizer report hooks, so that a report arrives
 * with what each thread was doing just before.
 *
 * The owner writes its ring with relaxed atomics; a dumper reads other
 * rings while they are written, so an entry may be torn: the dump is
 * evidence, not an invariant.
 */
#ifndef RT_CORE_FLIGHT_H
#define RT_CORE_FLIGHT_H

#include <stdint.h>
#include <stdio.h>

#include "compiler.h"

#define FLIGHT_RING	64	/* entries per task, a power of two */

enum flight_event {
	FL_OP,		/* an operation starts (what = its name) */
	FL_OP_END,	/* it ended (arg = result) */
	FL_LOCK,	/* a lock of class arg was taken */
	FL_TRYLOCK,	/* a trylock of class arg succeeded */
	FL_TRYFAIL,	/* a trylock of class arg failed */
	FL_UNLOCK,	/* a lock of class arg was released */
	FL_WAIT,	/* started waiting for a lock of class arg */
	FL_YIELD,	/* passed a yield point (what = its name) */
	FL_SCHED,	/* the deterministic scheduler ran this task (arg = step) */
	FL_NR_EVENTS,
};

struct flight_entry {
	const char *what;	/* relaxed: op, yield point or source file */
	uint64_t word;		/* relaxed: seq:32 | event:8 | line:24 */
	long arg;		/* relaxed: lock class, step or result */
};

struct flight_ring {
	unsigned long head;	/* owner; relaxed */
	struct flight_entry e[FLIGHT_RING];
};

extern int flight_enabled;	/* relaxed; on unless --no-flight */

void _flight_record(struct flight_ring *ring, enum flight_event ev, const char *what,
		    int line, long arg);

/* Record a yield point (FL_YIELD) for the current task; @where is static. */
void flight_yield(const char *where);

/* The text of one event, as the dumps print it ("lock page_table_lock memory.c:412"). */
int flight_format(char *buf, size_t len, const struct flight_entry *e);

/**
 * flight_dump_fd() - write every task's ring to @fd as text
 *
 * Lines: "== rmaptorture flight recorder ==", then per task "task NAME op
 * OP" followed by its events oldest first ("  #SEQ EVENT"), then "== end ==".
 * Uses no allocation and no lock of the model, so a sanitizer's report
 * hook may call it.
 *
 * Context: any; takes the task list lock (a pthread mutex).
 */
void flight_dump_fd(int fd);

/* Call @fn for each task with its name and its events, oldest first, as text. */
void flight_for_each(void (*fn)(const char *task, const char *const *events, int nr, void *arg),
		     void *arg);

#endif /* RT_CORE_FLIGHT_H */
