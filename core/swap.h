/* SPDX-License-Identifier: MIT */
/*
 * Swap: one swap area of slots with use counts (swap_map) under
 * swap_lock, each slot holding the data word written at swap-out; and
 * the swap cache, which finds the page of a swap entry. Mirrors
 * mm/swapfile.c and mm/swap_state.c of 2.6.
 *
 * A slot's count is the number of swap ptes naming it plus one while the
 * swap cache holds a page for it (the audit checks exactly that).
 *
 * The count rule, so that this always holds:
 * - get_swap_page() hands out a slot with count 1. In add_to_swap() that
 *   count becomes the swap cache's: the cache's count is the one taken
 *   for it before it goes in, never one taken by add_to_swap_cache().
 * - add_to_swap_cache() takes no count: it consumes one the caller
 *   already holds for the cache. On success that count belongs to the
 *   cache (delete_from_swap_cache() drops it); on -EEXIST it is still the
 *   caller's, to drop with swap_free().
 * - Swap-in (read_swap_cache_async() on a cache miss, for do_swap_page()
 *   and swapoff) therefore calls swap_duplicate(entry) first (false: the
 *   entry is stale, the slot was freed), then add_to_swap_cache(); on
 *   -EEXIST it swap_free()s and looks the cache up again.
 * - Every swap pte holds one count: try_to_unmap() installing a swap pte
 *   takes it with swap_duplicate(); zapping a swap pte drops it with
 *   free_swap_and_cache() (which also drops an unused swap cache page),
 *   replacing it with the page at swap-in with swap_free().
 *
 * Locks: swap_lock (the slot counts) may be held while taking the swap
 * cache's tree_lock, never the reverse.
 */
#ifndef RT_CORE_SWAP_H
#define RT_CORE_SWAP_H

#include <stdbool.h>
#include <stdint.h>

#include "page.h"
#include "pgtable.h"

/**
 * swap_init() - a swap area of @nr_slots slots (slot 0 is the header)
 * Context: before any thread uses swap.
 * Return: 0, -EINVAL when @nr_slots < 2 or above SWP_OFFSET_MAX + 1, or
 * -EBUSY when a swap area is already set up (swap_exit() first).
 */
int swap_init(unsigned long nr_slots);
/*
 * Release the swap area. Slots still in use are not an error here: their
 * number is kept for swap_leaked_slots(). Pages still in the swap cache
 * keep their PG_swapcache and the cache's page reference (the audit's
 * page checks see them). Context: after every thread has stopped.
 */
void swap_exit(void);

/**
 * swap_leaked_slots() - slots with a non-zero count (teardown check)
 * Context: any; exact when quiescent.
 * Return: slots in use now; after swap_exit(), those in use when it ran.
 */
unsigned long swap_leaked_slots(void);

/*
 * Slots in use; and in total, as passed to swap_init(), the header
 * included (valid offsets are 1 .. nr_swap_slots() - 1; 0 without an
 * area). Context: any; lock-free, exact when quiescent.
 */
unsigned long nr_swap_used(void);
unsigned long nr_swap_slots(void);

/**
 * get_swap_page() - allocate a slot with count 1
 * Context: takes swap_lock. Return: the entry, or val 0 when swap is full.
 */
swp_entry_t get_swap_page(void);

/**
 * swapoff() - empty the area: every swap pte back to its page, every
 * slot freed, and no slot handed out until swapon()
 *
 * Mirrors mm/swapfile.c:sys_swapoff() and try_to_unuse() of 2.6.9 for
 * the one area (core/swapfile.c says where it departs).
 *
 * Context: may sleep; holds no lock. Takes swap_lock, mmlist_lock, page
 * locks, each mm's mmap_sem (read) and page_table_lock; may run the
 * last mmput() of an mm.
 * Return: 0 (the area is off and empty); -EBUSY when another swapoff
 * holds it off; -ENOMEM when a page could not be allocated (the area is
 * on again, as 2.6.9 puts it back); -EINVAL without an area.
 */
int swapoff(void);

/*
 * swapon() - hand out slots again after swapoff(), the area kept as it
 * is. Context: takes swap_lock. Return: 0, -EBUSY when it is on, -EINVAL
 * without an area.
 */
int swapon(void);

/* sys_swapoff()/sys_swapon()'s SWP_WRITEOK change (swapoff(), swapon()). */
int swap_set_writeok(bool on);

/*
 * The next slot in use after @prev, wrapping; 0 when none
 * (find_next_to_unuse()). Context: takes swap_lock.
 */
unsigned long swap_find_next_used(unsigned long prev);

/**
 * swap_duplicate() - one more reference (a new swap pte, fork)
 * Context: takes swap_lock. Return: true, or false for a stale entry.
 */
bool swap_duplicate(swp_entry_t entry);

/**
 * swap_free() - drop a reference; the slot is free at 0
 * Context: takes swap_lock.
 */
void swap_free(swp_entry_t entry);

/**
 * free_swap_and_cache() - swap_free() for a swap pte being zapped; when
 * only the swap cache's count is left and nobody else holds its page
 * (the page is trylocked), the page leaves the swap cache too, freeing
 * the slot and the page (else they would linger until reclaim)
 * Context: any, page_table_lock may be held; takes swap_lock, tree_lock
 * (nested), trylocks the page; may free the page (lru_lock, zone->lock).
 */
void free_swap_and_cache(swp_entry_t entry);

/* The use count of @entry's slot (audit). Context: takes swap_lock. */
int swap_count(swp_entry_t entry);

/*
 * Every slot's use count into @out[0 .. @nr), in one hold of swap_lock
 * (audit). Context: takes swap_lock. Return: slots copied.
 */
unsigned long swap_counts(unsigned int *out, unsigned long nr);

/*
 * Slot data: written at swap-out (page locked, in the swap cache: the
 * slot is page->private; clears PG_dirty), read at swap-in (page locked;
 * sets PG_uptodate).
 */
void swap_writepage(struct page *page);
void swap_readpage(struct page *page, swp_entry_t entry);

/**
 * add_to_swap() - give an anonymous page a slot and put it in the swap
 * cache (PG_swapcache, page->private = entry; the cache's slot reference)
 * Context: page locked; takes swap_lock, tree_lock.
 * Return: true, or false when swap is full.
 */
bool add_to_swap(struct page *page);

/**
 * add_to_swap_cache() - insert a locked page for @entry (swap-in)
 *
 * Takes the cache's page reference, sets PG_swapcache and page->private.
 * Takes NO slot count: it consumes one the caller holds (see the count
 * rule above: swap-in calls swap_duplicate() first).
 *
 * Context: page locked; takes tree_lock.
 * Return: 0, or -EEXIST when another page won (the caller keeps its count).
 */
int add_to_swap_cache(struct page *page, swp_entry_t entry);

/**
 * lookup_swap_cache() - the page caching @entry, with a reference, or NULL
 * Context: any; takes tree_lock.
 */
struct page *lookup_swap_cache(swp_entry_t entry);

/* read_swap_cache_async()'s answer for a page it read in (still locked). */
#define SWAP_CACHE_READ	1

/**
 * read_swap_cache_async() - the swap-cache page of @entry, read in from
 * its slot when no page caches it (do_swap_page() with @fault, swapoff)
 * Context: may sleep; takes tree_lock, swap_lock, the new page's
 * PG_locked (held on return), lru_lock.
 * Return: 0 (found in the cache, not locked here), SWAP_CACHE_READ (read
 * in here, locked: the caller's unlock_page() ends the read), -ENOENT
 * (the slot was freed), -ENOMEM; *@pagep holds a reference when >= 0.
 */
int read_swap_cache_async(swp_entry_t entry, bool fault, struct page **pagep);

/**
 * delete_from_swap_cache() - remove a locked page from the swap cache
 * and drop the cache's slot reference and page reference
 * Context: page locked; takes tree_lock and swap_lock.
 */
void delete_from_swap_cache(struct page *page);

/**
 * remove_exclusive_swap_page() - drop the swap cache copy of a locked
 * page when nobody else uses its slot (after swap-in): the slot's count
 * is 1 (the cache's) and the page's count is 2 (the caller's and the
 * cache's)
 * Context: page locked; takes swap_lock, then tree_lock inside it.
 * Return: true when removed (slot freed, cache reference dropped).
 */
bool remove_exclusive_swap_page(struct page *page);

/* Pages in the swap cache now. */
unsigned long swap_cache_pages(void);

/**
 * lookup_swap_cache_peek() - the page caching @entry, WITHOUT a reference
 * For the audit at quiescent points (nothing can free the page meanwhile).
 * Context: any; lock-free. Return: the page or NULL (also for a bad entry).
 */
struct page *lookup_swap_cache_peek(swp_entry_t entry);

/**
 * swap_slot_data() - the data word last written to @entry's slot
 * For the audit's data-integrity check of swap ptes.
 * Context: any; lock-free. Return: the word (0 for a bad entry).
 */
uint64_t swap_slot_data(swp_entry_t entry);

/**
 * swap_entry_data() - what a swap-in of @entry would read now: the swap
 * cache page's data word if cached, else the slot's
 * For fork's data oracle (fork.c). Context: any; lock-free.
 */
uint64_t swap_entry_data(swp_entry_t entry);

#endif /* RT_CORE_SWAP_H */
