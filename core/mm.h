/* SPDX-License-Identifier: MIT */
/*
 * struct mm_struct and struct vm_area_struct, and the VM operations on
 * them: mmap, munmap, mprotect-style splits, mremap, mlock, fork, exec,
 * exit, the fault paths and the emulated MMU's accesses. Mirrors
 * include/linux/mm.h, sched.h (mm_struct) and mm/{mmap,mremap,memory,
 * fremap}.c and kernel/fork.c of 2.6.
 *
 * Locking (the full order is the tree at the top of core/lockdep.c):
 *   mm->mmap_sem         the vma list, vma bounds and flags (write to
 *                        change, read to look up and fault)
 *   mapping->i_shared_sem   the file's vma lists, and vm_start/vm_pgoff of
 *                        file vmas (seed 001's move_vma_start), so an
 *                        rmap walk under it sees consistent bounds
 *   mm->page_table_lock  the ptes, rss, the shadow stamps (which user
 *                        accesses also update, lock-free: core/page.h)
 * A user access (mm_access()) takes none of these: a pte change that
 * removes or write-protects a translation is followed by a TLB flush
 * that waits for the accesses still using it (core/tlbflush.h).
 */
#ifndef RT_CORE_MM_H
#define RT_CORE_MM_H

#include <stdbool.h>
#include <stdint.h>

#include "list.h"
#include "page.h"
#include "pgtable.h"
#include "prio_tree.h"
#include "rcu.h"
#include "rwsem.h"
#include "spinlock.h"

struct address_space;
struct anon_vma;

/* vm_flags */
#define VM_READ		0x00000001UL
#define VM_WRITE	0x00000002UL
#define VM_EXEC		0x00000004UL
#define VM_SHARED	0x00000008UL
#define VM_GROWSDOWN	0x00000100UL	/* a stack: expand_stack() below it */
#define VM_LOCKED	0x00002000UL	/* mlock: try_to_unmap says SWAP_FAIL */
#define VM_NONLINEAR	0x00800000UL	/* remap_file_pages() was used */

struct vm_area_struct {
	struct mm_struct *vm_mm;	/* set at creation, then read-only */
	/*
	 * Bounds: mmap_sem (write) to change, or mmap_sem (read) and
	 * page_table_lock for expand_stack; for file vmas also the
	 * mapping's i_shared_sem (move_vma_start), so that rmap walks under
	 * i_shared_sem alone see them stable; for a vma on an anon_vma also
	 * anon_vma->lock; and page_table_lock where the design has
	 * find_vma() under it (rmap_ops.vma_locks). Read under mmap_sem or
	 * those locks (READ_ONCE by reclaim's trylock walks and faults).
	 */
	unsigned long vm_start;
	unsigned long vm_end;
	/*
	 * File vmas: the file page offset of vm_start. Anonymous vmas: the
	 * virtual page number vm_start had when the vma was created; an
	 * anonymous page's index is vm_pgoff + (addr - vm_start) / PAGE_SIZE,
	 * so mremap, which moves vm_start and keeps vm_pgoff, keeps rmap
	 * valid (seed 002). Locked as vm_start.
	 */
	unsigned long vm_pgoff;
	unsigned long vm_flags;		/* mmap_sem */
	/* mmap_sem: the mm's sorted list; page_table_lock too in ptechain, objfile */
	struct vm_area_struct *vm_next;
	struct address_space *vm_file;	/* the mapped file, NULL if anonymous */
	/*
	 * On i_mmap, i_mmap_shared or i_mmap_nonlinear: i_shared_sem. In
	 * the mainline designs (i_mmap_lock): on i_mmap_nonlinear, or the
	 * ring of the vmas sharing one node of i_mmap_tree (2.6.7's vm_set).
	 */
	struct list_head shared;
	/* mainline: this vma's node in i_mmap_tree, when it holds one: i_mmap_lock */
	struct prio_tree_node prio_tree_node;
	bool prio_in_tree;		/* i_mmap_lock */
	/* mainline: try_to_unmap_cluster()'s cursor in a nonlinear vma: i_mmap_lock */
	unsigned long vm_private_data;
	/* anonvma only (seed 002): mmap_sem (write), or read plus page_table_lock; anon_vma->lock. */
	struct anon_vma *anon_vma;
	struct list_head anon_vma_node;	/* anon_vma->lock */
	int id;				/* for reports; read-only */
};

#ifndef BITS_PER_LONG
#define BITS_PER_LONG		(8 * (int)sizeof(unsigned long))
#endif
#define MM_CPUMASK_WORDS	16	/* bits for tlbflush.h's NR_TLB_CPUS slots */

struct mm_struct {
	struct vm_area_struct *mmap;	/* mmap_sem: sorted by vm_start */
	int map_count;			/* mmap_sem */
	pgd_t *pgd;			/* tables: page_table_lock; read lock-free by the MMU */
	/*
	 * The data-integrity shadow: for every virtual page whose contents are
	 * private to this mm (anonymous, or a private file page after COW),
	 * the stamp last written (0: never written). Slots as ptes, entries
	 * moved/copied/cleared with the ptes (cleared after their flush).
	 * page_table_lock for the kernel's changes; user stores update them
	 * with the page's data word by page.h's protocol, no lock.
	 */
	pgd_t *shadow;
	struct rw_semaphore mmap_sem;
	spinlock_t page_table_lock;
	/*
	 * atomic; the mm is freed after RCU when 0. The drop to 0 happens
	 * under mmlist_lock (2.6.9's atomic_dec_and_lock() in mmput()), so
	 * that swapoff, which takes a user reference to an mm it finds on
	 * the mmlist under that lock, never revives a dying mm.
	 */
	int mm_users;
	unsigned long rss;		/* page_table_lock: present ptes of real pages */
	unsigned long stamp_seq;	/* atomic: generator for this mm's write stamps */
	int id;				/* read-only */
	/*
	 * mmlist_lock: on the list of every mm (2.6.9's init_mm.mmlist),
	 * a child right after its parent; off it once mm_users reached 0.
	 */
	struct list_head mmlist;
	struct rcu_head rcu;
	/*
	 * 2.6's cpu_vm_mask: the CPU slots (tlbflush.c) whose TLB may hold
	 * this mm's translations or that may be inside an access of it, so
	 * that a flush visits those alone. Atomic; a slot's bit is set by
	 * its owner when it switches to the mm (switch_mm()) and cleared,
	 * both under the slot's lock, by a flusher that finds the slot
	 * moved on (i386's lazy leave_mm()). A line of its own: owners
	 * write it only when they switch.
	 */
	unsigned long cpu_vm_mask[MM_CPUMASK_WORDS] ____cacheline_aligned;
};

/* Fault results, mirroring 2.6's VM_FAULT_* */
#define VM_FAULT_OOM	(-1)
#define VM_FAULT_SIGBUS	0
#define VM_FAULT_MINOR	1
#define VM_FAULT_MAJOR	2

/* ---- mm lifetime ---- */

/**
 * mm_alloc() - a new, empty mm with one user
 * Context: may sleep (GFP_KERNEL).
 */
struct mm_struct *mm_alloc(void);

/**
 * mmget_not_zero() - take a user reference unless the mm is exiting
 * Context: under rcu_read_lock() (the mm is freed only after a grace
 * period), or holding a reference already.
 * Return: true when a reference was taken.
 */
bool mmget_not_zero(struct mm_struct *mm);

/**
 * mmput() - drop a user reference; the last one runs exit_mmap() and
 * frees the mm after an RCU grace period
 * Context: may sleep; holds no lock of this mm.
 */
void mmput(struct mm_struct *mm);

/* ---- vmas ---- */

/* First vma with vm_end > @addr, or NULL. Context: mmap_sem held. */
struct vm_area_struct *find_vma(struct mm_struct *mm, unsigned long addr);

/**
 * do_mmap() - map [@addr, @addr + @len) (fixed) or anywhere (@addr 0)
 * @file: NULL for anonymous memory
 * @pgoff: file page offset of the start (ignored when anonymous)
 * @flags: VM_READ/VM_WRITE/VM_SHARED/VM_GROWSDOWN/VM_LOCKED
 *
 * Replaces whatever was mapped there (a fixed mapping unmaps first);
 * merges with an adjacent compatible vma (vma_merge).
 *
 * Context: mmap_sem held for write.
 * Return: the start address, or -errno as a negative long cast.
 */
long do_mmap(struct mm_struct *mm, struct address_space *file, unsigned long addr,
	     unsigned long len, unsigned long flags, unsigned long pgoff);

/**
 * do_munmap() - unmap [@addr, @addr + @len), splitting vmas at the edges
 * Context: mmap_sem held for write.
 * Return: 0 or -errno.
 */
int do_munmap(struct mm_struct *mm, unsigned long addr, unsigned long len);

/**
 * do_mprotect() - change VM_WRITE (and VM_LOCKED for mlock) on a range,
 * splitting vmas as mprotect_fixup() does
 * Context: mmap_sem held for write.
 * Return: 0 or -errno.
 */
int do_mprotect(struct mm_struct *mm, unsigned long addr, unsigned long len,
		unsigned long set, unsigned long clear);

/**
 * do_mremap() - grow or shrink [@addr, @addr + @old_len) to @new_len,
 * in place when possible, else moving it (move_vma + move_page_tables),
 * to @new_addr if nonzero (MREMAP_FIXED)
 * Context: mmap_sem held for write.
 * Return: the new address, or -errno as a negative long cast.
 */
long do_mremap(struct mm_struct *mm, unsigned long addr, unsigned long old_len,
	       unsigned long new_len, unsigned long new_addr);

/**
 * remap_file_pages() - make [@start, @start + @size) of a shared file vma
 * map file pages from @pgoff on, nonlinearly (sys_remap_file_pages)
 * Context: takes mmap_sem (read, as 2.6 did); may sleep.
 * Return: 0 or -errno.
 */
int remap_file_pages(struct mm_struct *mm, unsigned long start, unsigned long size,
		     unsigned long pgoff);

/* ---- processes ---- */

/**
 * dup_mm() - fork: a copy of @oldmm's vmas and page tables, with private
 * writable ptes write-protected in both for copy-on-write
 * Context: takes oldmm's mmap_sem for write; may sleep.
 * Return: the child's mm, or NULL when memory ran out (nothing leaked).
 */
struct mm_struct *dup_mm(struct mm_struct *oldmm);

/* The top of the stack vma exec_mm() creates; it grows down from here. */
#define STACK_TOP	0xc0000000UL

/**
 * exec_mm() - a fresh mm as exec builds it: for each library file a text
 * mapping (private, read-only, first half of the file) and a data mapping
 * (private, writable: copy-on-write, second half), an anonymous heap of
 * @heap_pages and a grows-down stack of @stack_pages below STACK_TOP
 * Context: may sleep.
 * Return: the mm, or NULL when memory ran out.
 */
struct mm_struct *exec_mm(struct address_space *const *libs, int nr_libs,
			  unsigned long heap_pages, unsigned long stack_pages);

/**
 * exit_mmap() - unmap everything and free the page tables (the last mmput)
 * Context: no other user of @mm; may sleep.
 */
void exit_mmap(struct mm_struct *mm);

/**
 * zap_page_range() - clear the ptes of [@address, @address + @size) in
 * @vma: drop rmap, rss and page references; swap ptes free their slot;
 * dirty bits go to the pages; the shadow stamps of the range are cleared
 * Context: mmap_sem held (or the mm is exiting); takes page_table_lock.
 */
void zap_page_range(struct vm_area_struct *vma, unsigned long address,
		    unsigned long size);

/**
 * unmap_mapping_range() - zap every pte of every vma mapping file pages
 * [@pgoff, @pgoff + @nr) of @mapping (nonlinear vmas: their file ptes
 * too), bumping truncate_count first
 * Context: takes i_shared_sem, then page_table_locks; may sleep.
 */
void unmap_mapping_range(struct address_space *mapping, unsigned long pgoff,
			 unsigned long nr);

/* ---- faults and the MMU ---- */

/**
 * handle_mm_fault() - resolve a fault at @address
 * @write: the access was a write
 * Context: mmap_sem held for read; takes page_table_lock; may sleep.
 * Return: VM_FAULT_MINOR/MAJOR, VM_FAULT_SIGBUS, or VM_FAULT_OOM.
 */
int handle_mm_fault(struct mm_struct *mm, struct vm_area_struct *vma,
		    unsigned long address, bool write);

/**
 * expand_stack() - grow a VM_GROWSDOWN vma down to @address
 * Context: mmap_sem held for read (as 2.6 did: the race with another
 * expand_stack, and with a fault computing a page's index, is settled
 * under page_table_lock; see core/mmap.c).
 * Return: 0 or -ENOMEM.
 */
int expand_stack(struct vm_area_struct *vma, unsigned long address);

enum mm_access_result {
	ACCESS_OK,		/* done, and a read saw the expected stamp */
	ACCESS_SEGV,		/* no vma, or a write to a read-only vma */
	ACCESS_SIGBUS,		/* a file page beyond i_size */
	ACCESS_OOM,		/* the fault could not allocate: back off */
	ACCESS_CORRUPT,		/* a read saw the wrong stamp: reported */
};

/**
 * mm_access() - one load or store by a CPU at @address, as the MMU and the
 * program would do it: use this CPU's TLB, or walk the page table without
 * locks setting young (and dirty) bits; fault when the translation is
 * absent or read-only, as do_page_fault() does (mmap_sem for read,
 * find_vma(), the checks, expand_stack(), handle_mm_fault()), then retry;
 * then read the page's data word and check it against the expected stamp,
 * or write a new stamp. The lookup, the walk and the load or store take no
 * emulated lock; they run inside this CPU's TLB window
 * (tlb_access_begin()/tlb_access_end()), which every flush of the mm
 * drops entries in and waits for.
 * @mm: the mm of the calling thread, referenced
 * @address: the user address
 * @write: a store
 * @stamp: out, the value read or written (may be NULL)
 * Context: no lock held (a user access runs outside mmap_sem: munmap,
 * mprotect, mremap, fork and exec race it); takes mmap_sem for read only
 * to fault. May sleep.
 * Return: enum mm_access_result.
 */
enum mm_access_result mm_access(struct mm_struct *mm, unsigned long address,
				bool write, uint64_t *stamp);

/**
 * get_user_pages() - pin the pages of [@start, @start + @len pages) of @mm
 * @mm: the process whose memory a direct I/O uses
 * @start: the first user address (page aligned)
 * @len: the number of pages
 * @write: the I/O will store into the pages (a read(2) into user memory):
 *	each pte must be writable and dirty, so a COW is broken first
 * @pages: out, @len pinned pages (each with a reference: put_page())
 * @vmas: out, the vma of each page (may be NULL)
 *
 * Mirrors mm/memory.c:get_user_pages() of 2.6.9 without @force: for each
 * page, follow_page() under page_table_lock, else handle_mm_fault() with
 * the lock dropped and look again; the reference is taken while
 * page_table_lock is still held, which is what lets 2.6.7+'s
 * try_to_unmap_one() tell a pinned page by its count. A read of an
 * untouched anonymous range pins the zero page without a fault.
 *
 * Context: mmap_sem held for read; takes page_table_lock; may sleep.
 * Return: the number of pages pinned (fewer than @len when a later page
 * failed), or -EFAULT / -ENOMEM when the first one failed.
 */
int get_user_pages(struct mm_struct *mm, unsigned long start, int len, bool write,
		   struct page **pages, struct vm_area_struct **vmas);

/**
 * struct gup_dma - a device's access to a page get_user_pages() pinned,
 * judged by the data oracle (harness side: no emulated lock)
 * @word: the shadow word the page's data answers to at the pin's address
 *	(NULL: no judgement possible, e.g. the zero page)
 * @word_then: @word's value when gup_dma_begin() looked
 * @data_then: the page's data then
 * @resets: @word's reset count then (page.h: shadow_reset_snapshot())
 */
struct gup_dma {
	uint64_t *word;
	uint64_t word_then;
	uint64_t data_then;
	uint64_t resets;
};

/*
 * gup_dma_begin() - what the user saw through @page at @address of @vma
 * when it was pinned: for gup_dma_check(). Context: mmap_sem held for
 * read, right after get_user_pages() returned @page for @address.
 */
void gup_dma_begin(struct mm_struct *mm, struct vm_area_struct *vma,
		   unsigned long address, struct page *page, struct gup_dma *dma);

/*
 * gup_dma_write() - a device stores a new stamp into @page, pinned for
 * write at @address of anonymous @vma, and the oracle records it as what
 * @address shows from now on (the user's read(2) returned it). A store
 * the user can no longer see at @address is found by the user's next load
 * there, or the audit. Context: no lock; @page pinned; no layout change
 * of @mm (munmap, mremap, mprotect, fork) since the pin (the caller's
 * promise, as an O_DIRECT user's). Return: the stamp.
 */
uint64_t gup_dma_write(struct mm_struct *mm, unsigned long address, struct page *page);

/*
 * gup_dma_check() - a device reads @page, pinned for read, as @dma
 * recorded it: its data may differ from then only if the user stored at
 * the address since (the shadow word moved); else another reference
 * reached the pinned page, and that is reported (audit:data-integrity).
 * Context: no lock; @page pinned. Return: ACCESS_OK or ACCESS_CORRUPT.
 */
enum mm_access_result gup_dma_check(struct mm_struct *mm, unsigned long address,
				    struct page *page, const struct gup_dma *dma);

/*
 * gup_pin_keeps_mapping() - whether the design's try_to_unmap_one() leaves
 * a pinned anonymous page mapped (2.6.7's test; rmap_ops.gup_pin_test).
 */
bool gup_pin_keeps_mapping(void);

#endif /* RT_CORE_MM_H */
