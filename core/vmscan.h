/* SPDX-License-Identifier: MIT */
/*
 * Reclaim: kswapd-style threads that scan the inactive LRU and free pages
 * through the rmap of the selected design. Mirrors mm/vmscan.c of 2.6.3
 * (shrink_list, refill_inactive_zone) with seed 001's objrmap paths.
 */
#ifndef RT_CORE_VMSCAN_H
#define RT_CORE_VMSCAN_H

#include <stdbool.h>

#include "page_alloc.h"

/* Outcomes of reclaim, counted (relaxed atomics) for results. */
struct reclaim_stats {
	unsigned long scanned;		/* pages taken off the inactive list */
	unsigned long locked_skip;	/* TestSetPageLocked failed */
	unsigned long referenced;	/* activated: referenced and mapped */
	unsigned long swap_full;	/* anon page, no swap slot */
	unsigned long unmap_again;	/* try_to_unmap: SWAP_AGAIN */
	unsigned long unmap_fail;	/* try_to_unmap: SWAP_FAIL (mlock, young) */
	unsigned long swapped_out;	/* anon pages written to swap and freed */
	unsigned long file_dropped;	/* clean file pages freed */
	unsigned long file_written;	/* dirty file pages written back */
	unsigned long busy;		/* still referenced elsewhere: kept */
	unsigned long freed;		/* pages returned to the free list */
	unsigned long refilled;		/* active -> inactive moves */
	unsigned long mapped_scanned;	/* scanned pages mapped when locked */
	unsigned long unmap_tried;	/* of those, reached try_to_unmap() */
	unsigned long direct_calls;	/* try_to_free_pages(): direct reclaim */
	unsigned long direct_freed;	/* pages those calls freed */
};

/**
 * shrink_zone() - scan up to @nr_to_scan pages of the inactive list,
 * refilling it from the active list first when it runs short
 * Context: may sleep; no lock held; the calling thread is attached.
 * Return: the number of pages freed.
 */
unsigned long shrink_zone(struct zone *zone, unsigned long nr_to_scan);

/**
 * try_to_free_pages() - direct reclaim: the allocating task frees a batch
 * itself, holding whatever it holds (mmap_sem, a page lock, ...)
 * Context: may sleep; no spinlock held; the task is not PF_MEMALLOC.
 * Return: the number of pages freed.
 */
unsigned long try_to_free_pages(struct zone *zone, gfp_t gfp);

/**
 * shrink_page() - reclaim one page the caller isolated (reference held,
 * off the LRU), as shrink_list() does for each page: returns it to an LRU
 * list or frees it
 * Context: may sleep; no lock held.
 * Return: true when the page was freed.
 */
bool shrink_page(struct page *page);

void reclaim_stats_read(struct reclaim_stats *out);
void reclaim_stats_reset(void);

#endif /* RT_CORE_VMSCAN_H */
