/* SPDX-License-Identifier: MIT */
/*
 * Swap: one swap area of slots with use counts (swap_map) under
 * swap_lock, each slot holding the data word written at swap-out; and
 * the swap cache, which finds the page of a swap entry. Mirrors
 * mm/swapfile.c and mm/swap_state.c of 2.6.
 *
 * A slot's count is the number of swap ptes naming it plus one while the
 * swap cache holds a page for it (the audit checks exactly that).
 */
#ifndef RT_CORE_SWAP_H
#define RT_CORE_SWAP_H

#include <stdbool.h>
#include <stdint.h>

#include "page.h"
#include "pgtable.h"

/**
 * swap_init() - a swap area of @nr_slots slots (slot 0 is the header)
 * Return: 0, or -EINVAL when @nr_slots < 2.
 */
int swap_init(unsigned long nr_slots);
void swap_exit(void);

/* Slots in use, and in total. */
unsigned long nr_swap_used(void);
unsigned long nr_swap_slots(void);

/**
 * get_swap_page() - allocate a slot with count 1
 * Context: takes swap_lock. Return: the entry, or val 0 when swap is full.
 */
swp_entry_t get_swap_page(void);

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

/* The use count of @entry's slot (audit). Context: takes swap_lock. */
int swap_count(swp_entry_t entry);

/* Slot data: written at swap-out (page locked), read at swap-in. */
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
 * Context: takes tree_lock. Return: 0, or -EEXIST when another page won.
 */
int add_to_swap_cache(struct page *page, swp_entry_t entry);

/**
 * lookup_swap_cache() - the page caching @entry, with a reference, or NULL
 * Context: any; takes tree_lock.
 */
struct page *lookup_swap_cache(swp_entry_t entry);

/**
 * delete_from_swap_cache() - remove a locked page from the swap cache
 * and drop the cache's slot reference and page reference
 * Context: page locked; takes tree_lock and swap_lock.
 */
void delete_from_swap_cache(struct page *page);

/**
 * remove_exclusive_swap_page() - drop the swap cache copy of a locked
 * page when nobody else uses its slot (after swap-in)
 * Return: true when removed.
 */
bool remove_exclusive_swap_page(struct page *page);

/* Pages in the swap cache now. */
unsigned long swap_cache_pages(void);

#endif /* RT_CORE_SWAP_H */
