// SPDX-License-Identifier: MIT
/*
 * `rmaptorture bench locks`: the lock microbenchmark of stress/bench/
 * (rt_bench_locks()) in this process, its options and its record.
 */
#include <getopt.h>
#include <stdio.h>

#include "bench.h"
#include "record.h"
#include "commands.h"
#include "rt_opt.h"
#include "cmd_bench-internal.h"

static void locks_usage(FILE *f)
{
	fputs("usage: rmaptorture bench locks [OPTIONS]\n"
	      "\n"
	      "Uncontended lock+unlock cost of each emulated lock next to pthread_spin_lock\n"
	      "and pthread_mutex_lock (statistics on, lockdep off), and the contended\n"
	      "throughput of spin_lock next to pthread_mutex_lock with many threads.\n"
	      "\n"
	      "  -n, --iterations N  uncontended iterations per sample (default 10M)\n"
	      "  -r, --repeat K      samples per case, interleaved; median reported (default 5)\n"
	      "  -t, --threads N     contended threads, 1..1024 (default 32)\n"
	      "  -s, --seconds S     contended run per sample (default 1)\n"
	      "      --quick         1M iterations, 3 repeats, 0.3 s samples\n"
	      "      --json FILE     write the result record to FILE ('-' for stdout)\n"
	      "  -h, --help          this text\n", f);
}

int cmd_bench_locks(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iterations", required_argument, NULL, 'n' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rt_bench_locks_cfg cfg = { .iters = 10000000, .repeat = 5, .threads = 32, .seconds = 1 };
	const char *json_path = NULL;
	int c, rc = RT_EXIT_OK;
	json_t *rec;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":n:r:t:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n': cfg.iters = (long)rt_opt_int("--iterations", optarg, 1000, 10000000000LL); break;
		case 'r': cfg.repeat = (int)rt_opt_int("--repeat", optarg, 1, RT_BENCH_MAX_REPEAT); break;
		case 't': cfg.threads = (int)rt_opt_int("--threads", optarg, 1, 1024); break;
		case 's': cfg.seconds = rt_opt_seconds("--seconds", optarg, 0, 3600); break;
		case 'q': cfg.iters = 1000000; cfg.repeat = 3; cfg.seconds = 0.3; break;
		case 'j': rt_opt_out_file("--json", optarg); json_path = optarg; break;
		case 'h': locks_usage(stdout); return RT_EXIT_OK;
		default: rt_opt_bad("bench locks", c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("bench locks: unexpected argument '%s'", argv[optind]);
	rec = rt_record_new("bench-locks");
	rt_bench_locks(&cfg, stdout, rec);
	return bench_put_record(rec, json_path, rc);
}
