// SPDX-License-Identifier: MIT
/*
 * `rmaptorture bench vm`: what each rmap design costs the rest of the VM,
 * in one run, every design of core's table, interleaved (for repeat k:
 * design A, B, C in turn, each on a freshly set up model,
 * workloads/vm_fixture.h) so that the ratios come from the same run.
 * Lockdep off, statistics on.
 *
 * 1. Fault throughput: anonymous (mmap N pages, write each, munmap) and
 *    file (a shared mapping of N pages already in the page cache and
 *    mapped by another mm, read each, munmap).
 * 2. fork+exit throughput of a process with 1,000 and 10,000 written
 *    anonymous pages (dup_mm + mmput of the child), and exit alone.
 * 3. rmap metadata in the article's Oracle case: P processes mapping the
 *    same F-page file MAP_SHARED and touching all of it; bytes per mapped
 *    pte and per distinct page, and the article's extrapolation.
 * 4. One try_to_unmap() of one page as reclaim calls it (page locked,
 *    rmap lock held), versus the processes sharing it (file and anonymous)
 *    and versus the vmas on the file that do not map it.
 *
 * 5. Disjoint-mm scaling: the cost per fault and per fork+exit on N CPUs
 *    each in its own mm (bench_scaling.c).
 *
 * Rows 1 and 2 have the host kernel's figure too, the same operations
 * made for real (bench_host.c), a slot of each repeat's interleaving, so
 * each design's figure is also given as a ratio to the machine's kernel.
 *
 * One function per measurement (s_*() and measure_bytes()); the tables
 * and the record are bench_vm_print.c's.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_vm-internal.h"
#include "die.h"
#include "fs.h"
#include "lockdep.h"
#include "mm.h"
#include "page.h"
#include "page_alloc.h"
#include "record.h"
#include "rmap.h"
#include "rt_time.h"
#include "swap.h"
#include "vm_fixture.h"
#include "vmscan.h"

/* ---- the model, set up fresh per sample ---- */

/* Reclaim or allocation failures seen during samples: the numbers would be off. */
static unsigned long env_reclaim_scanned, env_alloc_fail;

static struct rt_vm_fixture env_fixture(enum rmap_mode mode, const struct rt_bench_vm_cfg *cfg)
{
	return (struct rt_vm_fixture){ mode, cfg->pages, cfg->slots, true };
}

void bench_env_up(enum rmap_mode mode, const struct rt_bench_vm_cfg *cfg)
{
	struct rt_vm_fixture fx = env_fixture(mode, cfg);
	int r = rt_vm_up(&fx);

	if (r)
		rt_die("[%s] rt_vm_up(%lu pages, %lu slots): %s", rmap_mode_name(mode), cfg->pages,
		       cfg->slots, rt_strerror(-r));
}

void bench_env_down(enum rmap_mode mode, const struct rt_bench_vm_cfg *cfg)
{
	struct rt_vm_fixture fx = env_fixture(mode, cfg);
	struct reclaim_stats rs;
	struct zone_stats zs;
	unsigned long v;

	reclaim_stats_read(&rs);
	env_reclaim_scanned += rs.scanned;
	zone_stats_read(&contig_zone, &zs);
	env_alloc_fail += zs.nr_alloc_fail;
	v = rt_vm_down(&fx);
	if (v)
		rt_die("[%s] teardown: %lu leaks", rmap_mode_name(mode), v);
}

long bench_mmap_ok(struct mm_struct *mm, struct address_space *f, unsigned long addr,
		    unsigned long pages, unsigned long flags, unsigned long pgoff)
{
	long r = rt_mmap(mm, f, addr, pages, flags, pgoff);

	if (r < 0 && r > -4096)
		rt_die("do_mmap(%lu pages): %s", pages, rt_strerror((int)-r));
	return r;
}

void bench_munmap_ok(struct mm_struct *mm, unsigned long addr, unsigned long pages)
{
	int r = rt_munmap(mm, addr, pages);

	if (r)
		rt_die("do_munmap(%lu pages): %s", pages, rt_strerror(-r));
}

/* ---- 1. faults ---- */

/*
 * Faults per second on @n pages mapped with @flags from @f (NULL:
 * anonymous) in @mm: mmap, touch each page (@write), munmap, over and
 * over for one sample. Round 0 is a warm-up (the host's first touch of a
 * fresh mem_map): untimed.
 */
static double fault_rate(const struct rt_bench_vm_cfg *cfg, struct mm_struct *mm,
			 struct address_space *f, long n, unsigned long flags, bool write)
{
	unsigned long ops = 0;
	double t0 = 0, dt;

	for (int round = 0;; round++) {
		long a = bench_mmap_ok(mm, f, 0, (unsigned long)n, flags, 0);

		for (long i = 0; i < n; i++)
			rt_touch(mm, (unsigned long)a + (unsigned long)i * PAGE_SIZE, write);
		bench_munmap_ok(mm, (unsigned long)a, (unsigned long)n);
		if (!round) {
			t0 = rt_now_s();
			continue;
		}
		ops += (unsigned long)n;
		if ((dt = rt_now_s() - t0) >= cfg->sample_s)
			break;
	}
	return (double)ops / dt;
}

static void s_anon_faults(const struct rt_bench_vm_cfg *cfg, long n, double out[2])
{
	struct mm_struct *mm = mm_alloc();

	out[0] = fault_rate(cfg, mm, NULL, n, VM_READ | VM_WRITE, true);
	mmput(mm);
}

static void s_file_faults(const struct rt_bench_vm_cfg *cfg, long n, double out[2])
{
	struct address_space *f = file_create("bench-file", (unsigned long)n, (unsigned long)n);
	struct mm_struct *owner = mm_alloc(), *mm = mm_alloc();
	long a0 = bench_mmap_ok(owner, f, 0, (unsigned long)n, VM_READ | VM_SHARED, 0);

	/* Into the page cache, and mapped by another process, as a shared library is. */
	for (long i = 0; i < n; i++)
		rt_touch(owner, (unsigned long)a0 + (unsigned long)i * PAGE_SIZE, false);
	out[0] = fault_rate(cfg, mm, f, n, VM_READ | VM_SHARED, false);
	mmput(mm);
	mmput(owner);
	rt_file_free(f);
}

/* ---- 2. fork and exit ---- */

struct mm_struct *bench_fork_or_die(struct mm_struct *parent, long n)
{
	struct mm_struct *child = dup_mm(parent);

	if (!child)
		rt_die("dup_mm of %ld pages: out of memory (raise --pages)", n);
	return child;
}

/* out[0]: fork+exit per second; out[1]: exit (mmput of the child) per second. */
static void s_fork_exit(const struct rt_bench_vm_cfg *cfg, long n, double out[2])
{
	struct mm_struct *parent = mm_alloc();
	long a = bench_mmap_ok(parent, NULL, 0, (unsigned long)n, VM_READ | VM_WRITE, 0);
	double t_fork = 0, t_exit = 0, t0, t1, t2;
	long iters = 0;

	for (long i = 0; i < n; i++)
		rt_touch(parent, (unsigned long)a + (unsigned long)i * PAGE_SIZE, true);
	/* A warm-up fork and exit, untimed. */
	mmput(bench_fork_or_die(parent, n));
	do {
		struct mm_struct *child;

		t0 = rt_now_s();
		child = bench_fork_or_die(parent, n);
		t1 = rt_now_s();
		mmput(child);
		t2 = rt_now_s();
		t_fork += t1 - t0;
		t_exit += t2 - t1;
		iters++;
	} while (t_fork + t_exit < cfg->sample_s || iters < 3);
	mmput(parent);
	out[0] = (double)iters / (t_fork + t_exit);
	out[1] = (double)iters / t_exit;
}

/* ---- 4. try_to_unmap ---- */

/* Make the pte of @addr in @mm old, so that try_to_unmap() does not refuse it. */
static void pte_make_old(struct mm_struct *mm, unsigned long addr)
{
	pte_t *ptep;

	spin_lock(&mm->page_table_lock);
	ptep = pte_offset(mm->pgd, addr);
	if (!ptep || !pte_present(ptep_get(ptep)))
		rt_die("no pte at %#lx", addr);
	ptep_test_and_clear_young(ptep);
	spin_unlock(&mm->page_table_lock);
}

/*
 * Time try_to_unmap() of @page mapped at @addr in each of @mms: make the
 * ptes old, lock the page and its rmap, unmap (timed), unlock, fault the
 * page back in every mm (reads). Return: ns per call, averaged over the
 * calls of one sample.
 */
static double unmap_loop(const struct rt_bench_vm_cfg *cfg, struct page *page,
			 struct mm_struct **mms, int nr, unsigned long addr)
{
	double total = 0, t_start = rt_now_s(), t0, t1;
	long calls = 0;

	/* Reclaim meets LRU pages only: the page leaves this task's pagevec. */
	lru_add_drain();
	do {
		int r;

		for (int i = 0; i < nr; i++)
			pte_make_old(mms[i], addr);
		lock_page(page);
		rmap_lock(page);
		t0 = rt_now_s();
		r = rmap->try_to_unmap(page);
		t1 = rt_now_s();
		rmap_unlock(page);
		unlock_page(page);
		if (r != SWAP_SUCCESS)
			rt_die("[%s] try_to_unmap = %d with %d mms", rmap_mode_name(rmap_mode), r, nr);
		total += t1 - t0;
		calls++;
		for (int i = 0; i < nr; i++)
			rt_touch(mms[i], addr, false);
	} while (rt_now_s() - t_start < cfg->sample_s || calls < 20);
	return total * 1e9 / (double)calls;
}

/* A file page mapped MAP_SHARED by @n processes. */
static void s_unmap_file_sharers(const struct rt_bench_vm_cfg *cfg, long n, double out[2])
{
	struct address_space *f = file_create("bench-unmap", 1, 1);
	struct mm_struct **mms = rt_calloc((size_t)n, sizeof(*mms));
	unsigned long addr = 0x10000000UL;
	struct page *page;

	for (long i = 0; i < n; i++) {
		mms[i] = mm_alloc();
		bench_mmap_ok(mms[i], f, addr, 1, VM_READ | VM_SHARED, 0);
		rt_touch(mms[i], addr, false);
	}
	page = find_get_page(f, 0);
	if (!page)
		rt_die("file page not cached");
	out[0] = unmap_loop(cfg, page, mms, (int)n, addr);
	put_page(page);
	for (long i = 0; i < n; i++)
		mmput(mms[i]);
	free(mms);
	rt_file_free(f);
}

/* An anonymous page (in the swap cache, as reclaim unmaps it) shared by @n forked processes. */
static void s_unmap_anon_sharers(const struct rt_bench_vm_cfg *cfg, long n, double out[2])
{
	struct mm_struct **mms = rt_calloc((size_t)n, sizeof(*mms));
	unsigned long addr;
	struct page *page;

	mms[0] = mm_alloc();
	addr = (unsigned long)bench_mmap_ok(mms[0], NULL, 0, 1, VM_READ | VM_WRITE, 0);
	rt_touch(mms[0], addr, true);
	for (long i = 1; i < n; i++) {
		mms[i] = dup_mm(mms[0]);
		if (!mms[i])
			rt_die("dup_mm: out of memory");
	}
	page = rt_page_at(mms[0], addr);
	if (!page)
		rt_die("no page at %#lx", addr);
	get_page(page);
	lock_page(page);
	if (!add_to_swap(page))
		rt_die("add_to_swap: swap full");
	unlock_page(page);
	out[0] = unmap_loop(cfg, page, mms, (int)n, addr);
	put_page(page);
	for (long i = 0; i < n; i++)
		mmput(mms[i]);
	free(mms);
}

/*
 * One mm maps page 0 of a file; @n vmas of another mm map other pages of
 * it (one page each, apart, so they do not merge). The mapping vma is
 * created last: it is at the tail of i_mmap_shared, the worst case of a
 * walk of the file's vmas.
 */
static void s_unmap_vmas(const struct rt_bench_vm_cfg *cfg, long n, double out[2])
{
	struct address_space *f = file_create("bench-vmas", (unsigned long)n + 1,
					      (unsigned long)n + 1);
	struct mm_struct *others = mm_alloc(), *mm = mm_alloc();
	unsigned long addr = 0x10000000UL;
	struct page *page;

	for (long i = 0; i < n; i++)
		bench_mmap_ok(others, f, 0x20000000UL + 2 * (unsigned long)i * PAGE_SIZE, 1,
			VM_READ | VM_SHARED, 1 + (unsigned long)i);
	if (others->map_count != n)
		rt_die("%d vmas instead of %ld (merged?)", others->map_count, n);
	bench_mmap_ok(mm, f, addr, 1, VM_READ | VM_SHARED, 0);
	rt_touch(mm, addr, false);
	page = find_get_page(f, 0);
	if (!page)
		rt_die("file page not cached");
	out[0] = unmap_loop(cfg, page, &mm, 1, addr);
	put_page(page);
	mmput(mm);
	mmput(others);
	rt_file_free(f);
}

/* ---- the rows ---- */

static struct row rows[NR_ROWS] = {
	[R_ANON_FAULT] = { "anon_faults_per_sec", "anon faults/s", s_anon_faults, 0, 0, false, false,
			   host_s_anon_faults },
	[R_FILE_FAULT] = { "file_faults_per_sec", "file faults/s", s_file_faults, 0, 0, false, false },
	[R_FORK_SMALL] = { "fork_exit_per_sec", "fork+exit/s", s_fork_exit, 0, 0, false, false,
			   host_s_fork_exit },
	[R_EXIT_SMALL] = { "exit_per_sec", "exit/s", s_fork_exit, 0, 1, true, false },
	[R_FORK_LARGE] = { "fork_exit_per_sec_10000", "fork+exit/s", s_fork_exit, 0, 0, false, false,
			   host_s_fork_exit },
	[R_EXIT_LARGE] = { "exit_per_sec_10000", "exit/s", s_fork_exit, 0, 1, true, false },
	[R_UNMAP_SH1] = { "1", "file, 1 sharer", s_unmap_file_sharers, 1, 0, false, true },
	[R_UNMAP_SH10] = { "10", "file, 10 sharers", s_unmap_file_sharers, 10, 0, false, true },
	[R_UNMAP_SH100] = { "100", "file, 100 sharers", s_unmap_file_sharers, 100, 0, false, true },
	[R_UNMAP_ANON1] = { "1", "anon, 1 sharer", s_unmap_anon_sharers, 1, 0, false, true },
	[R_UNMAP_ANON10] = { "10", "anon, 10 sharers", s_unmap_anon_sharers, 10, 0, false, true },
	[R_UNMAP_ANON100] = { "100", "anon, 100 sharers", s_unmap_anon_sharers, 100, 0, false, true },
	[R_UNMAP_V1] = { "1", "file, 1 other vma", s_unmap_vmas, 1, 0, false, true },
	[R_UNMAP_V10] = { "10", "file, 10 other vmas", s_unmap_vmas, 10, 0, false, true },
	[R_UNMAP_V100] = { "100", "file, 100 other vmas", s_unmap_vmas, 100, 0, false, true },
	[R_UNMAP_V1000] = { "1000", "file, 1000 other vmas", s_unmap_vmas, 1000, 0, false, true },
};

/* ---- 3. rmap bytes ---- */

static void measure_bytes(int procs, unsigned long fpages, struct bytes_result *out)
{
	struct address_space *f = file_create("bench-oracle", fpages, fpages);
	struct mm_struct **mms = rt_calloc((size_t)procs, sizeof(*mms));
	struct rmap_bytes b0, b1;

	rmap_bytes_read(&b0);
	for (int i = 0; i < procs; i++) {
		long a;

		mms[i] = mm_alloc();
		a = bench_mmap_ok(mms[i], f, 0, fpages, VM_READ | VM_WRITE | VM_SHARED, 0);
		for (unsigned long j = 0; j < fpages; j++)
			rt_touch(mms[i], (unsigned long)a + j * PAGE_SIZE, false);
	}
	rmap_bytes_read(&b1);
	out->pte_chain = b1.pte_chain_now - b0.pte_chain_now;
	out->anon_vma = b1.anon_vma_now - b0.anon_vma_now;
	out->vma_extra = b1.vma_extra_now - b0.vma_extra_now;
	out->bytes = out->pte_chain + out->anon_vma;
	out->per_pte = (double)out->bytes / ((double)procs * (double)fpages);
	out->per_page = (double)out->bytes / (double)fpages;
	for (int i = 0; i < procs; i++)
		mmput(mms[i]);
	free(mms);
	rt_file_free(f);
}

/* ---- the measurements, interleaved ---- */

void rt_bench_vm_cfg_quick(struct rt_bench_vm_cfg *cfg)
{
	cfg->sample_s = 0.03;
	cfg->fault_pages = 256;
	cfg->bytes_procs[0] = 4;
	cfg->bytes_procs[1] = 10;
	cfg->bytes_procs[2] = 20;
	cfg->bytes_file_pages = 128;
}

unsigned long rt_bench_vm_min_pages(const struct rt_bench_vm_cfg *cfg)
{
	/* The 10,000-page process and its child's page tables, twice over. */
	return 4 * cfg->fork_large;
}

/* Every design of the table into @res, in its order. */
static void select_designs(struct vm_results *res, FILE *out)
{
	fprintf(out, "designs:");
	for (int m = 0; m < RMAP_NR_MODES; m++) {
		fprintf(out, " %s", rmap_mode_name((enum rmap_mode)m));
		res->modes[res->nd++] = (enum rmap_mode)m;
	}
}

/* What rt_now_s() adds to each timed try_to_unmap(), in ns. */
static double timer_overhead_ns(void)
{
	double s[16], med, mn, mx;

	for (int k = 0; k < 16; k++) {
		long n = 100000;
		double t0 = rt_now_s();

		for (long i = 0; i < n; i++)
			(void)rt_now_s();
		s[k] = (rt_now_s() - t0) * 1e9 / (double)n;
	}
	rt_bench_stats(s, 16, &med, &mn, &mx);
	return med;
}

/* Whether to take no sample more; sticks once true. */
static bool stopping(struct vm_results *res)
{
	if (!res->stopped && res->cfg->stop && res->cfg->stop())
		res->stopped = true;
	return res->stopped;
}

/* 3: deterministic, measured once per design and process count. */
static void measure_all_bytes(struct vm_results *res)
{
	const struct rt_bench_vm_cfg *cfg = res->cfg;

	for (int p = 0; p < 3; p++)
		for (int d = 0; d < res->nd && !stopping(res); d++) {
			bench_env_up(res->modes[d], cfg);
			measure_bytes(cfg->bytes_procs[p], cfg->bytes_file_pages, &res->br[p][d]);
			bench_env_down(res->modes[d], cfg);
			res->br_done[p][d] = true;
		}
}

/* One sample of row @r on the host kernel, the model down; its value. */
static double host_sample(struct vm_results *res, int r)
{
	double out[2] = { 0, 0 };
	long kb;

	rows[r].host_fn(res->cfg, rows[r].param, out);
	if (rows[r].host_fn == host_s_fork_exit && (kb = host_process_anon_kb()) > res->host_anon_kb)
		res->host_anon_kb = kb;
	return out[0];
}

/* 1, 2, 4: timed, interleaved across designs (and the host kernel, a slot of its own). */
static void measure_rows(struct vm_results *res)
{
	static double val[NR_ROWS][RMAP_NR_MODES][RT_BENCH_MAX_REPEAT];
	static double host[NR_ROWS][RT_BENCH_MAX_REPEAT];
	const struct rt_bench_vm_cfg *cfg = res->cfg;
	int nd = res->nd;

	for (int r = 0; r < NR_ROWS; r++) {
		int slots = nd + (rows[r].host_fn != NULL);

		if (rows[r].same_sample)
			continue;
		for (int k = 0; k < res->repeat; k++)
			for (int i = 0; i < slots && !stopping(res); i++) {
				/* A, B, C, host then host, C, B, A: no design always runs first. */
				int d = k % 2 ? slots - 1 - i : i;
				double out[2] = { 0, 0 };

				if (d == nd) {
					double v = host_sample(res, r);

					host[r][res->host_n[r]++] = v;
					continue;
				}
				bench_env_up(res->modes[d], cfg);
				rows[r].fn(cfg, rows[r].param, out);
				bench_env_down(res->modes[d], cfg);
				val[r][d][k] = out[rows[r].out_idx];
				res->n[r][d]++;
				if (r + 1 < NR_ROWS && rows[r + 1].same_sample) {
					val[r + 1][d][k] = out[rows[r + 1].out_idx];
					res->n[r + 1][d]++;
				}
			}
	}
	for (int r = 0; r < NR_ROWS; r++) {
		for (int d = 0; d < nd; d++)
			rt_bench_stats(val[r][d], res->n[r][d], &res->med[r][d], &res->mn[r][d],
				       &res->mx[r][d]);
		rt_bench_stats(host[r], res->host_n[r], &res->host_med[r], &res->host_mn[r],
			       &res->host_mx[r]);
	}
}

bool rt_bench_vm(const struct rt_bench_vm_cfg *cfg, int repeat, bool quick, FILE *out,
		 json_t *rec)
{
	struct vm_results res = { .cfg = cfg, .rows = rows, .repeat = repeat, .host_anon_kb = -1 };
	double t_start;

	rows[R_ANON_FAULT].param = (long)cfg->fault_pages;
	rows[R_FILE_FAULT].param = (long)cfg->fault_pages;
	rows[R_FORK_SMALL].param = rows[R_EXIT_SMALL].param = (long)cfg->fork_small;
	rows[R_FORK_LARGE].param = rows[R_EXIT_LARGE].param = (long)cfg->fork_large;
	lockdep_set_enabled(false);
	t_start = rt_now_s();

	fprintf(out, "rmaptorture bench vm: %s, %d cores (%s)\n", rt_version(),
		rt_machine_cores(), rt_machine_model());
	select_designs(&res, out);
	fprintf(out, "\n%lu pages of memory, %lu swap slots, %d repeats interleaved, %.3f s samples,"
		" 1 thread, lockdep off, statistics on\n"
		"(each sample on a fresh mem_init/swap_init/rmap_select; design order reversed on odd repeats)\n",
		cfg->pages, cfg->slots, repeat, cfg->sample_s);
	res.timer_ns = timer_overhead_ns();
	measure_all_bytes(&res);
	measure_rows(&res);
	measure_scaling(&res, stopping);
	res.reclaim_scanned = env_reclaim_scanned;
	res.alloc_fail = env_alloc_fail;
	vm_print_tables(&res, out);
	fprintf(out, "\n%d cores; %.1f s in all\n", rt_machine_cores(), rt_now_s() - t_start);
	vm_record(&res, quick, rec);
	return !env_reclaim_scanned && !env_alloc_fail;
}
