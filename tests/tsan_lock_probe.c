// SPDX-License-Identifier: MIT
/*
 * TSan probe: proves that ThreadSanitizer sees the emulated locks.
 *   abba     two threads take two spinlock_t in opposite orders, one
 *            after the other: TSan's deadlock detector must report a
 *            lock-order-inversion naming _spin_lock.
 *   race     two threads write a word, one under a bit spinlock and one
 *            without: TSan must report a data race.
 *   clean    the same as race with both writers locked: no report.
 * Lockdep is switched off here: this is about TSan's own view.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "die.h"
#include "lockdep.h"
#include "page.h"
#include "spinlock.h"
#include "task.h"

static spinlock_t lock_a, lock_b;
static struct page probe_page;
static long shared_word;
static const char *mode;

static void *first(void *arg)
{
	(void)arg;
	if (!strcmp(mode, "abba")) {
		spin_lock(&lock_a);
		spin_lock(&lock_b);
		spin_unlock(&lock_b);
		spin_unlock(&lock_a);
	} else {
		pte_chain_lock(&probe_page);
		shared_word++;
		pte_chain_unlock(&probe_page);
	}
	return NULL;
}

static void *second(void *arg)
{
	(void)arg;
	if (!strcmp(mode, "abba")) {
		spin_lock(&lock_b);
		spin_lock(&lock_a);
		spin_unlock(&lock_a);
		spin_unlock(&lock_b);
	} else if (!strcmp(mode, "race")) {
		shared_word++;			/* the unsynchronised access */
	} else {
		pte_chain_lock(&probe_page);
		shared_word++;
		pte_chain_unlock(&probe_page);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t1, t2;

	if (argc != 2 || (strcmp(argv[1], "abba") && strcmp(argv[1], "race") &&
			  strcmp(argv[1], "clean"))) {
		fprintf(stderr, "usage: tsan_lock_probe abba|race|clean\n");
		return 2;
	}
	mode = argv[1];
	lockdep_set_enabled(false);
	spin_lock_init(&lock_a, LOCK_CLASS_PAGE_TABLE_LOCK);
	spin_lock_init(&lock_b, LOCK_CLASS_LRU_LOCK);
	if (!strcmp(mode, "abba")) {
		/* One after the other: a potential deadlock, never a real one. */
		RT_PTHREAD(pthread_create(&t1, NULL, first, NULL));
		RT_PTHREAD(pthread_join(t1, NULL));
		RT_PTHREAD(pthread_create(&t2, NULL, second, NULL));
		RT_PTHREAD(pthread_join(t2, NULL));
	} else {
		/* Concurrent: only the bit lock could order the two writes. */
		RT_PTHREAD(pthread_create(&t1, NULL, first, NULL));
		RT_PTHREAD(pthread_create(&t2, NULL, second, NULL));
		RT_PTHREAD(pthread_join(t1, NULL));
		RT_PTHREAD(pthread_join(t2, NULL));
	}
	printf("probe %s done: %ld\n", mode, shared_word);
	return 0;
}
