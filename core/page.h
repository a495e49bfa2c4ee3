/* SPDX-License-Identifier: MIT */
/*
 * struct page, its flag bits and the locks that live in page->flags:
 * PG_locked (lock_page, a sleeping bit lock), PG_chainlock (2.6.3's
 * pte_chain_lock) and PG_maplock (seed 002's page_map_lock), both bit
 * spinlocks. Mirrors include/linux/mm.h and page-flags.h of 2.6.
 */
#ifndef RT_CORE_PAGE_H
#define RT_CORE_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "bug.h"
#include "cacheline.h"
#include "compiler.h"
#include "list.h"
#include "spinlock.h"

struct address_space;
struct anon_vma;
struct vm_area_struct;
struct pte_chain;

/*
 * Flag bits. The three lock bits come first: their TSan keys are
 * &page->flags + 1 + bit, inside the flags word but never its first byte.
 */
enum pageflags {
	PG_locked,		/* lock_page(): page under I/O or truncate */
	PG_chainlock,		/* ptechain/objfile-anon rmap lock */
	PG_maplock,		/* anonvma rmap lock: mapcount and page->as */
	PG_referenced,
	PG_uptodate,
	PG_dirty,
	PG_lru,			/* on an LRU list: zone->lru_lock */
	PG_active,
	PG_anon,		/* seeds 001/002: anonymous, page->as is not a mapping */
	PG_direct,		/* single mapping: pte.direct (ptechain) / as.vma (anonvma) */
	PG_swapcache,		/* page->private is a swap entry */
	PG_reserved,		/* the zero page: never freed, never on an LRU */
	PG_writeback,
	PG_buddy,		/* on the zone's free list */
	__NR_PAGEFLAGS,
};

struct page {
	unsigned long flags;		/* atomic bit operations */
	int count;			/* atomic: get_page()/put_page() */
	/*
	 * What the page belongs to: PG_anon clear -> as.mapping (file);
	 * PG_anon set -> as.anon_vma, or as.vma with PG_direct (anonvma).
	 * Written under lock_page (page cache) or the rmap lock (anon).
	 */
	union {
		struct address_space *mapping;
		struct anon_vma *anon_vma;
		struct vm_area_struct *vma;
	} as;
	unsigned long index;		/* file offset, or offset in the anon vma */
	/* The rmap state: PG_chainlock (ptechain) or PG_maplock (anonvma). */
	union {
		int mapcount;		/* objrmap modes */
		struct pte_chain *chain;	/* ptechain, !PG_direct */
		uint64_t *direct;	/* ptechain, PG_direct: the one pte */
	} pte;
	unsigned long private;		/* swap entry while PG_swapcache */
	struct list_head lru;		/* zone->lru_lock, or zone->lock when free */
	/* The page's contents are in page_frames[], below. */
};

#define page_flag_mask(bit)	(1UL << (bit))

static inline bool test_page_flag(const struct page *page, int bit)
{
	return __atomic_load_n(&page->flags, __ATOMIC_RELAXED) & page_flag_mask(bit);
}

static inline void set_page_flag(struct page *page, int bit)
{
	line_write(&page->flags, LINE_PAGE);
	__atomic_fetch_or(&page->flags, page_flag_mask(bit), __ATOMIC_RELAXED);
}

static inline void clear_page_flag(struct page *page, int bit)
{
	line_write(&page->flags, LINE_PAGE);
	__atomic_fetch_and(&page->flags, ~page_flag_mask(bit), __ATOMIC_RELAXED);
}

/* Test-and-modify operations are full barriers, as in the kernel. */
static inline bool test_and_set_page_flag(struct page *page, int bit)
{
	line_write(&page->flags, LINE_PAGE);
	return __atomic_fetch_or(&page->flags, page_flag_mask(bit),
				 __ATOMIC_SEQ_CST) & page_flag_mask(bit);
}

static inline bool test_and_clear_page_flag(struct page *page, int bit)
{
	line_write(&page->flags, LINE_PAGE);
	return __atomic_fetch_and(&page->flags, ~page_flag_mask(bit),
				  __ATOMIC_SEQ_CST) & page_flag_mask(bit);
}

#define PAGEFLAG(Name, bit)						\
static inline bool Page##Name(const struct page *p) { return test_page_flag(p, bit); } \
static inline void SetPage##Name(struct page *p) { set_page_flag(p, bit); } \
static inline void ClearPage##Name(struct page *p) { clear_page_flag(p, bit); } \
static inline bool TestSetPage##Name(struct page *p) { return test_and_set_page_flag(p, bit); } \
static inline bool TestClearPage##Name(struct page *p) { return test_and_clear_page_flag(p, bit); }

PAGEFLAG(Referenced, PG_referenced)
PAGEFLAG(Uptodate, PG_uptodate)
PAGEFLAG(Dirty, PG_dirty)
PAGEFLAG(LRU, PG_lru)
PAGEFLAG(Active, PG_active)
PAGEFLAG(Anon, PG_anon)
PAGEFLAG(Direct, PG_direct)
PAGEFLAG(SwapCache, PG_swapcache)
PAGEFLAG(Reserved, PG_reserved)
PAGEFLAG(Writeback, PG_writeback)
PAGEFLAG(Buddy, PG_buddy)

static inline bool PageLocked(const struct page *p)
{
	return test_page_flag(p, PG_locked);
}

/* The TSan and lockdep identity of one of the page's bit locks. */
static inline void *page_lock_key(struct page *page, int bit)
{
	return (char *)&page->flags + 1 + bit;
}

/* ---- reference count ---- */

static inline int page_count(const struct page *page)
{
	return __atomic_load_n(&page->count, __ATOMIC_RELAXED);
}

static inline void get_page(struct page *page)
{
	int old;

	line_write(&page->count, LINE_PAGE);
	old = __atomic_fetch_add(&page->count, 1, __ATOMIC_RELAXED);

	BUG_ON(old <= 0);
}

/**
 * put_page() - drop a reference; the last one frees the page
 * Context: any; may take zone->lru_lock and zone->lock.
 */
void put_page(struct page *page);
/* put_page() whose last reference frees to the cold list (reclaim). */
void put_page_cold(struct page *page);

/* ---- PG_locked: the sleeping page lock ---- */

void _lock_page(struct page *page, const char *file, int line);
bool _trylock_page(struct page *page, const char *file, int line);
void _unlock_page(struct page *page, const char *file, int line);

/* Sleeps until the page lock is ours. Context: may sleep; not atomic. */
#define lock_page(p)		_lock_page((p), __FILE__, __LINE__)
#define unlock_page(p)		_unlock_page((p), __FILE__, __LINE__)
/*
 * Kernel convention: true when the page was already locked (we did NOT
 * get it). Reclaim's way to lock a page against the order.
 */
#define TestSetPageLocked(p)	(!_trylock_page((p), __FILE__, __LINE__))

/* ---- PG_chainlock / PG_maplock: bit spinlocks ---- */

#define pte_chain_lock(p) \
	_bit_spin_lock(PG_chainlock, &(p)->flags, page_lock_key((p), PG_chainlock), \
		       LOCK_CLASS_PG_CHAINLOCK, __FILE__, __LINE__)
#define pte_chain_trylock(p) \
	_bit_spin_trylock(PG_chainlock, &(p)->flags, page_lock_key((p), PG_chainlock), \
			  LOCK_CLASS_PG_CHAINLOCK, __FILE__, __LINE__)
#define pte_chain_unlock(p) \
	_bit_spin_unlock(PG_chainlock, &(p)->flags, page_lock_key((p), PG_chainlock), \
			 LOCK_CLASS_PG_CHAINLOCK, __FILE__, __LINE__)

#define page_map_lock(p) \
	_bit_spin_lock(PG_maplock, &(p)->flags, page_lock_key((p), PG_maplock), \
		       LOCK_CLASS_PG_MAPLOCK, __FILE__, __LINE__)
#define page_map_trylock(p) \
	_bit_spin_trylock(PG_maplock, &(p)->flags, page_lock_key((p), PG_maplock), \
			  LOCK_CLASS_PG_MAPLOCK, __FILE__, __LINE__)
#define page_map_unlock(p) \
	_bit_spin_unlock(PG_maplock, &(p)->flags, page_lock_key((p), PG_maplock), \
			 LOCK_CLASS_PG_MAPLOCK, __FILE__, __LINE__)

/*
 * ---- the data word: the emulated page contents ----
 *
 * One word of the page frame's contents (a stamp), in page_frames[pfn]
 * beside mem_map, each on a cache line of its own. In 2.6 a user's store
 * went to the 4 KB frame: never to the struct page that the rmap, the
 * LRU and get_page() write, never to a neighbouring frame's line. A word
 * inside struct page, or eight frames to a line, would move lines between
 * CPUs on stores where 2.6 moved none.
 */
struct page_frame {
	uint64_t data;			/* atomic: the data stamp */
} ____cacheline_aligned;

extern struct page *mem_map;			/* page_alloc.h */
extern struct page_frame *page_frames;		/* mem_init(): one per page */

static inline uint64_t *page_data_word(const struct page *page)
{
	return &page_frames[page - mem_map].data;
}

static inline uint64_t page_data_read(const struct page *page)
{
	return __atomic_load_n(page_data_word(page), __ATOMIC_RELAXED);
}

static inline void page_data_write(struct page *page, uint64_t v)
{
	__atomic_store_n(page_data_word(page), v, __ATOMIC_RELAXED);
}

/*
 * The data-integrity pair: a page's data word and the shadow word that
 * says what it must hold (the file's shadow[index] for a file page, the
 * mm's shadow slot for private memory). User accesses take no kernel
 * lock (core/tlbflush.c), so two CPUs may store into one page at once,
 * and a load may meet a store half done. The pair is kept consistent by
 * the accesses themselves, with harness-private synchronisation that is
 * no emulated lock (lockdep, the lock statistics and the deterministic
 * scheduler's lock points do not see it):
 *
 *   store:  set SHADOW_BUSY in the shadow word (CAS, waiting while
 *           another store holds it); release fence; data = v; release
 *           fence; shadow = the new value (BUSY clear)
 *   load:   e1 = shadow (not BUSY); acquire fence; d = data; acquire
 *           fence; e2 = shadow; retry unless e1 == e2
 *
 * a seqlock whose sequence is the shadow word itself (stamps are unique,
 * so a completed store always changes it). A load that passes compares d
 * with e1: an exact check, since no store to the page began or ended
 * between its two reads of the shadow.
 *
 * Why it cannot hide a race between kernel-side operations: every word
 * it touches is an atomic; its ordering comes from relaxed atomics and
 * fences, which ThreadSanitizer does not model as synchronisation, so it
 * adds no happens-before edge at all for TSan; on the hardware the fences
 * order only these two words. Only user accesses (and truncate's zeroing
 * of the file shadow, which waits for BUSY like a store) take part; the
 * kernel-side readers of the data word (COW's copy, writeback) read it
 * alone, as the kernel reads a page.
 */
#define SHADOW_BUSY	(1ULL << 61)

/* Begin a store to the pair whose shadow word is @w. Return: its old value. */
static inline uint64_t shadow_update_begin(uint64_t *w)
{
	struct lock_wait lw = LOCK_WAIT_NONE;
	uint64_t old;

	for (;;) {
		old = __atomic_load_n(w, __ATOMIC_RELAXED);
		if (!(old & SHADOW_BUSY) &&
		    __atomic_compare_exchange_n(w, &old, old | SHADOW_BUSY, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
		lock_wait_relax(&lw);
	}
	/* Pairs with the second acquire fence in shadow_read_pair(). */
	memory_fence(__ATOMIC_RELEASE);
	return old;
}

/* End the store begun by shadow_update_begin(): @w becomes @v. */
static inline void shadow_update_end(uint64_t *w, uint64_t v)
{
	BUG_ON(v & SHADOW_BUSY);
	/* Pairs with the first acquire fence in shadow_read_pair(). */
	memory_fence(__ATOMIC_RELEASE);
	__atomic_store_n(w, v, __ATOMIC_RELAXED);
}

/*
 * A consistent snapshot of the pair: *@data from @page (0 for NULL: the
 * zero page), and the shadow value it must be checked against.
 */
static inline uint64_t shadow_read_pair(uint64_t *w, const struct page *page,
					uint64_t *data)
{
	struct lock_wait lw = LOCK_WAIT_NONE;
	uint64_t e1, e2;

	for (;;) {
		e1 = __atomic_load_n(w, __ATOMIC_RELAXED);
		if (!(e1 & SHADOW_BUSY)) {
			/* Pairs with the fence in shadow_update_end(). */
			memory_fence(__ATOMIC_ACQUIRE);
			*data = page ? page_data_read(page) : 0;
			/* Pairs with the fence in shadow_update_begin(). */
			memory_fence(__ATOMIC_ACQUIRE);
			e2 = __atomic_load_n(w, __ATOMIC_RELAXED);
			if (e1 == e2)
				return e1;
		}
		lock_wait_relax(&lw);
	}
}

/*
 * Resets of a shadow word: a zap, mremap or truncate that sets it back to
 * a value it may have held before (0: nothing written). "A completed
 * store always changes the word" holds only between resets, so a reader
 * that spans a long window (a direct I/O's check, gup_dma_check()) also
 * compares this count, kept per hash of the word's address: resets begun
 * in the low 32 bits, ended in the high 32. Harness side, no emulated
 * lock, like the pair protocol above.
 */
#define SHADOW_RESET_GROUP	1024	/* words: a pte table's worth */
#define SHADOW_RESET_GROUPS	64
#define SHADOW_RESET_HASH	(SHADOW_RESET_GROUP * SHADOW_RESET_GROUPS)
extern uint64_t shadow_reset_seq[SHADOW_RESET_HASH];

/*
 * A word's count: its slot in its (shadow) table keeps neighbours on one
 * line, and a hash of the table picks the group. Every mm maps the same
 * addresses at the same slots, so without the table in the hash two CPUs
 * zapping two mms would bump the same lines.
 */
static inline uint64_t *shadow_reset_count(const uint64_t *w)
{
	uintptr_t a = (uintptr_t)w / sizeof(*w);
	uint64_t table = (uint64_t)(a / SHADOW_RESET_GROUP);
	size_t group = (size_t)((table * 0x9e3779b97f4a7c15ULL) >> 58);

	return &shadow_reset_seq[group * SHADOW_RESET_GROUP + a % SHADOW_RESET_GROUP];
}

/* Before the reset's store to @w: a reader that sees the store sees this. */
static inline void shadow_reset_begin(const uint64_t *w)
{
	__atomic_add_fetch(shadow_reset_count(w), 1, __ATOMIC_RELAXED);
	memory_fence(__ATOMIC_RELEASE);
}

/* After it: a reader that sees this sees the store. */
static inline void shadow_reset_end(const uint64_t *w)
{
	memory_fence(__ATOMIC_RELEASE);
	__atomic_add_fetch(shadow_reset_count(w), 1ULL << 32, __ATOMIC_RELAXED);
}

/*
 * The reset count of @w, read before @w itself (acquire): UINT64_MAX while
 * a reset is in progress (no snapshot then).
 */
static inline uint64_t shadow_reset_snapshot(const uint64_t *w)
{
	uint64_t c = __atomic_load_n(shadow_reset_count(w), __ATOMIC_RELAXED);

	memory_fence(__ATOMIC_ACQUIRE);
	return (c & 0xffffffffULL) == (c >> 32) ? c : UINT64_MAX;
}

/* Whether @w was reset since shadow_reset_snapshot() said @then; read after @w (acquire). */
static inline bool shadow_reset_since(const uint64_t *w, uint64_t then)
{
	memory_fence(__ATOMIC_ACQUIRE);
	return then == UINT64_MAX || __atomic_load_n(shadow_reset_count(w), __ATOMIC_RELAXED) != then;
}

#endif /* RT_CORE_PAGE_H */
