// SPDX-License-Identifier: MIT
/*
 * `rmaptorture run`'s option table: --help, the long options and their
 * short forms, and the lookups that the commands passing run's options on
 * use (rt_run_option_long(), rt_run_option_short(),
 * rt_run_option_takes_value()). Parsing is run_opts.c's.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "rt_opt.h"
#include "run_opts.h"
#include "run_opts-internal.h"

void rt_run_usage(FILE *f)
{
	fputs("usage: rmaptorture run [OPTIONS]\n"
	      "\n"
	      "Run a stress scenario against the emulated 2.6 VM in one rmap design (or each\n"
	      "in turn), audit it, and report. Prints the seed first; the same seed and\n"
	      "options give the same operation streams.\n"
	      "\n"
	      "  -S, --scenario NAME     scenario (default mixed32; see 'rmaptorture list')\n", f);
	fprintf(f, "  -r, --rmap MODE         %s | all\n"
		"                          (default %s)\n", rt_opt_designs(" | "),
		rmap_mode_name(RMAP_DEFAULT));
	fputs("  -t, --threads N         worker threads, 1..1024 (default: the scenario's)\n"
	      "  -R, --reclaim-threads N kswapd threads, 0..64 (default: the scenario's)\n"
	      "  -s, --seconds S         run time, 0 < S <= 86400 (default 5)\n"
	      "  -n, --ops N             stop after N operations (with --seconds: whichever first)\n"
	      "      --seed X            PRNG seed (default: random)\n"
	      "  -p, --pages N           emulated memory in pages (default: the scenario's)\n"
	      "      --swap N            swap slots (default: the scenario's)\n"
	      "  -a, --audit-every S     park all threads and audit every S seconds (default 1;\n"
	      "                          0: only at the end)\n"
	      "  -o, --out DIR           write the result record and failure records there\n"
	      "      --json              print each design's run record on stdout, one JSON\n"
	      "                          object per line (JSON Lines)\n"
	      "      --perturb LEVEL     0..3: random yields and delays at the model's yield points\n"
	      "      --yield-points LIST comma-separated points to perturb (default all); 'list'\n"
	      "                          prints them\n"
	      "      --long-hold LIST    lock classes to hold longer now and then (locktorture)\n"
	      "      --watchdog S        seconds without progress that count as a hang\n"
	      "      --sched KIND        free (real threads, default) | random | pct | cover: one\n"
	      "                          thread at a time, switching at every lock operation,\n"
	      "                          chosen from the seed, so the run replays exactly;\n"
	      "                          cover places PCT's priority changes at sites whose\n"
	      "                          interleaving pairs are not covered yet\n"
	      "      --cover-map FILE    count the interleaving pairs not in FILE as new, then\n"
	      "                          write FILE back with this run's pairs added\n"
	      "      --no-cover          do not record interleaving coverage (faster; not with\n"
	      "                          --sched cover or --cover-map)\n"
	      "      --pct-depth D       pct: bug depth aimed at, 1..16 (default 3)\n"
	      "      --pct-steps K       pct: change points fall in the first K decisions\n"
	      "                          (default 20000)\n"
	      "      --sched vtime       one thread at a time in virtual time: every CPU has a\n"
	      "                          clock, the earliest runs; --seconds are virtual\n"
	      "                          (default 0.01); reports virtual ops/s (docs/usage.md)\n"
	      "      --vtime-cost KIND   vtime: model (calibrated table, deterministic; default)\n"
	      "                          | measured (thread CPU time between points)\n"
	      "      --vtime-calibrate F measured: append the segment costs to F\n"
	      "                          (scripts/vtime-calibrate.sh)\n"
	      "      --vtime-transfer NS vtime: add NS for every cache line a CPU writes that\n"
	      "                          another wrote last (a lock taken, a list link, a\n"
	      "                          pte, a page's count or flags; default 0; use\n"
	      "                          scale's cpu_transfer probe in vtime's ns:\n"
	      "                          scripts/vtime-vs-real --price)\n"
	      "      --sched-steps N     random/pct: stop after N decisions (no time bound\n"
	      "                          unless --seconds is given)\n"
	      "      --check-determinism random/pct: run twice and compare every thread's\n"
	      "                          operation sequence and the outcome (exit 3 if not equal)\n"
	      "      --inject NAME       switch on a seeded bug (repeatable; 'list' names them)\n"
	      "      --weights LIST      op=weight,... overriding the scenario's operation mix\n"
	      "      --procs N           at most N processes (fork stops there)\n"
	      "      --no-flight         switch the flight recorder off\n"
	      "      --halt-on-failure   end the run at the first failure (it still audits)\n"
	      "      --halt-on-signature SIG\n"
	      "                          end the run at the first report with signature SIG\n"
	      "                          and abandon the model there, unaudited (what replay\n"
	      "                          and minimize pass; other reports do not stop it)\n"
	      "      --until-fallbacks LIST  end the run once each of these trylock fallback\n"
	      "                          sites fired (--seconds still bounds it; 'ci' uses it)\n"
	      "      --build KIND        plain | tsan | asan: run this command in that build\n"
	      "                          (found next to this one, or built with meson and\n"
	      "                          ninja), capture every sanitizer report, print the\n"
	      "                          first of each new root cause, and keep one artifact\n"
	      "                          per root cause in --out DIR\n"
	      "      --no-build          with --build: fail if that build is not there\n"
	      "      --test-race         test-only: workers race on an unlocked counter\n"
	      "      --test-spin         test-only: worker 0 waits, at switch points and with\n"
	      "                          no lock, until another thread finished an operation\n"
	      "      --no-progress       no live progress line\n"
	      "  -h, --help              this text\n"
	      "\n"
	      "With --out, every failure leaves DIR/failure-KIND-HASH.json (one per signature,\n"
	      "repeats counted): what, where, each thread's last events, and the command that\n"
	      "reproduces it ('rmaptorture replay FILE').\n"
	      "\n"
	      "Exit status: 0 clean, 1 a failure was found, 2 bad usage, 3 internal error,\n"
	      "130 interrupted (the run stops cleanly, audits and reports what it measured).\n",
	      f);
}

const struct option rt_run_options[] = {
	{ "scenario", required_argument, NULL, 'S' },
	{ "rmap", required_argument, NULL, 'r' },
	{ "threads", required_argument, NULL, 't' },
	{ "reclaim-threads", required_argument, NULL, 'R' },
	{ "seconds", required_argument, NULL, 's' },
	{ "ops", required_argument, NULL, 'n' },
	{ "seed", required_argument, NULL, 'X' },
	{ "pages", required_argument, NULL, 'p' },
	{ "swap", required_argument, NULL, 'W' },
	{ "audit-every", required_argument, NULL, 'a' },
	{ "out", required_argument, NULL, 'o' },
	{ "json", no_argument, NULL, 'j' },
	{ "perturb", required_argument, NULL, 'P' },
	{ "yield-points", required_argument, NULL, 'Y' },
	{ "long-hold", required_argument, NULL, 'L' },
	{ "watchdog", required_argument, NULL, 'w' },
	{ "no-progress", no_argument, NULL, 'N' },
	{ "test-hang", required_argument, NULL, 'H' },
	{ "test-race", no_argument, NULL, 'T' },
	{ "test-spin", no_argument, NULL, 'q' },
	{ "sched", required_argument, NULL, 'D' },
	{ "pct-depth", required_argument, NULL, 'E' },
	{ "pct-steps", required_argument, NULL, 'K' },
	{ "sched-steps", required_argument, NULL, 'Z' },
	{ "check-determinism", no_argument, NULL, 'C' },
	{ "vtime-cost", required_argument, NULL, 'V' },
	{ "vtime-calibrate", required_argument, NULL, 'v' },
	{ "vtime-transfer", required_argument, NULL, 'x' },
	{ "inject", required_argument, NULL, 'I' },
	{ "weights", required_argument, NULL, 'G' },
	{ "procs", required_argument, NULL, 'U' },
	{ "no-flight", no_argument, NULL, 'F' },
	{ "halt-on-failure", no_argument, NULL, 'J' },
	{ "halt-on-signature", required_argument, NULL, 'g' },
	{ "until-fallbacks", required_argument, NULL, 'u' },
	{ "build", required_argument, NULL, 'B' },
	{ "no-build", no_argument, NULL, 'Q' },
	{ "cover-map", required_argument, NULL, 'M' },
	{ "fixed-ops", required_argument, NULL, 'f' },
	{ "decisions", required_argument, NULL, 'd' },
	{ "test-window", no_argument, NULL, 'i' },
	{ "test-window-bug", no_argument, NULL, 'b' },
	{ "no-cover", no_argument, NULL, 'O' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/*
 * The short forms; each with ':' takes a value, as in rt_run_options[]. The
 * leading ':' makes a missing value getopt_long()'s ':' (rt_opt_bad()).
 */
const char rt_run_short[] = ":S:r:t:R:s:n:p:a:o:h";

const struct option *rt_run_option_long(const char *name, size_t len)
{
	const struct option *found = NULL;
	int prefixes = 0;

	for (int i = 0; rt_run_options[i].name; i++) {
		if (strncmp(rt_run_options[i].name, name, len))
			continue;
		if (strlen(rt_run_options[i].name) == len)
			return &rt_run_options[i];
		found = &rt_run_options[i];
		prefixes++;
	}
	return prefixes == 1 ? found : NULL;
}

const struct option *rt_run_option_short(char c)
{
	if (!c || c == ':' || !strchr(rt_run_short, c))
		return NULL;
	for (int i = 0; rt_run_options[i].name; i++)
		if (rt_run_options[i].val == c)
			return &rt_run_options[i];
	return NULL;
}

bool rt_run_option_takes_value(const char *opt)
{
	const struct option *ro = NULL;

	if (!strncmp(opt, "--", 2))
		ro = rt_run_option_long(opt + 2, strlen(opt + 2));
	else if (opt[0] == '-' && opt[1] && !opt[2])
		ro = rt_run_option_short(opt[1]);
	return ro && ro->has_arg == required_argument;
}
