/* SPDX-License-Identifier: MIT */
/*
 * Interleaving coverage: which pairs of code paths two CPUs have ever put
 * side by side on the same object.
 *
 * A site is a place in the model where a CPU works on an object: every
 * emulated lock operation (its source line, the lock's object) and every
 * yield point (its name, the object it passes). An object is a page, vma,
 * mapping, mm, anon_vma, zone, or the lock itself for a global lock; a
 * lock stands for the object it is embedded in (mm->page_table_lock is
 * its mm, PG_locked its page).
 *
 * Lock sites are recorded when the lock is taken, found busy (a CPU
 * that waits, or a trylock that fails) and released; each is its own
 * site ("core/memory.c:412 lock page_table_lock", "... contended ...").
 *
 * The coverage point. CPU X reaching site A on object O opens a window
 * that lasts until X reaches its next site on O or ends the operation it
 * is in, whichever comes first. When another CPU Y reaches site B on O
 * while that window is open, the unordered pair {A, B} is covered. A
 * lock's window thus runs from its acquisition to the next lock operation
 * on the object (its release) or the end of the operation: the pair of a
 * lock site and the site of a CPU that tried the same lock meanwhile is a
 * contended pair; an unlock opens the window "just released"; a yield
 * point opens the window between it and the next site on the object,
 * which is where the model's race windows are. Only events inside an
 * operation count (rt_task_set_op()).
 *
 * Cost: per event, one hash, one 64-byte bucket of the window table read
 * and one 8-byte entry written, and one load of each matching CPU's
 * operation counter; a covered pair is counted in the CPU's own table.
 * Memory is bounded: a fixed window table (an entry per CPU and object,
 * overwritten), COVER_MAX_SITES sites, a per-CPU pair table of
 * COVER_CPU_PAIRS entries (overflow is counted, never grown).
 *
 * Lock-free: every field is a relaxed atomic, read and written without
 * ordering; a torn view costs a missed or spurious pair, never memory
 * safety.
 *
 * A bucket holds 8 windows: an object with more CPUs' windows open at
 * once (a zone's lru_lock, an mm many threads share) has one overwritten
 * by the CPU that needs the slot; cover_stats.evicted_open counts them
 * (pairs missed). Not under a deterministic schedule (below).
 *
 * Under a deterministic schedule one CPU runs at a time, so the
 * coverage, and the decisions the cover schedule takes from it, are a
 * function of the seed, provided that where the allocator puts objects
 * never shows (it varies with ASLR, with libc's arenas, and with when
 * liburcu's thread runs the RCU callbacks that free them, i.e. with the
 * machine's load). There (cover_reset_exact()) the table tells objects
 * apart by address and kind, not by a hash's tag; an open window is
 * never overwritten: a bucket full of them spills into the next one; and
 * the memory of a freed object closes the windows on it (cover_forget()),
 * so that the next object the allocator puts at that address is a new
 * one to the coverage. Addresses then only decide where entries lie.
 */
#ifndef RT_CORE_COVER_H
#define RT_CORE_COVER_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "perturb.h"

enum cover_obj_kind {
	COVER_PAGE,
	COVER_VMA,
	COVER_MAPPING,
	COVER_MM,
	COVER_ANON_VMA,
	COVER_ZONE,
	COVER_LOCK,		/* a lock that is its own object (swap_lock, a test lock) */
	COVER_TEST,		/* test-only objects */
	COVER_NR_KINDS,
};

enum cover_lock_op {
	COVER_OP_LOCK,		/* taken (blocking) */
	COVER_OP_TRYLOCK,	/* taken by a trylock */
	COVER_OP_UNLOCK,	/* released */
	COVER_OP_CONTENDED,	/* found busy: the CPU waits */
	COVER_OP_TRYFAIL,	/* found busy by a trylock */
};

#define COVER_MAX_SITES		2048	/* distinct sites; more are dropped (counted) */
#define COVER_MAX_OPS		63	/* distinct operation names (63: none) */
/*
 * CPU slots: a scheduled thread's scheduler slot modulo 128, another
 * task's id modulo 128 in the upper 128: runs of more than 128 CPUs share
 * slots (pairs between two sharers are missed).
 */
#define COVER_MAX_CPUS		256
#define COVER_CPU_PAIRS		32768	/* (pair, operations) entries per CPU (512 KiB) */

extern int cover_enabled;		/* relaxed; set while no thread runs */

void __cover_hit(const char *file, int line, const char *label, int cls,
		 const void *obj, int kind);
void __cover_lock(const void *lock, int cls, int op, const char *file, int line);
void __cover_op(const char *op);
void __cover_lock_intent(const void *lock, int cls);
void __cover_lock_busy(int op, const char *file, int line);
void __cover_forget(const void *obj);

/**
 * cover_yield_at() - a yield point named @name at @file:@line reached on @obj of @kind
 *
 * Each call site of a name is a site of its own, so that a report names
 * the line ("stress/engine.c:274 yield test:window (test)").
 *
 * Context: any; the pointer is not dereferenced.
 */
static inline void cover_yield_at(const char *name, const void *obj, int kind, const char *file,
				  int line)
{
	if (unlikely(__atomic_load_n(&cover_enabled, __ATOMIC_RELAXED)))
		__cover_hit(file, line, name, -1, obj, kind);
}

/* cover_yield_at() at the caller's line. */
#define cover_yield(name, obj, kind)	cover_yield_at((name), (obj), (kind), __FILE__, __LINE__)

/* A yield point that also records its object (and its file:line) for the coverage. */
#define yield_point_on(name, obj, kind) do {				\
	cover_yield_at((name), (obj), (kind), __FILE__, __LINE__);	\
	yield_point(name);						\
} while (0)

/*
 * An emulated lock operation @op on @lock of class @cls at @file:@line.
 * The lock stands for its object (cover.c maps each class to it).
 */
static inline void cover_lock(const void *lock, int cls, int op, const char *file, int line)
{
	if (unlikely(__atomic_load_n(&cover_enabled, __ATOMIC_RELAXED)))
		__cover_lock(lock, cls, op, file, line);
}

/*
 * About to try @lock: remembered for cover_lock_busy(), whose callers
 * (lock_events.h) know the site but not the lock.
 */
static inline void cover_lock_intent(const void *lock, int cls)
{
	if (unlikely(__atomic_load_n(&cover_enabled, __ATOMIC_RELAXED)))
		__cover_lock_intent(lock, cls);
}

/* The lock of the last cover_lock_intent() was busy (@op CONTENDED or TRYFAIL). */
static inline void cover_lock_busy(int op, const char *file, int line)
{
	if (unlikely(__atomic_load_n(&cover_enabled, __ATOMIC_RELAXED)))
		__cover_lock_busy(op, file, line);
}

/* The current task starts operation @op (NULL: it ended one). */
static inline void cover_op(const char *op)
{
	if (unlikely(__atomic_load_n(&cover_enabled, __ATOMIC_RELAXED)))
		__cover_op(op);
}

/**
 * cover_forget() - the memory of an object at @obj goes back to the allocator
 * @obj: the object's address (what its sites pass), of any kind
 *
 * Under a deterministic schedule, closes every window still open on
 * whatever lies at @obj; otherwise does nothing (real threads' coverage
 * is approximate anyway). Call it before the memory is freed.
 *
 * Context: any; the pointer is not dereferenced.
 */
static inline void cover_forget(const void *obj)
{
	if (unlikely(__atomic_load_n(&cover_enabled, __ATOMIC_RELAXED)))
		__cover_forget(obj);
}

/* Clear every table and switch recording on or off. Context: no thread runs. */
void cover_reset(bool enable);
/*
 * The same; @exact: a deterministic schedule, which gets a window table
 * eight times larger that is exact, so that its coverage does not depend
 * on object addresses (see the top of this file).
 */
void cover_reset_exact(bool enable, bool exact);
/*
 * The same, recording only each CPU's sites and their objects (what
 * cover_take_last() reports): no window is opened, so no pair is
 * counted. For explore's schedules, which read nothing else and are
 * thousands; a reset after such a run clears only the CPUs used.
 */
void cover_reset_sites_only(bool enable);

/* Distinct pairs covered so far (any thread, racy but monotonic). */
unsigned long cover_distinct(void);

/* ---- for the schedule (one CPU runs at a time) ---- */

/*
 * What the current task's last event found: its site, how many pairs
 * that site may still form with known sites of the same object kind and
 * has not, whether it covered a pair never covered before, and whether
 * another CPU had a window open on its object.
 */
#define COVER_SEG_OBJS	4	/* objects cover_take_last() reports, at most */

struct cover_last {
	int site;		/* -1: no event since the last call */
	/*
	 * The objects of its sites since the last call, and the object of
	 * the site before them (whose window was still open); -1: more
	 * than COVER_SEG_OBJS. explore's partial-order pruning reads them.
	 */
	int nr_objs;
	const void *objs[COVER_SEG_OBJS];
	int uncovered;
	bool new_pair;
	bool contact;
};
void cover_take_last(struct cover_last *out);

/* ---- the footprint (explore's serial pre-pass) ---- */

/*
 * The objects each scheduler slot's sites touched in one run. The sites
 * cannot tell a read from a write: a lock site (taken, tried, found busy,
 * released) does not say what its holder does under the lock, and a
 * yield point sits between a look at its object and what the code does
 * with it; every site counts as a write of its object (an
 * over-approximation: two reads are taken to communicate). Objects are
 * addresses, comparable only within one run.
 */
#define COVER_FP_MAX	512	/* entries; more set @overflow */
#define COVER_FP_SLOTS	4	/* scheduler slots recorded (explore's CPUs) */

struct cover_footprint {
	int nr;
	bool overflow;
	struct cover_fp_ent {
		const void *obj;
		int kind;
		int slot;
	} e[COVER_FP_MAX];
};

/*
 * Record the footprint of scheduler slots 0..COVER_FP_SLOTS-1 into @fp
 * (emptied first) from now on; NULL stops. Context: no thread of the run
 * runs; only under a deterministic schedule (one CPU at a time).
 */
void cover_footprint_record(struct cover_footprint *fp);

/*
 * cover_footprint_conflicts() - the objects two slots communicate through
 * @fp: a recorded footprint
 * @a, @b: the two slots
 * @out: receives the objects both touched (the first @max), with their
 *	kinds in @kinds (may be NULL)
 * Return: how many there are (those past @max are not stored).
 */
int cover_footprint_conflicts(const struct cover_footprint *fp, int a, int b,
			      const void **out, int *kinds, int max);

/* ---- reading the results (no thread runs) ---- */

struct cover_site_info {
	const char *file;	/* project-root relative; NULL for a yield point of no known line */
	int line;
	const char *label;	/* "lock", "trylock", "unlock", or the yield point */
	int cls;		/* lock class, -1 for a yield point */
	int kind;		/* enum cover_obj_kind of its (first) object */
};

int cover_nr_sites(void);
bool cover_site(int id, struct cover_site_info *out);	/* false: unused id */
/*
 * Its text: "core/memory.c:412 lock page_table_lock" or
 * "core/memory.c:432 yield do_no_page:after_lookup (page)".
 */
int cover_site_format(int id, char *buf, size_t len);
const char *cover_kind_name(int kind);
const char *cover_op_name(int id);		/* NULL: unused */

/* Call @fn for every (pair, operations) counted, summed over the CPUs. */
void cover_for_each(void (*fn)(int site_a, int site_b, int op_a, int op_b,
			       unsigned long count, void *arg), void *arg);
bool cover_pair_covered(int site_a, int site_b);

struct cover_stats {
	unsigned long events;		/* sites reached inside an operation */
	unsigned long hits;		/* pairs counted (not distinct) */
	unsigned long distinct;
	unsigned long dropped_sites;	/* events of sites past COVER_MAX_SITES */
	unsigned long dropped_pairs;	/* hits past a full per-CPU table */
	unsigned long evicted_open;	/* open windows overwritten (a full bucket) */
};
void cover_get_stats(struct cover_stats *s);

#endif /* RT_CORE_COVER_H */
