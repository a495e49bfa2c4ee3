/* SPDX-License-Identifier: MIT */
/*
 * The host kernel's samples (bench_host.c), for bench_vm.c's rows. Apart
 * from bench_vm-internal.h: bench_host.c includes <sys/mman.h>, whose
 * remap_file_pages() core/mm.h's model of it would collide with.
 */
#ifndef RT_STRESS_BENCH_BENCH_HOST_INTERNAL_H
#define RT_STRESS_BENCH_BENCH_HOST_INTERNAL_H

#include "bench.h"

/* out[0]: the host's anonymous faults/s on @n pages (mmap, write each, munmap). */
void host_s_anon_faults(const struct rt_bench_vm_cfg *cfg, long n, double out[2]);
/* out[0]: the host's fork+exits/s of this process with @n more written pages. */
void host_s_fork_exit(const struct rt_bench_vm_cfg *cfg, long n, double out[2]);
/* This process's anonymous memory in kB (/proc/self/smaps_rollup), -1 unknown. */
long host_process_anon_kb(void);

#endif /* RT_STRESS_BENCH_BENCH_HOST_INTERNAL_H */
