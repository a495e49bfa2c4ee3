// SPDX-License-Identifier: MIT
/*
 * The emulated file: its page cache (a flat slot array looked up under
 * RCU, changed under tree_lock), the fault-time read path, writeback and
 * truncate. Mirrors mm/filemap.c and mm/truncate.c of 2.6, with the
 * lock-free find_get_page() of the later speculative page cache (the
 * model's pages live in mem_map and are never freed to libc, so a
 * speculative get_page_unless_zero() on a page that was freed and reused
 * touches valid memory; the re-check of the slot rejects it).
 *
 * Locking, outermost first (see the tree at the top of core/lockdep.c):
 *
 * i_sem                   vmtruncate/file_extend of one file
 *   PG_locked             a page being added, read, written back, removed
 *     i_shared_sem        (unmap_mapping_range(), core/memory.c)
 *       page_table_lock
 *         tree_lock       page_tree slots and nrpages
 *     lru_lock            (lru_cache_add() of a new page)
 * (the shadow stamps take no lock: the accesses' protocol in page.h)
 *
 * References: the page cache holds one reference per cached page, taken in
 * add_to_page_cache() and dropped by whoever calls remove_from_page_cache().
 */
#include "cover.h"
#include "fs.h"
#include "inject.h"
#include "percpu.h"
#include "perturb.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "die.h"
#include "lockdep.h"
#include "mm.h"
#include "page.h"
#include "page_alloc.h"
#include "rcu.h"
#include "rmap.h"
#include "semaphore.h"
#include "spinlock.h"
#include "task.h"

/* Atomic; taken in per-task batches (percpu.h). */
static unsigned long file_next_id;
#define FILE_ID_BATCH	16

/*
 * Every live file, for the audit: the super block's inode list. A
 * harness mutex, not an emulated lock: only file_create(), the last
 * iput() and the audit's snapshot take it.
 */
static pthread_mutex_t file_list_lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(file_list);		/* file_list_lock */
/* Live files: the per-task gauge PCPU_NR_FILES. */

/**
 * file_create() - a file of @size pages that may grow to @max_pages
 * @name: for reports; truncated to fit
 * @size: the initial i_size, in pages (at most @max_pages)
 * @max_pages: capacity of the page cache and backing store (at least 1)
 *
 * Every offset of the backing store and the shadow starts at zero.
 *
 * Mirrors the inode set-up of fs/inode.c:alloc_inode() and
 * inode_init_once() (the i_data part).
 *
 * Context: may sleep. Return: the file (never NULL; harness allocation).
 */
struct address_space *file_create(const char *name, unsigned long size,
				  unsigned long max_pages)
{
	struct address_space *mapping;

	BUG_ON(max_pages == 0);
	BUG_ON(size > max_pages);

	mapping = rt_calloc(1, sizeof(*mapping));
	mapping->page_tree = rt_calloc(max_pages, sizeof(*mapping->page_tree));
	mapping->backing = rt_calloc(max_pages, sizeof(*mapping->backing));
	mapping->shadow = rt_calloc(max_pages, sizeof(*mapping->shadow));
	mapping->max_pages = max_pages;
	mapping->i_size = size;
	mapping->nrpages = 0;
	mapping->truncate_count = 0;
	spin_lock_init(&mapping->tree_lock, LOCK_CLASS_TREE_LOCK);
	sema_init(&mapping->i_shared_sem, 1, LOCK_CLASS_I_SHARED_SEM);
	sema_init(&mapping->i_sem, 1, LOCK_CLASS_I_SEM);
	INIT_LIST_HEAD(&mapping->i_mmap);
	INIT_LIST_HEAD(&mapping->i_mmap_shared);
	INIT_LIST_HEAD(&mapping->i_mmap_nonlinear);
	INIT_PRIO_TREE_ROOT(&mapping->i_mmap_tree);
	spin_lock_init(&mapping->i_mmap_lock, LOCK_CLASS_I_MMAP_LOCK);
	mapping->id = (int)rt_pcpu_id(PCPU_ID_FILE, &file_next_id, FILE_ID_BATCH);
	snprintf(mapping->name, sizeof(mapping->name), "%s", name ? name : "file");
	mapping->i_count = 1;		/* the name's */
	RT_PTHREAD(pthread_mutex_lock(&file_list_lock));
	list_add_tail(&mapping->i_list, &file_list);
	RT_PTHREAD(pthread_mutex_unlock(&file_list_lock));
	rt_pcpu_inc(PCPU_NR_FILES);
	return mapping;
}

/**
 * find_get_page() - the cached page at @index with a reference, or NULL
 * @mapping: the file
 * @index: the page offset; NULL beyond max_pages
 *
 * The speculative lookup: read the slot under RCU, take a reference only
 * if the page is not already on its way to the free list, and keep it
 * only if the slot still holds that page afterwards (else the page was
 * removed, and maybe freed and reused, between the two: drop and retry).
 *
 * Mirrors mm/filemap.c:find_get_page() (as made lock-free by the
 * speculative page cache; 2.6.3 took tree_lock for reading instead).
 *
 * Context: any; lock-free (RCU). The caller must be an RCU-registered
 * task (rt_task_attach()).
 * Return: the page with one reference for the caller, or NULL.
 */
struct page *find_get_page(struct address_space *mapping, unsigned long index)
{
	struct page *page;

	if (index >= mapping->max_pages)
		return NULL;
	rcu_read_lock();
repeat:
	/* Acquire pairs with the release of rcu_assign_pointer() in add_to_page_cache(). */
	page = rcu_dereference(mapping->page_tree[index]);
	if (page) {
		/*
		 * A count of 0: the cache's reference is gone, so the slot
		 * has been (or is being) cleared: look again.
		 */
		if (!get_page_unless_zero(page))
			goto repeat;
		/*
		 * Acquire pairs with the release store that cleared or
		 * replaced the slot: if it still holds @page now, after our
		 * reference was taken (ordered by the acquire of the CAS in
		 * get_page_unless_zero()), the page is this file's.
		 */
		if (unlikely(page != rcu_dereference(mapping->page_tree[index]))) {
			put_page(page);
			goto repeat;
		}
	}
	rcu_read_unlock();
	return page;
}

/**
 * add_to_page_cache() - insert @page at @index of @mapping
 * @page: a locked page, not anonymous, not in any cache
 * @mapping: the file
 * @index: the page offset (below max_pages)
 *
 * Sets page->as.mapping and page->index, takes the cache's reference and
 * publishes the page in the slot.
 *
 * Mirrors mm/filemap.c:add_to_page_cache().
 *
 * Context: page locked; takes tree_lock.
 * Return: 0, or -EEXIST if the slot is taken (nothing changed).
 */
int add_to_page_cache(struct page *page, struct address_space *mapping,
		      unsigned long index)
{
	int err = 0;

	BUG_ON(!PageLocked(page));
	BUG_ON(PageAnon(page) || PageSwapCache(page));
	BUG_ON(index >= mapping->max_pages);

	spin_lock(&mapping->tree_lock);
	if (rcu_dereference_protected(mapping->page_tree[index],
				      spin_is_locked(&mapping->tree_lock))) {
		err = -EEXIST;
		goto out_unlock;
	}
	/* Under lock_page: readers of as.mapping check it under it too. */
	WRITE_ONCE(page->as.mapping, mapping);
	WRITE_ONCE(page->index, index);
	get_page(page);			/* the cache's reference */
	/*
	 * Release pairs with the acquire of rcu_dereference() in
	 * find_get_page(): the mapping, index and data are visible first.
	 */
	rcu_assign_pointer(mapping->page_tree[index], page);
	WRITE_ONCE(mapping->nrpages, mapping->nrpages + 1);
out_unlock:
	spin_unlock(&mapping->tree_lock);
	return err;
}

/**
 * remove_from_page_cache() - take a locked page out of its file's cache
 * @page: a locked page in a page cache
 *
 * Clears the slot and page->as.mapping. The cache's reference now
 * belongs to the caller, who drops it (2.6: page_cache_release() after
 * remove_from_page_cache()).
 *
 * Mirrors mm/filemap.c:remove_from_page_cache() / __remove_from_page_cache().
 *
 * Context: page locked; takes tree_lock.
 */
void __remove_from_page_cache(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	unsigned long index = READ_ONCE(page->index);

	BUG_ON(!PageLocked(page));
	BUG_ON(!mapping);
	BUG_ON(index >= mapping->max_pages);
	assert_spin_locked(&mapping->tree_lock);
	BUG_ON(rcu_dereference_protected(mapping->page_tree[index],
				      spin_is_locked(&mapping->tree_lock)) != page);
	/*
	 * Release pairs with the acquire re-check in find_get_page(): a
	 * reader that sees the empty slot drops its speculative reference.
	 */
	rcu_assign_pointer(mapping->page_tree[index], NULL);
	WRITE_ONCE(mapping->nrpages, mapping->nrpages - 1);
	WRITE_ONCE(page->as.mapping, NULL);
}

void remove_from_page_cache(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);

	/* objfile: a page page_convert_anon() made PG_anon is still cached. */
	BUG_ON(!page_in_file_cache(page));
	BUG_ON(!mapping);
	spin_lock(&mapping->tree_lock);
	__remove_from_page_cache(page);
	spin_unlock(&mapping->tree_lock);
}

/**
 * filemap_nopage() - the page at @index, read into the page cache if absent
 * @mapping: the file
 * @index: the page offset
 *
 * A miss allocates a page, reads the backing store into it under the
 * page lock, and inserts it (retrying the lookup if another fault won
 * the slot) and puts it on the inactive LRU.
 *
 * A truncate may shrink the file after the i_size check. A page found
 * in the cache is returned all the same: do_no_page()'s truncate_count
 * re-check under page_table_lock is what keeps it from being mapped
 * (2.6.3's answer to this race). A page this call read in is checked
 * against i_size again once inserted, and taken back out (SIGBUS) if the
 * truncate already passed its offset, so no page stays cached beyond
 * i_size (the audit checks that).
 *
 * Mirrors mm/filemap.c:filemap_nopage() (page_cache_read() on a miss).
 *
 * Context: may sleep (lock_page, GFP_KERNEL); no spinlock held.
 * Return: the page with one reference for the caller (the future pte's),
 * NULL when out of memory, or FILEMAP_SIGBUS when @index is beyond i_size.
 */
struct page *filemap_nopage(struct address_space *mapping, unsigned long index)
{
	struct page *page;

	if (index >= READ_ONCE(mapping->i_size))
		return FILEMAP_SIGBUS;
	BUG_ON(index >= mapping->max_pages);	/* i_size <= max_pages */
retry:
	page = find_get_page(mapping, index);
	if (page) {
		if (PageUptodate(page))
			return page;
		/*
		 * Another fault is reading it in (under the page lock): wait,
		 * then make sure truncate did not take it meanwhile.
		 */
		lock_page(page);
		if (page->as.mapping != mapping || !PageUptodate(page)) {
			unlock_page(page);
			put_page(page);
			goto retry;
		}
		unlock_page(page);
		return page;
	}

	/* page_cache_alloc_cold(): the read fills it, not the CPU. */
	page = alloc_page(GFP_KERNEL | __GFP_COLD);
	if (!page)
		return NULL;
	/*
	 * page_cache_read(): the locked page goes into the cache first and
	 * is read under its lock, so truncate_inode_pages(), which locks
	 * every page it removes, either waits for the read or never sees
	 * the page; never does a read from before a truncate land in the
	 * cache after it.
	 */
	lock_page(page);
	if (add_to_page_cache(page, mapping, index)) {
		/* Another fault got there first: use theirs. */
		unlock_page(page);
		put_page(page);
		goto retry;
	}
	lru_cache_add(page);
	/*
	 * A truncate that shrank the file below @index after our first
	 * check has already passed this offset in truncate_inode_pages()
	 * if it missed our page: it set i_size before that lookup, which
	 * tree_lock orders before our insert, so we see its size now. Take
	 * the page back out ourselves rather than leave it cached beyond
	 * i_size (later kernels re-check i_size under the page lock, as here).
	 */
	if (unlikely(index >= READ_ONCE(mapping->i_size))) {
		remove_from_page_cache(page);
		put_page(page);		/* the cache's reference */
		unlock_page(page);
		put_page(page);		/* ours: frees it */
		return FILEMAP_SIGBUS;
	}
	/* Acquire pairs with the release store in writeback_page(). */
	page_data_write(page, __atomic_load_n(&mapping->backing[index], __ATOMIC_ACQUIRE));
	SetPageUptodate(page);
	unlock_page(page);
	return page;
}

/**
 * writeback_page() - write a locked file page's data to the backing store
 * @page: a locked page in a page cache
 *
 * PG_dirty is cleared before the copy (2.6's clear_page_dirty_for_io()),
 * so a store that dirties the page again after the copy is not lost.
 *
 * Mirrors mm/page-writeback.c / the ->writepage() of a simple filesystem.
 *
 * Context: page locked; takes no lock.
 */
void writeback_page(struct page *page)
{
	struct address_space *mapping = READ_ONCE(page->as.mapping);
	unsigned long index = READ_ONCE(page->index);

	BUG_ON(!PageLocked(page));
	/* objfile: a page page_convert_anon() made PG_anon is still cached. */
	BUG_ON(!page_in_file_cache(page));
	BUG_ON(!mapping);
	BUG_ON(index >= mapping->max_pages);

	ClearPageDirty(page);
	/* Release pairs with the acquire load in filemap_nopage(). */
	__atomic_store_n(&mapping->backing[index], page_data_read(page), __ATOMIC_RELEASE);
}

/*
 * The cached page at @index with a reference, looked up under tree_lock:
 * the cache's reference keeps the count above zero there, so no
 * speculation is needed, and no RCU registration (file_destroy() runs in
 * teardown threads). Mirrors mm/filemap.c:find_get_pages() as
 * truncate's pagevec_lookup() uses it.
 *
 * Context: takes tree_lock.
 */
static struct page *find_get_page_locked(struct address_space *mapping,
					 unsigned long index)
{
	struct page *page;

	spin_lock(&mapping->tree_lock);
	page = rcu_dereference_protected(mapping->page_tree[index],
					 spin_is_locked(&mapping->tree_lock));
	if (page)
		get_page(page);
	spin_unlock(&mapping->tree_lock);
	return page;
}

/*
 * The truncate-race invariant, where it can first be seen: once
 * unmap_mapping_range() is done no pte maps a page of the truncated range
 * (do_no_page() and install_page() re-check, mremap holds the file's
 * lock). A page still mapped is an orphan (a fault that raced the
 * truncate, as the seeded bug truncate-no-recheck; a pte that mremap moved
 * past the walk, as mremap-no-immap-lock; a nonlinear page outside the
 * window 2.6.3 zapped, as truncate-nonlinear-linear): reported now,
 * because the next truncate would zap it before an audit could see it.
 * Context: page locked.
 */
static void check_truncated_unmapped(struct address_space *mapping, struct page *page)
{
	struct vm_report r;
	bool mapped;

	rmap_lock(page);
	mapped = rmap->page_mapped(page);
	rmap_unlock(page);
	if (!mapped)
		return;
	memset(&r, 0, sizeof(r));
	r.kind = VM_REPORT_AUDIT;
	snprintf(r.message, sizeof(r.message),
		 "truncate: offset %lu of %s (pfn %lu) still mapped after unmap_mapping_range",
		 page->index, mapping->name, page_to_pfn(page));
	snprintf(r.signature, sizeof(r.signature), "audit:orphaned-pte");
	vm_report_emit(&r);
}

/*
 * Drop every cached page of [@start, @end) from @mapping: lock it, and if
 * it is still this file's page at that offset, remove it, forget its
 * dirtiness and drop the cache's reference. A page that is still mapped
 * here is left mapped; after vmtruncate()'s unmap (@unmapped) it is
 * reported as an orphan.
 *
 * Mirrors mm/truncate.c:truncate_inode_pages() / truncate_complete_page().
 *
 * Context: may sleep (lock_page); no spinlock held.
 */
static void truncate_inode_pages_range(struct address_space *mapping,
				       unsigned long start, unsigned long end, bool unmapped)
{
	for (unsigned long index = start; index < end; index++) {
		struct page *page;

		if (!rcu_access_pointer(mapping->page_tree[index]))
			continue;
		page = find_get_page_locked(mapping, index);
		if (!page)
			continue;
		lock_page(page);
		/*
		 * Still ours? Under lock_page nobody can remove it now.
		 * (objfile: page_convert_anon() may have made it PG_anon.)
		 */
		if (page_in_file_cache(page) && READ_ONCE(page->as.mapping) == mapping &&
		    READ_ONCE(page->index) == index) {
			if (unmapped)
				check_truncated_unmapped(mapping, page);
			remove_from_page_cache(page);
			ClearPageDirty(page);
			put_page(page);		/* the cache's reference */
		}
		unlock_page(page);
		put_page(page);			/* the lookup's */
	}
}

/* Zero the disk and the expected contents of [@start, @end). */
static void truncate_backing(struct address_space *mapping,
			     unsigned long start, unsigned long end)
{
	for (unsigned long index = start; index < end; index++)
		__atomic_store_n(&mapping->backing[index], 0, __ATOMIC_RELEASE);
	/*
	 * The ptes are gone and flushed: no access stores here any more,
	 * but one that raced the truncate as a seeded bug may, so wait out
	 * its half-done store (page.h) rather than tear it.
	 */
	for (unsigned long index = start; index < end; index++) {
		shadow_update_begin(&mapping->shadow[index]);
		shadow_reset_begin(&mapping->shadow[index]);
		shadow_update_end(&mapping->shadow[index], 0);
		shadow_reset_end(&mapping->shadow[index]);
	}
}

/* Raise i_size to @new_size (clamped). Caller holds i_sem. */
static void __file_extend(struct address_space *mapping, unsigned long new_size)
{
	unsigned long old_size = READ_ONCE(mapping->i_size);

	if (new_size > mapping->max_pages)
		new_size = mapping->max_pages;
	if (new_size <= old_size)
		return;
	/*
	 * Offsets beyond i_size read as zero: their backing store was
	 * zeroed by the truncate that shrank the file. A page a fault read
	 * into the cache while that truncate ran may still sit there with
	 * the old contents: drop it before the offsets become readable.
	 */
	truncate_inode_pages_range(mapping, old_size, new_size, false);
	WRITE_ONCE(mapping->i_size, new_size);
}

/**
 * vmtruncate() - shrink @mapping to @new_size pages
 * @mapping: the file
 * @new_size: the new size in pages; at or above i_size it grows the
 *	file instead (as file_extend())
 *
 * i_size first, so new faults beyond it get SIGBUS; then every pte of
 * the truncated range is zapped (unmap_mapping_range(), which bumps
 * truncate_count for do_no_page()'s re-check); then the cached pages are
 * dropped; then the backing store and shadow of the range are zeroed.
 *
 * Mirrors mm/memory.c:vmtruncate() of 2.6 (i_size_write(),
 * unmap_mapping_range(), truncate_inode_pages()), with do_truncate()'s
 * i_sem.
 *
 * Context: may sleep; takes i_sem, then i_shared_sem and page_table_locks
 * (in unmap_mapping_range()), lock_page, tree_lock. No
 * emulated lock held.
 */
void vmtruncate(struct address_space *mapping, unsigned long new_size)
{
	unsigned long old_size;

	down(&mapping->i_sem);
	old_size = READ_ONCE(mapping->i_size);
	if (new_size >= old_size) {
		__file_extend(mapping, new_size);
		goto out_up;
	}
	WRITE_ONCE(mapping->i_size, new_size);
	unmap_mapping_range(mapping, new_size, old_size - new_size);
	yield_point_on("vmtruncate:after_unmap", mapping, COVER_MAPPING);
	truncate_inode_pages_range(mapping, new_size, old_size, true);
	truncate_backing(mapping, new_size, old_size);
out_up:
	up(&mapping->i_sem);
}

/**
 * file_extend() - grow @mapping to @new_size pages (at most max_pages)
 * @mapping: the file
 * @new_size: the new size in pages; not above i_size: nothing happens
 *
 * The new offsets read as zero.
 *
 * Mirrors the expanding half of mm/memory.c:vmtruncate() (do_expand).
 *
 * Context: may sleep; takes i_sem, lock_page. No emulated lock held.
 */
void file_extend(struct address_space *mapping, unsigned long new_size)
{
	down(&mapping->i_sem);
	__file_extend(mapping, new_size);
	up(&mapping->i_sem);
}

/* The memory of a file nobody can reach any more. */
static void file_free(struct address_space *mapping)
{
	/* libc may hand the address out again: a new file to the coverage. */
	cover_forget(mapping);
	free(mapping->page_tree);
	free(mapping->backing);
	free(mapping->shadow);
	free(mapping);
}

static void file_free_rcu(struct rcu_head *head)
{
	file_free(container_of(head, struct address_space, rcu));
}

/*
 * The last reference is gone: no vma maps the file (each held one) and
 * no lookup can find it (its name went first). Pages still in its cache
 * are dropped, each under its page lock, so a reclaimer that locked one
 * of them before the last iput() (shrink_page() reads page->as.mapping
 * and takes tree_lock under the page lock) is done with the file before
 * truncate_inode_pages() gets past that page; one that emptied the slot
 * first is done once its tree_lock is released, which a last look under
 * tree_lock waits for. The memory goes back only
 * after an RCU grace period: a lookup that read the pointer under
 * rcu_read_lock() before the name was removed may still igrab() it,
 * and must find i_count 0 in valid memory (the seeded bug
 * file-free-now frees it at once).
 *
 * Mirrors fs/inode.c:generic_delete_inode() (truncate_inode_pages(),
 * clear_inode(), destroy_inode()), with the RCU-delayed free of later
 * kernels (i_callback()).
 *
 * Context: may sleep (lock_page); no spinlock held.
 */
static void generic_delete_inode(struct address_space *mapping)
{
	BUG_ON(!list_empty(&mapping->i_mmap));
	BUG_ON(!list_empty(&mapping->i_mmap_shared));
	BUG_ON(!list_empty(&mapping->i_mmap_nonlinear));
	BUG_ON(!prio_tree_empty(&mapping->i_mmap_tree));
	truncate_inode_pages_range(mapping, 0, mapping->max_pages, false);
	/*
	 * The last lookup under tree_lock, as 2.6's truncate_inode_pages()
	 * ends with a pagevec_lookup() that finds nothing: a reclaimer whose
	 * remove_mapping() emptied a slot before we looked at it (under its
	 * page lock, which we then never took) has let go of tree_lock, its
	 * last touch of the file, once we hold it.
	 */
	spin_lock(&mapping->tree_lock);
	BUG_ON(mapping->nrpages != 0);
	spin_unlock(&mapping->tree_lock);
	RT_PTHREAD(pthread_mutex_lock(&file_list_lock));
	list_del(&mapping->i_list);
	RT_PTHREAD(pthread_mutex_unlock(&file_list_lock));
	rt_pcpu_dec(PCPU_NR_FILES);
	if (injected(INJECT_FILE_FREE_NOW))
		file_free(mapping);	/* seeded bug: no grace period */
	else
		call_rcu(&mapping->rcu, file_free_rcu);
}

/**
 * __iget() - take another reference to a file
 * @mapping: a file the caller holds a reference to (its vma's, its own)
 *
 * Mirrors fs/inode.c:__iget() (and get_file() of a vma's vm_file: the
 * model has no struct file, the vma's reference is the inode's).
 *
 * Context: any.
 */
void __iget(struct address_space *mapping)
{
	int old;

	line_write(&mapping->i_count, LINE_COUNT);
	old = __atomic_fetch_add(&mapping->i_count, 1, __ATOMIC_RELAXED);

	BUG_ON(old <= 0);
}

/**
 * igrab() - a reference to a file found without one, unless it is dying
 * @mapping: read under rcu_read_lock() from an RCU-published pointer
 *
 * Mirrors fs/inode.c:igrab() (which refuses an inode being freed), with
 * the lookup lock-free as the dcache's d_lookup() was: the name may be
 * removed and the last reference dropped between the caller's read of
 * the pointer and this call, and only RCU keeps the memory a file whose
 * i_count reads 0.
 *
 * Context: inside rcu_read_lock().
 * Return: true when the caller now holds a reference.
 */
bool igrab(struct address_space *mapping)
{
	int old = __atomic_load_n(&mapping->i_count, __ATOMIC_RELAXED);

	line_write(&mapping->i_count, LINE_COUNT);
	do {
		if (old <= 0)
			return false;
		/* Acquire pairs with the release of iput(). */
	} while (!__atomic_compare_exchange_n(&mapping->i_count, &old, old + 1, true,
					      __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
	return true;
}

/**
 * iput() - drop a reference to a file; the last one destroys it
 * @mapping: the file; NULL is allowed
 *
 * Mirrors fs/inode.c:iput() of an unlinked inode (iput_final() ->
 * generic_delete_inode()).
 *
 * Context: may sleep when it is the last (lock_page); no spinlock held.
 */
void iput(struct address_space *mapping)
{
	int left;

	if (!mapping)
		return;
	/*
	 * Release: our accesses to the file happen before its destruction;
	 * acquire (the last): everybody else's too.
	 */
	line_write(&mapping->i_count, LINE_COUNT);
	left = __atomic_sub_fetch(&mapping->i_count, 1, __ATOMIC_ACQ_REL);
	BUG_ON(left < 0);
	if (left == 0) {
		might_sleep("iput");
		generic_delete_inode(mapping);
	}
}

/**
 * file_destroy() - unlink and close: drop the name's reference
 * @mapping: the file; NULL is allowed
 *
 * The file dies now if nothing else holds it, else with its last
 * reference (the last vma that maps it, the last lookup).
 *
 * Mirrors sys_unlink() + the closing fput() of 2.6, in one.
 *
 * Context: may sleep (lock_page); no spinlock held.
 */
void file_destroy(struct address_space *mapping)
{
	iput(mapping);
}

/**
 * file_lookup() - a reference to the file an RCU-published pointer names
 * @slot: an RCU-published file pointer (a name: the world's file table)
 *
 * Mirrors the lock-free name lookup of the dcache (d_lookup() under RCU)
 * and the igrab() of the inode it finds: an unlink may replace @slot and
 * drop the file's last reference between the read and igrab(); only the
 * RCU grace period of the file's free keeps that igrab() on valid memory.
 *
 * Context: any task registered with RCU; lock-free.
 * Return: the file with a reference for the caller, or NULL.
 */
struct address_space *file_lookup(struct address_space **slot)
{
	struct address_space *mapping;

	rcu_read_lock();
	mapping = rcu_dereference(*slot);
	/* An unlink may replace the slot and free the file meanwhile. */
	yield_point_on("igrab:rcu", mapping, COVER_MAPPING);
	if (mapping && !igrab(mapping))
		mapping = NULL;
	rcu_read_unlock();
	return mapping;
}

unsigned long file_count_live(void)
{
	return (unsigned long)rt_pcpu_sum(PCPU_NR_FILES);
}

struct address_space **file_list_snapshot(int *nr)
{
	struct address_space **all, *mapping;
	int n = 0;

	RT_PTHREAD(pthread_mutex_lock(&file_list_lock));
	list_for_each_entry(mapping, &file_list, i_list)
		n++;
	all = rt_calloc((size_t)n + 1, sizeof(*all));
	n = 0;
	list_for_each_entry(mapping, &file_list, i_list)
		all[n++] = mapping;
	RT_PTHREAD(pthread_mutex_unlock(&file_list_lock));
	*nr = n;
	return all;
}
