// SPDX-License-Identifier: MIT
/*
 * The flight recorder (flight.h): rings written by their owners with
 * relaxed stores, dumped as text into artifacts and sanitizer logs.
 */
#include "flight.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lockdep.h"
#include "task.h"

int flight_enabled = 1;

static const char *const event_names[FL_NR_EVENTS] = {
	[FL_OP] = "op",
	[FL_OP_END] = "op-end",
	[FL_LOCK] = "lock",
	[FL_TRYLOCK] = "trylock",
	[FL_TRYFAIL] = "trylock-failed",
	[FL_UNLOCK] = "unlock",
	[FL_WAIT] = "wait",
	[FL_YIELD] = "yield",
	[FL_SCHED] = "sched",
};

/*
 * Not watched by TSan (RT_NOTSAN): the ring is the recorder's own memory,
 * written only by its task with relaxed stores, read only by dumps; it
 * holds pointers to static strings and numbers, never model data. Relaxed
 * atomics give TSan no happens-before edge, so uninstrumented they hide
 * none either. A dump that reads a ring being written sees a torn entry,
 * which flight.h already allows.
 */
RT_NOTSAN void _flight_record(struct flight_ring *ring, enum flight_event ev, const char *what,
			      int line, long arg)
{
	unsigned long h = __atomic_load_n(&ring->head, __ATOMIC_RELAXED);
	struct flight_entry *e = &ring->e[h & (FLIGHT_RING - 1)];
	uint64_t word = ((uint64_t)(uint32_t)h << 32) | ((uint64_t)ev << 24) |
			((uint64_t)line & 0xffffff);

	__atomic_store_n(&e->what, what, __ATOMIC_RELAXED);
	__atomic_store_n(&e->arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&e->word, word, __ATOMIC_RELAXED);
	__atomic_store_n(&ring->head, h + 1, __ATOMIC_RELAXED);
}

RT_NOTSAN void flight_yield(const char *where)
{
	_flight_record(&current->flight, FL_YIELD, where, 0, 0);
}

static const char *base_name(const char *file)
{
	const char *s = file ? strrchr(file, '/') : NULL;

	return s ? s + 1 : file ? file : "?";
}

int flight_format(char *buf, size_t len, const struct flight_entry *e)
{
	uint64_t word = __atomic_load_n(&e->word, __ATOMIC_RELAXED);
	const char *what = __atomic_load_n(&e->what, __ATOMIC_RELAXED);
	long arg = __atomic_load_n(&e->arg, __ATOMIC_RELAXED);
	unsigned int ev = (word >> 24) & 0xff, line = word & 0xffffff;
	unsigned int seq = (unsigned int)(word >> 32);

	if (ev >= FL_NR_EVENTS)
		return snprintf(buf, len, "#%u ?", seq);
	switch (ev) {
	case FL_OP:
	case FL_YIELD:
		return snprintf(buf, len, "#%u %s %s", seq, event_names[ev], what ? what : "?");
	case FL_OP_END:
		return snprintf(buf, len, "#%u %s %s", seq, event_names[ev],
				arg == 0 ? "done" : arg == 1 ? "skipped" : arg == 2 ? "oom" : "corrupt");
	case FL_SCHED:
		return snprintf(buf, len, "#%u %s step %ld", seq, event_names[ev], arg);
	default:
		return snprintf(buf, len, "#%u %s %s %s:%u", seq, event_names[ev],
				lock_class_name((int)arg), base_name(what), line);
	}
}

/* The oldest-first entries of @t's ring: [first, head). */
static unsigned long ring_span(struct task_struct *t, unsigned long *first)
{
	unsigned long head = __atomic_load_n(&t->flight.head, __ATOMIC_RELAXED);

	*first = head > FLIGHT_RING ? head - FLIGHT_RING : 0;
	return head;
}

static void write_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

struct dump_ctx {
	int fd;
};

static void dump_task(struct task_struct *t, void *arg)
{
	struct dump_ctx *d = arg;
	unsigned long first, head = ring_span(t, &first);
	const char *op = __atomic_load_n(&t->op, __ATOMIC_RELAXED);
	char line[256];
	int n;

	n = snprintf(line, sizeof(line), "task %s op %s\n", t->comm, op ? op : "-");
	write_all(d->fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	for (unsigned long i = first; i < head; i++) {
		line[0] = ' ';
		line[1] = ' ';
		n = flight_format(line + 2, sizeof(line) - 3, &t->flight.e[i & (FLIGHT_RING - 1)]);
		if (n < 0)
			continue;
		n = (size_t)n + 2 < sizeof(line) - 1 ? n + 2 : (int)sizeof(line) - 2;
		line[n++] = '\n';
		write_all(d->fd, line, (size_t)n);
	}
}

void flight_dump_fd(int fd)
{
	static const char head[] = "== rmaptorture flight recorder ==\n";
	static const char tail[] = "== end ==\n";
	struct dump_ctx d = { fd };

	write_all(fd, head, sizeof(head) - 1);
	if (!rt_task_for_each_try(dump_task, &d))
		write_all(fd, "task list busy\n", 15);
	write_all(fd, tail, sizeof(tail) - 1);
}

struct each_ctx {
	void (*fn)(const char *task, const char *const *events, int nr, void *arg);
	void *arg;
};

static void each_task(struct task_struct *t, void *arg)
{
	struct each_ctx *c = arg;
	static _Thread_local char text[FLIGHT_RING + 1][128];
	const char *events[FLIGHT_RING + 1];
	unsigned long first, head = ring_span(t, &first);
	const char *op = __atomic_load_n(&t->op, __ATOMIC_RELAXED);
	int nr = 0;

	snprintf(text[nr], sizeof(text[nr]), "in %s", op ? op : "-");
	events[nr] = text[nr];
	nr++;
	for (unsigned long i = first; i < head && nr <= FLIGHT_RING; i++, nr++) {
		flight_format(text[nr], sizeof(text[nr]), &t->flight.e[i & (FLIGHT_RING - 1)]);
		events[nr] = text[nr];
	}
	c->fn(t->comm, events, nr, c->arg);
}

void flight_for_each(void (*fn)(const char *task, const char *const *events, int nr, void *arg),
		     void *arg)
{
	struct each_ctx c = { fn, arg };

	rt_task_for_each(each_task, &c);
}
