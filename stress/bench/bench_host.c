// SPDX-License-Identifier: MIT
/*
 * The host kernel as `bench vm`'s reference: the same operations as the
 * model's fault and fork+exit rows, made for real by this process, in the
 * same run and interleaved with the model's samples (bench_vm.c), so that
 * every model figure can be given as a ratio to the machine's own kernel.
 *
 * - anonymous faults: mmap(MAP_PRIVATE | MAP_ANONYMOUS) of N pages, one
 *   write to each page, munmap; faults per second.
 * - fork+exit: a process with N written anonymous pages forks, the child
 *   _exit(0)s at once, the parent waitpid()s; fork+exits per second.
 *
 * Both regions are MADV_NOHUGEPAGE: the model faults 4 KiB pages, as 2.6
 * did; a transparent huge page would make one fault of 512.
 */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_host-internal.h"
#include "die.h"
#include "rt_time.h"

/* N fresh private anonymous pages, huge pages off; rt_die on failure. */
static char *host_map(long n, size_t page)
{
	void *p = mmap(NULL, (size_t)n * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		rt_die("host mmap of %ld pages: %s", n, strerror(errno));
#ifdef MADV_NOHUGEPAGE
	(void)madvise(p, (size_t)n * page, MADV_NOHUGEPAGE);	/* EINVAL without THP: fine */
#endif
	return p;
}

static void host_unmap(char *p, long n, size_t page)
{
	if (munmap(p, (size_t)n * page))
		rt_die("host munmap of %ld pages: %s", n, strerror(errno));
}

/* One write to each of the @n pages at @p: one fault each on fresh memory. */
static void host_touch(char *p, long n, size_t page)
{
	for (long i = 0; i < n; i++)
		((volatile char *)p)[(size_t)i * page] = 1;
}

void host_s_anon_faults(const struct rt_bench_vm_cfg *cfg, long n, double out[2])
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned long ops = 0;
	double t0 = 0, dt;

	/* Round 0 is a warm-up, untimed, as the model's fault_rate() does. */
	for (int round = 0;; round++) {
		char *p = host_map(n, page);

		host_touch(p, n, page);
		host_unmap(p, n, page);
		if (!round) {
			t0 = rt_now_s();
			continue;
		}
		ops += (unsigned long)n;
		if ((dt = rt_now_s() - t0) >= cfg->sample_s)
			break;
	}
	out[0] = (double)ops / dt;
}

/* fork(), the child _exit(0)s at once, waitpid(): rt_die on failure. */
static void host_fork_exit_once(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		rt_die("host fork: %s", strerror(errno));
	if (!pid)
		_exit(0);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			rt_die("host waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		rt_die("host fork: the child ended with status %#x", status);
}

/*
 * out[0]: fork+exit per second of this process with @n more written pages.
 * The process has memory of its own besides (its anonymous kB are in the
 * record, host.process_anon_kb): the host's figure is of a process with
 * at least @n touched pages, a little dearer than of one with exactly @n.
 */
void host_s_fork_exit(const struct rt_bench_vm_cfg *cfg, long n, double out[2])
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = host_map(n, page);
	double t0;
	long iters = 0;

	host_touch(p, n, page);
	/* The model's samples leave free heap behind: hand it back, the fork copies less of it. */
	malloc_trim(0);
	fflush(NULL);		/* nothing buffered twice: the child _exit()s, but be sure */
	host_fork_exit_once();	/* warm-up, untimed */
	t0 = rt_now_s();
	do {
		host_fork_exit_once();
		iters++;
	} while (rt_now_s() - t0 < cfg->sample_s || iters < 3);
	out[0] = (double)iters / (rt_now_s() - t0);
	host_unmap(p, n, page);
}

long host_process_anon_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[256];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Anonymous: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

double rt_bench_host_ratio(double model_rate, double host_rate)
{
	/* time per op = 1 / rate: model rate / host rate = host time / model time */
	return model_rate / host_rate;
}
