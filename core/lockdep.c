// SPDX-License-Identifier: MIT
/*
 * lockdep: the held-lock stacks, the class dependency graph, and the
 * documented lock order it is checked against.
 *
 * The documented order, outermost first (a lock may be taken, blocking,
 * only while holding locks above it on its own branch; reclaim goes
 * against it only with trylocks, which add no edge):
 *
 * i_sem
 *   mmap_sem
 *     PG_locked
 *       i_shared_sem
 *         page_table_lock
 *           PG_chainlock
 *             anon_vma->lock
 *               swap_lock
 *                 tree_lock
 *             lru_lock
 *           PG_maplock
 *             anon_vma->lock
 *             lru_lock
 *       i_mmap_lock
 *         page_table_lock
 *       mmlist_lock
 *
 * mmlist_lock (2.6.9's kernel/fork.c) guards the list of every mm that
 * swapoff walks: fork takes it under the parent's mmap_sem, swapoff with
 * the page it is unusing locked; nothing is taken under it.
 *
 * i_mmap_lock is the spinlock that replaced i_shared_sem in 2.6.8 (the
 * mainline designs take one or the other, never both); below it the same
 * tree as below i_shared_sem.
 *
 * i_sem is 2.6's inode semaphore, held by truncate (and by a write whose
 * copy_from_user() faults, hence above mmap_sem). zone->lock and
 * kmem_cache->lock are innermost: allocation may happen under any lock
 * above (GFP_ATOMIC), and nothing is taken under them. A user access
 * (mm_access()) takes none of these: see core/tlbflush.c.
 *
 * This comment is parsed by tests/check_lockdep.c and compared with
 * order_parents[] below: change both or neither.
 */
#include "lockdep.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bug.h"
#include "die.h"
#include "spinlock.h"
#include "task.h"

bool __lockdep_on = true;	/* relaxed atomic */

#define NR_NODES	(LOCK_CLASS_MAX * LOCKDEP_MAX_SUBCLASS)
#define NODE_WORDS	((NR_NODES + 63) / 64)

struct lock_class {
	const char *name;		/* set at registration, then read-only */
	bool in_order;			/* part of the documented order */
	bool innermost;
	uint64_t parents;		/* documented parents: class bit mask */
	uint64_t ancestors;		/* closure of parents */
};

_Static_assert(LOCK_CLASS_MAX <= 64, "class masks are one word");

/* graph_lock: a harness pthread mutex, never an emulated lock. */
static pthread_mutex_t graph_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lock_class classes[LOCK_CLASS_MAX];	/* graph_lock for writers */
static int nr_classes;					/* atomic */

/* dep[a][w]: bit b set when node a -> node b was seen. Atomic words. */
static uint64_t dep[NR_NODES][NODE_WORDS];
/* Sites of each edge's first occurrence: graph_lock. */
struct edge_site {
	const char *held_file;
	int held_line;
	const char *file;
	int line;
};
static struct edge_site edge_sites[NR_NODES][NR_NODES];
/* Pairs already reported, so a bad edge is reported once: graph_lock. */
static uint64_t reported[NR_NODES][NODE_WORDS];

struct order_entry {
	int cls;
	const char *name;
	int parents[2];		/* -1 terminated */
	bool innermost;
};

/* The tree in the comment above, as data. */
static const struct order_entry order_table[] = {
	{ LOCK_CLASS_I_SEM, "i_sem", { -1, -1 }, false },
	{ LOCK_CLASS_MMAP_SEM, "mmap_sem", { LOCK_CLASS_I_SEM, -1 }, false },
	{ LOCK_CLASS_PG_LOCKED, "PG_locked", { LOCK_CLASS_MMAP_SEM, -1 }, false },
	{ LOCK_CLASS_I_SHARED_SEM, "i_shared_sem", { LOCK_CLASS_PG_LOCKED, -1 }, false },
	{ LOCK_CLASS_I_MMAP_LOCK, "i_mmap_lock", { LOCK_CLASS_PG_LOCKED, -1 }, false },
	{ LOCK_CLASS_PAGE_TABLE_LOCK, "page_table_lock",
	  { LOCK_CLASS_I_SHARED_SEM, LOCK_CLASS_I_MMAP_LOCK }, false },
	{ LOCK_CLASS_PG_CHAINLOCK, "PG_chainlock", { LOCK_CLASS_PAGE_TABLE_LOCK, -1 }, false },
	{ LOCK_CLASS_PG_MAPLOCK, "PG_maplock", { LOCK_CLASS_PAGE_TABLE_LOCK, -1 }, false },
	{ LOCK_CLASS_ANON_VMA_LOCK, "anon_vma->lock",
	  { LOCK_CLASS_PG_CHAINLOCK, LOCK_CLASS_PG_MAPLOCK }, false },
	{ LOCK_CLASS_LRU_LOCK, "lru_lock",
	  { LOCK_CLASS_PG_CHAINLOCK, LOCK_CLASS_PG_MAPLOCK }, false },
	{ LOCK_CLASS_SWAP_LOCK, "swap_lock", { LOCK_CLASS_ANON_VMA_LOCK, -1 }, false },
	{ LOCK_CLASS_TREE_LOCK, "tree_lock", { LOCK_CLASS_SWAP_LOCK, -1 }, false },
	{ LOCK_CLASS_ZONE_LOCK, "zone->lock", { -1, -1 }, true },
	{ LOCK_CLASS_SLAB_LOCK, "kmem_cache->lock", { -1, -1 }, true },
	{ LOCK_CLASS_MMLIST_LOCK, "mmlist_lock", { LOCK_CLASS_PG_LOCKED, -1 }, false },
};

/*
 * 2.6.9's order (the mainline9 design: the rmaplock series), from the
 * comment at the top of its mm/rmap.c: no PG_maplock; anon_vma->lock
 * outside page_table_lock (anon_vma_prepare(), and reclaim, which takes
 * page_table_lock blocking under it); i_mmap_lock outside anon_vma->lock.
 * The tree, and its twin at the top of core/rmap_mainline9.c:
 *
 *   i_sem > mmap_sem > PG_locked > i_shared_sem | i_mmap_lock;
 *   i_mmap_lock > anon_vma->lock > page_table_lock > PG_chainlock,
 *   PG_maplock (unused), lru_lock, swap_lock > tree_lock;
 *   PG_locked > mmlist_lock
 */
static const struct order_entry order_table_269[] = {
	{ LOCK_CLASS_I_SEM, "i_sem", { -1, -1 }, false },
	{ LOCK_CLASS_MMAP_SEM, "mmap_sem", { LOCK_CLASS_I_SEM, -1 }, false },
	{ LOCK_CLASS_PG_LOCKED, "PG_locked", { LOCK_CLASS_MMAP_SEM, -1 }, false },
	{ LOCK_CLASS_I_SHARED_SEM, "i_shared_sem", { LOCK_CLASS_PG_LOCKED, -1 }, false },
	{ LOCK_CLASS_I_MMAP_LOCK, "i_mmap_lock", { LOCK_CLASS_PG_LOCKED, -1 }, false },
	{ LOCK_CLASS_ANON_VMA_LOCK, "anon_vma->lock", { LOCK_CLASS_I_MMAP_LOCK, -1 }, false },
	{ LOCK_CLASS_PAGE_TABLE_LOCK, "page_table_lock",
	  { LOCK_CLASS_I_SHARED_SEM, LOCK_CLASS_ANON_VMA_LOCK }, false },
	{ LOCK_CLASS_PG_CHAINLOCK, "PG_chainlock", { LOCK_CLASS_PAGE_TABLE_LOCK, -1 }, false },
	{ LOCK_CLASS_PG_MAPLOCK, "PG_maplock", { LOCK_CLASS_PAGE_TABLE_LOCK, -1 }, false },
	{ LOCK_CLASS_LRU_LOCK, "lru_lock", { LOCK_CLASS_PAGE_TABLE_LOCK, -1 }, false },
	{ LOCK_CLASS_SWAP_LOCK, "swap_lock", { LOCK_CLASS_PAGE_TABLE_LOCK, -1 }, false },
	{ LOCK_CLASS_TREE_LOCK, "tree_lock", { LOCK_CLASS_SWAP_LOCK, -1 }, false },
	{ LOCK_CLASS_ZONE_LOCK, "zone->lock", { -1, -1 }, true },
	{ LOCK_CLASS_SLAB_LOCK, "kmem_cache->lock", { -1, -1 }, true },
	{ LOCK_CLASS_MMLIST_LOCK, "mmlist_lock", { LOCK_CLASS_PG_LOCKED, -1 }, false },
};

static pthread_once_t classes_once = PTHREAD_ONCE_INIT;
static enum lockdep_order cur_order;	/* graph_lock; read before threads run */

/* Parents and ancestors of every class from @t. graph_lock held, or at init. */
static void load_order(const struct order_entry *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct order_entry *e = &t[i];
		struct lock_class *c = &classes[e->cls];

		c->name = e->name;
		c->in_order = true;
		c->innermost = e->innermost;
		c->parents = 0;
		for (int p = 0; p < 2; p++)
			if (e->parents[p] >= 0)
				c->parents |= 1ULL << e->parents[p];
	}
	/* Ancestors: the closure, by iteration to a fixed point. */
	for (int c = 0; c < LOCK_CLASS_NR_STATIC; c++)
		classes[c].ancestors = classes[c].parents;
	for (bool changed = true; changed; ) {
		changed = false;
		for (int c = 0; c < LOCK_CLASS_NR_STATIC; c++) {
			uint64_t a = classes[c].ancestors;

			for (int p = 0; p < LOCK_CLASS_NR_STATIC; p++)
				if (a & (1ULL << p))
					a |= classes[p].ancestors;
			if (a != classes[c].ancestors) {
				classes[c].ancestors = a;
				changed = true;
			}
		}
	}
	/* Classes registered at run time: one parent each, below the static ones. */
	for (int c = LOCK_CLASS_NR_STATIC; c < __atomic_load_n(&nr_classes, __ATOMIC_RELAXED); c++)
		if (classes[c].in_order && classes[c].parents)
			classes[c].ancestors = classes[c].parents |
				classes[__builtin_ctzll(classes[c].parents)].ancestors;
}

static void classes_init(void)
{
	_Static_assert(ARRAY_SIZE(order_table) == LOCK_CLASS_NR_STATIC,
		       "every static class is in the order table");
	_Static_assert(ARRAY_SIZE(order_table_269) == LOCK_CLASS_NR_STATIC,
		       "every static class is in 2.6.9's order table");
	load_order(order_table, ARRAY_SIZE(order_table));
	__atomic_store_n(&nr_classes, LOCK_CLASS_NR_STATIC, __ATOMIC_RELEASE);
}

static inline void ensure_classes(void)
{
	RT_PTHREAD(pthread_once(&classes_once, classes_init));
}

static void reset_graph_locked(void);

void lockdep_set_order(enum lockdep_order order)
{
	ensure_classes();
	RT_PTHREAD(pthread_mutex_lock(&graph_lock));
	if (order != cur_order) {
		if (order == LOCKDEP_ORDER_2_6_9)
			load_order(order_table_269, ARRAY_SIZE(order_table_269));
		else
			load_order(order_table, ARRAY_SIZE(order_table));
		cur_order = order;
		/* Edges learnt under the other order say nothing about this one. */
		reset_graph_locked();
	}
	RT_PTHREAD(pthread_mutex_unlock(&graph_lock));
}

void lockdep_set_enabled(bool on)
{
	__atomic_store_n(&__lockdep_on, on, __ATOMIC_RELAXED);
}

bool lockdep_enabled(void)
{
	return __atomic_load_n(&__lockdep_on, __ATOMIC_RELAXED);
}

int lockdep_register_class(const char *name, int parent)
{
	int id;

	ensure_classes();
	RT_PTHREAD(pthread_mutex_lock(&graph_lock));
	id = __atomic_load_n(&nr_classes, __ATOMIC_RELAXED);
	if (id >= LOCK_CLASS_MAX || (parent >= id)) {
		RT_PTHREAD(pthread_mutex_unlock(&graph_lock));
		return -1;
	}
	classes[id].name = name;
	if (parent >= 0 && classes[parent].in_order) {
		classes[id].in_order = true;
		classes[id].parents = 1ULL << parent;
		classes[id].ancestors = classes[id].parents | classes[parent].ancestors;
	}
	/* Release pairs with the acquire in lock_class_name()/lock_class_count(). */
	__atomic_store_n(&nr_classes, id + 1, __ATOMIC_RELEASE);
	RT_PTHREAD(pthread_mutex_unlock(&graph_lock));
	return id;
}

int lock_class_count(void)
{
	ensure_classes();
	return __atomic_load_n(&nr_classes, __ATOMIC_ACQUIRE);
}

const char *lock_class_name(int class_id)
{
	if (class_id < 0 || class_id >= lock_class_count())
		return "?";
	return classes[class_id].name;
}

int lock_class_by_name(const char *name)
{
	int n = lock_class_count();

	for (int i = 0; i < n; i++)
		if (!strcmp(classes[i].name, name))
			return i;
	return -1;
}

int lockdep_order_parent(int class_id)
{
	uint64_t p;

	if (class_id < 0 || class_id >= lock_class_count())
		return -1;
	p = classes[class_id].parents;
	return p ? __builtin_ctzll(p) : -1;
}

uint64_t lockdep_order_parents_mask(int class_id)
{
	if (class_id < 0 || class_id >= lock_class_count())
		return 0;
	return classes[class_id].parents;
}

bool lockdep_order_allows(int outer, int inner)
{
	const struct lock_class *o, *i;

	if (outer < 0 || inner < 0 || outer >= lock_class_count() ||
	    inner >= lock_class_count() || outer == inner)
		return false;
	o = &classes[outer];
	i = &classes[inner];
	if (o->innermost)
		return false;
	if (i->innermost)
		return true;
	if (!o->in_order || !i->in_order)
		return true;	/* undocumented: only cycles are checked */
	return (i->ancestors >> outer) & 1;
}

static inline int node_of(int cls, int sub)
{
	return cls * LOCKDEP_MAX_SUBCLASS + sub;
}

/*
 * TSan and lockdep. lock_acquire(), lock_release(), lock_is_held() and
 * edge_present() are not watched by TSan (RT_NOTSAN): they touch only
 * lockdep's tables (the dependency bits, the edge sites, the task's
 * held-lock stack), never model data (instance is compared, never
 * dereferenced). Watched, the acquire load of a dependency word would
 * pair with the release that published the edge and hand TSan a
 * happens-before edge from the first task that took two classes in some
 * order to every later task that takes them: an order the model does not
 * have, which could hide a race of the model. Unwatched, TSan sees only
 * the model's own synchronisation (and graph_lock, a pthread mutex taken
 * only when an edge is new: its interceptor still runs). check_new_edge()
 * and the reports it emits stay instrumented.
 */
static inline RT_NOTSAN bool edge_present(int a, int b)
{
	return __atomic_load_n(&dep[a][b / 64], __ATOMIC_ACQUIRE) & (1ULL << (b % 64));
}

bool lockdep_has_edge(int a, int b)
{
	for (int sa = 0; sa < LOCKDEP_MAX_SUBCLASS; sa++)
		for (int sb = 0; sb < LOCKDEP_MAX_SUBCLASS; sb++)
			if (edge_present(node_of(a, sa), node_of(b, sb)))
				return true;
	return false;
}

static void reset_graph_locked(void)
{
	for (int a = 0; a < NR_NODES; a++)
		for (int w = 0; w < NODE_WORDS; w++) {
			__atomic_store_n(&dep[a][w], 0, __ATOMIC_RELAXED);
			reported[a][w] = 0;
		}
	memset(edge_sites, 0, sizeof(edge_sites));
}

void lockdep_reset_graph(void)
{
	RT_PTHREAD(pthread_mutex_lock(&graph_lock));
	reset_graph_locked();
	RT_PTHREAD(pthread_mutex_unlock(&graph_lock));
}

/* Path from @from to @to in the graph; fills @via with the first hop. graph_lock. */
static bool reachable(int from, int to, int *first_hop)
{
	int queue[NR_NODES], parent_hop[NR_NODES];
	bool seen[NR_NODES] = { false };
	int head = 0, tail = 0;

	queue[tail++] = from;
	seen[from] = true;
	parent_hop[from] = -1;
	while (head < tail) {
		int n = queue[head++];

		for (int m = 0; m < NR_NODES; m++) {
			if (seen[m] || !edge_present(n, m))
				continue;
			seen[m] = true;
			parent_hop[m] = n == from ? m : parent_hop[n];
			if (m == to) {
				*first_hop = parent_hop[m];
				return true;
			}
			queue[tail++] = m;
		}
	}
	return false;
}

static const char *node_name(int node, char *buf, size_t len)
{
	int cls = node / LOCKDEP_MAX_SUBCLASS, sub = node % LOCKDEP_MAX_SUBCLASS;

	if (sub)
		snprintf(buf, len, "%s/%d", lock_class_name(cls), sub);
	else
		snprintf(buf, len, "%s", lock_class_name(cls));
	return buf;
}

static bool mark_reported(int a, int b)
{
	uint64_t bit = 1ULL << (b % 64);

	if (reported[a][b / 64] & bit)
		return false;
	reported[a][b / 64] |= bit;
	return true;
}

/* Slow path: the edge held -> new is not in the graph yet. graph_lock held. */
static void check_new_edge(const struct held_lock *h, int cls, int sub,
			   const char *file, int line)
{
	int a = node_of(h->class_id, h->subclass), b = node_of(cls, sub);
	char an[48], bn[48];
	struct vm_report r;
	int hop;

	if (edge_present(a, b))
		return;
	node_name(a, an, sizeof(an));
	node_name(b, bn, sizeof(bn));
	memset(&r, 0, sizeof(r));
	r.sites[0] = (struct vm_report_site){ .what = lock_class_name(h->class_id),
		.file = h->file, .line = h->line };
	r.sites[1] = (struct vm_report_site){ .what = lock_class_name(cls),
		.file = file, .line = line };
	r.nr_sites = 2;

	if (h->class_id == cls && h->subclass >= sub) {
		if (mark_reported(a, b)) {
			r.kind = VM_REPORT_LOCKDEP_RECURSION;
			snprintf(r.message, sizeof(r.message),
				 "possible recursive locking: acquiring %s at %s:%d while holding %s taken at %s:%d, no nesting annotation",
				 bn, file, line, an, h->file, h->line);
			snprintf(r.signature, sizeof(r.signature),
				 "lockdep-recursion:%s", lock_class_name(cls));
			vm_report_emit(&r);
		}
		return;		/* never add a self edge */
	}
	if (h->class_id != cls && !lockdep_order_allows(h->class_id, cls) &&
	    classes[h->class_id].in_order && classes[cls].in_order) {
		if (mark_reported(a, b)) {
			r.kind = VM_REPORT_LOCKDEP_ORDER;
			snprintf(r.message, sizeof(r.message),
				 "lock order violation: %s acquired at %s:%d while holding %s taken at %s:%d; the documented order puts %s outside %s",
				 bn, file, line, an, h->file, h->line,
				 lock_class_name(cls), lock_class_name(h->class_id));
			snprintf(r.signature, sizeof(r.signature),
				 "lockdep-order:%s->%s", an, bn);
			vm_report_emit(&r);
		}
	} else if (reachable(b, a, &hop)) {
		if (mark_reported(a, b)) {
			const struct edge_site *rev = &edge_sites[b][hop];
			char hn[48];

			r.kind = VM_REPORT_LOCKDEP_CYCLE;
			node_name(hop, hn, sizeof(hn));
			r.sites[2] = (struct vm_report_site){ .what = lock_class_name(cls),
				.file = rev->held_file, .line = rev->held_line };
			r.sites[3] = (struct vm_report_site){
				.what = lock_class_name(hop / LOCKDEP_MAX_SUBCLASS),
				.file = rev->file, .line = rev->line };
			r.nr_sites = 4;
			snprintf(r.message, sizeof(r.message),
				 "possible circular locking dependency: %s (held, %s:%d) -> %s (%s:%d), but %s (held, %s:%d) -> %s (%s:%d) was seen before",
				 an, h->file, h->line, bn, file, line,
				 bn, rev->held_file ? rev->held_file : "?", rev->held_line,
				 hn, rev->file ? rev->file : "?", rev->line);
			/* Name the pair in a fixed order so both directions match. */
			snprintf(r.signature, sizeof(r.signature), "lockdep-cycle:%s<->%s",
				 strcmp(an, bn) < 0 ? an : bn, strcmp(an, bn) < 0 ? bn : an);
			vm_report_emit(&r);
		}
		return;		/* keep the graph acyclic: the report is the record */
	}
	edge_sites[a][b] = (struct edge_site){ h->file, h->line, file, line };
	/* Release pairs with the acquire in edge_present(): sites before bit. */
	__atomic_fetch_or(&dep[a][b / 64], 1ULL << (b % 64), __ATOMIC_RELEASE);
}

RT_NOTSAN void lock_check_order(int class_id, int subclass, const char *file, int line)
{
	struct task_struct *t = current;
	int depth = t->lockdep_depth, b;

	ensure_classes();
	BUG_ON(class_id < 0 || class_id >= LOCK_CLASS_MAX);
	BUG_ON(subclass < 0 || subclass >= LOCKDEP_MAX_SUBCLASS);
	b = node_of(class_id, subclass);
	for (int i = 0; i < depth; i++) {
		const struct held_lock *held = &t->held_locks[i];
		int a = node_of(held->class_id, held->subclass);

		if (likely(edge_present(a, b)))
			continue;
		RT_PTHREAD(pthread_mutex_lock(&graph_lock));
		check_new_edge(held, class_id, subclass, file, line);
		RT_PTHREAD(pthread_mutex_unlock(&graph_lock));
	}
}

RT_NOTSAN void lock_acquire(const void *instance, int class_id, int subclass,
			    enum lock_acquire_mode mode, bool read,
			    const char *file, int line)
{
	struct task_struct *t = current;
	int depth = t->lockdep_depth;
	struct held_lock *h;

	ensure_classes();
	BUG_ON(class_id < 0 || class_id >= LOCK_CLASS_MAX);
	BUG_ON(subclass < 0 || subclass >= LOCKDEP_MAX_SUBCLASS);
	BUG_ON(depth >= MAX_LOCK_DEPTH);	/* far beyond any real path */

	if (mode == LOCK_ACQ_BLOCKING)
		lock_check_order(class_id, subclass, file, line);
	h = &t->held_locks[depth];
	WRITE_ONCE(h->instance, instance);
	WRITE_ONCE(h->file, file);
	WRITE_ONCE(h->line, line);
	WRITE_ONCE(h->class_id, (uint16_t)class_id);
	WRITE_ONCE(h->subclass, (uint8_t)subclass);
	WRITE_ONCE(h->flags, (uint8_t)((mode == LOCK_ACQ_TRY ? HELD_TRYLOCK : 0) |
				      (read ? HELD_READ : 0)));
	WRITE_ONCE(t->lockdep_depth, depth + 1);
}

RT_NOTSAN void lock_release(const void *instance, int class_id, const char *file, int line)
{
	struct task_struct *t = current;
	int depth = t->lockdep_depth;
	struct vm_report r;

	for (int i = depth - 1; i >= 0; i--) {
		if (t->held_locks[i].instance != instance)
			continue;
		for (int j = i; j < depth - 1; j++) {
			struct held_lock *d = &t->held_locks[j];
			const struct held_lock *s = &t->held_locks[j + 1];

			WRITE_ONCE(d->instance, s->instance);
			WRITE_ONCE(d->file, s->file);
			WRITE_ONCE(d->line, s->line);
			WRITE_ONCE(d->class_id, s->class_id);
			WRITE_ONCE(d->subclass, s->subclass);
			WRITE_ONCE(d->flags, s->flags);
		}
		WRITE_ONCE(t->lockdep_depth, depth - 1);
		return;
	}
	memset(&r, 0, sizeof(r));
	r.kind = VM_REPORT_LOCKDEP_UNHELD;
	snprintf(r.message, sizeof(r.message),
		 "bad unlock balance: releasing %s at %s:%d, which this task does not hold",
		 lock_class_name(class_id), file, line);
	snprintf(r.signature, sizeof(r.signature), "lockdep-unheld-release:%s",
		 lock_class_name(class_id));
	r.nr_sites = 1;
	r.sites[0] = (struct vm_report_site){ .what = lock_class_name(class_id),
		.file = file, .line = line };
	vm_report_emit(&r);
}

RT_NOTSAN bool lock_is_held(const void *instance)
{
	struct task_struct *t = current;

	for (int i = 0; i < t->lockdep_depth; i++)
		if (t->held_locks[i].instance == instance)
			return true;
	return false;
}

int lockdep_depth(void)
{
	return current->lockdep_depth;
}

/*
 * Locks by address (lockdep_class_of()). TSan's reports name a lock by
 * its address only; these tables name its class. Like lock_acquire(),
 * unwatched by TSan (RT_NOTSAN): they touch only lockdep's own tables, and
 * lockdep_class_of() runs inside TSan's report hook.
 *
 * lock_names: open addressing, LOCK_NAME_PROBE slots from the key's hash;
 * each slot one word, key << 8 | size code << 6 | (class + 1), 0 when
 * empty, so that a reader never sees half an entry (size code: the
 * object's size, 0 unknown, 1..3 up to 8, 16, 32 bytes). A key found
 * again is updated in place; with no free slot the first of its probe
 * window is replaced. Entries are never removed: a freed lock's stays
 * until its memory holds a lock again (see lockdep_class_within()).
 */
#define LOCK_NAME_BITS		15
#define LOCK_NAME_SLOTS		(1u << LOCK_NAME_BITS)
#define LOCK_NAME_PROBE		8

static uint64_t lock_names[LOCK_NAME_SLOTS];	/* relaxed atomics */

struct lock_array {
	const char *base;	/* release-published last; NULL when free */
	size_t nr, stride;
	int nr_keys;
	struct lockdep_array_key keys[LOCKDEP_ARRAY_MAX_KEYS];
};

#define LOCK_ARRAYS	4
static struct lock_array lock_arrays[LOCK_ARRAYS];	/* graph_lock for writers */

static inline unsigned int lock_name_hash(uintptr_t key)
{
	return (unsigned int)((key * 0x9E3779B97F4A7C15ull) >> (64 - LOCK_NAME_BITS));
}

_Static_assert(LOCK_CLASS_MAX < 64, "class + 1 fits an entry's six bits");

static inline unsigned int lock_size_code(size_t size)
{
	return !size ? 0 : size <= 8 ? 1 : size <= 16 ? 2 : 3;
}

/* Is the table kept (lockdep_names_enable())? Relaxed: a switch, not an order. */
static int lock_names_on = RT_TSAN;

void lockdep_names_enable(bool on)
{
	__atomic_store_n(&lock_names_on, on, __ATOMIC_RELAXED);
}

void lockdep_note_lock(const void *key, size_t size, int class_id)
{
	if (__atomic_load_n(&lock_names_on, __ATOMIC_RELAXED))
		lockdep_note_static_lock(key, size, class_id);
}

RT_NOTSAN void lockdep_note_static_lock(const void *key, size_t size, int class_id)
{
	uintptr_t k = (uintptr_t)key;
	uint64_t want = (uint64_t)k << 8 | lock_size_code(size) << 6 | (uint64_t)(class_id + 1);
	unsigned int h = lock_name_hash(k), empty = LOCK_NAME_SLOTS;

	if (!k || k >> 56 || class_id < 0 || class_id >= LOCK_CLASS_MAX)
		return;
	for (unsigned int i = 0; i < LOCK_NAME_PROBE; i++) {
		unsigned int s = (h + i) & (LOCK_NAME_SLOTS - 1);
		uint64_t v = __atomic_load_n(&lock_names[s], __ATOMIC_RELAXED);

		if (v >> 8 == k) {
			if (v != want)
				__atomic_store_n(&lock_names[s], want, __ATOMIC_RELAXED);
			return;
		}
		if (!v && empty == LOCK_NAME_SLOTS)
			empty = s;
	}
	if (empty != LOCK_NAME_SLOTS) {
		uint64_t zero = 0;

		if (__atomic_compare_exchange_n(&lock_names[empty], &zero, want, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return;
	}
	__atomic_store_n(&lock_names[h], want, __ATOMIC_RELAXED);
}

int lockdep_register_lock_array(const void *base, size_t nr, size_t stride,
				const struct lockdep_array_key *keys, int nr_keys)
{
	int ret = -ENOSPC;

	if (!base || !stride || nr_keys < 0 || nr_keys > LOCKDEP_ARRAY_MAX_KEYS)
		return -EINVAL;
	RT_PTHREAD(pthread_mutex_lock(&graph_lock));
	for (int i = 0; i < LOCK_ARRAYS; i++) {
		struct lock_array *a = &lock_arrays[i];

		if (__atomic_load_n(&a->base, __ATOMIC_RELAXED))
			continue;
		a->nr = nr;
		a->stride = stride;
		a->nr_keys = nr_keys;
		memcpy(a->keys, keys, (size_t)nr_keys * sizeof(*keys));
		/* Release pairs with the acquire in lockdep_class_of(): fields before base. */
		__atomic_store_n(&a->base, (const char *)base, __ATOMIC_RELEASE);
		ret = 0;
		break;
	}
	RT_PTHREAD(pthread_mutex_unlock(&graph_lock));
	return ret;
}

void lockdep_unregister_lock_array(const void *base)
{
	RT_PTHREAD(pthread_mutex_lock(&graph_lock));
	for (int i = 0; i < LOCK_ARRAYS; i++)
		if (__atomic_load_n(&lock_arrays[i].base, __ATOMIC_RELAXED) == base)
			__atomic_store_n(&lock_arrays[i].base, NULL, __ATOMIC_RELAXED);
	RT_PTHREAD(pthread_mutex_unlock(&graph_lock));
}

/* The table's entry for @k, or 0. */
static RT_NOTSAN uint64_t lock_name_entry(uintptr_t k)
{
	unsigned int h = lock_name_hash(k);

	if (!k || k >> 56)
		return 0;
	for (unsigned int i = 0; i < LOCK_NAME_PROBE; i++) {
		uint64_t v = __atomic_load_n(&lock_names[(h + i) & (LOCK_NAME_SLOTS - 1)],
					     __ATOMIC_RELAXED);

		if (v >> 8 == k)
			return v;
	}
	return 0;
}

RT_NOTSAN int lockdep_class_within(const void *addr)
{
	uintptr_t a = (uintptr_t)addr;

	for (uintptr_t d = 0; d < 32 && d <= a; d++) {
		uint64_t v = lock_name_entry(a - d);
		unsigned int code = (unsigned int)(v >> 6) & 3;

		if (v && (d == 0 || (code && d < (4u << code))))
			return (int)(v & 0x3f) - 1;
	}
	return -1;
}

RT_NOTSAN int lockdep_class_of(const void *key)
{
	uint64_t v;

	for (int i = 0; i < LOCK_ARRAYS; i++) {
		const struct lock_array *a = &lock_arrays[i];
		/* Acquire pairs with the release in lockdep_register_lock_array(). */
		const char *base = __atomic_load_n(&a->base, __ATOMIC_ACQUIRE);
		size_t off;

		if (!base || (const char *)key < base ||
		    (size_t)((const char *)key - base) >= a->nr * a->stride)
			continue;
		off = (size_t)((const char *)key - base) % a->stride;
		for (int j = 0; j < a->nr_keys; j++)
			if (a->keys[j].offset == off)
				return a->keys[j].class_id;
	}
	v = lock_name_entry((uintptr_t)key);
	return v ? (int)(v & 0x3f) - 1 : -1;
}
