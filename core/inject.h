/* SPDX-License-Identifier: MIT */
/*
 * Seeded bugs: known-wrong variants of real code paths, switched on one by
 * one (--inject NAME) so that the harness can prove its detectors catch
 * them. The correct code is the default; a seeded bug changes only its own
 * path. What each recalls and which detector must catch it is the
 * harness's catalogue (stress/rt_inject.c).
 */
#ifndef RT_CORE_INJECT_H
#define RT_CORE_INJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

enum inject_bug {
	/* Reclaim takes page_table_lock with spin_lock, not spin_trylock. */
	INJECT_RECLAIM_LOCK_PTL,
	INJECT_NR_BUGS,
};

extern uint64_t inject_mask;	/* relaxed; set while no thread of a run exists */

static inline bool injected(enum inject_bug bug)
{
	return unlikely(__atomic_load_n(&inject_mask, __ATOMIC_RELAXED) & (1ULL << bug));
}

/* "reclaim-lock-ptl", ...; -1 if unknown. */
const char *inject_name(enum inject_bug bug);
int inject_by_name(const char *name);

#endif /* RT_CORE_INJECT_H */
