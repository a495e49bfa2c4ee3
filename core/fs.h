/* SPDX-License-Identifier: MIT */
/*
 * struct address_space: an emulated file. Its page cache (index -> page,
 * looked up under RCU, changed under tree_lock), its vma lists under
 * i_shared_sem, its size, its backing store ("the disk") and the truncate
 * sequence count that do_no_page() samples. Mirrors include/linux/fs.h and
 * mm/filemap.c, mm/truncate.c of 2.6.
 */
#ifndef RT_CORE_FS_H
#define RT_CORE_FS_H

#include <stdbool.h>
#include <stdint.h>

#include "list.h"
#include "page.h"
#include "page_alloc.h"
#include "prio_tree.h"
#include "rcu.h"
#include "semaphore.h"
#include "spinlock.h"

struct address_space {
	/*
	 * The page cache: one slot per page offset up to max_pages.
	 * Readers: rcu_dereference() under rcu_read_lock(), then
	 * get_page_unless_zero() and a re-check. Writers: tree_lock.
	 */
	struct page **page_tree;
	unsigned long nrpages;		/* tree_lock */
	spinlock_t tree_lock;
	unsigned long max_pages;	/* capacity: read-only */
	/*
	 * Size in pages: written by vmtruncate()/file_extend() under i_sem,
	 * read (faults) with READ_ONCE.
	 */
	unsigned long i_size;
	/*
	 * 2.6's inode->i_sem: serialises vmtruncate() and file_extend() of
	 * one file against each other (taken outside everything else; a
	 * run-time lockdep class outside the documented order).
	 */
	struct semaphore i_sem;

	struct semaphore i_shared_sem;
	struct list_head i_mmap;		/* private vmas: i_shared_sem */
	struct list_head i_mmap_shared;		/* shared vmas: i_shared_sem */
	struct list_head i_mmap_nonlinear;	/* VM_NONLINEAR vmas: i_shared_sem */
	/*
	 * The mainline designs (2.6.8 on; rmap_ops.i_mmap_tree): every
	 * linear vma of the file, private or shared, in one priority search
	 * tree by its range of file pages, and the nonlinear ones on
	 * i_mmap_nonlinear, all under the i_mmap_lock spinlock, which they
	 * take wherever the others take i_shared_sem (core/i_mmap.h).
	 */
	struct prio_tree_root i_mmap_tree;	/* i_mmap_lock */
	spinlock_t i_mmap_lock;
	/*
	 * Bumped (under i_shared_sem) by every truncate before it unmaps;
	 * do_no_page() samples it before the lookup and re-checks it under
	 * page_table_lock. Atomic.
	 */
	unsigned long truncate_count;

	/* The disk: written by writeback under lock_page; read on a cache miss. */
	uint64_t *backing;		/* atomic words */
	/*
	 * Expected contents per offset (the data-integrity check): the stamp
	 * last written through a shared mapping, 0 after truncate. Atomic
	 * words, updated with the page's data word by the accesses' own
	 * protocol (page.h: shadow_update_begin()), no lock.
	 */
	uint64_t *shadow;
	int id;				/* read-only */
	char name[32];			/* read-only */

	/*
	 * The inode's i_count, atomic: the name's reference (file_create()
	 * to file_destroy(): unlink), one per vma mapping the file
	 * (vm_file), and one per lookup in progress. The last iput()
	 * truncates the page cache (locking each page) and frees the
	 * file after an RCU grace period.
	 */
	int i_count;
	struct list_head i_list;	/* file_list_lock (harness): live files */
	struct rcu_head rcu;		/* the free after the grace period */
};

/**
 * file_create() - a file of @size pages that may grow to @max_pages
 * Context: may sleep. Return: the file (never NULL; harness allocation).
 */
struct address_space *file_create(const char *name, unsigned long size,
				  unsigned long max_pages);
/**
 * file_destroy() - unlink and close: drop the reference file_create()
 * gave (the name's); the file dies with its last reference (iput())
 * Context: may sleep (lock_page, when it is the last); no spinlock held.
 */
void file_destroy(struct address_space *mapping);

/**
 * __iget() - take another reference to a file the caller holds one to
 * (a vma's vm_file: get_file())
 * Context: any.
 */
void __iget(struct address_space *mapping);

/**
 * igrab() - take a reference to a file found without one, unless it is
 * already dying (i_count 0)
 * @mapping: read under rcu_read_lock() from an RCU-published pointer
 * Context: inside rcu_read_lock(), which keeps the memory valid.
 * Return: true when the caller now holds a reference.
 */
bool igrab(struct address_space *mapping);

/**
 * iput() - drop a reference; the last one destroys the file: its page
 * cache is truncated (truncate_inode_pages(), which locks every page, so
 * a reclaimer holding one of them keeps the file alive until it lets
 * go), then it is freed after an RCU grace period
 * Context: may sleep (lock_page, when it is the last); no spinlock held;
 * no vma maps the file when it is the last.
 */
void iput(struct address_space *mapping);

/**
 * file_lookup() - the file an RCU-published pointer names, with a
 * reference (iput() it), or NULL when there is none or it is dying
 * @slot: written with rcu_assign_pointer() by whoever replaces the file
 * Context: any task registered with RCU; lock-free.
 */
struct address_space *file_lookup(struct address_space **slot);

/* Files created and not yet destroyed (teardown's leak check). Context: any. */
unsigned long file_count_live(void);

/*
 * Every live file, named or unlinked and still mapped, into a new array
 * of *@nr (the caller frees it): the audit's list. Context: a quiescent
 * point; takes file_list_lock.
 */
struct address_space **file_list_snapshot(int *nr);

/**
 * find_get_page() - the cached page at @index with a reference, or NULL
 * Context: any; lock-free (RCU).
 */
struct page *find_get_page(struct address_space *mapping, unsigned long index);

/**
 * filemap_nopage() - the page at @index, read from the backing store into
 * the page cache if absent, with a reference; mirrors mm/filemap.c
 * Context: may sleep (lock_page, GFP_KERNEL); no spinlock held.
 * Return: the page, NULL when out of memory, or FILEMAP_SIGBUS when
 * @index is beyond i_size.
 */
struct page *filemap_nopage(struct address_space *mapping, unsigned long index);
#define FILEMAP_SIGBUS ((struct page *)-1L)

/**
 * add_to_page_cache() - insert @page at @index (page locked by caller)
 * Context: takes tree_lock. Return: 0, or -EEXIST if the slot is taken.
 */
int add_to_page_cache(struct page *page, struct address_space *mapping,
		      unsigned long index);
/*
 * Remove a locked page from its mapping's cache (slot, nrpages,
 * page->as.mapping). The cache's page reference passes to the caller,
 * who drops it with put_page() (2.6's page_cache_release() after
 * remove_from_page_cache()). Context: page locked; takes tree_lock.
 */
void remove_from_page_cache(struct page *page);
/* The same with the mapping's tree_lock already held (reclaim's remove_mapping). */
void __remove_from_page_cache(struct page *page);

/**
 * vmtruncate() - shrink the file to @new_size pages: i_size, then
 * unmap_mapping_range() over every vma, then truncate_inode_pages()
 * (beyond which backing and shadow are zeroed); a @new_size at or above
 * i_size only grows it, as file_extend()
 * Context: may sleep; takes i_sem, i_shared_sem, page_table_locks,
 * lock_page. No emulated lock held.
 */
void vmtruncate(struct address_space *mapping, unsigned long new_size);
/*
 * Grow the file to @new_size pages, at most max_pages (new pages read as
 * zero). Context: may sleep; takes i_sem, lock_page.
 */
void file_extend(struct address_space *mapping, unsigned long new_size);

/**
 * set_page_dirty() - the page's contents differ from the backing store
 */
static inline void set_page_dirty(struct page *page)
{
	SetPageDirty(page);
}

/**
 * writeback_page() - copy a locked file page's data to the backing store
 * and clear PG_dirty
 * Context: page locked.
 */
void writeback_page(struct page *page);

#endif /* RT_CORE_FS_H */
