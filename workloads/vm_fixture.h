/* SPDX-License-Identifier: MIT */
/*
 * The VM model set up and torn down around one test or one benchmark
 * sample: emulated memory, a swap area, an rmap design; and the system
 * calls they make most, each under the lock the kernel's caller holds
 * (mmap_sem for write around do_mmap()/do_munmap(), for read around a
 * fault, page_table_lock around a pte lookup). Harness code on core's
 * public headers only, shared by tests/ (tests/rt_vm.h adds Check's
 * assertions on top) and the microbenchmarks (stress/bench/).
 *
 * Designs are a parameter: a suite loops over every design in core's
 * table (core/rmap.c) with RT_VM_FOR_EACH_DESIGN(), so a design added to
 * the table is tested by every suite that loops.
 */
#ifndef RT_WORKLOADS_VM_FIXTURE_H
#define RT_WORKLOADS_VM_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "fs.h"
#include "mm.h"
#include "page.h"
#include "rmap.h"

/**
 * struct rt_vm_fixture - what rt_vm_up() sets up
 * @design: the rmap design rmap_select() makes current
 * @pages: emulated memory, mem_init()'s pages
 * @slots: swap_init()'s slots; 0: no swap area
 * @drain: at rt_vm_down(), reclaim what the kernel leaves to later reclaim
 *	and count the leaks (vm_teardown_check()); without it, tear down as is
 */
struct rt_vm_fixture {
	enum rmap_mode design;
	unsigned long pages;
	unsigned long slots;
	bool drain;
};

/* Every design of core's table, in its order. */
#define RT_VM_FOR_EACH_DESIGN(d)					\
	for (enum rmap_mode d = (enum rmap_mode)0; d < RMAP_NR_MODES;	\
	     d = (enum rmap_mode)(d + 1))

/**
 * rt_vm_up() - select @fx's design, then set up its memory and swap
 * @fx: what to set up
 *
 * Resets the reclaim, trylock-fallback and rmap-bytes statistics.
 * Context: no model is set up; no thread uses the model.
 * Return: 0; -EINVAL when @fx->design is out of range; mem_init()'s or
 * swap_init()'s error. Nothing is left set up on an error.
 */
int rt_vm_up(const struct rt_vm_fixture *fx);

/**
 * rt_vm_down() - tear down what rt_vm_up(@fx) set up
 * @fx: as given to rt_vm_up()
 *
 * With @fx->drain, first frees the swap cache pages whose last user
 * exited while reclaim or a swap-in held their page lock (2.6's
 * free_swap_and_cache() only tries the lock, and leaves them to a later
 * reclaim). Then waits for RCU callbacks and, with @fx->drain, runs
 * vm_teardown_check(): each leak is an audit report. Then the swap area (if any) and the memory go,
 * with the zone's low-memory hook, and the default design (RMAP_DEFAULT)
 * is current again.
 * Context: the caller is an attached task when @fx->drain; no other
 * thread uses the model.
 * Return: the leaks vm_teardown_check() found (0 without @fx->drain).
 */
unsigned long rt_vm_down(const struct rt_vm_fixture *fx);

/* do_mmap() of @pages pages under mmap_sem for write: its return. */
long rt_mmap(struct mm_struct *mm, struct address_space *f, unsigned long addr,
	     unsigned long pages, unsigned long flags, unsigned long pgoff);

/* do_munmap() of @pages pages under mmap_sem for write: its return. */
int rt_munmap(struct mm_struct *mm, unsigned long addr, unsigned long pages);

/* mm_access(), which takes mmap_sem itself only to fault: its return. */
enum mm_access_result rt_access(struct mm_struct *mm, unsigned long addr, bool write,
				uint64_t *stamp);

/* rt_access() that must succeed: rt_die() naming the access otherwise. */
void rt_touch(struct mm_struct *mm, unsigned long addr, bool write);

/* The page mapped at @addr (not the zero page), or NULL. Takes page_table_lock. */
struct page *rt_page_at(struct mm_struct *mm, unsigned long addr);

/* The vmas of @mm. Context: mmap_sem held, or no other thread uses @mm. */
int rt_nr_vmas(struct mm_struct *mm);

/* Truncate @f to nothing and destroy it (unlink and close). */
void rt_file_free(struct address_space *f);

#endif /* RT_WORKLOADS_VM_FIXTURE_H */
