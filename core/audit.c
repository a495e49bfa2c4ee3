// SPDX-License-Identifier: MIT
/*
 * The invariant audit. One pass over every mm's page tables counts the
 * ptes mapping each page and each swap slot and checks each pte where it
 * stands (vma, index, file offset, data); one pass over mem_map compares
 * those counts with what the selected rmap records and with what its full
 * walk finds (must-find-all); one pass over the swap area and the files
 * checks slot counts and page caches; one pass over the zone's free list
 * and every task's per-CPU lists accounts for each free page, and one
 * over every task's LRU-addition pagevecs for the references they hold. Reclaim's
 * trylock walks tolerate a missing pte; this walk takes every lock and
 * tolerates nothing.
 */
#include "audit.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "die.h"
#include "mm-internal.h"
#include "rmap.h"
#include "swap.h"
#include "task.h"
#include "tlbflush.h"

#define AUDIT_MAX_REPORTS	32

struct audit {
	unsigned int *ptes;		/* per pfn: present ptes mapping it */
	unsigned int *swap_ptes;	/* per swap offset */
	unsigned char *pvec_refs;	/* per pfn: LRU-addition pagevec entries, saturating */
	unsigned long nr_swap;
	unsigned long violations;
	struct vm_audit_stats *stats;
};

__attribute__((format(printf, 3, 4)))
static void violation(struct audit *a, const char *invariant, const char *fmt, ...)
{
	struct vm_report r;
	va_list ap;
	int n;

	a->violations++;
	if (a->violations > AUDIT_MAX_REPORTS)
		return;
	memset(&r, 0, sizeof(r));
	r.kind = VM_REPORT_AUDIT;
	n = snprintf(r.message, sizeof(r.message), "%s: ", invariant);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(r.message))
		vsnprintf(r.message + n, sizeof(r.message) - (size_t)n, fmt, ap);
	va_end(ap);
	snprintf(r.signature, sizeof(r.signature), "audit:%s", invariant);
	vm_report_emit(&r);
}

/* The mapping whose page cache may hold @page, or NULL (anonymous memory). */
static struct address_space *page_file(const struct page *page)
{
	/* objfile's page_convert_anon() leaves converted file pages cached. */
	return page_in_file_cache(page) ? page->as.mapping : NULL;
}

static bool in_page_cache(const struct page *page)
{
	struct address_space *mapping = page_file(page);

	return mapping && page->index < mapping->max_pages &&
	       __atomic_load_n(&mapping->page_tree[page->index], __ATOMIC_ACQUIRE) == page;
}

struct pte_walk {
	struct audit *a;
	struct mm_struct *mm;
	struct vm_area_struct *vma;	/* cursor: first vma with vm_end > addr */
	unsigned long rss;
};

/* What a read at @addr must see, as mm_access() defines it. */
static uint64_t expected_stamp(struct mm_struct *mm, struct vm_area_struct *vma,
			       unsigned long addr, unsigned long file_index)
{
	uint64_t *s = shadow_slot_lookup(mm, addr);
	uint64_t sv = s ? __atomic_load_n(s, __ATOMIC_RELAXED) : 0;

	if (vma->vm_file && ((vma->vm_flags & VM_SHARED) || !(sv & SHADOW_PRIVATE)))
		return __atomic_load_n(&vma->vm_file->shadow[file_index], __ATOMIC_RELAXED);
	return sv & SHADOW_PRIVATE ? sv & ~SHADOW_PRIVATE : 0;
}

static void check_present(struct pte_walk *w, pte_t pte, unsigned long addr)
{
	struct audit *a = w->a;
	struct vm_area_struct *vma = w->vma;
	unsigned long pfn = pte_pfn(pte), index;
	struct page *page;
	uint64_t expected, found;
	bool private_copy;
	uint64_t *s;

	if (!pfn_valid(pfn)) {
		violation(a, AUDIT_STRAY_PTE, "mm %d %#lx maps pfn %lu beyond mem_map",
			  w->mm->id, addr, pfn);
		return;
	}
	page = pfn_to_page(pfn);
	if (PageReserved(page)) {
		if (pte_write(pte))
			violation(a, AUDIT_STRAY_PTE, "mm %d %#lx maps the zero page writable",
				  w->mm->id, addr);
		return;		/* no rmap, no rss, reads as 0 */
	}
	a->ptes[pfn]++;
	w->rss++;
	a->stats->ptes_present++;
	if (PageBuddy(page) || page_count(page) <= 0) {
		violation(a, AUDIT_FREE_PAGE, "mm %d %#lx maps free pfn %lu (count %d)",
			  w->mm->id, addr, pfn, page_count(page));
		return;
	}
	if (!PageAnon(page) && !page->as.mapping)
		violation(a, AUDIT_NO_MAPPING, "mm %d %#lx maps pfn %lu: file page without mapping",
			  w->mm->id, addr, pfn);
	if (PageAnon(page) && rmap->anon_names_owner && !page->as.anon_vma)
		violation(a, AUDIT_NO_MAPPING,
			  "mm %d %#lx maps anonymous pfn %lu with neither vma nor anon_vma",
			  w->mm->id, addr, pfn);
	/* The design's own: mainline, an anonymous page's pte in a vma on its anon_vma. */
	if (rmap->audit_pte && rmap->audit_pte(page, vma))
		violation(a, AUDIT_ANON_VMA,
			  "mm %d %#lx maps pfn %lu (%s, owner %p) from vma %d, not on its anon_vma",
			  w->mm->id, addr, pfn, PageAnon(page) ? "anonymous" : "file",
			  (void *)page->as.mapping, vma->id);

	s = shadow_slot_lookup(w->mm, addr);
	private_copy = !vma->vm_file ||
		(!(vma->vm_flags & VM_SHARED) && s &&
		 (__atomic_load_n(s, __ATOMIC_RELAXED) & SHADOW_PRIVATE));
	if (private_copy) {
		index = linear_page_index(vma, addr);
		if (page->index != index)
			violation(a, AUDIT_INDEX,
				  "mm %d %#lx: anonymous pfn %lu has index %lu, its vma says %lu",
				  w->mm->id, addr, pfn, page->index, index);
	} else {
		struct address_space *mapping = vma->vm_file;

		index = page->index;
		if (index != file_offset_at(w->mm, vma, addr))
			violation(a, AUDIT_INDEX,
				  "mm %d %#lx: file pfn %lu has index %lu, the %s vma shows offset %lu there",
				  w->mm->id, addr, pfn, index,
				  vma->vm_flags & VM_NONLINEAR ? "nonlinear" : "linear",
				  file_offset_at(w->mm, vma, addr));
		if (index >= READ_ONCE(mapping->i_size) || page_file(page) != mapping ||
		    !in_page_cache(page))
			violation(a, AUDIT_ORPHAN,
				  "mm %d %#lx maps pfn %lu, offset %lu of %s (size %lu): %s",
				  w->mm->id, addr, pfn, index, mapping->name,
				  READ_ONCE(mapping->i_size),
				  index >= READ_ONCE(mapping->i_size) ? "beyond i_size"
				  : "not in the page cache");
	}
	expected = expected_stamp(w->mm, vma, addr, index < (vma->vm_file ?
				  vma->vm_file->max_pages : 1) ? index : 0);
	found = page_data_read(page);
	if (found != expected)
		violation(a, AUDIT_DATA, "mm %d %#lx pfn %lu: expected stamp %#llx, found %#llx",
			  w->mm->id, addr, pfn, (unsigned long long)expected,
			  (unsigned long long)found);
}

static int audit_pte(pte_t *ptep, unsigned long addr, void *arg)
{
	struct pte_walk *w = arg;
	struct audit *a = w->a;
	pte_t pte = ptep_get(ptep);

	while (w->vma && w->vma->vm_end <= addr)
		w->vma = w->vma->vm_next;
	if (!w->vma || addr < w->vma->vm_start) {
		violation(a, AUDIT_STRAY_PTE, "mm %d %#lx: pte %#llx outside every vma",
			  w->mm->id, addr, (unsigned long long)pte);
		return 0;
	}
	if (pte_present(pte)) {
		check_present(w, pte, addr);
	} else if (pte_file(pte)) {
		a->stats->ptes_file++;
		/* One beyond i_size is fine: it maps no page, its fault says SIGBUS. */
		if (!(w->vma->vm_flags & VM_NONLINEAR))
			violation(a, AUDIT_STRAY_PTE, "mm %d %#lx: file pte in a linear vma",
				  w->mm->id, addr);
		else if (pte_to_pgoff(pte) != file_offset_at(w->mm, w->vma, addr))
			violation(a, AUDIT_INDEX,
				  "mm %d %#lx: file pte for offset %lu, remap_file_pages put %lu there",
				  w->mm->id, addr, pte_to_pgoff(pte),
				  file_offset_at(w->mm, w->vma, addr));
	} else {
		swp_entry_t entry = pte_to_swp_entry(pte);
		unsigned long off = swp_offset(entry);

		a->stats->ptes_swap++;
		if (off == 0 || off >= a->nr_swap) {
			violation(a, AUDIT_SWAP_COUNT, "mm %d %#lx: swap pte for slot %lu out of range",
				  w->mm->id, addr, off);
			return 0;
		}
		a->swap_ptes[off]++;
		{
			/* The swap cache's page, if any, is newer than the slot. */
			struct page *cached = lookup_swap_cache_peek(entry);
			uint64_t found = cached ? page_data_read(cached) : swap_slot_data(entry);
			uint64_t expected = expected_stamp(w->mm, w->vma, addr, 0);

			if (found != expected)
				violation(a, AUDIT_DATA,
					  "mm %d %#lx swap slot %lu: expected stamp %#llx, found %#llx",
					  w->mm->id, addr, off, (unsigned long long)expected,
					  (unsigned long long)found);
		}
	}
	return 0;
}

struct find_all {
	struct page *page;
	pte_t **seen;
	unsigned int nr, max;
	bool bad;
};

static int audit_found_pte(struct page *page, struct mm_struct *mm,
			   unsigned long address, pte_t *ptep, void *arg)
{
	struct find_all *f = arg;
	pte_t pte = ptep_get(ptep);

	if (!pte_present(pte) || pte_pfn(pte) != page_to_pfn(page))
		f->bad = true;
	for (unsigned int i = 0; i < f->nr && i < f->max; i++)
		if (f->seen[i] == ptep)
			f->bad = true;		/* found twice */
	if (f->nr < f->max)
		f->seen[f->nr] = ptep;
	f->nr++;
	return 0;
}

/*
 * rt_task_for_each(): count the references @t's LRU-addition pagevecs
 * hold (page_alloc.c's lru_cache_add()). Read from afar: the tasks are
 * quiescent while the audit runs.
 */
static void pvec_refs_task(struct task_struct *t, void *arg)
{
	struct audit *a = arg;
	const struct pagevec *pvecs[] = { &t->pageset.lru_add_pvecs,
					  &t->pageset.lru_add_active_pvecs };

	for (int v = 0; v < 2; v++) {
		unsigned int nr = __atomic_load_n(&pvecs[v]->nr, __ATOMIC_RELAXED);

		if (nr > PAGEVEC_SIZE) {
			violation(a, AUDIT_LRU, "task %s: a pagevec of %u pages", t->comm, nr);
			continue;
		}
		for (unsigned int i = 0; i < nr; i++) {
			struct page *page = pvecs[v]->pages[i];
			unsigned long pfn = page ? page_to_pfn(page) : 0;

			if (!page || pfn == ZERO_PAGE_PFN || !pfn_valid(pfn)) {
				violation(a, AUDIT_LRU, "task %s: pagevec entry %u is not a page", t->comm, i);
				continue;
			}
			if (a->pvec_refs[pfn] < UCHAR_MAX)
				a->pvec_refs[pfn]++;
		}
	}
}

static void audit_pages(struct audit *a)
{
	for (unsigned long pfn = 1; pfn < max_mapnr; pfn++) {
		struct page *page = pfn_to_page(pfn);
		unsigned int ptes = a->ptes[pfn];
		unsigned int pvecs = a->pvec_refs[pfn];
		int expected_refs, rc;

		if (PageBuddy(page)) {
			if (page_count(page) != 0 || ptes || pvecs ||
			    (READ_ONCE(page->flags) & ~page_flag_mask(PG_buddy)))
				violation(a, AUDIT_FREE_PAGE,
					  "free pfn %lu: count %d, %u ptes, %u pagevecs, flags %#lx",
					  pfn, page_count(page), ptes, pvecs, READ_ONCE(page->flags));
			continue;
		}
		rc = rmap->rmap_count(page);
		if (rc != (int)ptes)
			violation(a, AUDIT_MAPCOUNT,
				  "pfn %lu (%s, index %lu): %u ptes map it, the %s rmap records %d",
				  pfn, PageAnon(page) ? "anon" : "file", page->index, ptes,
				  rmap->name, rc);
		if (ptes) {
			pte_t **seen = rt_calloc(ptes + 1, sizeof(*seen));
			struct find_all f = { .page = page, .seen = seen, .max = ptes + 1 };
			int walked;

			a->stats->pages_mapped++;
			walked = rmap->rmap_walk(page, audit_found_pte, &f);
			a->stats->pages_walked++;
			if (walked != (int)ptes || f.nr != ptes || f.bad)
				violation(a, AUDIT_FIND_ALL,
					  "pfn %lu (%s, index %lu): %u ptes map it, the %s rmap walk found %u%s",
					  pfn, PageAnon(page) ? "anon" : "file", page->index,
					  ptes, rmap->name, f.nr,
					  f.bad ? " (some wrong or twice)" : "");
			free(seen);
		}
		expected_refs = (int)ptes + (in_page_cache(page) ? 1 : 0) +
				(PageSwapCache(page) ? 1 : 0) + (int)pvecs;
		if (page_count(page) != expected_refs)
			violation(a, AUDIT_PAGE_COUNT,
				  "pfn %lu (%s): count %d, expected %d (%u ptes%s%s, %u pagevecs)",
				  pfn, PageAnon(page) ? "anon" : "file", page_count(page),
				  expected_refs, ptes, in_page_cache(page) ? " + page cache" : "",
				  PageSwapCache(page) ? " + swap cache" : "", pvecs);
		/* A page reaches the LRU through one pagevec, once. */
		if (pvecs > 1 || (pvecs && PageLRU(page)))
			violation(a, AUDIT_LRU, "pfn %lu: in %u pagevecs%s", pfn, pvecs,
				  PageLRU(page) ? " and on an LRU list" : "");
		else if (!pvecs && !PageLRU(page))
			violation(a, AUDIT_LRU, "pfn %lu: in use (count %d) but on no LRU list or pagevec",
				  pfn, page_count(page));
	}
}

/*
 * Where the free pages are: the zone's free list or some task's per-CPU
 * list (page_alloc.c). Filled under zone->lock, then the task list lock.
 */
#define FREE_LISTS_MAX_BAD	4
struct free_lists {
	unsigned char *on;		/* per pfn: free lists holding it, saturating */
	unsigned long zone, pcp;	/* pages found on the zone's list, on tasks' */
	unsigned long stray;		/* links to outside mem_map */
	int nr_bad;
	struct {
		char comm[TASK_COMM_LEN];
		int cold, count;
		unsigned long walked;
	} bad[FREE_LISTS_MAX_BAD];	/* per-CPU lists whose count is wrong */
};

/* Mark the pages of @head in @f; at most max_mapnr, so a cycle ends. */
static unsigned long free_list_walk(struct free_lists *f, struct list_head *head)
{
	unsigned long n = 0;

	for (struct list_head *p = head->next; p != head && n < max_mapnr; p = p->next) {
		struct page *page = list_entry(p, struct page, lru);

		if (page < mem_map || page >= mem_map + max_mapnr) {
			f->stray++;
			break;
		}
		n++;
		if (f->on[page_to_pfn(page)] < UCHAR_MAX)
			f->on[page_to_pfn(page)]++;
	}
	return n;
}

/* rt_task_for_each(): walk @t's lists. Reports wait for the lock's release. */
static void free_lists_task(struct task_struct *t, void *arg)
{
	struct free_lists *f = arg;

	for (int cold = 0; cold < 2; cold++) {
		struct per_cpu_pages *pcp = &t->pageset.pcp[cold];
		int count = __atomic_load_n(&pcp->count, __ATOMIC_RELAXED);
		/* A list not set up (batch 0) has no head to walk: it must be empty. */
		unsigned long n = pcp->batch ?
			free_list_walk(f, &pcp->list) : 0;

		f->pcp += n;
		if (n != (unsigned long)count && f->nr_bad < FREE_LISTS_MAX_BAD) {
			snprintf(f->bad[f->nr_bad].comm, TASK_COMM_LEN, "%s", t->comm);
			f->bad[f->nr_bad].cold = cold;
			f->bad[f->nr_bad].count = count;
			f->bad[f->nr_bad].walked = n;
			f->nr_bad++;
		}
	}
}

/*
 * Every page is the zero page, in use, or on exactly one free list: the
 * zone's, or one task's hot or cold list, and a page on a free list is
 * free (PG_buddy: audit_pages() checks count 0 and no other flag). The
 * lists' own counts (zone->free_pages, each pcp->count) must match them.
 * A page on two lists, or free on none (lost), is reported by pfn.
 */
static void audit_free_lists(struct audit *a)
{
	struct zone *zone = &contig_zone;
	struct free_lists f = { 0 };
	unsigned long free_pages, in_use = 0;

	if (!mem_map)
		return;
	f.on = rt_calloc(max_mapnr, 1);
	spin_lock(&zone->lock);
	f.zone = free_list_walk(&f, &zone->free_list);
	free_pages = zone->free_pages;
	spin_unlock(&zone->lock);
	if (f.zone != free_pages)
		violation(a, AUDIT_FREE_LIST, "the zone's free list holds %lu pages, free_pages says %lu",
			  f.zone, free_pages);
	rt_task_for_each(free_lists_task, &f);
	for (int i = 0; i < f.nr_bad; i++)
		violation(a, AUDIT_FREE_LIST, "task %s: its %s list holds %lu pages, its count says %d",
			  f.bad[i].comm, f.bad[i].cold ? "cold" : "hot", f.bad[i].walked,
			  f.bad[i].count);
	if (f.stray)
		violation(a, AUDIT_FREE_LIST, "%lu free lists link a page outside mem_map", f.stray);
	if (f.on[ZERO_PAGE_PFN])
		violation(a, AUDIT_FREE_LIST, "the zero page is on a free list");
	for (unsigned long pfn = 1; pfn < max_mapnr; pfn++) {
		const struct page *page = pfn_to_page(pfn);
		bool buddy = PageBuddy(page);

		if (f.on[pfn] > 1)
			violation(a, AUDIT_FREE_LIST, "pfn %lu is on %u free lists", pfn, f.on[pfn]);
		else if (f.on[pfn] && !buddy)
			violation(a, AUDIT_FREE_LIST, "pfn %lu is on a free list but in use (count %d, flags %#lx)",
				  pfn, page_count(page), READ_ONCE(page->flags));
		else if (!f.on[pfn] && buddy)
			violation(a, AUDIT_FREE_LIST, "free pfn %lu is on no free list: lost", pfn);
		if (!buddy)
			in_use++;
	}
	if (1 + in_use + f.zone + f.pcp != max_mapnr)
		violation(a, AUDIT_FREE_LIST,
			  "the zero page, %lu in use, %lu on the zone's free list and %lu on per-CPU lists make %lu, not %lu",
			  in_use, f.zone, f.pcp, 1 + in_use + f.zone + f.pcp, max_mapnr);
	free(f.on);
}

static void audit_swap(struct audit *a)
{
	unsigned int *counts = rt_calloc(a->nr_swap ? a->nr_swap : 1, sizeof(*counts));
	unsigned long nr = swap_counts(counts, a->nr_swap);

	for (unsigned long off = 1; off < nr; off++) {
		swp_entry_t entry = swp_entry(0, off);
		int expected = (int)a->swap_ptes[off] + (lookup_swap_cache_peek(entry) ? 1 : 0);
		int count = (int)counts[off];

		if (count != expected)
			violation(a, AUDIT_SWAP_COUNT,
				  "slot %lu: count %d, %u swap ptes%s", off, count,
				  a->swap_ptes[off],
				  lookup_swap_cache_peek(entry) ? " + swap cache" : "");
	}
	free(counts);
}

static void audit_file(struct audit *a, struct address_space *mapping)
{
	unsigned long size = READ_ONCE(mapping->i_size);

	for (unsigned long i = 0; i < mapping->max_pages; i++) {
		struct page *page = __atomic_load_n(&mapping->page_tree[i], __ATOMIC_ACQUIRE);

		if (!page)
			continue;
		if (i >= size)
			violation(a, AUDIT_ORPHAN, "%s: page cache holds offset %lu beyond i_size %lu",
				  mapping->name, i, size);
		if (page->index != i || page_file(page) != mapping)
			violation(a, AUDIT_INDEX, "%s: cache slot %lu holds pfn %lu (index %lu)",
				  mapping->name, i, page_to_pfn(page), page->index);
	}
}

/*
 * swapoff reaches a swap pte only through the mmlist: every live mm must
 * be on it (mm_alloc(), dup_mm()), and nothing else. The walk stops past
 * the live count, so a corrupted (cyclic) list ends too.
 */
static void audit_mmlist(struct audit *a, struct mm_struct *const *mms, int nr_mms)
{
	unsigned long live = mm_count_live(), n = 0;
	struct list_head *p;

	spin_lock(&mmlist_lock);
	for (p = mmlist_head.next; p != &mmlist_head && n <= live; p = p->next)
		n++;
	for (int i = 0; i < nr_mms; i++) {
		bool found = false;
		unsigned long k = 0;

		for (p = mmlist_head.next; p != &mmlist_head && k++ <= live && !found; p = p->next)
			found = p == &mms[i]->mmlist;
		if (!found)
			violation(a, AUDIT_MMLIST, "mm %d is not on the mmlist", mms[i]->id);
	}
	spin_unlock(&mmlist_lock);
	if (n != live)
		violation(a, AUDIT_MMLIST, "%s%lu mms on the mmlist, %lu live",
			  n > live ? "more than " : "", n, live);
}

struct tlb_audit {
	struct audit *a;
	struct mm_struct *const *mms;
	int nr_mms;
};

static void audit_tlb_entry(int cpu, int mm_id, unsigned long addr, unsigned long pfn,
			    bool writable, void *arg)
{
	struct tlb_audit *t = arg;
	struct mm_struct *mm = NULL;
	pte_t *ptep;
	pte_t pte;

	for (int i = 0; i < t->nr_mms && !mm; i++)
		if (t->mms[i]->id == mm_id)
			mm = t->mms[i];
	/* An mm that exited: ids are never reused, so no access can use it. */
	if (!mm)
		return;
	ptep = pte_offset(mm->pgd, addr);
	pte = ptep ? ptep_get(ptep) : 0;
	if (!pte_present(pte) || pte_pfn(pte) != pfn || (writable && !pte_write(pte)))
		violation(t->a, AUDIT_STALE_TLB,
			  "cpu %d caches mm %d address %#lx -> pfn %lu%s, but the pte %s",
			  cpu, mm_id, addr, pfn, writable ? " writable" : "",
			  !pte_present(pte) ? "is not present" :
			  pte_pfn(pte) != pfn ? "maps another page" : "is read-only");
}

/*
 * Every translation a CPU still caches is one its pte allows: a pte
 * cleared, moved to another page or write-protected was followed by a
 * flush that dropped it (the i386 rule every path of 2.6 keeps, up to
 * the accessed bit, which page_referenced() clears without one). A path
 * that forgets its flush is caught here at once, whether or not a later
 * access happens to use the stale entry.
 */
static void audit_tlb(struct audit *a, struct mm_struct *const *mms, int nr_mms)
{
	struct tlb_audit t = { a, mms, nr_mms };

	tlb_for_each_entry(audit_tlb_entry, &t);
}

unsigned long vm_audit(struct mm_struct *const *mms, int nr_mms,
		       struct address_space *const *files, int nr_files,
		       struct vm_audit_stats *stats)
{
	struct vm_audit_stats local;
	struct audit a = { .stats = stats ? stats : &local };

	memset(a.stats, 0, sizeof(*a.stats));
	a.ptes = rt_calloc(max_mapnr, sizeof(*a.ptes));
	a.nr_swap = nr_swap_slots();
	a.swap_ptes = rt_calloc(a.nr_swap ? a.nr_swap : 1, sizeof(*a.swap_ptes));
	a.pvec_refs = rt_calloc(max_mapnr, sizeof(*a.pvec_refs));

	for (int i = 0; i < nr_mms; i++) {
		struct mm_struct *mm = mms[i];
		struct pte_walk w = { .a = &a, .mm = mm, .vma = mm->mmap };

		a.stats->mms++;
		for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next)
			a.stats->vmas++;
		pgd_for_each_pte(mm->pgd, 0, TASK_SIZE, audit_pte, &w);
		if (w.rss != mm->rss)
			violation(&a, AUDIT_RSS, "mm %d: rss %lu, %lu present ptes",
				  mm->id, mm->rss, w.rss);
		if (rmap->audit_vma)
			for (struct vm_area_struct *v = mm->mmap; v; v = v->vm_next)
				if (rmap->audit_vma(v))
					violation(&a, AUDIT_ANON_VMA, "mm %d vma %d [%#lx, %#lx)",
						  mm->id, v->id, v->vm_start, v->vm_end);
	}
	audit_free_lists(&a);
	rt_task_for_each(pvec_refs_task, &a);
	audit_pages(&a);
	audit_swap(&a);
	audit_mmlist(&a, mms, nr_mms);
	audit_tlb(&a, mms, nr_mms);
	for (int i = 0; i < nr_files; i++)
		audit_file(&a, files[i]);

	free(a.ptes);
	free(a.swap_ptes);
	free(a.pvec_refs);
	a.stats->violations = a.violations;
	return a.violations;
}

unsigned long vm_teardown_check(void)
{
	struct audit a = { 0 };
	struct vm_audit_stats st;
	struct rmap_bytes rb;

	a.stats = &st;
	if (nr_free_pages() != max_mapnr - 1)
		violation(&a, AUDIT_LEAK, "%lu of %lu pages not free",
			  max_mapnr - 1 - nr_free_pages(), max_mapnr - 1);
	audit_free_lists(&a);
	rmap_bytes_read(&rb);
	if (rb.pte_chain_now || rb.anon_vma_now)
		violation(&a, AUDIT_LEAK, "rmap metadata left: %lu bytes of pte_chains, %lu of anon_vmas",
			  rb.pte_chain_now, rb.anon_vma_now);
	if (vm_area_count())
		violation(&a, AUDIT_LEAK, "%lu vmas left", vm_area_count());
	if (mm_count_live())
		violation(&a, AUDIT_LEAK, "%lu mms left", mm_count_live());
	if (!list_empty(&mmlist_head))
		violation(&a, AUDIT_MMLIST, "an mm is on the mmlist after every mm exited");
	if (file_count_live())
		violation(&a, AUDIT_LEAK, "%lu files left (not destroyed)", file_count_live());
	if (nr_swap_slots() && nr_swap_used())
		violation(&a, AUDIT_LEAK, "%lu swap slots in use", nr_swap_used());
	if (nr_swap_slots() && swap_cache_pages())
		violation(&a, AUDIT_LEAK, "%lu pages in the swap cache", swap_cache_pages());
	return a.violations;
}
