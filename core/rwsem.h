/* SPDX-License-Identifier: MIT */
/*
 * struct rw_semaphore - mm->mmap_sem. Readers share it, a writer excludes
 * everyone; a waiting writer stops new readers (so fork and munmap are not
 * starved by a stream of faults). A sleeping lock: taking it in atomic
 * context is reported.
 */
#ifndef RT_CORE_RWSEM_H
#define RT_CORE_RWSEM_H

#include <stdbool.h>

#include "compiler.h"
#include "lockdep.h"

struct rw_semaphore {
	long count;		/* atomic: readers, RWSEM_WRITER, RWSEM_WAITING */
	struct lockdep_map dep_map;
};

#define RWSEM_WRITER	(1L << 40)
#define RWSEM_WAITING	(1L << 41)

#define __RWSEM_INITIALIZER(cls) { .count = 0, .dep_map = { .class_id = (cls) } }

void init_rwsem(struct rw_semaphore *sem, int class_id);

void _down_read(struct rw_semaphore *sem, int subclass, const char *file, int line);
bool _down_read_trylock(struct rw_semaphore *sem, const char *file, int line);
void _up_read(struct rw_semaphore *sem, const char *file, int line);
void _down_write(struct rw_semaphore *sem, int subclass, const char *file, int line);
bool _down_write_trylock(struct rw_semaphore *sem, const char *file, int line);
void _up_write(struct rw_semaphore *sem, const char *file, int line);
void _downgrade_write(struct rw_semaphore *sem, const char *file, int line);

#define down_read(s)		_down_read((s), 0, __FILE__, __LINE__)
#define down_read_nested(s, n)	_down_read((s), (n), __FILE__, __LINE__)
/* Kernel convention: 1 when acquired, 0 when not. */
#define down_read_trylock(s)	_down_read_trylock((s), __FILE__, __LINE__)
#define up_read(s)		_up_read((s), __FILE__, __LINE__)
#define down_write(s)		_down_write((s), 0, __FILE__, __LINE__)
#define down_write_nested(s, n)	_down_write((s), (n), __FILE__, __LINE__)
#define down_write_trylock(s)	_down_write_trylock((s), __FILE__, __LINE__)
#define up_write(s)		_up_write((s), __FILE__, __LINE__)
#define downgrade_write(s)	_downgrade_write((s), __FILE__, __LINE__)

static inline bool rwsem_is_locked(struct rw_semaphore *sem)
{
	return (__atomic_load_n(&sem->count, __ATOMIC_RELAXED) & ~RWSEM_WAITING) != 0;
}

static inline bool rwsem_is_write_locked(struct rw_semaphore *sem)
{
	return (__atomic_load_n(&sem->count, __ATOMIC_RELAXED) & RWSEM_WRITER) != 0;
}

#endif /* RT_CORE_RWSEM_H */
