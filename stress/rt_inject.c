// SPDX-License-Identifier: MIT
/*
 * The seeded-bug catalogue (see rt_inject.h). Each configuration was
 * chosen for fast, reproducible detection on a 2-core machine: a
 * deterministic schedule (--sched random|pct, bounded by --sched-steps)
 * wherever one finds the bug, free-running threads where the race needs
 * real parallelism. A deterministic run audits every 20000 decisions and
 * at its end, so an audit-detected bug is reported by the bound at the
 * latest.
 *
 * This file is the table alone; the lookups, a bug's `run` arguments and
 * the listing are rt_inject_lookup.c's.
 */
#include "rt_inject.h"

#include "inject.h"

const struct rt_bug rt_bugs[INJECT_NR_BUGS + 1] = {
	[INJECT_RECLAIM_LOCK_PTL] = {
		.name = "reclaim-lock-ptl",
		.summary = "reclaim takes page_table_lock with spin_lock() instead of spin_trylock() "
			   "(page_referenced_obj_one, try_to_unmap_obj_one)",
		.history = "seed 001 (objrmap, LKML 2004-03): reclaim holds the rmap lock, which faults "
			   "take inside page_table_lock, so it may only try page_table_lock",
		.scenario = "mixed32", .rmap = RMAP_OBJFILE, .sched = "pct", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_OBJFILE) | RMAP_MODE_BIT(RMAP_ANONVMA),
		.detector = "lockdep", .expect = "lockdep-order",
		.seed = 1, .sched_steps = 20000, .seconds = 30, .threads = 4, .reclaim_threads = 2,
		.watchdog = 3,
		.caveat = "the ABBA may deadlock after the report (a hang, which the short "
			  "watchdog ends); in free mode the ABBA also deadlocks: a hang the watchdog reports; the "
			  "TSan build's deadlock detector reports the inversion first",
	},
	[INJECT_RECLAIM_DOWN_ISHARED] = {
		.name = "reclaim-down-ishared",
		.summary = "reclaim takes i_shared_sem with down() instead of down_trylock(), "
			   "under the page's rmap bit spinlock",
		.history = "seed 001: page_referenced_obj()/try_to_unmap_obj() use down_trylock(), "
			   "the only way to take a semaphore under pte_chain_lock",
		.scenario = "shm", .rmap = RMAP_OBJFILE, .sched = "random", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_OBJFILE) | RMAP_MODE_BIT(RMAP_ANONVMA),
		.detector = "atomic-sleep", .expect = "atomic-sleep",
		.seed = 1, .sched_steps = 2000, .seconds = 30, .threads = 4, .reclaim_threads = 1,
		.watchdog = 3,
		.caveat = "the sleeping lock may deadlock after the report (a hang, which the short "
			  "watchdog ends); the TSan build also reports the lock-order inversion",
	},
	[INJECT_ANON_INDEX_ABSOLUTE] = {
		.name = "anon-index-absolute",
		.summary = "an anonymous page's index is its absolute address, not relative to "
			   "vm_pgoff: wrong once mremap moved the vma",
		.history = "seed 002 (anon_vma RFC, LKML 2004-03): Hugh Dickins' anobjrmap "
			   "\"was tracking mm and it broke off with mremap\"",
		.scenario = "mremap-storm", .rmap = RMAP_ANONVMA, .sched = "random", .build = "plain",
		.detector = "audit", .expect = "audit",
		.seed = 1, .sched_steps = 40000, .seconds = 30, .threads = 4, .reclaim_threads = 1,
		.caveat = "the audit's page-index check reports it first; its must-find-all walk "
			  "misses the same pages",
	},
	[INJECT_ANON_VMA_FREE_NOW] = {
		.name = "anon-vma-free-now",
		.summary = "anon_vmas are malloc()ed and free()d at their last unlink: no "
			   "SLAB_DESTROY_BY_RCU, no grace period",
		.history = "SLAB_DESTROY_BY_RCU came with anon_vma in 2.6.9, when page_map_lock went "
			   "and reclaim found an anon_vma under rcu_read_lock() alone",
		.scenario = "mixed32", .rmap = RMAP_ANONVMA, .sched = "free", .build = "asan",
		.rmaps = RMAP_MODE_BIT(RMAP_ANONVMA),
		.detector = "asan", .expect = "asan",
		.seed = 1, .sched_steps = 0, .seconds = 10, .threads = 32, .reclaim_threads = 2,
		.perturb = 3, .yield_points = "page_lock_anon_vma:unlocked",
		.caveat = "the walker is the aging of the active list (refill_inactive_zone), which "
			  "drops PG_maplock before it locks the anon_vma; shrink_list's walks hold "
			  "PG_maplock, which keeps the anon_vma alive. The window is a few "
			  "instructions: the run perturbs that one yield point; under --sched the "
			  "exit that frees the anon_vma needs hundreds of decisions in between",
	},
	[INJECT_ANON_VMA_WALK_UNLOCKED] = {
		.name = "anon-vma-walk-unlocked",
		.summary = "reclaim walks the anon_vma's vma list under PG_maplock only, without "
			   "anon_vma->lock",
		.history = "seed 002 as posted: try_to_unmap_anon() walks anon_vma_head with no lock "
			   "of the anon_vma (the model's deviation (1))",
		.scenario = "forkbomb-cow", .rmap = RMAP_ANONVMA, .sched = "random", .build = "tsan",
		.rmaps = RMAP_MODE_BIT(RMAP_ANONVMA),
		.detector = "tsan", .expect = "tsan",
		.seed = 1, .sched_steps = 40000, .seconds = 60, .threads = 4, .reclaim_threads = 1,
		.caveat = "the ASan build reports the walk reaching a vma exit freed "
			  "(use-after-poison: the freed vma waits, poisoned, in its task's "
			  "slab array); the plain build has no detector for it",
	},
	[INJECT_MAPCOUNT_UNLOCKED] = {
		.name = "mapcount-unlocked",
		.summary = "page_add_rmap()/page_remove_rmap() store the new mapcount after "
			   "dropping PG_maplock: concurrent updates are lost",
		.history = "seed 002: \"Number of ptes mapping this page. It's serialized by "
			   "PG_maplock\"",
		.scenario = "forkbomb-cow", .rmap = RMAP_ANONVMA, .sched = "random", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_ANONVMA),
		.detector = "audit", .expect = "audit|bug",
		.seed = 1, .sched_steps = 20000, .seconds = 30, .threads = 4, .reclaim_threads = 1,
		.caveat = "a lost update shows as the audit's mapcount violation or as a BUG (a "
			  "count underflow, or a page freed with a count left), whichever comes "
			  "first; after the audit the run BUGs at teardown; the TSan build reports "
			  "the plain store first",
	},
	[INJECT_FORK_LINK_LATE] = {
		.name = "fork-link-late",
		.summary = "dup_mm() copies the ptes (copy_page_range) before it gives the child "
			   "vma its anon_vma and links it there",
		.history = "seed 002: \"anon_vma objects are only created via fork()\"; the "
			   "child must be on the anon_vma before a page gets its second pte",
		.scenario = "forkbomb-cow", .rmap = RMAP_ANONVMA, .sched = "random", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_ANONVMA) | RMAP_MODE_BIT(RMAP_MAINLINE8) |
			 RMAP_MODE_BIT(RMAP_MAINLINE9),
		.detector = "bug", .expect = "bug",
		.seed = 1, .sched_steps = 5000, .seconds = 30, .threads = 4, .reclaim_threads = 1,
		.caveat = "page_add_rmap()'s BUG_ON catches it at the first copied anonymous page "
			  "(the RFC would oops on the NULL anon_vma); were only the list link late, "
			  "reclaim would just miss ptes and answer SWAP_AGAIN (deviation (6))",
	},
	[INJECT_VMA_START_UNLOCKED] = {
		.name = "vma-start-unlocked",
		.summary = "split_vma() moves vm_start and vm_pgoff before taking i_shared_sem",
		.history = "seed 001's move_vma_start() \"requires that the relevant i_shared_sem be "
			   "held by the caller\": objrmap's find_pte() reads the bounds under it. "
			   "No source broke the rule (2.6.3's split_vma() and vma_merge() already "
			   "moved them under i_shared_sem and page_table_lock): a regression "
			   "of the rule, not a bug of the era",
		.scenario = "truncate-race", .rmap = RMAP_OBJFILE, .sched = "random", .build = "tsan",
		.detector = "tsan", .expect = "tsan",
		.seed = 1, .sched_steps = 60000, .seconds = 60, .threads = 4, .reclaim_threads = 1,
		.caveat = "TSan only: under --sched both stores land before the next switch point "
			  "and the piece split off below is unmapped at once, so truncate leaves no "
			  "orphan; the torn state (start moved, offset not) needs real parallelism",
	},
	[INJECT_TRUNCATE_NO_RECHECK] = {
		.name = "truncate-no-recheck",
		.summary = "do_no_page() maps the page without re-checking truncate_count under "
			   "page_table_lock",
		.history = "the do_no_page/truncate race (a fault maps a page truncate just took), "
			   "closed before 2.6.3 by mapping->truncate_count and do_no_page's retry "
			   "(the retry: label in seed 001's context); 2.6.8 reworked its sampling",
		.scenario = "truncate-race", .rmap = RMAP_PTECHAIN, .sched = "free", .build = "plain",
		.detector = "audit", .expect = "audit",
		.seed = 1, .sched_steps = 0, .seconds = 5, .threads = 32, .reclaim_threads = 1,
		.caveat = "a read of the orphaned page (data-integrity) usually reports it before "
			  "the audit's orphaned-pte check; the window is too narrow for --sched",
	},
	[INJECT_CONVERT_ANON_UNLOCKED] = {
		.name = "convert-anon-unlocked",
		.summary = "the nonlinear fault calls page_convert_anon() without lock_page()",
		.history = "seed 001's install_page(): \"truncate won the lock_page() race\"; "
			   "\"try_to_unmap ... will never be called because the caller has locked "
			   "the page\"",
		.scenario = "nonlinear", .rmap = RMAP_OBJFILE, .sched = "random", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_OBJFILE),
		.detector = "bug", .expect = "bug",
		.seed = 1, .sched_steps = 5000, .seconds = 30, .threads = 4, .reclaim_threads = 1,
		.caveat = "page_convert_anon()'s lock assertion (BUG_ON(!PageLocked)) catches it "
			  "before any race can",
	},
	[INJECT_INSTALL_PAGE_NO_TRUNCATE_CHECK] = {
		.name = "install-page-no-truncate-check",
		.summary = "install_page() maps a page without re-checking under page_table_lock "
			   "that truncate has not taken it (page->mapping, i_size)",
		.history = "seed 001's install_page() (2.6.3 + objrmap): page_convert_anon() returns "
			   "when \"truncate won the lock_page() race\" and the page is mapped all the "
			   "same; 2.6.8's install_page() re-checks \"This page may have been truncated\"",
		.scenario = "truncate-race", .rmap = RMAP_PTECHAIN, .sched = "free", .build = "plain",
		.detector = "audit", .expect = "audit|corruption",
		.seed = 1, .sched_steps = 0, .seconds = 10, .threads = 32, .reclaim_threads = 2,
		.caveat = "the orphaned pte maps a page out of the page cache (or beyond i_size); a "
			  "read of it usually reports a data-integrity error before the audit's "
			  "orphaned-pte check. truncate-race, whose truncates outnumber its "
			  "remap_file_pages calls, finds it faster than nonlinear",
	},
	[INJECT_FILE_FREE_NOW] = {
		.name = "file-free-now",
		.summary = "a file's address_space is free()d at its last iput(), with no RCU "
			   "grace period",
		.history = "2.6.3 freed inodes at once (destroy_inode()): its lookups held "
			   "dcache_lock or a dentry reference; the model's lookup is lock-free, "
			   "as RCU path walk made it, and needs the RCU-delayed free that came "
			   "with it (i_callback(), 2.6.38)",
		.scenario = "truncate-race", .rmap = RMAP_OBJFILE, .sched = "free", .build = "asan",
		.detector = "asan", .expect = "asan",
		.seed = 1, .sched_steps = 0, .seconds = 10, .threads = 32, .reclaim_threads = 1,
		.perturb = 3, .yield_points = "igrab:rcu",
		.caveat = "the reader is the workload's igrab() of a file it found under "
			  "rcu_read_lock(), racing the unlink that drops the last reference; "
			  "reclaim and truncate hold the page lock or a reference, which the "
			  "last iput()'s truncate_inode_pages() waits for",
	},
	[INJECT_VMA_LINK_UNLOCKED] = {
		.name = "vma-link-unlocked",
		.summary = "objfile's vma_link() links the vma into its mm's list without "
			   "page_table_lock",
		.history = "seed 001 took page_table_lock out of 2.6.3's vma_link(); 2.6.3's "
			   "try_to_unmap_one() still finds an anonymous page's vma with find_vma() "
			   "under page_table_lock alone",
		.scenario = "mixed32", .rmap = RMAP_OBJFILE, .sched = "free", .build = "tsan",
		.rmaps = RMAP_MODE_BIT(RMAP_OBJFILE),
		.detector = "tsan", .expect = "tsan",
		.seed = 1, .sched_steps = 0, .seconds = 20, .threads = 8, .reclaim_threads = 2,
		.caveat = "TSan only: the model's vma list is a plain list, not 2.6.3's rbtree, "
			  "so the racing find_vma() still finds the right vma; the race on the "
			  "list pointers is the finding",
	},
	[INJECT_EXPAND_STACK_NO_PTL] = {
		.name = "expand-stack-no-ptl",
		.summary = "expand_stack() moves vm_pgoff and vm_start without page_table_lock "
			   "(objfile: no lock; anonvma: the anon_vma lock alone)",
		.history = "seed 001 took page_table_lock out of expand_stack(), which runs "
			   "under mmap_sem for read; 2.6.8 serialised it with the anon_vma lock, "
			   "which a fault computing a page's index does not take",
		.scenario = "shm", .rmap = RMAP_ANONVMA, .sched = "free", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_OBJFILE) | RMAP_MODE_BIT(RMAP_ANONVMA) |
			 RMAP_MODE_BIT(RMAP_MAINLINE8) | RMAP_MODE_BIT(RMAP_MAINLINE9),
		.detector = "audit", .expect = "audit",
		.seed = 1, .sched_steps = 0, .seconds = 10, .threads = 16, .reclaim_threads = 2,
		.perturb = 3, .yield_points = "expand_stack:pgoff_moved",
		.caveat = "a fault that reads vm_pgoff moved and vm_start not gives its page "
			  "an index that does not map back to its address: the audit's page-index "
			  "check reports it. In objfile two growths at once lose an update (the "
			  "audit, or exit's rss BUG). The window is two stores: the run perturbs "
			  "that one yield point; --sched random (4 threads, 20000 steps) misses it",
	},
	[INJECT_TLB_FLUSH_SKIP] = {
		.name = "tlb-flush-skip",
		.summary = "flush_tlb_mm/page/range() return without dropping the CPUs' cached "
			   "translations or waiting for the CPUs still inside an access that "
			   "walked the old pte (the model's IPI skipped)",
		.history = "the missed and lazily deferred TLB shootdowns of the era: a CPU "
			   "that keeps a stale translation stores into a page that zap, reclaim "
			   "or COW already freed; 2.6's flush_tlb_others() spins until every "
			   "CPU of mm->cpu_vm_mask acknowledged for exactly this reason",
		.scenario = "mixed32", .rmap = RMAP_PTECHAIN, .sched = "free", .build = "plain",
		.detector = "audit", .expect = "audit",
		.seed = 1, .sched_steps = 0, .seconds = 10, .threads = 32, .reclaim_threads = 2,
		.perturb = 3, .yield_points = "mm_access:after_mmu",
		.caveat = "the access window is a few instructions: the run perturbs the yield "
			  "point inside it (after the MMU step, before the load or store). The "
			  "access itself reports the page freed under it, or a later read the "
			  "lost store (data integrity), as does a later access through the "
			  "translation its TLB kept; pages live in mem_map, so ASan sees "
			  "nothing; under --sched the young bit a fresh access leaves makes "
			  "reclaim skip the page, and truncate rarely meets the window",
	},
	[INJECT_COW_ESTABLISH] = {
		.name = "cow-establish",
		.summary = "do_wp_page() (and a write fault replacing the zero page) installs "
			   "the copy's pte and only then flushes the old translation",
		.history = "2.6.3's break_cow() used ptep_establish(): set_pte() then "
			   "flush_tlb_page(), so a CPU still holding the old translation reads "
			   "the old page after another CPU of the process wrote the copy; later "
			   "kernels clear and flush first (ptep_clear_flush() in do_wp_page())",
		.scenario = "mixed32", .rmap = RMAP_PTECHAIN, .sched = "free", .build = "plain",
		.detector = "audit", .expect = "audit",
		.seed = 1, .sched_steps = 0, .seconds = 10, .threads = 32, .reclaim_threads = 2,
		.perturb = 3, .yield_points = "mm_access:after_mmu",
		.caveat = "a load through the old translation, stalled inside its access "
			  "window, checks the old page against the stamp a store through the "
			  "copy already recorded (data integrity); nothing is freed early, so "
			  "no sanitizer sees it",
	},
	[INJECT_ANON_VMA_ADOPT_UNLOCKED] = {
		.name = "anon-vma-adopt-unlocked",
		.summary = "anon_vma_prepare() puts the vma on a neighbour's anon_vma "
			   "(find_mergeable_anon_vma()) under page_table_lock alone, without "
			   "the anon_vma's lock",
		.history = "issue 18's account of 2.6.8: the adopted anon_vma was first linked "
			   "like a new one; 2.6.8 as released locks it (\"if (!allocated) "
			   "spin_lock(&anon_vma->lock)\"), since other mms' forks and exits "
			   "and reclaim's walks use its list",
		.scenario = "mixed32", .rmap = RMAP_MAINLINE8, .sched = "free", .build = "tsan",
		.rmaps = RMAP_MODE_BIT(RMAP_MAINLINE8),
		.detector = "tsan", .expect = "tsan",
		.seed = 1, .sched_steps = 0, .seconds = 20, .threads = 16, .reclaim_threads = 2,
		.caveat = "adoption needs a vma next to one with an anon_vma, compatible, "
			  "faulting first (mprotect splits of fresh memory); the racing "
			  "list user is another mm's fork or exit, or reclaim's walk",
	},
	[INJECT_RECLAIM_LOCK_IMMAP] = {
		.name = "reclaim-lock-immap",
		.summary = "page_referenced_file()/try_to_unmap_file() take i_mmap_lock with "
			   "spin_lock() under PG_maplock, not spin_trylock()",
		.history = "2.6.8 turned i_shared_sem into the i_mmap_lock spinlock; reclaim "
			   "holding page_map_lock may only try it, since truncate holds it "
			   "while zap_pte_range()'s page_remove_rmap() takes page_map_lock "
			   "(the ABBA that 2.6.9 removed with PG_maplock itself)",
		.scenario = "truncate-race", .rmap = RMAP_MAINLINE8, .sched = "free", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_MAINLINE8),
		.detector = "lockdep", .expect = "lockdep-order",
		.seed = 1, .sched_steps = 0, .seconds = 10, .threads = 16, .reclaim_threads = 1,
		.caveat = NULL,
	},
	[INJECT_REMOVE_RMAP_CLEARS_MAPPING] = {
		.name = "remove-rmap-clears-mapping",
		.summary = "2.6.9's lock-free page_remove_rmap() still clears page->mapping of "
			   "an anonymous page at its last pte, as 2.6.8's clear_page_anon() did",
		.history = "Hugh Dickins' rmaplock series (2.6.9): with no page_map_lock to "
			   "order them, the last unmap's clear could follow another mm's "
			   "swap-in that already mapped the page again; page_remove_rmap() "
			   "stopped clearing page->mapping",
		.scenario = "forkbomb-cow", .rmap = RMAP_MAINLINE9, .sched = "free", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_MAINLINE9),
		.detector = "audit", .expect = "audit|bug",
		.seed = 1, .sched_steps = 0, .seconds = 40, .threads = 32, .reclaim_threads = 2,
		.perturb = 3, .yield_points = "page_remove_rmap:last", .audit_every = 0.2,
		.caveat = "the page must be in the swap cache, mapped by one mm that unmaps it "
			  "while another faults it in from its swap pte: the run perturbs the "
			  "window between the count and the clear; the damage lasts until that "
			  "mm unmaps the page too (a forked child exits), so the audit runs every "
			  "0.2 s: at the default 1 s, 4 runs of 13 missed it in 20 s; at 0.2 s "
			  "detection still takes 0.25 to 14.5 s, and stop 21's CI (seeds 1-3) and "
			  "two local .ci/run's (seed 1) missed it in 20 s, so the bound is 40 s",
	},
	[INJECT_ANON_VMA_NEW_UNLOCKED] = {
		.name = "anon-vma-new-unlocked",
		.summary = "2.6.9's anon_vma_prepare(): a newly allocated anon_vma is linked "
			   "under page_table_lock without its own lock",
		.history = "2.6.9 to 2.6.26: with SLAB_DESTROY_BY_RCU a new anon_vma may be "
			   "memory that a stale page_lock_anon_vma() still locks and walks; "
			   "Linus' 2008 fix (2.6.27) locks even a new one",
		.scenario = "mixed32", .rmap = RMAP_MAINLINE9, .sched = "free", .build = "tsan",
		.rmaps = RMAP_MODE_BIT(RMAP_MAINLINE9),
		.detector = "tsan", .expect = "tsan",
		.seed = 1, .sched_steps = 0, .seconds = 45, .threads = 32, .reclaim_threads = 2,
		.perturb = 3, .yield_points = "page_lock_anon_vma:unlocked",
		.caveat = "the reader (reclaim's page_referenced) must have checked the page "
			  "mapped through the anon_vma, then find it freed by the last vma's "
			  "exit and reused by a new vma's first fault before it takes the "
			  "lock: a window of a few instructions under rcu_read_lock(), which "
			  "the run perturbs; forkbomb-cow, reclaim-pressure and sdet32 runs "
			  "of 20-40 s, and --sched random (4 threads, 40000 steps), missed it",
	},
	[INJECT_VMA_ADJUST_NO_IMPORTER] = {
		.name = "vma-adjust-no-importer",
		.summary = "mprotect's vma_merge() moves the boundary between two vmas "
			   "(vma_adjust() with adjust_next) without making the growing vma "
			   "import the other's anon_vma",
		.history = "the anon_vma merge of 2.6.7: pages that change vma at a moved "
			   "boundary keep their anon_vma, so the vma taking them must be on it; "
			   "vma_adjust()'s importer/exporter (Andrea Arcangeli, Hugh Dickins) "
			   "fixed the mprotect case",
		.scenario = "mixed32", .rmap = RMAP_MAINLINE8, .sched = "free", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_MAINLINE8) | RMAP_MODE_BIT(RMAP_MAINLINE9),
		.detector = "bug", .expect = "bug|audit",
		.seed = 1, .sched_steps = 0, .seconds = 20, .threads = 32, .reclaim_threads = 2,
		.caveat = "the mprotect must give the head of a vma with anonymous pages the "
			  "flags of a neighbour below it that has no anon_vma yet. A swap-in "
			  "of one of those pages in the neighbour then meets a vma without an "
			  "anon_vma (2.6.8's BUG_ON(!anon_vma) in page_add_anon_rmap(), the "
			  "model's too); else the audit finds their ptes outside the "
			  "anon_vma, unless a first fault in the neighbour adopted it first",
	},
	[INJECT_GUP_UNMAP] = {
		.name = "gup-unmap",
		.summary = "try_to_unmap_one() (mainline8/9) unmaps a swap-cache page that "
			   "get_user_pages() pinned: no \"page_count != mapcount + 2\" test",
		.history = "2.6.3 and the seeds had no such test; 2.6.7's rmap rework added "
			   "\"Don't pull an anonymous page out from under get_user_pages\" (kept "
			   "in 2.6.8 and 2.6.9): a user write brings the unmapped page back "
			   "read-only, do_wp_page() counts the pin as a sharer and copies, and "
			   "the direct I/O's data lands in a page the user no longer sees",
		.scenario = "reclaim-pressure", .rmap = RMAP_MAINLINE8, .sched = "pct",
		.build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_MAINLINE8) | RMAP_MODE_BIT(RMAP_MAINLINE9),
		.detector = "audit", .expect = "audit",
		.seed = 14, .sched_steps = 300000, .seconds = 30, .threads = 2, .reclaim_threads = 2,
		.caveat = "reclaim must take the pinned page (two passes: GUP marks it "
			  "accessed) and a user write must COW it before the transfer, all "
			  "inside one direct I/O: PCT starves the pinning thread (seeds 1-11 "
			  "after issue 25's merge: only 5 finds it, 2+2 threads; with the "
			  "per-CPU page lists, 14, 16 and 18 of 1-24, which found it before "
			  "them too); free runs of 15 s did not. The data oracle reports the user's next load",
	},
	[INJECT_COW_REUSE] = {
		.name = "cow-reuse",
		.summary = "do_wp_page() reuses a swap-cache page held by its pte and the swap "
			   "cache alone, without exclusive_swap_page()'s look at the slot's count: "
			   "other processes' swap ptes still share it",
		.history = "can_share_swap_page()/exclusive_swap_page() of 2.4-2.6.9 (mm/swapfile.c): "
			   "page_count 2 is not enough, the slot's swap_map must be 1 too; a "
			   "fork's child whose pte still holds the slot swaps in the written page",
		.scenario = "reclaim-pressure", .rmap = RMAP_PTECHAIN, .sched = "random",
		.build = "plain",
		.detector = "audit", .expect = "audit",
		.seed = 1, .sched_steps = 60000, .seconds = 30, .threads = 4, .reclaim_threads = 1,
		.caveat = "needs a fork's shared slot, one side's read swap-in then write, and "
			  "the other side's swap-in while the page is still cached: the data "
			  "oracle reports the other side's load (a GUP pin makes the count 3: "
			  "no reuse either way)",
	},
	[INJECT_MMPUT_DEC_UNLOCKED] = {
		.name = "mmput-dec-unlocked",
		.summary = "mmput() drops the last user (atomic_dec_and_test()) before it "
			   "takes mmlist_lock to unlink the mm, not with atomic_dec_and_lock(): "
			   "swapoff, pinning the mms it finds on the mmlist with a plain "
			   "increment under that lock, revives one that is exiting",
		.history = "swapoff against exit: 2.6.9's try_to_unuse() pins each mm of the "
			   "mmlist with atomic_inc(&mm->mm_users) under mmlist_lock, which is "
			   "safe only because mmput() drops the last user with "
			   "atomic_dec_and_lock() and unlinks in that hold (get_task_mm(): a "
			   "count of 0 means the mm is going away). Later kernels drop it "
			   "unlocked and pin with mmget_not_zero() instead; this is the one "
			   "half without the other",
		.scenario = "reclaim-pressure", .rmap = RMAP_PTECHAIN, .sched = "free", .build = "plain",
		.detector = "bug", .expect = "bug",
		.seed = 1, .sched_steps = 0, .seconds = 20, .threads = 8, .reclaim_threads = 2,
		.perturb = 3, .yield_points = "mmput:last_user_unlocked",
		.caveat = "the BUG is the model's check that swapoff's pin does not revive an mm "
			  "from 0 (2.6.9 had none; refcount_t's check of later kernels); "
			  "without it, unuse_process() walks the vmas exit_mmap() frees and "
			  "swapoff's mmput() tears the mm down a second time (ASan). Seen in "
			  "0.2-1 s in every design, and in 1 s without the perturbation",
	},
	[INJECT_MREMAP_NO_IMMAP_LOCK] = {
		.name = "mremap-no-immap-lock",
		.summary = "mremap's move_one_page() moves a file vma's ptes under "
			   "page_table_lock alone, without the file's i_mmap_lock",
		.history = "2.6.8/2.6.9 move_one_page() take i_mmap_lock first (Rajesh "
			   "Venkatasubramanian: \"we must lock vmtruncate out\"): the prio "
			   "tree visits a grown destination before its source, so truncate "
			   "can zap the destination, then the source, and miss a pte moved "
			   "in between; 2.6.3's lists visited the source first",
		.scenario = "truncate-race", .rmap = RMAP_MAINLINE9, .sched = "free", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_MAINLINE8) | RMAP_MODE_BIT(RMAP_MAINLINE9),
		.detector = "audit", .expect = "audit",
		.seed = 1, .sched_steps = 0, .seconds = 30, .threads = 32, .reclaim_threads = 1,
		.perturb = 3, .yield_points = "move_page_tables:unlocked,unmap_mapping_range:vma",
		.caveat = "truncate must start its walk after mremap linked the new vma and "
			  "visit it before a present page moves, then the source after: the "
			  "run perturbs the move between pages and the walk between vmas. "
			  "truncate_inode_pages() reports the orphan (audit:orphaned-pte): "
			  "the next truncate would zap it before a periodic audit saw it. "
			  "mremap-storm (few truncates) and --sched random/pct (400000 "
			  "decisions) missed it",
	},
	[INJECT_TRUNCATE_NONLINEAR_LINEAR] = {
		.name = "truncate-nonlinear-linear",
		.summary = "truncate's unmap_mapping_range() zaps only the linear window of "
			   "a nonlinear vma, not the pages remap_file_pages put elsewhere",
		.history = "2.6.3 (and the seeds): vmtruncate_list() treated a VM_NONLINEAR "
			   "vma on i_mmap_shared as linear, leaving pages beyond i_size mapped "
			   "and zapping others; 2.6.7's i_mmap_nonlinear and "
			   "zap_details.nonlinear_vma zap such vmas whole",
		.scenario = "nonlinear", .rmap = RMAP_PTECHAIN, .sched = "random", .build = "plain",
		.detector = "audit", .expect = "audit|bug",
		.seed = 1, .sched_steps = 20000, .seconds = 30, .threads = 4, .reclaim_threads = 1,
		.caveat = NULL,
	},
	[INJECT_AGING_FILE_UNLOCKED] = {
		.name = "aging-file-unlocked",
		.summary = "2.6.9's refill_inactive_zone() asks page_referenced() of a file "
			   "page without trying its page lock: the walk reads a file that "
			   "truncate and the last iput() may free",
		.history = "2.6.9's page_referenced(page, 0) tries the page lock for a file "
			   "page (\"the page lock ... makes sure that the structure at "
			   "mapping cannot be freed\"), since the aging no longer holds "
			   "2.6.8's page_map_lock",
		.scenario = "reclaim-pressure", .rmap = RMAP_MAINLINE9, .sched = "free", .build = "plain",
		.rmaps = RMAP_MODE_BIT(RMAP_MAINLINE9),
		.detector = "bug", .expect = "bug",
		.seed = 1, .sched_steps = 0, .seconds = 20, .threads = 16, .reclaim_threads = 4,
		.perturb = 3, .yield_points = "page_referenced_file:mapping",
		.caveat = "the aging must look at a mapped file page that a truncate then "
			  "unmaps and takes out of the file: the walk finds page->mapping NULL "
			  "(BUG_ON(!mapping), where 2.6.9 would oops on the NULL), or, with the "
			  "file unlinked and its last vma gone, a freed address_space (ASan). "
			  "reclaim-pressure's aging meets mapped file pages 100 times more "
			  "often than truncate-race's or mixed32's, which missed it in 20 s; "
			  "--sched random (200000 decisions) missed it too",
	},
	[INJECT_NR_BUGS] = { .name = NULL },
};
