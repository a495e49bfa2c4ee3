/* SPDX-License-Identifier: MIT */
/*
 * A task's share of the page allocator: its hot and cold per-CPU page
 * lists and its allocator statistics. The model's CPU is a task, so these
 * live in struct task_struct; the owner writes them without a lock (the
 * kernel disabled interrupts on its own CPU; no other task uses them).
 * Pages on these lists are free (PG_buddy, count 0) but are not counted
 * in zone->free_pages. See page_alloc.c.
 *
 * The same per-CPU share holds 2.6's LRU-addition pagevecs
 * (lru_add_pvecs, lru_add_active_pvecs of mm/swap.c): pages on their way
 * to the LRU, a reference held by the pagevec, not yet PG_lru.
 *
 * Mirrors include/linux/mmzone.h:struct per_cpu_pages and
 * struct per_cpu_pageset of 2.6.9, and include/linux/pagevec.h.
 */
#ifndef RT_CORE_PAGESET_H
#define RT_CORE_PAGESET_H

#include "list.h"

struct per_cpu_pages {
	int count;		/* owner (relaxed): pages on @list */
	int low;		/* refill when count <= low: set with @batch */
	int high;		/* give back @batch when count >= high */
	int batch;		/* pages per refill or give-back; 0: not set up */
	struct list_head list;	/* owner; the head is the hot end */
};

/* Allocator statistics, 2.6's page_states: owner, relaxed; zone_stats_read() folds. */
struct zone_stats {
	unsigned long nr_alloc;		/* pages handed out */
	unsigned long nr_alloc_fail;	/* allocations that found no page */
	unsigned long nr_free;		/* pages freed */
	unsigned long nr_low_wakeups;	/* low hook (wakeup_kswapd()) calls */
};

/* 2.6's PAGEVEC_SIZE: pages batched per lru_lock (or free) round. */
#define PAGEVEC_SIZE	16

struct page;

/*
 * A small batch of pages, each with a reference the pagevec holds.
 * Mirrors include/linux/pagevec.h:struct pagevec.
 */
struct pagevec {
	unsigned int nr;		/* owner (relaxed): entries in @pages */
	int cold;			/* freed pages go to the cold list */
	struct page *pages[PAGEVEC_SIZE];	/* owner */
};

struct per_cpu_pageset {
	struct per_cpu_pages pcp[2];	/* 0: hot, 1: cold */
	struct zone_stats stats;
	/* Owner: mm/swap.c's per-CPU lru_add_pvecs and lru_add_active_pvecs. */
	struct pagevec lru_add_pvecs;
	struct pagevec lru_add_active_pvecs;
};

#endif /* RT_CORE_PAGESET_H */
