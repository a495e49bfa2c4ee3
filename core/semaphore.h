/* SPDX-License-Identifier: MIT */
/*
 * struct semaphore - the 2.6 counting semaphore, used as mapping->i_shared_sem.
 * down() sleeps (and so is reported in atomic context); down_trylock()
 * returns 0 when it got the semaphore, as in the kernel, and is how reclaim
 * goes against the lock order without deadlocking.
 */
#ifndef RT_CORE_SEMAPHORE_H
#define RT_CORE_SEMAPHORE_H

#include <stdbool.h>

#include "compiler.h"
#include "lockdep.h"

struct semaphore {
	int count;		/* atomic */
	bool mutex;		/* initialised with count 1: a lock for TSan and lockdep */
	struct lockdep_map dep_map;
};

void sema_init(struct semaphore *sem, int val, int class_id);

void _down(struct semaphore *sem, int subclass, const char *file, int line);
int _down_trylock(struct semaphore *sem, const char *file, int line);
void _up(struct semaphore *sem, const char *file, int line);

#define down(s)			_down((s), 0, __FILE__, __LINE__)
#define down_nested(s, n)	_down((s), (n), __FILE__, __LINE__)
#define down_trylock(s)		_down_trylock((s), __FILE__, __LINE__)
#define up(s)			_up((s), __FILE__, __LINE__)

static inline int sema_count(struct semaphore *sem)
{
	return __atomic_load_n(&sem->count, __ATOMIC_RELAXED);
}

#endif /* RT_CORE_SEMAPHORE_H */
