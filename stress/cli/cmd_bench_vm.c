// SPDX-License-Identifier: MIT
/*
 * `rmaptorture bench vm`: the VM microbenchmark of stress/bench/
 * (rt_bench_vm()) in this process, every design interleaved, its options
 * and its record; Ctrl-C keeps the samples taken.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "bench.h"
#include "page_alloc.h"
#include "record.h"
#include "rt_child.h"
#include "commands.h"
#include "rt_opt.h"
#include "cmd_bench-internal.h"

static void vm_usage(FILE *f)
{
	fputs("usage: rmaptorture bench vm [OPTIONS]\n"
	      "\n"
	      "The VM cost of each rmap design that is built, interleaved in one run\n"
	      "(lockdep off, statistics on), median of K repeats with min and max:\n"
	      "anonymous and file fault throughput, fork+exit of 1,000 and 10,000-page\n"
	      "processes, rmap bytes per mapped page in the Oracle case (P processes\n"
	      "sharing one file), and one try_to_unmap() versus the processes sharing\n"
	      "the page and versus the file's vmas that do not map it. The host kernel's own\n"
	      "anonymous faults and fork+exit, in the same run, with each design's\n"
	      "model/host rate (= host time / model time; higher is better). Disjoint-mm\n"
	      "scaling: CPU ns per fault, fork+exit, mmap+munmap and write to a mapped page on\n"
	      "N CPUs each in its own mm, N = 1, 2, 4, ... up to the cores; FLAG where the CPU\n"
	      "cost grew beyond the repeats' spread (faults and fork+exit share the zone as\n"
	      "2.6 did: named, not counted).\n"
	      "\n"
	      "  -r, --repeat K      samples per measurement, interleaved; median reported (default 5)\n"
	      "  -p, --pages N       emulated memory in pages, 32k..64M (default 65536)\n"
	      "  -s, --seconds S     target length of one timed sample (default 0.2)\n"
	      "      --scaling-max N most CPUs of the scaling row, 1..1024 (default: the cores)\n"
	      "      --check-scaling exit 1 when an operation that shares nothing flags\n"
	      "      --quick         small sizes, 3 repeats, 0.03 s samples\n"
	      "      --json FILE     write the result record to FILE ('-' for stdout)\n"
	      "  -h, --help          this text\n"
	      "Exit status: 0, 1 reclaim ran or an allocation failed during the samples (raise\n"
	      "--pages) or a scaling FLAG (--check-scaling), 2 bad usage, 130 interrupted (the samples taken are written, marked\n"
	      "\"interrupted\").\n", f);
}

int cmd_bench_vm(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repeat", required_argument, NULL, 'r' },
		{ "pages", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 's' },
		{ "quick", no_argument, NULL, 'q' },
		{ "json", required_argument, NULL, 'j' },
		{ "scaling-max", required_argument, NULL, 'M' },
		{ "check-scaling", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rt_bench_vm_cfg cfg = RT_BENCH_VM_CFG_DEFAULT;
	/* -1: not given; the default, or --quick's (an option given wins over --quick) */
	int repeat = -1, c, rc;
	double sample_s = -1;
	bool quick = false, check_scaling = false;
	const char *json_path = NULL;
	json_t *rec;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":r:p:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': repeat = (int)rt_opt_int("--repeat", optarg, 1, RT_BENCH_MAX_REPEAT); break;
		case 'p': cfg.pages = (unsigned long)rt_opt_int("--pages", optarg, 32768, (long long)MEM_MAX_PAGES); break;
		case 's': sample_s = rt_opt_seconds("--seconds", optarg, 0, 60); break;
		case 'q': quick = true; break;
		case 'j': rt_opt_out_file("--json", optarg); json_path = optarg; break;
		case 'M': cfg.scaling_max = (int)rt_opt_int("--scaling-max", optarg, 1, RT_BENCH_SCALING_MAX); break;
		case 'C': check_scaling = true; break;
		case 'h': vm_usage(stdout); return RT_EXIT_OK;
		default: rt_opt_bad("bench vm", c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		rt_usage_error("bench vm: unexpected argument '%s'", argv[optind]);
	if (quick)
		rt_bench_vm_cfg_quick(&cfg);
	if (sample_s >= 0)
		cfg.sample_s = sample_s;
	if (repeat < 0)
		repeat = quick ? 3 : 5;
	rec = rt_record_new("bench-vm");
	rt_child_catch_interrupt();
	cfg.stop = rt_child_interrupted;
	rc = bench_run_vm(&cfg, repeat, quick, stdout, rec);
	if (json_is_true(json_object_get(rec, "interrupted")))
		rc = RT_EXIT_INTERRUPTED;
	else if (check_scaling)
		rc = bench_check_scaling(rec, stdout, rc);
	return bench_put_record(rec, json_path, rc);
}
