/* SPDX-License-Identifier: MIT */
/*
 * Lock classes in TSan reports. TSan names a lock "M1181" and its address;
 * the report hook names each by its lockdep class (tsan_api.h), and the
 * capture puts the class where the report shows the mutex: in the stack
 * titles ("Mutex M1181 (PG_maplock) created at:"), in the artifact
 * ("mutexes": [{"id": "M1181", "class": "PG_maplock"}], "tsan_api") and
 * in the signature of a report about the locks themselves (a
 * lock-order-inversion: "HELD->TAKEN,caller"; a mutex misuse:
 * "CLASS,caller"), in place of the lock primitive's frame; and where a
 * lock primitive's access races on the lock object's own memory (a freed
 * anon_vma's lock): "_spin_trylock(anon_vma->lock)" in the signature,
 * "of size 2 in anon_vma->lock" in the access's title. Without the
 * report interface the mutexes come from the text, unnamed, and the
 * signature is the text parser's.
 */
#ifndef RT_SANITIZERS_SAN_REPORT_LOCKS_H
#define RT_SANITIZERS_SAN_REPORT_LOCKS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "san_report.h"

/* What the report hook wrote of one TSan report (tsan_api.h's lines). */
struct rt_san_api_block {
	bool seen;		/* its "tsan report:" line was there */
	char type[48];		/* TSan's type name */
	int nr;
	struct rt_san_mutex m[RT_SAN_MAX_MUTEXES];	/* cls "" when "?" */
	int nr_accesses;
	char accessed[RT_SAN_MAX_ACCESSES][40];		/* "" when "?" */
};

/**
 * rt_san_api_line() - take in one line of a flight log, if it is tsan_api.h's
 * @line: the line, without its newline
 * @b: the block being read
 * Return: true when @line was one of them (now in @b).
 */
bool rt_san_api_line(const char *line, struct rt_san_api_block *b);

/**
 * rt_san_name_mutexes() - the mutexes of TSan report @rep, by class
 * @rep: a parsed TSan report
 * @b: what the hook wrote of it, or NULL (no hook block)
 *
 * Collects the mutex ids its stack titles name, gives them the classes of
 * @b (when @b->seen: then @rep->tsan_api), writes each known class into
 * the titles after its id, and recomputes the signature. Idempotent.
 */
void rt_san_name_mutexes(struct rt_san_report *rep, const struct rt_san_api_block *b);

/**
 * rt_san_mutexes_json() - "mutexes" and "tsan_api" of a TSan report's artifact
 * @rep: the report; nothing is set unless it is TSan's
 * @art: the artifact
 */
void rt_san_mutexes_json(const struct rt_san_report *rep, json_t *art);

/**
 * san_lock_signature_part() - the signature part of primary stack @st,
 * named by lock class, for a report about locks
 * @rep, @st: the report and one of its primary stacks
 * @buf, @len: receives "HELD->TAKEN,caller" (lock-order-inversion),
 *	"CLASS,caller" (a TSan type about a mutex) or "PRIMITIVE(CLASS)" (an
 *	access a lock primitive made to its lock's memory)
 *
 * rt_san_signature() calls it for each primary stack.
 * Return: false (buf untouched) when the report is of another kind or a
 * class is unknown: the frames then stand as they are.
 */
bool san_lock_signature_part(const struct rt_san_report *rep, const struct rt_san_stack *st,
			     char *buf, size_t len);

#endif /* RT_SANITIZERS_SAN_REPORT_LOCKS_H */
