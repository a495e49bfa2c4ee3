// SPDX-License-Identifier: MIT
/*
 * `rmaptorture locks`: the lock torture (stress/locks_torture.h) run from
 * the command line: its options, Ctrl-C, and what it found printed (the
 * paths taken, the per-class lock statistics, the trylock fallbacks, the
 * verdict on mutual exclusion) or written as a JSON record.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lockdep.h"
#include "page_alloc.h"
#include "record.h"
#include "commands.h"
#include "locks_torture.h"
#include "rt_opt.h"

static struct rt_locks_cfg cfg;
static bool want_json;		/* --json */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* The torture's stop: Ctrl-C or SIGTERM. */
static bool stop_requested(void)
{
	return interrupted;
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

	cfg = (struct rt_locks_cfg){ .threads = 32, .seconds = 3, .pages = 4096,
				     .mms = 8, .files = 4, .lockdep = true };
	want_json = false;
	cfg.seed = rt_seed_from_clock();
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":t:s:p:h", locks_options, NULL)) != -1) {
		switch (c) {
		case 't': cfg.threads = (int)rt_opt_int("--threads", optarg, 1, 1024); break;
		case 's': cfg.seconds = rt_opt_seconds("--seconds", optarg, 0, 86400); break;
		case 'p': cfg.pages = (unsigned long)rt_opt_int("--pages", optarg,
					(long long)MEM_MIN_PAGES, (long long)MEM_MAX_PAGES); break;
		case 'm': cfg.mms = (int)rt_opt_int("--mms", optarg, 1, 4096); break;
		case 'f': cfg.files = (int)rt_opt_int("--files", optarg, 1, 4096); break;
		case 'S': cfg.seed = rt_opt_u64("--seed", optarg); break;
		case 'L': cfg.lockdep = false; break;
		case 'j': want_json = true; break;
		case 'h': usage(stdout); return false;
		default: rt_opt_bad("locks", c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("locks: unexpected argument '%s' (see 'rmaptorture locks --help')",
			       argv[optind]);
	if (!cfg.seed)
		cfg.seed = 1;
	return true;
}

/* The paths, the lock classes and the verdict; the classes also into @classes_json. */
static void print_locks(FILE *out, const struct rt_locks_result *t, json_t *classes_json)
{
	fprintf(out, "\n%lu lock paths in %.2f s: %.0f paths/s (%s)\n", t->total_ops, t->elapsed,
		(double)t->total_ops / t->elapsed, RT_LOCK_PATH_MIX);
	for (int p = 0; p < RT_LOCK_NR_PATHS; p++)
		fprintf(out, "  %-9s %12lu\n", rt_lock_path_names[p], t->path_ops[p]);
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
static void write_locks_json(const struct rt_locks_result *t, json_t *classes_json)
{
	json_t *rec = rt_record_new("locks");

	json_object_set_new(rec, "threads", json_integer(cfg.threads));
	json_object_set_new(rec, "seconds", json_real(t->elapsed));
	json_object_set_new(rec, "seed", rt_seed_json(cfg.seed));
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

int cmd_locks(int argc, char **argv)
{
	struct rt_locks_result t;
	json_t *classes_json = NULL;
	struct sigaction sa;
	FILE *out;

	if (!parse_locks_opts(argc, argv))
		return RT_EXIT_OK;
	out = want_json ? stderr : stdout;
	fprintf(out, "START: rmaptorture locks threads=%d seconds=%g pages=%lu mms=%d files=%d seed=%" PRIu64 " lockdep=%s version=%s\n",
		cfg.threads, cfg.seconds, cfg.pages, cfg.mms, cfg.files, cfg.seed,
		cfg.lockdep ? "on" : "off", rt_version());
	fflush(out);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	cfg.progress = isatty(STDERR_FILENO);
	cfg.stop = stop_requested;
	rt_locks_torture(&cfg, &t);
	if (want_json)
		classes_json = json_object();
	print_locks(out, &t, classes_json);
	if (want_json)
		write_locks_json(&t, classes_json);

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
