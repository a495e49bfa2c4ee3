// SPDX-License-Identifier: MIT
/*
 * `rmaptorture bench vm`: what each rmap design costs the rest of the VM,
 * in one run, every design that rmap_select() accepts, interleaved (for
 * repeat k: design A, B, C in turn, each on a freshly set up model) so
 * that the ratios come from the same run. Lockdep off, statistics on.
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
 * `rmaptorture bench` (bench_all()) adds, through child `run`s interleaved
 * in the same way (rt_run_child_records(), cmd_scale.c): the peak rmap
 * bytes per mapped page of the shm scenario at several process counts,
 * and trylock fallbacks per page scanned by reclaim at several reclaim
 * thread counts; writes the record, Markdown and plots (results/report.h)
 * and compares with a stored baseline (--compare).
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "audit.h"
#include "die.h"
#include "fs.h"
#include "lockdep.h"
#include "mm.h"
#include "page.h"
#include "page_alloc.h"
#include "plot.h"
#include "rcu.h"
#include "record.h"
#include "report.h"
#include "rmap.h"
#include "rt_child.h"
#include "rt_cmd.h"
#include "rt_opt.h"
#include "swap.h"
#include "task.h"
#include "vmscan.h"
#include "rt_time.h"

#define P PAGE_SIZE
#define MAX_REPEAT 64

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median, min and max of @n samples (@v is left unsorted). */
static void stats3(const double *v, int n, double *med, double *mn, double *mx)
{
	double tmp[MAX_REPEAT];

	memcpy(tmp, v, sizeof(*v) * (size_t)n);
	qsort(tmp, (size_t)n, sizeof(*tmp), cmp_double);
	*med = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	*mn = tmp[0];
	*mx = tmp[n - 1];
}

/* ---- the model, set up fresh per sample ---- */

struct bench_cfg {
	unsigned long pages;		/* mem_init() */
	unsigned long slots;		/* swap_init() */
	double sample_s;		/* target duration of one timed sample */
	unsigned long fault_pages;	/* N of the fault loops */
	unsigned long fork_small, fork_large;
	int bytes_procs[3];
	unsigned long bytes_file_pages;
};

/* Reclaim or allocation failures seen during samples: the numbers would be off. */
static unsigned long env_reclaim_scanned, env_alloc_fail;

static void env_up(enum rmap_mode mode, const struct bench_cfg *cfg)
{
	if (rmap_select(mode))
		rt_die("rmap_select(%s) refused after accepting it", rmap_mode_name(mode));
	if (mem_init(cfg->pages))
		rt_die("mem_init(%lu)", cfg->pages);
	if (swap_init(cfg->slots))
		rt_die("swap_init(%lu)", cfg->slots);
	reclaim_stats_reset();
	rmap_fallback_reset();
	rmap_bytes_reset_peak();
}

static void env_down(void)
{
	struct reclaim_stats rs;
	unsigned long v;

	reclaim_stats_read(&rs);
	env_reclaim_scanned += rs.scanned;
	env_alloc_fail += __atomic_load_n(&contig_zone.nr_alloc_fail, __ATOMIC_RELAXED);
	/* Swap cache pages whose last user exited under a page-lock try (as check_vm.c). */
	for (int i = 0; i < 8 && nr_free_pages() != max_mapnr - 1; i++)
		shrink_zone(&contig_zone, max_mapnr);
	rcu_barrier();
	v = vm_teardown_check();
	if (v)
		rt_die("[%s] teardown: %lu leaks", rmap_mode_name(rmap_mode), v);
	swap_exit();
	mem_exit();
}

static long mmap_w(struct mm_struct *mm, struct address_space *f, unsigned long addr,
		   unsigned long pages, unsigned long flags, unsigned long pgoff)
{
	long r;

	down_write(&mm->mmap_sem);
	r = do_mmap(mm, f, addr, pages * P, flags, pgoff);
	up_write(&mm->mmap_sem);
	if (r < 0 && r > -4096)
		rt_die("do_mmap(%lu pages): %s", pages, rt_strerror((int)-r));
	return r;
}

static void munmap_w(struct mm_struct *mm, unsigned long addr, unsigned long pages)
{
	int r;

	down_write(&mm->mmap_sem);
	r = do_munmap(mm, addr, pages * P);
	up_write(&mm->mmap_sem);
	if (r)
		rt_die("do_munmap(%lu pages): %s", pages, rt_strerror(-r));
}

static void touch(struct mm_struct *mm, unsigned long addr, bool write)
{
	enum mm_access_result r;

	down_read(&mm->mmap_sem);
	r = mm_access(mm, addr, write, NULL);
	up_read(&mm->mmap_sem);
	if (r != ACCESS_OK)
		rt_die("mm_access(%#lx, %s) = %d", addr, write ? "write" : "read", (int)r);
}

static void file_free(struct address_space *f)
{
	vmtruncate(f, 0);
	file_destroy(f);
}

/* ---- 1. faults ---- */

static void s_anon_faults(const struct bench_cfg *cfg, long n, double out[2])
{
	struct mm_struct *mm = mm_alloc();
	unsigned long ops = 0;
	double t0 = 0, dt;

	/* Round 0 is a warm-up (the host's first touch of a fresh mem_map): untimed. */
	for (int round = 0;; round++) {
		long a = mmap_w(mm, NULL, 0, (unsigned long)n, VM_READ | VM_WRITE, 0);

		for (long i = 0; i < n; i++)
			touch(mm, (unsigned long)a + (unsigned long)i * P, true);
		munmap_w(mm, (unsigned long)a, (unsigned long)n);
		if (!round) {
			t0 = rt_now_s();
			continue;
		}
		ops += (unsigned long)n;
		if ((dt = rt_now_s() - t0) >= cfg->sample_s)
			break;
	}
	mmput(mm);
	out[0] = (double)ops / dt;
}

static void s_file_faults(const struct bench_cfg *cfg, long n, double out[2])
{
	struct address_space *f = file_create("bench-file", (unsigned long)n, (unsigned long)n);
	struct mm_struct *owner = mm_alloc(), *mm = mm_alloc();
	long a0 = mmap_w(owner, f, 0, (unsigned long)n, VM_READ | VM_SHARED, 0);
	unsigned long ops = 0;
	double t0 = 0, dt;

	/* Into the page cache, and mapped by another process, as a shared library is. */
	for (long i = 0; i < n; i++)
		touch(owner, (unsigned long)a0 + (unsigned long)i * P, false);
	/* Round 0 is a warm-up, untimed. */
	for (int round = 0;; round++) {
		long a = mmap_w(mm, f, 0, (unsigned long)n, VM_READ | VM_SHARED, 0);

		for (long i = 0; i < n; i++)
			touch(mm, (unsigned long)a + (unsigned long)i * P, false);
		munmap_w(mm, (unsigned long)a, (unsigned long)n);
		if (!round) {
			t0 = rt_now_s();
			continue;
		}
		ops += (unsigned long)n;
		if ((dt = rt_now_s() - t0) >= cfg->sample_s)
			break;
	}
	mmput(mm);
	mmput(owner);
	file_free(f);
	out[0] = (double)ops / dt;
}

/* ---- 2. fork and exit ---- */

/* out[0]: fork+exit per second; out[1]: exit (mmput of the child) per second. */
static void s_fork_exit(const struct bench_cfg *cfg, long n, double out[2])
{
	struct mm_struct *parent = mm_alloc();
	long a = mmap_w(parent, NULL, 0, (unsigned long)n, VM_READ | VM_WRITE, 0);
	double t_fork = 0, t_exit = 0, t0, t1, t2;
	long iters = 0;

	for (long i = 0; i < n; i++)
		touch(parent, (unsigned long)a + (unsigned long)i * P, true);
	/* A warm-up fork and exit, untimed. */
	{
		struct mm_struct *child = dup_mm(parent);

		if (!child)
			rt_die("dup_mm of %ld pages: out of memory (raise --pages)", n);
		mmput(child);
	}
	do {
		struct mm_struct *child;

		t0 = rt_now_s();
		child = dup_mm(parent);
		t1 = rt_now_s();
		if (!child)
			rt_die("dup_mm of %ld pages: out of memory (raise --pages)", n);
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

static struct page *page_at(struct mm_struct *mm, unsigned long addr)
{
	struct page *page;
	pte_t *ptep;

	spin_lock(&mm->page_table_lock);
	ptep = pte_offset(mm->pgd, addr);
	if (!ptep || !pte_present(ptep_get(ptep)))
		rt_die("no pte at %#lx", addr);
	page = pfn_to_page(pte_pfn(ptep_get(ptep)));
	get_page(page);
	spin_unlock(&mm->page_table_lock);
	return page;
}

/*
 * Time try_to_unmap() of @page mapped at @addr in each of @mms: make the
 * ptes old, lock the page and its rmap, unmap (timed), unlock, fault the
 * page back in every mm (reads). Return: ns per call, averaged over the
 * calls of one sample.
 */
static double unmap_loop(const struct bench_cfg *cfg, struct page *page,
			 struct mm_struct **mms, int nr, unsigned long addr)
{
	double total = 0, t_start = rt_now_s(), t0, t1;
	long calls = 0;

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
			touch(mms[i], addr, false);
	} while (rt_now_s() - t_start < cfg->sample_s || calls < 20);
	return total * 1e9 / (double)calls;
}

/* A file page mapped MAP_SHARED by @n processes. */
static void s_unmap_file_sharers(const struct bench_cfg *cfg, long n, double out[2])
{
	struct address_space *f = file_create("bench-unmap", 1, 1);
	struct mm_struct **mms = rt_calloc((size_t)n, sizeof(*mms));
	unsigned long addr = 0x10000000UL;
	struct page *page;

	for (long i = 0; i < n; i++) {
		mms[i] = mm_alloc();
		mmap_w(mms[i], f, addr, 1, VM_READ | VM_SHARED, 0);
		touch(mms[i], addr, false);
	}
	page = find_get_page(f, 0);
	if (!page)
		rt_die("file page not cached");
	out[0] = unmap_loop(cfg, page, mms, (int)n, addr);
	put_page(page);
	for (long i = 0; i < n; i++)
		mmput(mms[i]);
	free(mms);
	file_free(f);
}

/* An anonymous page (in the swap cache, as reclaim unmaps it) shared by @n forked processes. */
static void s_unmap_anon_sharers(const struct bench_cfg *cfg, long n, double out[2])
{
	struct mm_struct **mms = rt_calloc((size_t)n, sizeof(*mms));
	unsigned long addr;
	struct page *page;

	mms[0] = mm_alloc();
	addr = (unsigned long)mmap_w(mms[0], NULL, 0, 1, VM_READ | VM_WRITE, 0);
	touch(mms[0], addr, true);
	for (long i = 1; i < n; i++) {
		mms[i] = dup_mm(mms[0]);
		if (!mms[i])
			rt_die("dup_mm: out of memory");
	}
	page = page_at(mms[0], addr);
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
static void s_unmap_vmas(const struct bench_cfg *cfg, long n, double out[2])
{
	struct address_space *f = file_create("bench-vmas", (unsigned long)n + 1,
					      (unsigned long)n + 1);
	struct mm_struct *others = mm_alloc(), *mm = mm_alloc();
	unsigned long addr = 0x10000000UL;
	struct page *page;

	for (long i = 0; i < n; i++)
		mmap_w(others, f, 0x20000000UL + 2 * (unsigned long)i * P, 1,
		       VM_READ | VM_SHARED, 1 + (unsigned long)i);
	if (others->map_count != n)
		rt_die("%d vmas instead of %ld (merged?)", others->map_count, n);
	mmap_w(mm, f, addr, 1, VM_READ | VM_SHARED, 0);
	touch(mm, addr, false);
	page = find_get_page(f, 0);
	if (!page)
		rt_die("file page not cached");
	out[0] = unmap_loop(cfg, page, &mm, 1, addr);
	put_page(page);
	mmput(mm);
	mmput(others);
	file_free(f);
}

/* ---- the rows ---- */

struct row {
	const char *key;	/* JSON key */
	const char *label;	/* table label */
	void (*fn)(const struct bench_cfg *cfg, long param, double out[2]);
	long param;
	int out_idx;		/* which output of fn */
	bool same_sample;	/* filled by the previous row's sample */
	bool lower_better;
};

enum {
	R_ANON_FAULT, R_FILE_FAULT,
	R_FORK_SMALL, R_EXIT_SMALL, R_FORK_LARGE, R_EXIT_LARGE,
	R_UNMAP_SH1, R_UNMAP_SH10, R_UNMAP_SH100,
	R_UNMAP_ANON1, R_UNMAP_ANON10, R_UNMAP_ANON100,
	R_UNMAP_V1, R_UNMAP_V10, R_UNMAP_V100, R_UNMAP_V1000,
	NR_ROWS,
};

static struct row rows[NR_ROWS] = {
	[R_ANON_FAULT] = { "anon_faults_per_sec", "anon faults/s", s_anon_faults, 0, 0, false, false },
	[R_FILE_FAULT] = { "file_faults_per_sec", "file faults/s", s_file_faults, 0, 0, false, false },
	[R_FORK_SMALL] = { "fork_exit_per_sec", "fork+exit/s", s_fork_exit, 0, 0, false, false },
	[R_EXIT_SMALL] = { "exit_per_sec", "exit/s", s_fork_exit, 0, 1, true, false },
	[R_FORK_LARGE] = { "fork_exit_per_sec_10000", "fork+exit/s", s_fork_exit, 0, 0, false, false },
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

struct bytes_result {
	double per_pte, per_page;
	unsigned long bytes, pte_chain, anon_vma, vma_extra;
};

static void measure_bytes(int procs, unsigned long fpages, struct bytes_result *out)
{
	struct address_space *f = file_create("bench-oracle", fpages, fpages);
	struct mm_struct **mms = rt_calloc((size_t)procs, sizeof(*mms));
	struct rmap_bytes b0, b1;

	rmap_bytes_read(&b0);
	for (int i = 0; i < procs; i++) {
		long a;

		mms[i] = mm_alloc();
		a = mmap_w(mms[i], f, 0, fpages, VM_READ | VM_WRITE | VM_SHARED, 0);
		for (unsigned long j = 0; j < fpages; j++)
			touch(mms[i], (unsigned long)a + j * P, false);
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
	file_free(f);
}

/* ---- printing ---- */

static void print_rule(FILE *out, int nd)
{
	for (int i = 0; i < 26 + nd * 14 + (nd - 1) * 10; i++)
		fputc('-', out);
	fputc('\n', out);
}

static void usage(FILE *f)
{
	fputs("usage: rmaptorture bench vm [OPTIONS]\n"
	      "\n"
	      "The VM cost of each rmap design that is built, interleaved in one run\n"
	      "(lockdep off, statistics on), median of K repeats with min and max:\n"
	      "anonymous and file fault throughput, fork+exit of 1,000 and 10,000-page\n"
	      "processes, rmap bytes per mapped page in the Oracle case (P processes\n"
	      "sharing one file), and one try_to_unmap() versus the processes sharing\n"
	      "the page and versus the file's vmas that do not map it.\n"
	      "\n"
	      "  -r, --repeat K      samples per measurement, interleaved; median reported (default 5)\n"
	      "  -p, --pages N       emulated memory in pages, 32k..64M (default 65536)\n"
	      "  -s, --seconds S     target length of one timed sample (default 0.2)\n"
	      "      --quick         small sizes, 3 repeats, 0.03 s samples\n"
	      "      --json FILE     write the result record to FILE ('-' for stdout)\n"
	      "  -h, --help          this text\n", f);
}

/*
 * The measurements of `bench vm` (and of `bench`, which adds child runs):
 * print the tables to @out, add the results to @rec.
 */
#define BENCH_CFG_DEFAULT {						\
	.pages = 65536, .slots = 4096, .sample_s = 0.2,				\
	.fault_pages = 1024, .fork_small = 1000, .fork_large = 10000,		\
	.bytes_procs = { 10, 50, 100 }, .bytes_file_pages = 1024,		\
}

/* --quick: small sizes, short samples. */
static void cfg_quick(struct bench_cfg *cfg)
{
	cfg->sample_s = 0.03;
	cfg->fault_pages = 256;
	cfg->bytes_procs[0] = 4;
	cfg->bytes_procs[1] = 10;
	cfg->bytes_procs[2] = 20;
	cfg->bytes_file_pages = 128;
}

static int vm_core(struct bench_cfg *cfg_in, int repeat, bool quick, FILE *out, json_t *rec)
{
	const struct bench_cfg cfg = *cfg_in;
	static double val[NR_ROWS][RMAP_NR_MODES][MAX_REPEAT];
	double med[NR_ROWS][RMAP_NR_MODES], mn[NR_ROWS][RMAP_NR_MODES], mx[NR_ROWS][RMAP_NR_MODES];
	struct bytes_result br[3][RMAP_NR_MODES];
	enum rmap_mode modes[RMAP_NR_MODES];
	int nd = 0, rc = RT_EXIT_OK, base;
	double t_start, t0, timer_ns;
	json_t *jd, *jskip, *jmodes;

	rows[R_ANON_FAULT].param = (long)cfg.fault_pages;
	rows[R_FILE_FAULT].param = (long)cfg.fault_pages;
	rows[R_FORK_SMALL].param = rows[R_EXIT_SMALL].param = (long)cfg.fork_small;
	rows[R_FORK_LARGE].param = rows[R_EXIT_LARGE].param = (long)cfg.fork_large;
	/* The 10,000-page process and its child's page tables, twice over. */
	if (cfg.pages < 4 * cfg.fork_large)
		rt_usage_error("--pages: at least %lu for the 10,000-page fork", 4 * cfg.fork_large);

	lockdep_set_enabled(false);
	t_start = rt_now_s();

	fprintf(out, "rmaptorture bench vm: %s, %d cores (%s)\n", rt_version(),
	       rt_machine_cores(), rt_machine_model());
	fprintf(out, "designs:");
	jskip = json_array();
	for (int m = 0; m < RMAP_NR_MODES; m++) {
		if (rmap_select((enum rmap_mode)m)) {
			fprintf(out, " %s (skipped: not built)", rmap_mode_name((enum rmap_mode)m));
			json_array_append_new(jskip, json_string(rmap_mode_name((enum rmap_mode)m)));
			continue;
		}
		fprintf(out, " %s", rmap_mode_name((enum rmap_mode)m));
		modes[nd++] = (enum rmap_mode)m;
	}
	fprintf(out, "\n%lu pages of memory, %lu swap slots, %d repeats interleaved, %.3f s samples,"
	       " 1 thread, lockdep off, statistics on\n"
	       "(each sample on a fresh mem_init/swap_init/rmap_select; design order reversed on odd repeats)\n",
	       cfg.pages, cfg.slots, repeat, cfg.sample_s);
	if (!nd)
		rt_die("no rmap design is built");
	base = modes[0] == RMAP_PTECHAIN ? 0 : -1;

	/* What rt_now_s() adds to each timed try_to_unmap(). */
	{
		double s[16];

		for (int k = 0; k < 16; k++) {
			long n = 100000;

			t0 = rt_now_s();
			for (long i = 0; i < n; i++)
				(void)rt_now_s();
			s[k] = (rt_now_s() - t0) * 1e9 / (double)n;
		}
		stats3(s, 16, &timer_ns, &t0, &t0);
	}

	/* 3. rmap bytes: deterministic, measured once per design. */
	for (int p = 0; p < 3; p++)
		for (int d = 0; d < nd; d++) {
			env_up(modes[d], &cfg);
			measure_bytes(cfg.bytes_procs[p], cfg.bytes_file_pages, &br[p][d]);
			env_down();
		}

	/* 1, 2, 4: timed, interleaved across designs. */
	for (int r = 0; r < NR_ROWS; r++) {
		if (rows[r].same_sample)
			continue;
		for (int k = 0; k < repeat; k++)
			for (int i = 0; i < nd; i++) {
				/* A, B, C then C, B, A: no design always runs first. */
				int d = k % 2 ? nd - 1 - i : i;
				double res[2] = { 0, 0 };

				env_up(modes[d], &cfg);
				rows[r].fn(&cfg, rows[r].param, res);
				env_down();
				val[r][d][k] = res[rows[r].out_idx];
				if (r + 1 < NR_ROWS && rows[r + 1].same_sample)
					val[r + 1][d][k] = res[rows[r + 1].out_idx];
			}
	}
	for (int r = 0; r < NR_ROWS; r++)
		for (int d = 0; d < nd; d++)
			stats3(val[r][d], repeat, &med[r][d], &mn[r][d], &mx[r][d]);

	/* ---- tables ---- */
	fprintf(out, "\n1-2. throughput (higher is better), median of %d; ratio = design / ptechain\n", repeat);
	fprintf(out, "%-26s", "measurement");
	for (int d = 0; d < nd; d++)
		fprintf(out, " %13s", rmap_mode_name(modes[d]));
	for (int d = 1; d < nd; d++)
		fprintf(out, " %9s", rmap_mode_name(modes[d]));
	fputc('\n', out);
	print_rule(out, nd);
	for (int r = R_ANON_FAULT; r <= R_EXIT_LARGE; r++) {
		char label[64];

		snprintf(label, sizeof(label), "%s (%ld pages)", rows[r].label, rows[r].param);
		fprintf(out, "%-26s", label);
		for (int d = 0; d < nd; d++)
			fprintf(out, " %13.0f", med[r][d]);
		for (int d = 1; d < nd; d++)
			if (base == 0)
				fprintf(out, " %8.2fx", med[r][d] / med[r][0]);
		fputc('\n', out);
	}

	fprintf(out, "\n4. try_to_unmap() of one page, page locked + rmap lock held (ns per call, lower is better;\n"
	   "   median of %d samples of >= 20 calls; includes ~%.0f ns of clock_gettime)\n",
	       repeat, timer_ns);
	fprintf(out, "%-26s", "page mapped by");
	for (int d = 0; d < nd; d++)
		fprintf(out, " %13s", rmap_mode_name(modes[d]));
	for (int d = 1; d < nd; d++)
		fprintf(out, " %9s", rmap_mode_name(modes[d]));
	fputc('\n', out);
	print_rule(out, nd);
	for (int r = R_UNMAP_SH1; r < NR_ROWS; r++) {
		fprintf(out, "%-26s", rows[r].label);
		for (int d = 0; d < nd; d++)
			fprintf(out, " %13.0f", med[r][d]);
		for (int d = 1; d < nd; d++)
			if (base == 0)
				fprintf(out, " %8.2fx", med[r][d] / med[r][0]);
		fputc('\n', out);
	}

	fprintf(out, "\nspread: min .. max of the %d samples\n", repeat);
	fprintf(out, "%-26s", "measurement");
	for (int d = 0; d < nd; d++)
		fprintf(out, " %25s", rmap_mode_name(modes[d]));
	fputc('\n', out);
	for (int r = 0; r < NR_ROWS; r++) {
		char label[64], cell[64];

		if (r <= R_EXIT_LARGE)
			snprintf(label, sizeof(label), "%s (%ld pages)", rows[r].label, rows[r].param);
		else
			snprintf(label, sizeof(label), "unmap ns, %s", rows[r].label);
		fprintf(out, "%-26s", label);
		for (int d = 0; d < nd; d++) {
			snprintf(cell, sizeof(cell), "%.0f .. %.0f", mn[r][d], mx[r][d]);
			fprintf(out, " %25s", cell);
		}
		fputc('\n', out);
	}

	fprintf(out, "\n3. rmap metadata, Oracle case: P processes map one %lu-page file MAP_SHARED and read all of it\n"
	       "   (pte_chain + anon_vma bytes; B/pte = per mapped pte, B/page = per distinct page)\n",
	       cfg.bytes_file_pages);
	fprintf(out, "%-26s", "processes");
	for (int d = 0; d < nd; d++)
		fprintf(out, " %13s", rmap_mode_name(modes[d]));
	fputc('\n', out);
	print_rule(out, nd);
	for (int p = 0; p < 3; p++) {
		char label[64];

		snprintf(label, sizeof(label), "P=%d  bytes", cfg.bytes_procs[p]);
		fprintf(out, "%-26s", label);
		for (int d = 0; d < nd; d++)
			fprintf(out, " %13lu", br[p][d].bytes);
		snprintf(label, sizeof(label), "\n%-26s", "      B/pte");
		fputs(label, out);
		for (int d = 0; d < nd; d++)
			fprintf(out, " %13.2f", br[p][d].per_pte);
		snprintf(label, sizeof(label), "\n%-26s", "      B/page");
		fputs(label, out);
		for (int d = 0; d < nd; d++)
			fprintf(out, " %13.1f", br[p][d].per_page);
		fputc('\n', out);
	}
	{
		const double ptes_per_task = 2.7e9 / 4096;

		fprintf(out, "\nthe article's arithmetic: 2.7 GB mapped per task = %.0f ptes per task\n",
		       ptes_per_task);
		fprintf(out, "%-26s %16s %16s\n", "bytes per pte", "x 100 tasks", "x 700 tasks");
		fprintf(out, "%-26s %13.2f GB %13.2f GB\n", "8 (the article)",
		       8 * ptes_per_task * 100 / 1e9, 8 * ptes_per_task * 700 / 1e9);
		for (int d = 0; d < nd; d++) {
			char label[64];

			snprintf(label, sizeof(label), "%.2f (%s, P=%d)", br[2][d].per_pte,
				 rmap_mode_name(modes[d]), cfg.bytes_procs[2]);
			fprintf(out, "%-26s %13.2f GB %13.2f GB\n", label,
			       br[2][d].per_pte * ptes_per_task * 100 / 1e9,
			       br[2][d].per_pte * ptes_per_task * 700 / 1e9);
		}
	}
	if (env_reclaim_scanned || env_alloc_fail) {
		fprintf(out, "\nWARNING: reclaim scanned %lu pages, %lu allocations failed: raise --pages\n",
		       env_reclaim_scanned, env_alloc_fail);
		rc = RT_EXIT_FAILURE;
	}
	fprintf(out, "\n%d cores; %.1f s in all\n", rt_machine_cores(), rt_now_s() - t_start);

	/* ---- the record ---- */
	jd = json_object();
	for (int d = 0; d < nd; d++) {
		json_t *o = json_object(), *by_sh = json_object(), *by_an = json_object();
		json_t *by_v = json_object(), *tu = json_object(), *bytes = json_object();
		json_t *spread = json_object();

		for (int r = 0; r <= R_EXIT_LARGE; r++)
			json_object_set_new(o, rows[r].key, json_real(med[r][d]));
		for (int r = R_UNMAP_SH1; r <= R_UNMAP_SH100; r++)
			json_object_set_new(by_sh, rows[r].key, json_real(med[r][d]));
		for (int r = R_UNMAP_ANON1; r <= R_UNMAP_ANON100; r++)
			json_object_set_new(by_an, rows[r].key, json_real(med[r][d]));
		for (int r = R_UNMAP_V1; r <= R_UNMAP_V1000; r++)
			json_object_set_new(by_v, rows[r].key, json_real(med[r][d]));
		json_object_set_new(tu, "by_sharers", by_sh);
		json_object_set_new(tu, "by_sharers_anon", by_an);
		json_object_set_new(tu, "by_vmas", by_v);
		json_object_set_new(o, "try_to_unmap_ns", tu);
		for (int r = 0; r < NR_ROWS; r++) {
			char key[64];

			if (r <= R_EXIT_LARGE)
				snprintf(key, sizeof(key), "%s", rows[r].key);
			else
				snprintf(key, sizeof(key), "try_to_unmap_ns_%s_%s",
					 r <= R_UNMAP_SH100 ? "sharers" :
					 r <= R_UNMAP_ANON100 ? "sharers_anon" : "vmas", rows[r].key);
			json_object_set_new(spread, key,
					    json_pack("{s:f, s:f}", "min", mn[r][d], "max", mx[r][d]));
		}
		json_object_set_new(o, "spread", spread);
		/* The Oracle case at the largest P: bytes per mapped pte. */
		json_object_set_new(o, "rmap_bytes_per_mapped_page", json_real(br[2][d].per_pte));
		json_object_set_new(o, "rmap_bytes_per_distinct_page", json_real(br[2][d].per_page));
		for (int p = 0; p < 3; p++) {
			char key[16];

			snprintf(key, sizeof(key), "%d", cfg.bytes_procs[p]);
			json_object_set_new(bytes, key,
				json_pack("{s:I, s:I, s:I, s:f, s:f}",
					  "pte_chain", (json_int_t)br[p][d].pte_chain,
					  "anon_vma", (json_int_t)br[p][d].anon_vma,
					  "vma_extra", (json_int_t)br[p][d].vma_extra,
					  "per_pte", br[p][d].per_pte,
					  "per_page", br[p][d].per_page));
		}
		json_object_set_new(o, "rmap_bytes_by_procs", bytes);
		json_object_set_new(jd, rmap_mode_name(modes[d]), o);
	}
	json_object_set_new(rec, "designs", jd);
	json_object_set_new(rec, "skipped", jskip);
	json_object_set_new(rec, "repeat", json_integer(repeat));
	json_object_set_new(rec, "quick", json_boolean(quick));
	json_object_set_new(rec, "pages", json_integer((json_int_t)cfg.pages));
	json_object_set_new(rec, "sample_seconds", json_real(cfg.sample_s));
	json_object_set_new(rec, "fault_pages", json_integer((json_int_t)cfg.fault_pages));
	json_object_set_new(rec, "bytes_file_pages", json_integer((json_int_t)cfg.bytes_file_pages));
	json_object_set_new(rec, "timer_overhead_ns", json_real(timer_ns));
	json_object_set_new(rec, "reclaim_scanned", json_integer((json_int_t)env_reclaim_scanned));
	jmodes = json_array();
	for (int d = 0; d < nd; d++)
		json_array_append_new(jmodes, json_string(rmap_mode_name(modes[d])));
	json_object_set_new(rec, "modes", jmodes);
	json_object_set_new(rec, "bytes_procs", json_pack("[i, i, i]", cfg.bytes_procs[0],
							  cfg.bytes_procs[1], cfg.bytes_procs[2]));
	return rc;
}

int bench_vm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "pages", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_cfg cfg = BENCH_CFG_DEFAULT;
	int repeat = 5, c, rc;
	bool quick = false;
	const char *json_path = NULL;
	json_t *rec;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "r:p:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': repeat = (int)rt_opt_int("--repeat", optarg, 1, MAX_REPEAT); break;
		case 'p': cfg.pages = (unsigned long)rt_opt_int("--pages", optarg, 32768, (long long)MEM_MAX_PAGES); break;
		case 's': cfg.sample_s = rt_opt_seconds("--seconds", optarg, 0, 60); break;
		case 'q': quick = true; repeat = 3; break;
		case 'j': json_path = optarg; break;
		case 'h': usage(stdout); return RT_EXIT_OK;
		default: rt_opt_bad("bench vm", optopt, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("bench vm: unexpected argument '%s'", argv[optind]);
	if (quick)
		cfg_quick(&cfg);
	rt_task_attach("bench-main");
	rec = rt_record_new("bench-vm");
	rc = vm_core(&cfg, repeat, quick, stdout, rec);
	if (json_path && rt_record_write(rec, json_path))
		rc = RT_EXIT_INTERNAL;
	json_decref(rec);
	lockdep_set_enabled(true);
	rt_task_detach();
	return rc;
}

/* ---- `bench`: everything, with child runs for the scenario numbers ---- */

#define MAX_LIST 16

/* What a child sweep measures per run record. */
enum sweep_what { SWEEP_SHM_BYTES, SWEEP_FALLBACKS };

struct sweep {
	enum sweep_what what;
	const char *scenario;
	const char *param_opt;		/* the run option swept */
	int params[MAX_LIST], np;
	/* per design, per parameter: the samples */
	double v[RMAP_NR_MODES][MAX_LIST][MAX_REPEAT];
	/* SWEEP_FALLBACKS also: the share of scanned mapped pages unmapped */
	double share[RMAP_NR_MODES][MAX_LIST][MAX_REPEAT];
	int n[RMAP_NR_MODES][MAX_LIST];
};

struct bench_all_opts {
	int repeat, threads;
	double run_seconds;
	const char *workdir;
	int failures, errors;
};

/*
 * Run the sweep: for repeat k, every parameter and every design in turn
 * (the order reversed on odd k), one child `run` each. Return: 0, or
 * RT_EXIT_USAGE / RT_EXIT_INTERRUPTED to stop.
 */
static int run_sweep(struct sweep *sw, const char *const *modes, int nm,
		     struct bench_all_opts *bo)
{
	char secs[32], seed[32], par[16], thr[16], dir[4600], line[512];
	int total = bo->repeat * sw->np * nm, done = 0;

	snprintf(secs, sizeof(secs), "%.17g", bo->run_seconds);
	snprintf(thr, sizeof(thr), "%d", bo->threads);
	for (int k = 0; k < bo->repeat; k++) {
		snprintf(seed, sizeof(seed), "%d", 1 + k);
		for (int pi = 0; pi < sw->np; pi++) {
			int p = k % 2 ? sw->np - 1 - pi : pi;

			snprintf(par, sizeof(par), "%d", sw->params[p]);
			for (int mi = 0; mi < nm; mi++) {
				int m = k % 2 ? nm - 1 - mi : mi, crc;
				const char *args[] = {
					"--scenario", sw->scenario, "--rmap", modes[m], "--threads", thr,
					sw->param_opt, par, "--seconds", secs, "--seed", seed, NULL,
				};
				double ops, fb_scan, fb_kop, val;
				json_t *recs, *r;

				snprintf(dir, sizeof(dir), "%s/%s-%s-%d-r%d", bo->workdir, sw->scenario,
					 modes[m], sw->params[p], k);
				crc = rt_run_child_records(args, dir, bo->run_seconds * 4 + 120, &recs,
							   line, sizeof(line));
				done++;
				if (crc == RT_CHILD_INTERRUPTED) {
					json_decref(recs);
					return RT_EXIT_INTERRUPTED;
				}
				if (crc == RT_EXIT_USAGE) {
					fprintf(stderr, "rmaptorture: bench: run refused its options: %s\n", line);
					json_decref(recs);
					return RT_EXIT_USAGE;
				}
				if ((crc != RT_EXIT_OK && crc != RT_EXIT_FAILURE) || json_array_size(recs) != 1) {
					char why[64];

					fprintf(stderr, "rmaptorture: bench: %s %s %s %d, repeat %d: %s (%s)\n",
						sw->scenario, modes[m], sw->param_opt, sw->params[p], k,
						rt_child_rc_str(crc, why, sizeof(why)), line);
					bo->errors++;
					json_decref(recs);
					continue;
				}
				r = json_array_get(recs, 0);
				rt_sample_of_run(r, &ops, &fb_scan, &fb_kop);
				val = sw->what == SWEEP_FALLBACKS ? fb_scan :
					json_number_value(json_object_get(json_object_get(r, "rmap_bytes"),
									  "peak_bytes_per_mapped_page"));
				sw->share[m][p][sw->n[m][p]] = json_number_value(json_object_get(
					json_object_get(r, "reclaim"), "unmap_share"));
				sw->v[m][p][sw->n[m][p]++] = val;
				fprintf(stderr, "[%d/%d] %s %-8s %s %d, repeat %d: %.4g %s\n", done, total,
					sw->scenario, modes[m], sw->param_opt, sw->params[p], k, val,
					sw->what == SWEEP_FALLBACKS ? "fallbacks/scan" : "rmap B/mapped page");
				if (crc == RT_EXIT_FAILURE) {
					bo->failures++;
					fprintf(stderr, "rmaptorture: bench: that run found a failure: %s"
						" (artifacts kept in %s)\n", line, dir);
				} else {
					rt_remove_tree(dir);
				}
				json_decref(recs);
			}
		}
	}
	return 0;
}

static void sweep_json(const struct sweep *sw, const char *const *modes, int nm, json_t *designs,
		       const char *key, bool share)
{
	for (int m = 0; m < nm; m++) {
		json_t *o = json_object(), *d = json_object_get(designs, modes[m]);

		for (int p = 0; p < sw->np; p++) {
			struct rt_stat st;
			char k[16];

			rt_stat_of(share ? sw->share[m][p] : sw->v[m][p], sw->n[m][p], &st);
			snprintf(k, sizeof(k), "%d", sw->params[p]);
			json_object_set_new(o, k, rt_stat_json(&st));
		}
		if (d)
			json_object_set_new(d, key, o);
		else
			json_decref(o);
	}
}

static void bench_all_usage(FILE *f)
{
	fputs("usage: rmaptorture bench [OPTIONS]\n"
	      "       rmaptorture bench locks|vm [OPTIONS]   (one part alone; see their --help)\n"
	      "\n"
	      "Every rmap design side by side, in one run, interleaved (design order reversed\n"
	      "on odd repeats), the median of K repeats with min and max:\n"
	      "  a. rmap memory: bytes of rmap metadata per mapped page in the shm scenario\n"
	      "     at several process counts (child runs), and exactly in the Oracle case\n"
	      "     with the article's arithmetic (2.7 GB per task x 100 and x 700 tasks)\n"
	      "     extrapolated from the measured bytes per pte;\n"
	      "  b. anonymous fault, file fault, fork+exit and exit throughput (1 thread);\n"
	      "  c. try_to_unmap() ns versus the processes sharing the page and versus the\n"
	      "     vmas of the file that do not map it;\n"
	      "  d. trylock fallbacks per page scanned by reclaim versus reclaim threads\n"
	      "     (reclaim-pressure scenario, child runs).\n"
	      "\n"
	      "  -r, --repeat K           repeats of everything, 1..64 (default 5; quote >= 5)\n"
	      "  -p, --pages N            emulated memory of the in-process part (default 65536)\n"
	      "  -s, --seconds S          target length of one in-process sample (default 0.2)\n"
	      "      --run-seconds S      length of each child run (default 1)\n"
	      "      --run-threads N      worker threads of each child run (default 4)\n"
	      "      --procs LIST         shm process counts, 1..16 (default 2,4,8,16)\n"
	      "      --reclaim-threads LIST  reclaim threads, 1..64 (default 1,2,4,8)\n"
	      "      --quick              small sizes, short samples, 3 repeats, 0.3 s runs,\n"
	      "                           --procs 2,8, --reclaim-threads 1,2\n"
	      "      --json FILE          write the result record to FILE ('-' for stdout)\n"
	      "      --out DIR            write bench.json, bench.md and the plots (gnuplot)\n"
	      "      --no-plots           no plots (no gnuplot needed)\n"
	      "      --compare BASELINE   print each metric's ratio to a stored bench record and\n"
	      "                           flag those worse by more than the threshold\n"
	      "      --threshold PCT      regression threshold in percent (default 25)\n"
	      "      --results FILE       with --compare: compare FILE instead of measuring\n"
	      "  -h, --help               this text\n"
	      "\n"
	      "Exit status: 0 clean; 1 a regression beyond the threshold (--compare) or a child\n"
	      "run found a failure; 2 bad usage, or a baseline that is not a bench record;\n"
	      "3 internal error (a child run crashed or timed out); 130 interrupted.\n", f);
}

int bench_all(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "pages", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "run-seconds", required_argument, NULL, 'S' },
		{ "run-threads", required_argument, NULL, 'T' },
		{ "procs", required_argument, NULL, 'P' },
		{ "reclaim-threads", required_argument, NULL, 'R' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "out", required_argument, NULL, 'o' },
		{ "no-plots", no_argument, NULL, 'N' },
		{ "compare", required_argument, NULL, 'c' },
		{ "threshold", required_argument, NULL, 't' },
		{ "results", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sweep shm = { .what = SWEEP_SHM_BYTES, .scenario = "shm", .param_opt = "--procs" };
	static struct sweep fbs = { .what = SWEEP_FALLBACKS, .scenario = "reclaim-pressure",
				    .param_opt = "--reclaim-threads" };
	struct bench_cfg cfg = BENCH_CFG_DEFAULT;
	struct bench_all_opts bo = { .repeat = -1, .threads = 4, .run_seconds = -1 };
	const char *json_path = NULL, *out_dir = NULL, *compare = NULL, *results = NULL;
	const char *modes[RMAP_NR_MODES];
	char workdir[4200];
	double threshold = 25;
	bool quick = false, no_plots = false;
	int c, rc = RT_EXIT_OK, nm = 0;
	json_t *rec = NULL, *base = NULL, *jmodes, *v, *jcmd;
	size_t i;
	FILE *devnull;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "r:p:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': bo.repeat = (int)rt_opt_int("--repeat", optarg, 1, MAX_REPEAT); break;
		case 'p': cfg.pages = (unsigned long)rt_opt_int("--pages", optarg, 32768, (long long)MEM_MAX_PAGES); break;
		case 's': cfg.sample_s = rt_opt_seconds("--seconds", optarg, 0, 60); break;
		case 'S': bo.run_seconds = rt_opt_seconds("--run-seconds", optarg, 0, 3600); break;
		case 'T': bo.threads = (int)rt_opt_int("--run-threads", optarg, 1, 1024); break;
		case 'P': shm.np = rt_opt_int_list("--procs", optarg, 1, 16, shm.params, MAX_LIST); break;
		case 'R': fbs.np = rt_opt_int_list("--reclaim-threads", optarg, 1, 64, fbs.params, MAX_LIST); break;
		case 'q': quick = true; break;
		case 'j': json_path = optarg; break;
		case 'o': out_dir = optarg; break;
		case 'N': no_plots = true; break;
		case 'c': compare = optarg; break;
		case 't': {
			char *end;

			threshold = strtod(optarg, &end);
			if (end == optarg || *end || !(threshold >= 0 && threshold <= 1e6))
				rt_usage_error("--threshold: '%s' is not a percentage >= 0", optarg);
			break;
		}
		case 'i': results = optarg; break;
		case 'h': bench_all_usage(stdout); return RT_EXIT_OK;
		default: rt_opt_bad("bench", optopt, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("bench: unexpected argument '%s' (benchmarks: locks, vm, or none for all)",
			       argv[optind]);
	if (results && !compare)
		rt_usage_error("--results: only with --compare BASELINE");
	if (out_dir && !*out_dir)
		rt_usage_error("--out: empty directory name");
	if (out_dir && !no_plots && !results && !rt_plot_available())
		rt_usage_error("bench: gnuplot not found on PATH: install gnuplot-nox, or pass --no-plots");
	if (compare) {
		base = json_load_file(compare, 0, NULL);
		if (!json_is_object(base) || !json_is_object(json_object_get(base, "designs")))
			rt_usage_error("--compare: '%s' is not a bench result record", compare);
	}
	if (results) {
		rec = json_load_file(results, 0, NULL);
		if (!json_is_object(rec) || !json_is_object(json_object_get(rec, "designs")))
			rt_usage_error("--results: '%s' is not a bench result record", results);
		goto compare;
	}
	if (quick) {
		cfg_quick(&cfg);
		if (bo.repeat < 0)
			bo.repeat = 3;
		if (bo.run_seconds < 0)
			bo.run_seconds = 0.3;
		if (!shm.np) {
			shm.params[0] = 2;
			shm.params[1] = 8;
			shm.np = 2;
		}
		if (!fbs.np) {
			fbs.params[0] = 1;
			fbs.params[1] = 2;
			fbs.np = 2;
		}
	}
	if (bo.repeat < 0)
		bo.repeat = 5;
	if (bo.run_seconds < 0)
		bo.run_seconds = 1;
	if (!shm.np) {
		static const int p[] = { 2, 4, 8, 16 };

		memcpy(shm.params, p, sizeof(p));
		shm.np = 4;
	}
	if (!fbs.np) {
		static const int r[] = { 1, 2, 4, 8 };

		memcpy(fbs.params, r, sizeof(r));
		fbs.np = 4;
	}
	if (out_dir)
		rt_opt_out_dir("--out", out_dir);
	snprintf(workdir, sizeof(workdir), "/tmp/rmaptorture-bench.XXXXXX");
	if (!mkdtemp(workdir))
		rt_die("mkdtemp %s", workdir);
	bo.workdir = workdir;
	rt_child_catch_interrupt();

	rec = rt_record_new("bench");
	json_object_set_new(rec, "load_average", rt_load_average());
	{
		double la[3] = { 0, 0, 0 };

		if (getloadavg(la, 3) != 3)
			la[0] = la[1] = la[2] = NAN;
		printf("rmaptorture bench: %s, %d cores (%s), load average %.2f %.2f %.2f\n",
		       rt_version(), rt_machine_cores(), rt_machine_model(), la[0], la[1], la[2]);
	}
	printf("%d repeats, interleaved; in-process samples of %.3f s on %lu pages; child runs of"
	       " %g s with %d threads\n", bo.repeat, cfg.sample_s, cfg.pages, bo.run_seconds, bo.threads);
	fflush(stdout);

	/* b, c and the exact memory of a: in this process. */
	fprintf(stderr, "in-process measurements (faults, fork/exit, try_to_unmap, Oracle-case bytes)...\n");
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		rt_die("/dev/null");
	rt_task_attach("bench-main");
	rc = vm_core(&cfg, bo.repeat, quick, devnull, rec);
	lockdep_set_enabled(true);
	rt_task_detach();
	fclose(devnull);
	jmodes = json_object_get(rec, "modes");
	json_array_foreach(jmodes, i, v)
		if (nm < RMAP_NR_MODES)
			modes[nm++] = json_string_value(v);

	/* a (the scenario) and d: child runs. */
	c = run_sweep(&shm, modes, nm, &bo);
	if (!c)
		c = run_sweep(&fbs, modes, nm, &bo);
	if (!bo.failures && !bo.errors)
		rt_remove_tree(workdir);
	if (c) {
		json_decref(rec);
		json_decref(base);
		return c;
	}
	sweep_json(&shm, modes, nm, json_object_get(rec, "designs"), "shm_rmap_bytes_per_mapped_page",
		   false);
	sweep_json(&fbs, modes, nm, json_object_get(rec, "designs"), "trylock_fallbacks_per_scan", false);
	sweep_json(&fbs, modes, nm, json_object_get(rec, "designs"), "unmap_share", true);
	jcmd = json_array();
	for (int k = 0; k < argc; k++)
		json_array_append_new(jcmd, json_string(argv[k]));
	{
		json_t *jp = json_array(), *jr = json_array();

		for (int k = 0; k < shm.np; k++)
			json_array_append_new(jp, json_integer(shm.params[k]));
		for (int k = 0; k < fbs.np; k++)
			json_array_append_new(jr, json_integer(fbs.params[k]));
		json_object_update_new(rec, json_pack("{s:o, s:f, s:i, s:i, s:o, s:s, s:i, s:o, s:o,"
						      " s:i, s:i, s:s, s:b}",
			"command", jcmd,
			"run_seconds", bo.run_seconds,
			"shm_threads", bo.threads,
			"fallback_threads", bo.threads,
			"shm_procs", jp,
			"fallback_scenario", fbs.scenario,
			"cores", rt_machine_cores(),
			"reclaim_threads", jr,
			"load_average_end", rt_load_average(),
			"child_failures", bo.failures,
			"child_errors", bo.errors,
			"note", "medians of interleaved repeats; ratios between designs come from this run",
			"interleaved", 1));
	}
	if (bo.failures && rc == RT_EXIT_OK)
		rc = RT_EXIT_FAILURE;
	if (bo.errors)
		rc = RT_EXIT_INTERNAL;
	putchar('\n');
	rt_report_markdown(rec, stdout);
	if (json_path && rt_record_write(rec, json_path))
		rc = RT_EXIT_INTERNAL;
	if (out_dir) {
		char path[4200], *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			rt_die("open_memstream");
		rt_report_markdown(rec, f);
		fclose(f);
		snprintf(path, sizeof(path), "%s/bench.json", out_dir);
		if (rt_record_write(rec, path))
			rc = RT_EXIT_INTERNAL;
		snprintf(path, sizeof(path), "%s/bench.md", out_dir);
		if (rt_write_text(path, buf, len))
			rc = RT_EXIT_INTERNAL;
		free(buf);
		if (!no_plots && rt_report_plots(rec, out_dir, "bench", NULL))
			rc = RT_EXIT_INTERNAL;
		printf("wrote %s/bench.{json,md}%s\n", out_dir, no_plots ? "" : " and bench-*.{svg,png}");
	}

compare:
	if (base) {
		int bad;

		putchar('\n');
		bad = rt_report_compare(rec, base, threshold, stdout);
		if (bad < 0)
			rc = RT_EXIT_USAGE;
		else if (bad > 0 && rc == RT_EXIT_OK)
			rc = RT_EXIT_FAILURE;
	}
	json_decref(rec);
	json_decref(base);
	return rc;
}
