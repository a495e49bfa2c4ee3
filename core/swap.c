// SPDX-License-Identifier: MIT
/*
 * One swap area and the swap cache.
 *
 * The swap area (mm/swapfile.c): swap_map, a use count per slot, and the
 * slot data (the "disk": one data word per slot), slot 0 being the
 * header and never handed out. The counts, the allocation cursor and
 * nr_swap_used change under swap_lock.
 *
 * The swap cache (mm/swap_state.c): the page caching each slot, found by
 * the slot's offset, under the swapper space's tree_lock. A page in it has
 * PG_swapcache, page->private = entry.val, and holds one page reference
 * and one slot count (the rule in swap.h).
 *
 * Locking, outermost first (the tree at the top of core/lockdep.c):
 *
 * PG_locked              add/delete/writepage/readpage of a page
 *   swap_lock            swap_map, cursor, nr_swap_used
 *     tree_lock          swapper_space: cache slots, nr_cache_pages
 *
 * Never take swap_lock while holding the swap cache's tree_lock:
 * delete_from_swap_cache() drops the slot count after unlocking it.
 */
#include "swap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "die.h"
#include "lockdep.h"
#include "page.h"
#include "page_alloc.h"
#include "perturb.h"
#include "pgtable.h"
#include "spinlock.h"

/* Mirrors struct swap_info_struct of 2.6, for the one area (type 0). */
struct swap_info {
	/* swap_lock: the counts, the cursor and nr_used. */
	spinlock_t lock;
	unsigned int *swap_map;		/* swap_lock */
	unsigned long cursor;		/* swap_lock: next offset to try */
	unsigned long nr_used;		/* swap_lock; READ_ONCE outside */
	unsigned long nr_slots;		/* set by swap_init(), read-only while in use */
	uint64_t *data;			/* atomic words: the slot data */
	unsigned long leaked;		/* set by swap_exit() */
	/*
	 * swap_lock: get_swap_page() may hand out slots (2.6's SWP_WRITEOK);
	 * cleared by swapoff() while it empties the area.
	 */
	bool writeok;
};

/* Mirrors the swapper_space address_space of mm/swap_state.c. */
struct swapper_space {
	spinlock_t tree_lock;
	/*
	 * Indexed by slot offset. Written under tree_lock (release stores),
	 * read under it or, by lookup_swap_cache_peek(), with acquire loads.
	 */
	struct page **pages;
	unsigned long nr_pages;		/* tree_lock; READ_ONCE outside */
};

static struct swap_info swap_info = {
	.lock = __SPIN_LOCK_UNLOCKED(LOCK_CLASS_SWAP_LOCK),
};

static struct swapper_space swapper_space = {
	.tree_lock = __SPIN_LOCK_UNLOCKED(LOCK_CLASS_TREE_LOCK),
};

/* Statically initialised, so named here (lockdep_class_of(): TSan's reports). */
__attribute__((constructor)) static void swap_locks_note(void)
{
	lockdep_note_static_lock(&swap_info.lock, sizeof(spinlock_t), LOCK_CLASS_SWAP_LOCK);
	lockdep_note_static_lock(&swapper_space.tree_lock, sizeof(spinlock_t),
				 LOCK_CLASS_TREE_LOCK);
}

/*
 * The offset of @entry in the one area, or 0 when the entry cannot name
 * a slot of it (wrong type, the header, beyond the end).
 */
static unsigned long swap_entry_offset(swp_entry_t entry)
{
	unsigned long offset = swp_offset(entry);

	if (swp_type(entry) != 0 || offset == 0 || offset >= swap_info.nr_slots)
		return 0;
	return offset;
}

/* As swap_entry_offset(), but a bad entry is a bug of the caller. */
static unsigned long swap_entry_offset_valid(swp_entry_t entry)
{
	unsigned long offset = swap_entry_offset(entry);

	BUG_ON(offset == 0);
	return offset;
}

/**
 * swap_init() - set up a swap area of @nr_slots slots
 * @nr_slots: slots including the header (slot 0)
 *
 * Mirrors mm/swapfile.c:sys_swapon() for one area.
 *
 * Context: before any thread uses swap.
 * Return: 0, -EINVAL for a size out of range, -EBUSY when already set up.
 */
int swap_init(unsigned long nr_slots)
{
	if (nr_slots < 2 || nr_slots - 1 > SWP_OFFSET_MAX)
		return -EINVAL;
	if (swap_info.nr_slots)
		return -EBUSY;
	swap_info.swap_map = rt_calloc(nr_slots, sizeof(*swap_info.swap_map));
	swap_info.data = rt_calloc(nr_slots, sizeof(*swap_info.data));
	swapper_space.pages = rt_calloc(nr_slots, sizeof(*swapper_space.pages));
	swap_info.cursor = 1;
	swap_info.nr_used = 0;
	swap_info.leaked = 0;
	swap_info.writeok = true;
	swapper_space.nr_pages = 0;
	swap_info.nr_slots = nr_slots;
	return 0;
}

/**
 * swap_exit() - release the swap area
 *
 * Records how many slots were still in use for swap_leaked_slots().
 *
 * Mirrors mm/swapfile.c:sys_swapoff() without the swap-in of the users:
 * the model tears down only after every user is gone.
 *
 * Context: after every thread has stopped.
 */
void swap_exit(void)
{
	if (!swap_info.nr_slots)
		return;
	swap_info.leaked = swap_leaked_slots();
	free(swap_info.swap_map);
	free(swap_info.data);
	free(swapper_space.pages);
	swap_info.swap_map = NULL;
	swap_info.data = NULL;
	swapper_space.pages = NULL;
	swapper_space.nr_pages = 0;
	swap_info.nr_used = 0;
	swap_info.writeok = false;
	swap_info.nr_slots = 0;
}

/**
 * swap_leaked_slots() - slots with a non-zero count
 *
 * Context: any (takes swap_lock while the area is set up); exact when
 * quiescent.
 * Return: slots in use now; after swap_exit(), those in use when it ran.
 */
unsigned long swap_leaked_slots(void)
{
	unsigned long n = 0;

	if (!swap_info.nr_slots)
		return swap_info.leaked;
	spin_lock(&swap_info.lock);
	for (unsigned long offset = 1; offset < swap_info.nr_slots; offset++)
		if (swap_info.swap_map[offset])
			n++;
	spin_unlock(&swap_info.lock);
	return n;
}

/**
 * nr_swap_used() - slots in use now
 * Context: any; lock-free, exact only when quiescent.
 */
unsigned long nr_swap_used(void)
{
	return READ_ONCE(swap_info.nr_used);
}

/**
 * nr_swap_slots() - slots of the area, the header included (0: no area)
 * Context: any.
 */
unsigned long nr_swap_slots(void)
{
	return swap_info.nr_slots;
}

/**
 * get_swap_page() - allocate a free slot with count 1
 *
 * Scans from the cursor, wrapping, as scan_swap_map() does. The slot's
 * data starts at zero.
 *
 * Mirrors mm/swapfile.c:get_swap_page() / scan_swap_map().
 *
 * Context: takes swap_lock.
 * Return: the entry, or an entry of val 0 when swap is full (or absent).
 */
swp_entry_t get_swap_page(void)
{
	struct swap_info *si = &swap_info;
	swp_entry_t entry = { .val = 0 };
	unsigned long nr_slots = si->nr_slots;

	if (!nr_slots)
		return entry;
	spin_lock(&si->lock);
	if (!si->writeok || si->nr_used >= nr_slots - 1)
		goto out_unlock;
	for (unsigned long i = 0; i < nr_slots - 1; i++) {
		unsigned long offset = si->cursor;

		si->cursor = offset + 1 < nr_slots ? offset + 1 : 1;
		if (si->swap_map[offset])
			continue;
		si->swap_map[offset] = 1;
		WRITE_ONCE(si->nr_used, si->nr_used + 1);
		__atomic_store_n(&si->data[offset], 0, __ATOMIC_RELAXED);
		entry = swp_entry(0, offset);
		break;
	}
	BUG_ON(!entry.val);	/* nr_used said there was a free slot */
out_unlock:
	spin_unlock(&si->lock);
	return entry;
}

/**
 * swap_set_writeok() - let get_swap_page() hand out slots, or stop it
 * @on: the new state
 *
 * sys_swapoff() of 2.6.9 clears SWP_WRITEOK under swap_list_lock before
 * it empties the area; sys_swapon() (and a failed swapoff) set it.
 *
 * Context: takes swap_lock.
 * Return: 0; -EBUSY when the area is in that state already (a second
 * swapoff, or a swapon of an area in use); -EINVAL without an area.
 */
int swap_set_writeok(bool on)
{
	struct swap_info *si = &swap_info;
	int err = 0;

	if (!si->nr_slots)
		return -EINVAL;
	spin_lock(&si->lock);
	if (si->writeok == on)
		err = -EBUSY;
	else
		si->writeok = on;
	spin_unlock(&si->lock);
	return err;
}

/**
 * swapon() - let the area hand out slots again after swapoff()
 *
 * Mirrors the end of mm/swapfile.c:sys_swapon() for the area swapoff()
 * emptied: its counts and data are kept, nothing is read.
 *
 * Context: takes swap_lock.
 * Return: 0, -EBUSY when it is on already, -EINVAL without an area.
 */
int swapon(void)
{
	return swap_set_writeok(true);
}

/**
 * swap_find_next_used() - the next slot in use after @prev, wrapping
 * @prev: where the previous search stopped (0 to start)
 *
 * Mirrors mm/swapfile.c:find_next_to_unuse(), under swap_lock (2.6.9
 * reads swap_map without it: "false hits are okay").
 *
 * Context: takes swap_lock.
 * Return: the offset, or 0 when no slot is in use.
 */
unsigned long swap_find_next_used(unsigned long prev)
{
	struct swap_info *si = &swap_info;
	unsigned long nr_slots = si->nr_slots, found = 0;

	if (!nr_slots)
		return 0;
	spin_lock(&si->lock);
	for (unsigned long i = 1; i < nr_slots; i++) {
		unsigned long offset = (prev + i) % (nr_slots - 1);

		offset = offset ? offset : nr_slots - 1;
		if (si->swap_map[offset]) {
			found = offset;
			break;
		}
	}
	spin_unlock(&si->lock);
	return found;
}

/**
 * swap_duplicate() - take one more count on @entry's slot
 * @entry: a swap entry (a new swap pte, fork's copy, swap-in's cache count)
 *
 * Mirrors mm/swapfile.c:swap_duplicate().
 *
 * Context: takes swap_lock.
 * Return: true, or false for a stale entry (a free slot, or one that is
 * not a slot of the area).
 */
bool swap_duplicate(swp_entry_t entry)
{
	struct swap_info *si = &swap_info;
	unsigned long offset = swap_entry_offset(entry);
	bool ok = false;

	if (!offset)
		return false;
	spin_lock(&si->lock);
	if (si->swap_map[offset]) {
		BUG_ON(si->swap_map[offset] == ~0u);	/* overflow */
		si->swap_map[offset]++;
		ok = true;
	}
	spin_unlock(&si->lock);
	return ok;
}

/**
 * swap_free() - drop one count of @entry's slot; at 0 the slot is free
 * @entry: an entry whose slot is in use (BUGs otherwise)
 *
 * Mirrors mm/swapfile.c:swap_free() / swap_entry_free().
 *
 * Context: takes swap_lock; must not hold the swap cache's tree_lock.
 */
void swap_free(swp_entry_t entry)
{
	struct swap_info *si = &swap_info;
	unsigned long offset = swap_entry_offset_valid(entry);

	spin_lock(&si->lock);
	BUG_ON(si->swap_map[offset] == 0);	/* freeing a free slot */
	if (--si->swap_map[offset] == 0) {
		/* No count, so no swap cache page either: it holds one. */
		WRITE_ONCE(si->nr_used, si->nr_used - 1);
		if (offset < si->cursor)
			si->cursor = offset;	/* mirrors lowest_bit */
	}
	spin_unlock(&si->lock);
}

/**
 * free_swap_and_cache() - drop a zapped swap pte's count, and the swap
 * cache page too when that was the last user of both
 * @entry: the entry of the swap pte being zapped
 *
 * When only the cache's count is left, the cached page is trylocked
 * (under tree_lock, within swap_lock: a trylock against the order adds no
 * dependency) and referenced; if then nobody but the cache and us holds
 * it, it is deleted from the cache, which frees the slot, and our
 * reference frees the page. Otherwise reclaim will find it later.
 *
 * Mirrors mm/swapfile.c:free_swap_and_cache() (without the
 * vm_swap_full() case).
 *
 * Context: any; page_table_lock may be held. Takes swap_lock and
 * tree_lock nested, then (via delete_from_swap_cache()) each alone; may
 * free the page (lru_lock, zone->lock).
 */
void free_swap_and_cache(swp_entry_t entry)
{
	struct swap_info *si = &swap_info;
	unsigned long offset = swap_entry_offset_valid(entry);
	struct page *page = NULL;

	spin_lock(&si->lock);
	BUG_ON(si->swap_map[offset] == 0);	/* freeing a free slot */
	if (--si->swap_map[offset] == 0) {
		WRITE_ONCE(si->nr_used, si->nr_used - 1);
		if (offset < si->cursor)
			si->cursor = offset;
	} else if (si->swap_map[offset] == 1) {
		spin_lock(&swapper_space.tree_lock);
		page = READ_ONCE(swapper_space.pages[offset]);
		if (page && TestSetPageLocked(page))
			page = NULL;
		if (page)
			get_page(page);	/* the cache's reference keeps count > 0 */
		spin_unlock(&swapper_space.tree_lock);
	}
	spin_unlock(&si->lock);
	if (!page)
		return;
	/* Still the cache of this slot (locked: it cannot have left). */
	if (PageSwapCache(page) && READ_ONCE(page->private) == entry.val &&
	    !PageWriteback(page) && page_count(page) == 2)
		delete_from_swap_cache(page);
	unlock_page(page);
	put_page(page);
}

/**
 * swap_count() - the use count of @entry's slot
 * @entry: an entry of the area (BUGs otherwise)
 *
 * Context: takes swap_lock. For the audit: exact when quiescent.
 * Return: swap ptes naming the slot plus one while a page caches it.
 */
int swap_count(swp_entry_t entry)
{
	unsigned long offset = swap_entry_offset_valid(entry);
	int count;

	spin_lock(&swap_info.lock);
	count = (int)swap_info.swap_map[offset];
	spin_unlock(&swap_info.lock);
	return count;
}

/**
 * swap_counts() - the use count of every slot, read in one hold of swap_lock
 * @out: filled with slot i's count at @out[i], from slot 0 (the header, 0)
 * @nr: room in @out
 *
 * The audit's view of the whole map: swap_count() per slot is one lock
 * round trip, with its lockdep and coverage events, for each of
 * thousands of slots.
 *
 * Context: takes swap_lock. For the audit: exact when quiescent.
 * Return: slots copied: the area's, or @nr if fewer.
 */
unsigned long swap_counts(unsigned int *out, unsigned long nr)
{
	unsigned long n;

	spin_lock(&swap_info.lock);
	n = swap_info.nr_slots < nr ? swap_info.nr_slots : nr;
	if (n)			/* no area: swap_map is NULL */
		memcpy(out, swap_info.swap_map, n * sizeof(*out));
	spin_unlock(&swap_info.lock);
	return n;
}

/**
 * swap_writepage() - write a locked swap cache page to its slot
 * @page: a locked page in the swap cache
 *
 * PG_dirty is cleared before the copy, as clear_page_dirty_for_io()
 * does, so a store that dirties the page again after it is not lost.
 *
 * Mirrors mm/page_io.c:swap_writepage().
 *
 * Context: page locked; takes no lock.
 */
void swap_writepage(struct page *page)
{
	swp_entry_t entry;

	BUG_ON(!PageLocked(page));
	BUG_ON(!PageSwapCache(page));
	entry.val = READ_ONCE(page->private);
	ClearPageDirty(page);
	/* Release pairs with the acquire load in swap_readpage(). */
	__atomic_store_n(&swap_info.data[swap_entry_offset_valid(entry)],
			 page_data_read(page), __ATOMIC_RELEASE);
}

/**
 * swap_readpage() - read @entry's slot data into a locked page
 * @page: a locked page (normally just added to the swap cache)
 * @entry: the slot to read
 *
 * Mirrors mm/page_io.c:swap_readpage().
 *
 * Context: page locked; takes no lock.
 */
void swap_readpage(struct page *page, swp_entry_t entry)
{
	BUG_ON(!PageLocked(page));
	/* Acquire pairs with the release store in swap_writepage(). */
	page_data_write(page, __atomic_load_n(&swap_info.data[swap_entry_offset_valid(entry)],
					      __ATOMIC_ACQUIRE));
	SetPageUptodate(page);
}

/**
 * add_to_swap_cache() - insert a locked page as the cache of @entry
 * @page: a locked page, not in any cache
 * @entry: an entry in use, one of whose counts the caller gives to the
 *	cache (swap.h's count rule); no count is taken here
 *
 * Mirrors mm/swap_state.c:__add_to_swap_cache() (2.6's add_to_swap_cache()
 * also took the count with swap_duplicate(); here the caller does).
 *
 * Context: page locked; takes tree_lock.
 * Return: 0, or -EEXIST when a page already caches @entry.
 */
int add_to_swap_cache(struct page *page, swp_entry_t entry)
{
	unsigned long offset = swap_entry_offset_valid(entry);
	int err = 0;

	BUG_ON(!PageLocked(page));
	BUG_ON(PageSwapCache(page));
	BUG_ON(!PageAnon(page) && page->as.mapping);	/* not a page cache page */

	spin_lock(&swapper_space.tree_lock);
	if (READ_ONCE(swapper_space.pages[offset])) {
		err = -EEXIST;
		goto out_unlock;
	}
	get_page(page);			/* the cache's reference */
	WRITE_ONCE(page->private, entry.val);
	SetPageSwapCache(page);
	/* Release pairs with the acquire in lookup_swap_cache_peek(). */
	__atomic_store_n(&swapper_space.pages[offset], page, __ATOMIC_RELEASE);
	WRITE_ONCE(swapper_space.nr_pages, swapper_space.nr_pages + 1);
out_unlock:
	spin_unlock(&swapper_space.tree_lock);
	return err;
}

/**
 * lookup_swap_cache() - the page caching @entry, with a reference
 * @entry: a swap entry (a stale or foreign one simply misses)
 *
 * Mirrors mm/swap_state.c:lookup_swap_cache().
 *
 * Context: any; takes tree_lock.
 * Return: the page with one reference for the caller, or NULL.
 */
struct page *lookup_swap_cache(swp_entry_t entry)
{
	unsigned long offset = swap_entry_offset(entry);
	struct page *page;

	if (!offset)
		return NULL;
	spin_lock(&swapper_space.tree_lock);
	page = READ_ONCE(swapper_space.pages[offset]);
	if (page)
		get_page(page);	/* the cache's reference keeps count > 0 */
	spin_unlock(&swapper_space.tree_lock);
	return page;
}

/**
 * read_swap_cache_async() - the swap-cache page of @entry, read in from
 * its slot when no page caches it
 * @entry: a swap entry the caller saw in use
 * @fault: do_swap_page() calls: a miss is its yield point (swapoff: none)
 * @pagep: out, the page, with a reference for the caller
 *
 * Mirrors mm/swap_state.c:read_swap_cache_async() of 2.6.9, with the
 * lookup_swap_cache() that do_swap_page() and try_to_unuse() make first.
 * The cache's slot count is taken before the page goes in (swap.h's
 * count rule): swap_duplicate() failing means the slot was freed, so the
 * entry the caller sampled is stale. A swap-in that cached its page
 * first wins, and the cache is looked up again.
 *
 * Context: may sleep; no spinlock held; takes tree_lock, swap_lock, the
 * new page's PG_locked (held on return) and lru_lock.
 * Return: 0 for a page found in the cache (not locked here),
 * SWAP_CACHE_READ for a page read in here (locked: the caller's
 * unlock_page() is the read's end), -ENOENT when the slot was freed,
 * -ENOMEM when no page could be allocated.
 */
int read_swap_cache_async(swp_entry_t entry, bool fault, struct page **pagep)
{
	struct page *page;

again:
	page = lookup_swap_cache(entry);
	if (page) {
		*pagep = page;
		return 0;
	}
	if (fault)
		yield_point("do_swap_page:cache_miss");
	if (!swap_duplicate(entry))
		return -ENOENT;
	page = alloc_page(GFP_KERNEL);
	if (!page) {
		swap_free(entry);
		return -ENOMEM;
	}
	lock_page(page);
	SetPageAnon(page);
	if (add_to_swap_cache(page, entry)) {
		/* Another swap-in cached its page first: use that one. */
		swap_free(entry);
		unlock_page(page);
		put_page(page);
		goto again;
	}
	swap_readpage(page, entry);
	lru_cache_add_active(page);
	*pagep = page;
	return SWAP_CACHE_READ;
}

/*
 * Take @page out of the swap cache; the caller holds tree_lock and then
 * drops the cache's slot count and page reference.
 * Mirrors mm/swap_state.c:__delete_from_swap_cache().
 */
static swp_entry_t __delete_from_swap_cache(struct page *page)
{
	swp_entry_t entry = { .val = READ_ONCE(page->private) };
	unsigned long offset = swap_entry_offset_valid(entry);

	assert_spin_locked(&swapper_space.tree_lock);
	BUG_ON(!PageLocked(page));
	BUG_ON(!PageSwapCache(page));
	BUG_ON(READ_ONCE(swapper_space.pages[offset]) != page);
	/* Release pairs with the acquire in lookup_swap_cache_peek(). */
	__atomic_store_n(&swapper_space.pages[offset], NULL, __ATOMIC_RELEASE);
	WRITE_ONCE(swapper_space.nr_pages, swapper_space.nr_pages - 1);
	ClearPageSwapCache(page);
	WRITE_ONCE(page->private, 0);
	return entry;
}

/**
 * delete_from_swap_cache() - remove a locked page from the swap cache
 * @page: a locked page in the swap cache; the caller holds a reference
 *
 * Drops the cache's slot count (after tree_lock: swap_lock is the outer
 * lock) and the cache's page reference.
 *
 * Mirrors mm/swap_state.c:delete_from_swap_cache().
 *
 * Context: page locked; takes tree_lock, then swap_lock.
 */
void delete_from_swap_cache(struct page *page)
{
	swp_entry_t entry;

	spin_lock(&swapper_space.tree_lock);
	entry = __delete_from_swap_cache(page);
	spin_unlock(&swapper_space.tree_lock);
	swap_free(entry);		/* the cache's slot count */
	put_page(page);			/* the cache's page reference */
}

/**
 * add_to_swap() - give a locked anonymous page a slot and cache it there
 * @page: a locked anonymous page not in the swap cache
 *
 * The count get_swap_page() returns is the cache's. The page is marked
 * dirty: it must be written to the slot before it can be freed.
 *
 * Mirrors mm/swap_state.c:add_to_swap().
 *
 * Context: page locked; takes swap_lock, then tree_lock (not nested).
 * Return: true, or false when swap is full.
 */
bool add_to_swap(struct page *page)
{
	swp_entry_t entry;

	BUG_ON(!PageLocked(page));
	BUG_ON(!PageAnon(page));
	BUG_ON(PageSwapCache(page));

	for (;;) {
		entry = get_swap_page();
		if (!entry.val)
			return false;
		if (!add_to_swap_cache(page, entry))
			break;
		/*
		 * -EEXIST: a swap-in holding a stale copy of this entry
		 * duplicated it (the slot was freed and handed to us) and
		 * cached its page first. Leave the slot to it; try another.
		 */
		swap_free(entry);
	}
	SetPageDirty(page);
	return true;
}

/**
 * remove_exclusive_swap_page() - drop the swap cache copy of a locked
 * page when nobody else uses its slot
 * @page: a locked page; a page not in the swap cache is left alone
 *
 * Exclusive: the slot's only count is the cache's (no swap pte names it)
 * and the page's only references are the caller's and the cache's. Both
 * are checked with swap_lock and tree_lock held, so neither a new swap
 * pte (swap_duplicate()) nor a new lookup (lookup_swap_cache()) can slip
 * in between.
 *
 * Mirrors mm/swapfile.c:remove_exclusive_swap_page().
 *
 * Context: page locked; takes swap_lock, then tree_lock inside it.
 * Return: true when removed.
 */
bool remove_exclusive_swap_page(struct page *page)
{
	struct swap_info *si = &swap_info;
	swp_entry_t entry;
	unsigned long offset;
	bool removed = false;

	BUG_ON(!PageLocked(page));
	if (!PageSwapCache(page))
		return false;
	entry.val = READ_ONCE(page->private);
	offset = swap_entry_offset_valid(entry);

	spin_lock(&si->lock);
	if (si->swap_map[offset] == 1) {
		spin_lock(&swapper_space.tree_lock);
		if (page_count(page) == 2 && !PageWriteback(page)) {
			__delete_from_swap_cache(page);
			removed = true;
		}
		spin_unlock(&swapper_space.tree_lock);
	}
	spin_unlock(&si->lock);

	if (removed) {
		swap_free(entry);	/* the cache's slot count: frees the slot */
		put_page(page);		/* the cache's page reference */
	}
	return removed;
}

/**
 * lookup_swap_cache_peek() - the page caching @entry, without a reference
 * @entry: a swap entry (a stale or foreign one simply misses)
 *
 * For the audit, at quiescent points: the page cannot leave the cache
 * (and be freed) while it looks.
 *
 * Context: any; lock-free.
 * Return: the page, or NULL.
 */
struct page *lookup_swap_cache_peek(swp_entry_t entry)
{
	unsigned long offset = swap_entry_offset(entry);

	if (!offset)
		return NULL;
	/* Acquire pairs with the release stores in (__)add/delete. */
	return __atomic_load_n(&swapper_space.pages[offset], __ATOMIC_ACQUIRE);
}

/**
 * swap_slot_data() - the data word last written to @entry's slot
 * @entry: a swap entry
 *
 * Context: any; lock-free.
 * Return: the word, or 0 for an entry that names no slot of the area.
 */
uint64_t swap_slot_data(swp_entry_t entry)
{
	unsigned long offset = swap_entry_offset(entry);

	if (!offset)
		return 0;
	/* Acquire pairs with the release store in swap_writepage(). */
	return __atomic_load_n(&swap_info.data[offset], __ATOMIC_ACQUIRE);
}

/**
 * swap_cache_pages() - pages in the swap cache now
 * Context: any; lock-free, exact only when quiescent.
 */
unsigned long swap_cache_pages(void)
{
	return READ_ONCE(swapper_space.nr_pages);
}

/**
 * swap_entry_data() - the data a swap-in of @entry would read now
 * @entry: a swap entry some pte holds (so its slot stays allocated)
 *
 * The swap cache's page for it if there is one (it may be newer than the
 * slot: written only at writeback), else the slot. A page leaving the
 * cache meanwhile has been written to the slot, or is read again: the
 * second look decides.
 *
 * Context: any; lock-free (the data oracle's, no emulated lock).
 * Return: the data word.
 */
uint64_t swap_entry_data(swp_entry_t entry)
{
	for (;;) {
		struct page *page = lookup_swap_cache_peek(entry);
		uint64_t v;

		if (!page)
			return swap_slot_data(entry);
		v = page_data_read(page);
		if (lookup_swap_cache_peek(entry) == page)
			return v;
	}
}
