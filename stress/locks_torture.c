// SPDX-License-Identifier: MIT
/*
 * The lock torture of `rmaptorture locks` (stress/cli/cmd_locks.c):
 * torture the emulated kernel's locks the way the VM will take them.
 * Worker threads play CPUs running the lock paths of the fault, mmap,
 * truncate and reclaim code over a set of emulated mms, files and pages;
 * reclaim paths go against the order with trylocks and count their
 * fallbacks. Every lock guards a plain counter; at the end each must
 * equal the critical sections counted privately by the threads, which
 * proves mutual exclusion.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bug.h"
#include "die.h"
#include "lockdep.h"
#include "page.h"
#include "page_alloc.h"
#include "random.h"
#include "rwsem.h"
#include "semaphore.h"
#include "spinlock.h"
#include "task.h"
#include "locks_torture.h"
#include "rt_time.h"

/* An emulated mm: its two locks and the counters they guard. */
struct guarded_mm {
	struct rw_semaphore mmap_sem;
	spinlock_t page_table_lock;
	long vmas;		/* mmap_sem (write) */
	long ptes;		/* page_table_lock */
} ____cacheline_aligned;

/* An emulated file: i_shared_sem and the counter it guards. */
struct guarded_file {
	struct semaphore i_shared_sem;
	long i_mmap;		/* i_shared_sem */
} ____cacheline_aligned;

const char *const rt_lock_path_names[RT_LOCK_NR_PATHS] = { "fault", "mmap", "truncate", "reclaim" };

/* A worker thread, playing a CPU that runs the VM's lock paths. */
struct cpu_worker {
	pthread_t thread;
	int id;
	uint64_t rng;
	/* Owner only, read after join. */
	unsigned long ops[RT_LOCK_NR_PATHS];
	unsigned long fallback_ishared, fallback_ptl, fallback_pagelock;
	long *mm_vmas, *mm_ptes, *file_mmap;	/* private tallies */
	long *page_chain, *page_locked;
	long lru;
} ____cacheline_aligned;

static struct rt_locks_cfg cfg;
static struct guarded_mm *mms;
static struct guarded_file *files;
static long *page_chain_counter;	/* PG_chainlock of page i */
static long *page_locked_counter;	/* PG_locked of page i */
static long lru_counter;		/* zone->lru_lock */
static int stop;			/* atomic: release by main, acquire by workers */

static struct page *random_page(struct cpu_worker *w, unsigned long *idx)
{
	/* pfn 0 is the zero page: never locked by the VM. */
	*idx = 1 + rt_rand(&w->rng) % (cfg.pages - 1);
	return pfn_to_page(*idx);
}

/* do_anonymous_page: mmap_sem(read) -> page_table_lock -> PG_chainlock -> lru_lock */
static void path_fault(struct cpu_worker *w)
{
	int m = (int)(rt_rand(&w->rng) % (uint64_t)cfg.mms);
	unsigned long pi;
	struct page *page = random_page(w, &pi);

	down_read(&mms[m].mmap_sem);
	spin_lock(&mms[m].page_table_lock);
	mms[m].ptes++;
	w->mm_ptes[m]++;
	pte_chain_lock(page);
	page_chain_counter[pi]++;
	w->page_chain[pi]++;
	pte_chain_unlock(page);
	spin_lock(&contig_zone.lru_lock);
	lru_counter++;
	w->lru++;
	spin_unlock(&contig_zone.lru_lock);
	spin_unlock(&mms[m].page_table_lock);
	up_read(&mms[m].mmap_sem);
}

/* i_shared_sem -> page_table_lock, as vma_link and truncate nest them. */
static void ishared_then_ptl(struct cpu_worker *w, int f, int m)
{
	down(&files[f].i_shared_sem);
	files[f].i_mmap++;
	w->file_mmap[f]++;
	spin_lock(&mms[m].page_table_lock);
	mms[m].ptes++;
	w->mm_ptes[m]++;
	spin_unlock(&mms[m].page_table_lock);
	up(&files[f].i_shared_sem);
}

/* mmap/vma_link: mmap_sem(write) -> i_shared_sem -> page_table_lock */
static void path_mmap(struct cpu_worker *w)
{
	int m = (int)(rt_rand(&w->rng) % (uint64_t)cfg.mms);
	int f = (int)(rt_rand(&w->rng) % (uint64_t)cfg.files);

	down_write(&mms[m].mmap_sem);
	mms[m].vmas++;
	w->mm_vmas[m]++;
	ishared_then_ptl(w, f, m);
	up_write(&mms[m].mmap_sem);
}

/* page_convert_anon / truncate: lock_page -> i_shared_sem -> page_table_lock */
static void path_truncate(struct cpu_worker *w)
{
	int f = (int)(rt_rand(&w->rng) % (uint64_t)cfg.files);
	int m = (int)(rt_rand(&w->rng) % (uint64_t)cfg.mms);
	unsigned long pi;
	struct page *page = random_page(w, &pi);

	lock_page(page);
	page_locked_counter[pi]++;
	w->page_locked[pi]++;
	ishared_then_ptl(w, f, m);
	unlock_page(page);
}

/*
 * shrink_list + try_to_unmap_obj: TestSetPageLocked -> PG_chainlock, then
 * only *try* i_shared_sem and page_table_lock (against the order).
 */
static void path_reclaim(struct cpu_worker *w)
{
	int f = (int)(rt_rand(&w->rng) % (uint64_t)cfg.files);
	int m = (int)(rt_rand(&w->rng) % (uint64_t)cfg.mms);
	unsigned long pi;
	struct page *page = random_page(w, &pi);

	if (TestSetPageLocked(page)) {
		w->fallback_pagelock++;
		return;
	}
	page_locked_counter[pi]++;
	w->page_locked[pi]++;
	pte_chain_lock(page);
	page_chain_counter[pi]++;
	w->page_chain[pi]++;
	if (down_trylock(&files[f].i_shared_sem)) {
		w->fallback_ishared++;		/* "assume referenced" */
		goto out;
	}
	files[f].i_mmap++;
	w->file_mmap[f]++;
	if (!spin_trylock(&mms[m].page_table_lock)) {
		w->fallback_ptl++;		/* SWAP_AGAIN */
		goto out_sem;
	}
	mms[m].ptes++;
	w->mm_ptes[m]++;
	spin_unlock(&mms[m].page_table_lock);
out_sem:
	up(&files[f].i_shared_sem);
out:
	pte_chain_unlock(page);
	unlock_page(page);
}

static void *cpu_worker_main(void *arg)
{
	struct cpu_worker *w = arg;
	char name[TASK_COMM_LEN];

	snprintf(name, sizeof(name), "cpu-%d", w->id);
	rt_task_attach(name);
	/* Acquire pairs with the release in locks_run() that stops the run. */
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		uint64_t r = rt_rand(&w->rng) % 100;
		enum rt_lock_path p = r < 55 ? RT_LOCK_PATH_FAULT : r < 70 ? RT_LOCK_PATH_MMAP :
				      r < 80 ? RT_LOCK_PATH_TRUNCATE : RT_LOCK_PATH_RECLAIM;

		rt_task_set_op(rt_lock_path_names[p]);
		switch (p) {
		case RT_LOCK_PATH_FAULT: path_fault(w); break;
		case RT_LOCK_PATH_MMAP: path_mmap(w); break;
		case RT_LOCK_PATH_TRUNCATE: path_truncate(w); break;
		default: path_reclaim(w); break;
		}
		rt_task_set_op(NULL);
		w->ops[p]++;
	}
	rt_task_detach();
	return NULL;
}

static void count_reports(const struct vm_report *r, void *arg)
{
	(void)arg;
	vm_report_print(stderr, r);
}

/* The emulated memory, mms, files and guarded counters, and the workers' tallies. */
static struct cpu_worker *locks_setup(void)
{
	struct cpu_worker *workers;

	lockdep_set_enabled(cfg.lockdep);
	vm_report_set_sink(count_reports, NULL);
	if (mem_init(cfg.pages))
		rt_die("mem_init(%lu)", cfg.pages);
	mms = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*mms) * (size_t)cfg.mms);
	files = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*files) * (size_t)cfg.files);
	for (int i = 0; i < cfg.mms; i++) {
		init_rwsem(&mms[i].mmap_sem, LOCK_CLASS_MMAP_SEM);
		spin_lock_init(&mms[i].page_table_lock, LOCK_CLASS_PAGE_TABLE_LOCK);
		mms[i].vmas = mms[i].ptes = 0;
	}
	for (int i = 0; i < cfg.files; i++) {
		sema_init(&files[i].i_shared_sem, 1, LOCK_CLASS_I_SHARED_SEM);
		files[i].i_mmap = 0;
	}
	page_chain_counter = rt_calloc(cfg.pages, sizeof(long));
	page_locked_counter = rt_calloc(cfg.pages, sizeof(long));
	lru_counter = 0;
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);

	workers = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*workers) * (size_t)cfg.threads);
	memset(workers, 0, sizeof(*workers) * (size_t)cfg.threads);
	for (int i = 0; i < cfg.threads; i++) {
		struct cpu_worker *w = &workers[i];

		w->id = i;
		w->rng = rt_seed_stream(cfg.seed, 0) + (uint64_t)i;	/* as ever: seeds replay */
		w->mm_vmas = rt_calloc((size_t)cfg.mms, sizeof(long));
		w->mm_ptes = rt_calloc((size_t)cfg.mms, sizeof(long));
		w->file_mmap = rt_calloc((size_t)cfg.files, sizeof(long));
		w->page_chain = rt_calloc(cfg.pages, sizeof(long));
		w->page_locked = rt_calloc(cfg.pages, sizeof(long));
	}
	return workers;
}

/* The workers started, run for --seconds (or until cfg.stop()), joined. Return: seconds. */
static double locks_run(struct cpu_worker *workers)
{
	double start, next_progress;

	start = rt_now_s();
	next_progress = start + 1;
	for (int i = 0; i < cfg.threads; i++)
		RT_PTHREAD(pthread_create(&workers[i].thread, NULL, cpu_worker_main, &workers[i]));
	while (!(cfg.stop && cfg.stop()) && rt_now_s() - start < cfg.seconds) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		if (cfg.progress && rt_now_s() >= next_progress) {
			fprintf(stderr, "\r[%5.1f/%gs] running %d threads...", rt_now_s() - start,
				cfg.seconds, cfg.threads);
			next_progress += 1;
		}
	}
	/* Release pairs with the acquire in cpu_worker_main(). */
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < cfg.threads; i++)
		RT_PTHREAD(pthread_join(workers[i].thread, NULL));
	if (cfg.progress)
		fputs("\r\033[K", stderr);
	return rt_now_s() - start;
}

/* Mutual exclusion: each guarded counter equals the private tallies. Return: differing. */
static int check_exclusion(const struct cpu_worker *workers)
{
	long exp_lru = 0;
	int bad = 0;

	for (int m = 0; m < cfg.mms; m++) {
		long v = 0, p = 0;

		for (int i = 0; i < cfg.threads; i++) {
			v += workers[i].mm_vmas[m];
			p += workers[i].mm_ptes[m];
		}
		bad += v != mms[m].vmas || p != mms[m].ptes;
	}
	for (int f = 0; f < cfg.files; f++) {
		long v = 0;

		for (int i = 0; i < cfg.threads; i++)
			v += workers[i].file_mmap[f];
		bad += v != files[f].i_mmap;
	}
	for (unsigned long pi = 0; pi < cfg.pages; pi++) {
		long a = 0, b = 0;

		for (int i = 0; i < cfg.threads; i++) {
			a += workers[i].page_chain[pi];
			b += workers[i].page_locked[pi];
		}
		bad += a != page_chain_counter[pi] || b != page_locked_counter[pi];
	}
	for (int i = 0; i < cfg.threads; i++)
		exp_lru += workers[i].lru;
	return bad + (exp_lru != lru_counter);
}

/* The paths run, the trylock fallbacks and the reports, into @t. */
static void sum_workers(const struct cpu_worker *workers, struct rt_locks_result *t)
{
	for (int i = 0; i < cfg.threads; i++) {
		t->fb_ishared += workers[i].fallback_ishared;
		t->fb_ptl += workers[i].fallback_ptl;
		t->fb_pagelock += workers[i].fallback_pagelock;
		for (int p = 0; p < RT_LOCK_NR_PATHS; p++) {
			t->path_ops[p] += workers[i].ops[p];
			t->total_ops += workers[i].ops[p];
		}
	}
	for (int k = 0; k < VM_REPORT_NR; k++)
		t->nr_reports += (int)vm_report_count(k);
}

/* Everything locks_setup() made, and the report sink, released. */
static void locks_teardown(struct cpu_worker *workers)
{
	for (int i = 0; i < cfg.threads; i++) {
		free(workers[i].mm_vmas);
		free(workers[i].mm_ptes);
		free(workers[i].file_mmap);
		free(workers[i].page_chain);
		free(workers[i].page_locked);
	}
	free(workers);
	free(page_chain_counter);
	free(page_locked_counter);
	free(mms);
	free(files);
	mem_exit();
	vm_report_set_sink(NULL, NULL);
}

void rt_locks_torture(const struct rt_locks_cfg *c, struct rt_locks_result *res)
{
	struct cpu_worker *workers;

	cfg = *c;
	*res = (struct rt_locks_result){ 0 };
	workers = locks_setup();
	res->elapsed = locks_run(workers);
	res->bad = check_exclusion(workers);
	sum_workers(workers, res);
	locks_teardown(workers);
}
