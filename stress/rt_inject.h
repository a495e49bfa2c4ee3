/* SPDX-License-Identifier: MIT */
/*
 * The catalogue of seeded bugs: for each bug core/inject.h can switch on,
 * where it comes from, the configuration that finds it fast (scenario,
 * rmap design, schedule, build, threads, seed, bound), the detector that
 * must catch it and the failure kind that detector reports. `list --bugs`
 * prints it; `run --inject NAME` takes its defaults from it; the detection
 * matrix and tests/check_inject.c run every entry, with and without the
 * bug.
 */
#ifndef RT_STRESS_RT_INJECT_H
#define RT_STRESS_RT_INJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rmap.h"

struct rt_bug {
	const char *name;		/* --inject NAME (core/inject.c's name) */
	const char *summary;		/* the wrong code, one line */
	const char *history;		/* where it comes from: seed, LKML, release; one line */
	const char *scenario;		/* workloads/ scenario name */
	enum rmap_mode rmap;		/* the design it runs in */
	/*
	 * The designs whose code holds the bug, RMAP_MODE_BIT()s (the ones
	 * whose ops reach its path: objrmap.c is objfile's and anonvma's
	 * file half); 0: code every design runs. Elsewhere it cannot fire.
	 * Printed as rmap_mode_list() spells it, comma-separated.
	 */
	unsigned int rmaps;
	const char *sched;		/* free | random | pct */
	const char *build;		/* plain | tsan | asan */
	/* lockdep | atomic-sleep | audit | bug (BUG_ON, lock assertion) | hang | tsan | asan */
	const char *detector;
	/*
	 * What the first report of a detecting run starts with: a model
	 * report's kind ("lockdep-order", "atomic-sleep", "audit", "bug"),
	 * or the sanitizer ("tsan", "asan": the process exits 66).
	 * Alternatives are separated by '|' ("audit|bug": whichever sees
	 * the damage first); rt_bug_kind_matches() applies the rule.
	 */
	const char *expect;
	uint64_t seed;
	unsigned long sched_steps;	/* random/pct: the bound, in decisions; 0 for free */
	double seconds;			/* free: the bound, in seconds; else a time cap */
	int threads;
	int reclaim_threads;
	double watchdog;		/* --watchdog S; 0: run's default */
	/*
	 * --audit-every S; 0: run's default. For damage the model repairs
	 * by itself (the last unmap of a page mapped without its anon_vma),
	 * which only an audit inside the window sees.
	 */
	double audit_every;
	int perturb;			/* free: --perturb LEVEL; 0: none */
	const char *yield_points;	/* with perturb: --yield-points LIST; NULL: all */
	/* NULL, or why the detector may not fire, or what else fires first. */
	const char *caveat;
};

/* Every seeded bug, in core/inject.h's order; ends with a NULL name. */
extern const struct rt_bug rt_bugs[];

/**
 * rt_bug_count() - the number of entries of rt_bugs[]
 *
 * Context: any.
 * Return: the count, without the terminator (core's INJECT_NR_BUGS).
 */
int rt_bug_count(void);

/**
 * rt_bug_kind_matches() - is @kind what a bug's detector reports?
 * @expect: a catalogue entry's expect: prefixes separated by '|'
 * @kind: a report's kind ("audit", "lockdep-order", ...), or "tsan" /
 *	"asan" for a sanitizer's report
 *
 * Context: any.
 * Return: true when @kind starts with one of @expect's alternatives.
 */
bool rt_bug_kind_matches(const char *expect, const char *kind);

/**
 * rt_bug_find() - the catalogue entry of a seeded bug
 * @name: its --inject name
 *
 * Context: any.
 * Return: the entry, or NULL when no bug has that name.
 */
const struct rt_bug *rt_bug_find(const char *name);

/**
 * rt_bug_in_design() - can a bug fire in a design?
 * @bug: the catalogue entry
 * @mode: the design
 *
 * Context: any.
 * Return: true when @mode runs the bug's code (it is in @bug->rmaps, or
 * that is 0).
 */
bool rt_bug_in_design(const struct rt_bug *bug, enum rmap_mode mode);

/**
 * rt_bug_designs() - the designs a bug can fire in, as the CLI prints them
 * @bug: the catalogue entry
 * @buf: receives "objfile,anonvma" (every design when @bug->rmaps is 0)
 * @len: its size; RMAP_MODE_LIST_LEN holds every design
 *
 * Context: any.
 * Return: @buf.
 */
const char *rt_bug_designs(const struct rt_bug *bug, char *buf, size_t len);

/* The argv[] of a bug's run (rt_bug_args()); its strings live here or in the catalogue. */
struct rt_bug_args {
	const char *argv[30];		/* NULL-terminated */
	int argc;
	char num[8][32];		/* storage for the numbers in argv */
};

/**
 * rt_bug_args() - the run options of a bug's configuration
 * @bug: the catalogue entry
 * @inject: add --inject NAME; without it, the clean counterpart, which
 *	must report nothing
 * @out: filled in: argv[] from "run" on, with --scenario, --rmap,
 *	--sched, --threads, --reclaim-threads, --seed, --sched-steps (for
 *	random/pct), --seconds (the bound of a free run, a cap otherwise)
 *	and --watchdog when the entry sets one; no --build: the caller
 *	runs the binary of the bug's build
 *
 * Context: any.
 */
void rt_bug_args(const struct rt_bug *bug, bool inject, struct rt_bug_args *out);

/**
 * rt_bug_oneliner() - the command that reproduces a bug
 * @bug: the catalogue entry
 * @buf: where the command goes
 * @len: its size
 *
 * "rmaptorture run --inject NAME", plus "--build tsan|asan" when the bug
 * needs a sanitizer build: run takes everything else from the catalogue.
 *
 * Context: any.
 * Return: as snprintf().
 */
int rt_bug_oneliner(const struct rt_bug *bug, char *buf, size_t len);

/**
 * rt_bug_list() - `list --bugs`: each bug, where it comes from, what it
 * needs, the detector expected to catch it and its one-liner
 * @f: where to print
 *
 * Context: any.
 */
void rt_bug_list(FILE *f);

#endif /* RT_STRESS_RT_INJECT_H */
