// SPDX-License-Identifier: MIT
/*
 * Emulated tasks: attach/detach, the task list, lock statistics summed on
 * demand, and the sleeping-in-atomic-context report.
 */
#include "task.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bug.h"
#include "die.h"
#include "lockdep.h"
#include "page_alloc.h"
#include "rcu.h"
#include "slab.h"
#include "tlbflush.h"

_Thread_local struct task_struct *current_task
	__attribute__((tls_model("initial-exec")));

/* The harness's own lock: never an emulated one, never seen by lockdep. */
static pthread_mutex_t task_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct task_struct *task_list;		/* task_list_lock */
static int next_task_id;			/* task_list_lock */
/* Statistics of detached tasks: task_list_lock. */
static struct lock_class_stats exited_stats[LOCK_CLASS_MAX];
/* Per-CPU counters of detached tasks, and the bases of resets: task_list_lock. */
static long exited_pcpu[NR_PCPU_ITEMS], pcpu_base[NR_PCPU_ITEMS];

static pthread_key_t lazy_key;
static pthread_once_t lazy_key_once = PTHREAD_ONCE_INIT;

static struct task_struct *task_alloc(const char *name)
{
	struct task_struct *t = rt_aligned_alloc(SMP_CACHE_BYTES, sizeof(*t));

	memset(t, 0, sizeof(*t));
	snprintf(t->comm, sizeof(t->comm), "%s", name ? name : "task");
	RT_PTHREAD(pthread_mutex_lock(&task_list_lock));
	t->id = next_task_id++;
	t->sched_slot = -1;
	t->tlb_cpu = -1;
	t->next = task_list;
	t->prev = NULL;
	if (task_list)
		task_list->prev = t;
	task_list = t;
	RT_PTHREAD(pthread_mutex_unlock(&task_list_lock));
	return t;
}

static void task_free(struct task_struct *t)
{
	RT_PTHREAD(pthread_mutex_lock(&task_list_lock));
	for (int c = 0; c < LOCK_CLASS_MAX; c++) {
		exited_stats[c].acquired += READ_ONCE(t->stats[c].acquired);
		exited_stats[c].contended += READ_ONCE(t->stats[c].contended);
		exited_stats[c].try_attempts += READ_ONCE(t->stats[c].try_attempts);
		exited_stats[c].try_failures += READ_ONCE(t->stats[c].try_failures);
	}
	rt_pcpu_task_exit(t);
	if (t->prev)
		t->prev->next = t->next;
	else
		task_list = t->next;
	if (t->next)
		t->next->prev = t->prev;
	RT_PTHREAD(pthread_mutex_unlock(&task_list_lock));
	free(t);
}

struct task_struct *rt_task_attach(const char *name)
{
	struct task_struct *t = current_task;

	BUG_ON(t && !t->lazily_attached);
	if (!t) {
		t = task_alloc(name);
		current_task = t;
	} else {
		/* Promote a lazily attached thread: it now owns its name. */
		snprintf(t->comm, sizeof(t->comm), "%s", name ? name : "task");
		t->lazily_attached = false;
		RT_PTHREAD(pthread_setspecific(lazy_key, NULL));
	}
	rt_rcu_register_thread();
	t->rcu_registered = true;
	return t;
}

void rt_task_offline(void)
{
	struct task_struct *t = current_task;

	/*
	 * A task that oopsed holding locks leaves the model as it is, its
	 * per-CPU caches with its locks (engine_oops()).
	 */
	if (!t || t->lockdep_depth != 0)
		return;
	slab_task_exit(t);
	page_alloc_task_exit(t);
}

static void task_detach(struct task_struct *t)
{
	BUG_ON(t->lockdep_depth != 0);
	BUG_ON(t->preempt_count != 0);
	slab_task_exit(t);	/* before leaving RCU: it may call_rcu() */
	if (t->rcu_registered) {
		BUG_ON(rcu_read_lock_held());
		rt_rcu_unregister_thread();
		t->rcu_registered = false;
	}
	page_alloc_task_exit(t);
	tlb_task_exit(t);
	current_task = NULL;
	task_free(t);
}

void rt_task_detach(void)
{
	struct task_struct *t = current_task;

	BUG_ON(!t);
	task_detach(t);
}

static void lazy_destructor(void *p)
{
	struct task_struct *t = p;

	/* The thread is exiting: its TLS pointer still names it. */
	current_task = t;
	task_detach(t);
}

static void lazy_key_init(void)
{
	RT_PTHREAD(pthread_key_create(&lazy_key, lazy_destructor));
}

struct task_struct *_rt_task_attach_lazy(void)
{
	struct task_struct *t;
	char name[TASK_COMM_LEN];

	RT_PTHREAD(pthread_once(&lazy_key_once, lazy_key_init));
	snprintf(name, sizeof(name), "thread-%lx",
		 (unsigned long)pthread_self() & 0xffffff);
	t = task_alloc(name);
	t->lazily_attached = true;
	current_task = t;
	RT_PTHREAD(pthread_setspecific(lazy_key, t));
	return t;
}

void rt_task_for_each(void (*fn)(struct task_struct *t, void *arg), void *arg)
{
	RT_PTHREAD(pthread_mutex_lock(&task_list_lock));
	for (struct task_struct *t = task_list; t; t = t->next)
		fn(t, arg);
	RT_PTHREAD(pthread_mutex_unlock(&task_list_lock));
}

bool rt_task_for_each_try(void (*fn)(struct task_struct *t, void *arg), void *arg)
{
	if (pthread_mutex_trylock(&task_list_lock))
		return false;
	for (struct task_struct *t = task_list; t; t = t->next)
		fn(t, arg);
	RT_PTHREAD(pthread_mutex_unlock(&task_list_lock));
	return true;
}

void lock_stats_read(int class_id, struct lock_class_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (class_id < 0 || class_id >= LOCK_CLASS_MAX)
		return;
	RT_PTHREAD(pthread_mutex_lock(&task_list_lock));
	*out = exited_stats[class_id];
	for (struct task_struct *t = task_list; t; t = t->next) {
		const struct lock_class_stats *s = &t->stats[class_id];

		out->acquired += __atomic_load_n(&s->acquired, __ATOMIC_RELAXED);
		out->contended += __atomic_load_n(&s->contended, __ATOMIC_RELAXED);
		out->try_attempts += __atomic_load_n(&s->try_attempts, __ATOMIC_RELAXED);
		out->try_failures += __atomic_load_n(&s->try_failures, __ATOMIC_RELAXED);
	}
	RT_PTHREAD(pthread_mutex_unlock(&task_list_lock));
}

void lock_stats_reset(void)
{
	RT_PTHREAD(pthread_mutex_lock(&task_list_lock));
	memset(exited_stats, 0, sizeof(exited_stats));
	for (struct task_struct *t = task_list; t; t = t->next) {
		for (int c = 0; c < LOCK_CLASS_MAX; c++) {
			struct lock_class_stats *s = &t->stats[c];

			__atomic_store_n(&s->acquired, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->contended, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->try_attempts, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&s->try_failures, 0, __ATOMIC_RELAXED);
		}
	}
	RT_PTHREAD(pthread_mutex_unlock(&task_list_lock));
}

void _might_sleep(const char *what, const char *file, int line)
{
	struct task_struct *t = current;
	struct vm_report r;
	int n;

	if (!t->preempt_count)
		return;
	memset(&r, 0, sizeof(r));
	r.kind = VM_REPORT_ATOMIC_SLEEP;
	n = snprintf(r.message, sizeof(r.message),
		     "sleeping in atomic context: %s at %s:%d with preempt_count %d, holding",
		     what, file, line, t->preempt_count);
	snprintf(r.signature, sizeof(r.signature), "atomic-sleep:%s under %s", what,
		 t->lockdep_depth ?
		 lock_class_name(t->held_locks[t->lockdep_depth - 1].class_id) : "?");
	r.sites[r.nr_sites++] = (struct vm_report_site){
		.what = what, .file = file, .line = line };
	for (int i = t->lockdep_depth - 1; i >= 0; i--) {
		const struct held_lock *h = &t->held_locks[i];
		const char *name = lock_class_name(h->class_id);

		if (n > 0 && (size_t)n < sizeof(r.message))
			n += snprintf(r.message + n, sizeof(r.message) - (size_t)n,
				      " %s (%s:%d)", name, h->file, h->line);
		/* The innermost held locks are the interesting sites. */
		if (r.nr_sites < VM_REPORT_MAX_SITES)
			r.sites[r.nr_sites++] = (struct vm_report_site){
				.what = name, .file = h->file, .line = h->line };
	}
	if (t->lockdep_depth == 0 && n > 0 && (size_t)n < sizeof(r.message))
		snprintf(r.message + n, sizeof(r.message) - (size_t)n,
			 " no lock known to lockdep");
	vm_report_emit(&r);
}

void rt_pcpu_task_exit(struct task_struct *t)
{
	for (int i = 0; i < NR_PCPU_ITEMS; i++)
		exited_pcpu[i] += t->pcpu.count[i];
	/* The owner (detaching itself) is going: its next use finds its new task. */
	if (rt_pcpu_this == &t->pcpu)
		rt_pcpu_this = NULL;
}

long rt_pcpu_sum(enum rt_pcpu_item item)
{
	long sum;

	RT_PTHREAD(pthread_mutex_lock(&task_list_lock));
	sum = exited_pcpu[item] - pcpu_base[item];
	for (struct task_struct *t = task_list; t; t = t->next)
		sum += __atomic_load_n(&t->pcpu.count[item], __ATOMIC_RELAXED);
	RT_PTHREAD(pthread_mutex_unlock(&task_list_lock));
	return sum;
}

void rt_pcpu_reset(enum rt_pcpu_item first, int nr)
{
	RT_PTHREAD(pthread_mutex_lock(&task_list_lock));
	for (int i = (int)first; i < (int)first + nr; i++) {
		long sum = exited_pcpu[i];

		for (struct task_struct *t = task_list; t; t = t->next)
			sum += __atomic_load_n(&t->pcpu.count[i], __ATOMIC_RELAXED);
		pcpu_base[i] = sum;
	}
	RT_PTHREAD(pthread_mutex_unlock(&task_list_lock));
}

#if RT_TSAN
/* task.h: lock statistics, not watched by TSan. */
RT_NOTSAN void __lock_stat_add(unsigned long *counter)
{
	__atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}
#endif
