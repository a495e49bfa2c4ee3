// SPDX-License-Identifier: MIT
/*
 * `rmaptorture locks`: torture the emulated kernel's locks the way the VM
 * will take them. Worker threads play CPUs running the lock paths of the
 * fault, mmap, truncate and reclaim code over a set of emulated mms, files
 * and pages; reclaim paths go against the order with trylocks and count
 * their fallbacks. Every lock guards a plain counter; at the end each must
 * equal the critical sections counted privately by the threads, which
 * proves mutual exclusion. Then the per-class statistics are printed.
 */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bug.h"
#include "die.h"
#include "lockdep.h"
#include "page.h"
#include "page_alloc.h"
#include "random.h"
#include "record.h"
#include "commands.h"
#include "rt_opt.h"
#include "rwsem.h"
#include "semaphore.h"
#include "spinlock.h"
#include "task.h"
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

struct locks_cfg {
	int threads;
	double seconds;
	unsigned long pages;
	int mms;
	int files;
	uint64_t seed;
	bool lockdep;
	bool json;
};

enum lock_path { PATH_FAULT, PATH_MMAP, PATH_TRUNCATE, PATH_RECLAIM, NR_PATHS };
static const char *const path_names[NR_PATHS] = { "fault", "mmap", "truncate", "reclaim" };

/* A worker thread, playing a CPU that runs the VM's lock paths. */
struct cpu_worker {
	pthread_t thread;
	int id;
	uint64_t rng;
	/* Owner only, read after join. */
	unsigned long ops[NR_PATHS];
	unsigned long fallback_ishared, fallback_ptl, fallback_pagelock;
	long *mm_vmas, *mm_ptes, *file_mmap;	/* private tallies */
	long *page_chain, *page_locked;
	long lru;
} ____cacheline_aligned;

static struct locks_cfg cfg;
static struct guarded_mm *mms;
static struct guarded_file *files;
static long *page_chain_counter;	/* PG_chainlock of page i */
static long *page_locked_counter;	/* PG_locked of page i */
static long lru_counter;		/* zone->lru_lock */
static int stop;			/* atomic: release by main, acquire by workers */
static volatile sig_atomic_t interrupted;

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
	/* Acquire pairs with the release in cmd_locks() that stops the run. */
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		uint64_t r = rt_rand(&w->rng) % 100;
		enum lock_path p = r < 55 ? PATH_FAULT : r < 70 ? PATH_MMAP :
				   r < 80 ? PATH_TRUNCATE : PATH_RECLAIM;

		rt_task_set_op(path_names[p]);
		switch (p) {
		case PATH_FAULT: path_fault(w); break;
		case PATH_MMAP: path_mmap(w); break;
		case PATH_TRUNCATE: path_truncate(w); break;
		default: path_reclaim(w); break;
		}
		rt_task_set_op(NULL);
		w->ops[p]++;
	}
	rt_task_detach();
	return NULL;
}

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *f)
{
	fputs("usage: rmaptorture locks [OPTIONS]\n"
	      "\n"
	      "Torture the emulated kernel's locks along the VM's lock paths (fault,\n"
	      "mmap, truncate, and reclaim with trylock fallbacks), verify mutual\n"
	      "exclusion, and print lock statistics by class.\n"
	      "\n"
	      "  -t, --threads N     worker threads (CPUs), 1..1024 (default 32)\n"
	      "  -s, --seconds S     run time, 0 < S <= 86400 (default 3)\n"
	      "  -p, --pages N       emulated pages, 16..67108864 (default 4096)\n"
	      "      --mms N         emulated mms (mmap_sem, page_table_lock), 1..4096 (default 8)\n"
	      "      --files N       emulated files (i_shared_sem), 1..4096 (default 4)\n"
	      "      --seed X        PRNG seed (default: random; always printed)\n"
	      "      --no-lockdep    switch the lock validator off (statistics stay on)\n"
	      "      --json          print the result record as JSON on stdout\n"
	      "  -h, --help          this text\n"
	      "\n"
	      "Exit status: 0 clean, 1 a failure was found, 2 bad usage, 130 interrupted.\n", f);
}

static void count_reports(const struct vm_report *r, void *arg)
{
	(void)arg;
	vm_report_print(stderr, r);
}

static const struct option locks_options[] = {
	{ "threads", required_argument, NULL, 't' },
	{ "seconds", required_argument, NULL, 's' },
	{ "pages", required_argument, NULL, 'p' },
	{ "mms", required_argument, NULL, 'm' },
	{ "files", required_argument, NULL, 'f' },
	{ "seed", required_argument, NULL, 'S' },
	{ "no-lockdep", no_argument, NULL, 'L' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Options into cfg. Return: false for --help (printed). */
static bool parse_locks_opts(int argc, char **argv)
{
	int c;

	cfg = (struct locks_cfg){ .threads = 32, .seconds = 3, .pages = 4096,
				  .mms = 8, .files = 4, .lockdep = true };
	cfg.seed = rt_seed_from_clock();
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:s:p:h", locks_options, NULL)) != -1) {
		switch (c) {
		case 't': cfg.threads = (int)rt_opt_int("--threads", optarg, 1, 1024); break;
		case 's': cfg.seconds = rt_opt_seconds("--seconds", optarg, 0, 86400); break;
		case 'p': cfg.pages = (unsigned long)rt_opt_int("--pages", optarg,
					(long long)MEM_MIN_PAGES, (long long)MEM_MAX_PAGES); break;
		case 'm': cfg.mms = (int)rt_opt_int("--mms", optarg, 1, 4096); break;
		case 'f': cfg.files = (int)rt_opt_int("--files", optarg, 1, 4096); break;
		case 'S': cfg.seed = rt_opt_u64("--seed", optarg); break;
		case 'L': cfg.lockdep = false; break;
		case 'j': cfg.json = true; break;
		case 'h': usage(stdout); return false;
		default: rt_opt_bad("locks", optopt, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("locks: unexpected argument '%s' (see 'rmaptorture locks --help')",
			       argv[optind]);
	if (!cfg.seed)
		cfg.seed = 1;
	return true;
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

/* The workers started, run for --seconds (or until interrupted), joined. Return: seconds. */
static double locks_run(struct cpu_worker *workers)
{
	double start, next_progress;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	start = rt_now_s();
	next_progress = start + 1;
	for (int i = 0; i < cfg.threads; i++)
		RT_PTHREAD(pthread_create(&workers[i].thread, NULL, cpu_worker_main, &workers[i]));
	while (!interrupted && rt_now_s() - start < cfg.seconds) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		nanosleep(&ts, NULL);
		if (isatty(STDERR_FILENO) && rt_now_s() >= next_progress) {
			fprintf(stderr, "\r[%5.1f/%gs] running %d threads...", rt_now_s() - start,
				cfg.seconds, cfg.threads);
			next_progress += 1;
		}
	}
	/* Release pairs with the acquire in cpu_worker_main(). */
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < cfg.threads; i++)
		RT_PTHREAD(pthread_join(workers[i].thread, NULL));
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	return rt_now_s() - start;
}

/* What the workers did, summed after join, and what the check found. */
struct locks_totals {
	double elapsed;
	unsigned long total_ops, path_ops[NR_PATHS];
	unsigned long fb_ishared, fb_ptl, fb_pagelock;
	int bad;		/* guarded counters that differ from the tallies */
	int nr_reports;
};

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

static void sum_workers(const struct cpu_worker *workers, struct locks_totals *t)
{
	for (int i = 0; i < cfg.threads; i++) {
		t->fb_ishared += workers[i].fallback_ishared;
		t->fb_ptl += workers[i].fallback_ptl;
		t->fb_pagelock += workers[i].fallback_pagelock;
		for (int p = 0; p < NR_PATHS; p++) {
			t->path_ops[p] += workers[i].ops[p];
			t->total_ops += workers[i].ops[p];
		}
	}
	for (int k = 0; k < VM_REPORT_NR; k++)
		t->nr_reports += (int)vm_report_count(k);
}

/* The paths, the lock classes and the verdict; the classes also into @classes_json. */
static void print_locks(FILE *out, const struct locks_totals *t, json_t *classes_json)
{
	fprintf(out, "\n%lu lock paths in %.2f s: %.0f paths/s (%s)\n", t->total_ops, t->elapsed,
		(double)t->total_ops / t->elapsed, "fault 55%, mmap 15%, truncate 10%, reclaim 20%");
	for (int p = 0; p < NR_PATHS; p++)
		fprintf(out, "  %-9s %12lu\n", path_names[p], t->path_ops[p]);
	fprintf(out, "\n%-18s %12s %11s %7s %11s %11s\n", "lock class", "acquired",
		"contended", "cont%", "try", "try-failed");
	for (int cls = 0; cls < LOCK_CLASS_NR_STATIC; cls++) {
		struct lock_class_stats s;

		lock_stats_read(cls, &s);
		if (!s.acquired && !s.try_attempts)
			continue;
		fprintf(out, "%-18s %12lu %11lu %6.2f%% %11lu %11lu\n", lock_class_name(cls),
			s.acquired, s.contended,
			s.acquired ? 100.0 * (double)s.contended / (double)s.acquired : 0.0,
			s.try_attempts, s.try_failures);
		if (classes_json)
			json_object_set_new(classes_json, lock_class_name(cls),
				json_pack("{s:I, s:I, s:I, s:I}",
					  "acquired", (json_int_t)s.acquired,
					  "contended", (json_int_t)s.contended,
					  "try_attempts", (json_int_t)s.try_attempts,
					  "try_failures", (json_int_t)s.try_failures));
	}
	fprintf(out, "\ntrylock fallbacks: reclaim:PG_locked %lu, reclaim:i_shared_sem %lu, reclaim:page_table_lock %lu\n",
		t->fb_pagelock, t->fb_ishared, t->fb_ptl);
	fprintf(out, "mutual exclusion: %s; lockdep reports: %d\n",
		t->bad ? "VIOLATED" : "verified on every lock", t->nr_reports);
}

/* --json: the result record on stdout; @classes_json is consumed. */
static void write_locks_json(const struct locks_totals *t, json_t *classes_json)
{
	json_t *rec = rt_record_new("locks");

	json_object_set_new(rec, "threads", json_integer(cfg.threads));
	json_object_set_new(rec, "seconds", json_real(t->elapsed));
	json_object_set_new(rec, "seed", json_integer((json_int_t)cfg.seed));
	json_object_set_new(rec, "pages", json_integer((json_int_t)cfg.pages));
	json_object_set_new(rec, "lockdep", json_boolean(cfg.lockdep));
	json_object_set_new(rec, "ops", json_integer((json_int_t)t->total_ops));
	json_object_set_new(rec, "ops_per_sec", json_real((double)t->total_ops / t->elapsed));
	json_object_set_new(rec, "lock_stats", classes_json);
	json_object_set_new(rec, "trylock_fallbacks",
		json_pack("{s:I, s:I, s:I}",
			  "reclaim:PG_locked", (json_int_t)t->fb_pagelock,
			  "reclaim:i_shared_sem", (json_int_t)t->fb_ishared,
			  "reclaim:page_table_lock", (json_int_t)t->fb_ptl));
	json_object_set_new(rec, "mutual_exclusion_violations", json_integer(t->bad));
	json_object_set_new(rec, "reports", json_integer(t->nr_reports));
	json_object_set_new(rec, "result", json_string(t->bad || t->nr_reports ? "fail" :
						       interrupted ? "interrupted" : "pass"));
	rt_record_write(rec, "-");
	json_decref(rec);
}

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

int cmd_locks(int argc, char **argv)
{
	struct locks_totals t = { 0 };
	struct cpu_worker *workers;
	json_t *classes_json = NULL;
	FILE *out;

	if (!parse_locks_opts(argc, argv))
		return RT_EXIT_OK;
	out = cfg.json ? stderr : stdout;
	fprintf(out, "START: rmaptorture locks threads=%d seconds=%g pages=%lu mms=%d files=%d seed=%" PRIu64 " lockdep=%s version=%s\n",
		cfg.threads, cfg.seconds, cfg.pages, cfg.mms, cfg.files, cfg.seed,
		cfg.lockdep ? "on" : "off", rt_version());
	fflush(out);

	workers = locks_setup();
	t.elapsed = locks_run(workers);
	t.bad = check_exclusion(workers);
	sum_workers(workers, &t);
	if (cfg.json)
		classes_json = json_object();
	print_locks(out, &t, classes_json);
	if (cfg.json)
		write_locks_json(&t, classes_json);
	locks_teardown(workers);

	if (t.bad || t.nr_reports) {
		fprintf(out, "END: FAILURE (%s)\n", t.bad ? "mutual exclusion violated" :
			"lockdep report");
		return RT_EXIT_FAILURE;
	}
	if (interrupted) {
		fprintf(out, "END: INTERRUPTED\n");
		return RT_EXIT_INTERRUPTED;
	}
	fprintf(out, "END: SUCCESS\n");
	return RT_EXIT_OK;
}
