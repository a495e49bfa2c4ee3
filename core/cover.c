// SPDX-License-Identifier: MIT
/*
 * Interleaving coverage (cover.h).
 *
 * Kept out of ThreadSanitizer. Every function here that touches the
 * coverage tables is no_sanitize_thread (COVER_NOTSAN), which in gcc and
 * clang drops the instrumentation of its plain and atomic accesses alike.
 * Why that cannot hide a race of the model:
 *  - these functions read and write only the coverage tables below, which
 *    nothing in the model reads; object pointers are hashed, never
 *    dereferenced (a lock's object is found by pointer arithmetic);
 *  - every access here is a relaxed atomic, so even instrumented they
 *    would give TSan no happens-before edge between two model threads;
 *    uninstrumented they give none either: the model's synchronisation
 *    TSan sees is exactly what it saw without coverage;
 *  - what TSan would lose is a race on the tables themselves, which are
 *    harness bookkeeping whose races are benign by design (a torn view
 *    costs a pair, see cover.h).
 * The only instrumented coverage access left is the inline check of
 * cover_enabled in cover.h, a relaxed load.
 */
#include "cover.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon_vma.h"
#include "fs.h"
#include "lockdep.h"
#include "mm.h"
#include "page.h"
#include "page_alloc.h"
#include "task.h"

#define COVER_NOTSAN	RT_NOTSAN

#define RLX(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define SET(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define INC(x)		SET((x), RLX(x) + 1)	/* single writer */

int cover_enabled;

/* ---- sites: interned by (file or name, line, label, class) ---- */

#define SITE_SLOTS	(2 * COVER_MAX_SITES)	/* open addressing, half full at most */
#define SITE_DROPPED	(COVER_MAX_SITES + 1)
#define SCACHE		64			/* per-CPU site cache, a power of two */

static uint64_t site_key[SITE_SLOTS];		/* 0 free; CAS to claim */
static int site_slot_id[SITE_SLOTS];		/* id + 1 once published; SITE_DROPPED */
static struct cover_site_info site_info[COVER_MAX_SITES];
static int nr_sites;
static int kind_sites[COVER_NR_KINDS];		/* sites of each object kind */
static int site_partners[COVER_MAX_SITES];	/* distinct pairs it is in */
static unsigned long dropped_sites;

/* ---- operation names ---- */

static const char *op_names[COVER_MAX_OPS + 1];	/* the last stays NULL */

/* ---- the window table: one entry per (object, CPU), COVER_WAYS per bucket ---- */

/*
 * 1 MiB for real threads (it stays in the cache); 8 MiB under a
 * deterministic schedule, where a bucket with more than COVER_WAYS open
 * windows would make the coverage, and the cover schedule, depend on
 * where the allocator put the objects (cover_reset_exact()).
 */
#define WIN_BUCKETS_FAST	(1u << 14)
#define WIN_BUCKETS_MAX		(1u << 17)
#define COVER_WAYS	8
#define SEQ_BITS	20
#define SEQ_MASK	((1u << SEQ_BITS) - 1)
/* entry: tag:24 | site+1:12 | cpu:8 | seq:20; 0 is empty */
#define E_TAG(e)	((uint32_t)((e) >> 40))
#define E_SITE(e)	((int)(((e) >> 28) & 0xfff) - 1)
#define E_CPU(e)	((int)(((e) >> 20) & 0xff))
#define E_SEQ(e)	((uint32_t)((e) & SEQ_MASK))

static uint64_t win[WIN_BUCKETS_MAX][COVER_WAYS] ____cacheline_aligned;
static unsigned int win_buckets = WIN_BUCKETS_FAST;	/* set while no thread runs */
/*
 * Exact mode (a deterministic schedule), set while no thread runs: each
 * entry's object by its address and kind (win_key), not a tag of a hash;
 * a bucket whose ways all held open windows when one more was needed
 * spilled into the next bucket (win_spill), for good: lookups go on there.
 */
static bool win_exact;
static uint64_t win_key[WIN_BUCKETS_MAX][COVER_WAYS];
static unsigned char win_spill[WIN_BUCKETS_MAX];
/*
 * Sites only (cover_reset_sites_only()), set while no thread runs: no
 * window is opened and so no pair counted. win_dirty: the window table,
 * the pair bitmap or a CPU's pair table may hold something since the
 * last reset (always, unless the run since recorded sites only).
 */
static bool win_off;
static bool win_dirty = true;

_Static_assert(COVER_NR_KINDS <= 8, "exact_key() keeps the kind in 3 bits");

/* ---- the pairs ---- */

#define PAIR_BITS	((size_t)COVER_MAX_SITES * (COVER_MAX_SITES + 1) / 2)
static uint64_t covered[(PAIR_BITS + 63) / 64];
static unsigned long distinct;

struct pair_ent {
	uint64_t key;		/* 1 + pair:22 | op_a:6 << 22 | op_b:6 << 28; 0 free */
	unsigned long count;
};

/*
 * What other CPUs read of a CPU: written by its owner only at operation
 * boundaries, in a line of its own (the owner's counters below change at
 * every event and must not make these lines bounce).
 */
struct cover_pub {
	uint32_t seq;		/* bumped at every operation start and end */
	int in_op;
	int op;			/* operation id in flight, -1 none */
} ____cacheline_aligned;

struct cover_cpu {
	/* Owner only (the schedule reads its own). */
	bool touched;		/* since the last reset (my_cpu()): it needs clearing */
	int last_site, last_uncovered;
	/* Objects of the sites since the last cover_take_last(); > COVER_SEG_OBJS: too many. */
	const void *seg_obj[COVER_SEG_OBJS];
	int nr_seg_obj;
	const void *last_obj;	/* the object of the last site */
	const void *intent;	/* cover_lock_intent() */
	int intent_cls;
	bool last_new, last_contact;
	unsigned long events, hits, dropped_pairs, evicted_open;
	int nr_pairs;
	struct pair_ent *pairs;
	/* The last pair counted: a repeat skips the table and the bitmap. */
	uint64_t last_key;
	struct pair_ent *last_ent;
	/* Recent sites: (file or name, line, label, class and kind) -> id. */
	struct site_cache {
		const char *file, *label;
		int line, cls_kind, id;
	} scache[SCACHE];
} ____cacheline_aligned;

static struct cover_pub pub[COVER_MAX_CPUS];
static struct cover_cpu cpus[COVER_MAX_CPUS];
/* Each CPU's pair table, allocated at its first operation, kept across runs. */
static struct pair_ent *pair_tab[COVER_MAX_CPUS];

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static size_t pair_index(int a, int b)
{
	if (a > b) {
		int t = a;

		a = b;
		b = t;
	}
	return (size_t)b * (size_t)(b + 1) / 2 + (size_t)a;
}

/*
 * The CPU's slot: its deterministic scheduler slot when it has one (the
 * same thread gets the same slot in every run of a seed, so the choices
 * that depend on it, a full bucket's victim, repeat), else its task id,
 * in the upper half so that no unscheduled task shares a scheduled one's.
 */
static inline struct cover_cpu *my_cpu(void)
{
	struct task_struct *t = current;
	int slot = READ_ONCE(t->sched_slot);
	struct cover_cpu *c;

	/* Slots in the lower half, other tasks (RCU callbacks, tests) above. */
	if (slot >= 0)
		c = &cpus[(unsigned int)slot % (COVER_MAX_CPUS / 2)];
	else
		c = &cpus[COVER_MAX_CPUS / 2 + (unsigned int)t->id % (COVER_MAX_CPUS / 2)];
	/* Every write to a CPU's state (and its pub) goes through here. */
	if (!RLX(c->touched))
		SET(c->touched, true);
	return c;
}

static COVER_NOTSAN int site_intern(const char *file, int line, const char *label, int cls,
				    int kind)
{
	uint64_t key = mix64((uint64_t)(uintptr_t)(file ? file : label) ^
			     mix64((uint64_t)(uintptr_t)label + ((uint64_t)(unsigned int)line << 32) +
				   (uint64_t)(cls + 1) * 64 + (uint64_t)kind));
	size_t i = key % SITE_SLOTS;

	if (!key)
		key = 1;
	for (size_t n = 0; n < SITE_SLOTS; n++, i = (i + 1) % SITE_SLOTS) {
		uint64_t k = RLX(site_key[i]);
		int id;

		if (k == 0) {
			uint64_t zero = 0;

			if (!__atomic_compare_exchange_n(&site_key[i], &zero, key, false,
							 __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
				k = zero;
				goto check;
			}
			id = __atomic_fetch_add(&nr_sites, 1, __ATOMIC_RELAXED);
			if (id >= COVER_MAX_SITES) {
				SET(site_slot_id[i], SITE_DROPPED);
				return -1;
			}
			SET(site_info[id].file, file);
			SET(site_info[id].line, line);
			SET(site_info[id].label, label);
			SET(site_info[id].cls, cls);
			SET(site_info[id].kind, kind);
			__atomic_fetch_add(&kind_sites[kind], 1, __ATOMIC_RELAXED);
			SET(site_slot_id[i], id + 1);
			return id;
		}
check:
		if (k != key)
			continue;
		/* Claimed by someone else: wait until its id is published. */
		while (!(id = RLX(site_slot_id[i])))
			cpu_relax();
		return id == SITE_DROPPED ? -1 : id - 1;
	}
	return -1;
}

static COVER_NOTSAN void pair_count(struct cover_cpu *c, int sa, int sb, int oa, int ob)
{
	size_t p = pair_index(sa, sb);
	uint64_t key, h;
	unsigned int i;

	if (sa > sb || (sa == sb && oa > ob)) {
		int t = oa;

		oa = ob;
		ob = t;
	}
	key = 1 + ((uint64_t)p | (uint64_t)(oa & 63) << 22 | (uint64_t)(ob & 63) << 28);
	INC(c->hits);
	if (!c->pairs) {
		INC(c->dropped_pairs);
	} else if (key == c->last_key) {
		INC(c->last_ent->count);
		return;
	}
	h = mix64(key);
	for (i = (unsigned int)h % COVER_CPU_PAIRS; c->pairs; i = (i + 1) % COVER_CPU_PAIRS) {
		struct pair_ent *e = &c->pairs[i];
		uint64_t k = RLX(e->key);

		if (k == key) {
			/* Counted here before: its bit is set already. */
			INC(e->count);
			c->last_key = key;
			c->last_ent = e;
			return;
		}
		if (k == 0) {
			if (RLX(c->nr_pairs) >= COVER_CPU_PAIRS * 3 / 4) {
				INC(c->dropped_pairs);
				break;
			}
			SET(e->count, 1UL);
			SET(e->key, key);
			INC(c->nr_pairs);
			c->last_key = key;
			c->last_ent = e;
			break;
		}
	}
	/* Distinct: one bit per pair, for every CPU. */
	if (!(RLX(covered[p / 64]) & (1ULL << (p % 64))) &&
	    !(__atomic_fetch_or(&covered[p / 64], 1ULL << (p % 64), __ATOMIC_RELAXED) &
	      (1ULL << (p % 64)))) {
		__atomic_fetch_add(&distinct, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&site_partners[sa], 1, __ATOMIC_RELAXED);
		if (sb != sa)
			__atomic_fetch_add(&site_partners[sb], 1, __ATOMIC_RELAXED);
		SET(c->last_new, true);
	}
}

static COVER_NOTSAN bool entry_open(uint64_t e)
{
	struct cover_pub *x = &pub[E_CPU(e)];

	return RLX(x->in_op) && E_SEQ(e) == (RLX(x->seq) & SEQ_MASK);
}

/* @obj into the CPU's objects of this segment (cover_take_last()). */
static COVER_NOTSAN void seg_add(struct cover_cpu *c, const void *obj)
{
	int n = RLX(c->nr_seg_obj);

	SET(c->last_obj, obj);
	for (int i = 0; i < n && i < COVER_SEG_OBJS; i++)
		if (RLX(c->seg_obj[i]) == obj)
			return;
	if (n < COVER_SEG_OBJS)
		SET(c->seg_obj[n], obj);
	if (n <= COVER_SEG_OBJS)
		SET(c->nr_seg_obj, n + 1);
}

/*
 * The window table, as real threads use it: a 24-bit tag tells objects
 * apart, and a bucket with more open windows than ways has one
 * overwritten (counted). Both depend on where the objects lie, which
 * costs a pair now and then and nothing else.
 */
static COVER_NOTSAN void window_fast(struct cover_cpu *c, int me, int site, const void *obj,
				     int kind)
{
	uint64_t h = mix64((uint64_t)(uintptr_t)obj * 31 + (uint64_t)kind), *b, e;
	uint32_t tag = (uint32_t)(h >> 40);
	int mine = -1, empty = -1, victim;

	b = win[h & (win_buckets - 1)];
	for (int w = 0; w < COVER_WAYS; w++) {
		e = RLX(b[w]);
		if (!e) {
			if (empty < 0)
				empty = w;
			continue;
		}
		if (E_TAG(e) != tag)
			continue;
		if (E_CPU(e) == me) {
			mine = w;
			continue;
		}
		if (entry_open(e)) {
			SET(c->last_contact, true);
			pair_count(c, E_SITE(e), site, RLX(pub[E_CPU(e)].op), RLX(pub[me].op));
		}
	}
	victim = mine >= 0 ? mine : empty;
	for (int w = 0; victim < 0 && w < COVER_WAYS; w++)
		if (!entry_open(RLX(b[w])))
			victim = w;
	if (victim < 0) {
		INC(c->evicted_open);
		victim = (int)((uint32_t)(me + (int)RLX(pub[me].seq)) % COVER_WAYS);
	}
	e = (uint64_t)tag << 40 | (uint64_t)(site + 1) << 28 | (uint64_t)me << 20 |
	    (RLX(pub[me].seq) & SEQ_MASK);
	/* A repeat of this CPU's own entry leaves the line shared. */
	if (RLX(b[victim]) != e)
		SET(b[victim], e);
}

/* Exact mode: an object is its address and its kind. */
static inline uint64_t exact_key(const void *obj, int kind)
{
	return (uint64_t)(uintptr_t)obj << 3 | (uint64_t)kind;
}

static inline unsigned int exact_bucket(uint64_t key)
{
	return (unsigned int)mix64(key) & (win_buckets - 1);
}

/*
 * The window table under a deterministic schedule: every window open on
 * the object is found, wherever it was put, and no open window is ever
 * overwritten. The windows open on an object, and so the pairs, the
 * contacts and the cover schedule's decisions, are then a function of
 * the events alone; where the allocator put the objects only decides
 * where the entries lie.
 */
static COVER_NOTSAN void window_exact(struct cover_cpu *c, int me, int site, const void *obj,
				      int kind)
{
	uint64_t key = exact_key(obj, kind), e;
	unsigned int b = exact_bucket(key), mask = win_buckets - 1;
	uint64_t *slot = NULL, *reuse = NULL, *reuse_key = NULL;

	for (unsigned int n = 0; n < win_buckets; n++) {
		for (int w = 0; w < COVER_WAYS; w++) {
			e = RLX(win[b][w]);
			if (!e || !entry_open(e)) {
				if (!reuse) {
					reuse = &win[b][w];
					reuse_key = &win_key[b][w];
				}
				if (!e)
					continue;
			}
			if (RLX(win_key[b][w]) != key)
				continue;
			if (E_CPU(e) == me) {
				slot = &win[b][w];
				continue;
			}
			if (entry_open(e)) {
				SET(c->last_contact, true);
				pair_count(c, E_SITE(e), site, RLX(pub[E_CPU(e)].op), RLX(pub[me].op));
			}
		}
		if (!RLX(win_spill[b]))
			break;
		b = (b + 1) & mask;
	}
	/* Every way of the chain holds an open window: spill, for good. */
	for (unsigned int n = 0; !slot && !reuse && n < win_buckets; n++) {
		SET(win_spill[b], 1);
		b = (b + 1) & mask;
		for (int w = 0; w < COVER_WAYS && !reuse; w++) {
			e = RLX(win[b][w]);
			if (!e || !entry_open(e)) {
				reuse = &win[b][w];
				reuse_key = &win_key[b][w];
			}
		}
	}
	if (!slot && !reuse) {
		/* A million open windows: the table cannot be exact any more. */
		INC(c->evicted_open);
		reuse = &win[b][0];
		reuse_key = &win_key[b][0];
	}
	e = (uint64_t)(site + 1) << 28 | (uint64_t)me << 20 | (RLX(pub[me].seq) & SEQ_MASK);
	if (!slot) {
		/* The key first: cover_forget() reads it, then the entry. */
		SET(*reuse_key, key);
		slot = reuse;
	}
	if (RLX(*slot) != e)
		SET(*slot, e);
}

/* ---- the footprint (cover.h) ---- */

static struct cover_footprint *footprint;	/* set while no thread of the run runs */

/* One CPU at a time (a deterministic schedule): plain updates of @fp. */
static COVER_NOTSAN void footprint_add(int slot, const void *obj, int kind)
{
	struct cover_footprint *fp = RLX(footprint);

	if (slot >= COVER_FP_SLOTS)
		return;
	for (int i = 0; i < fp->nr; i++) {
		struct cover_fp_ent *e = &fp->e[i];

		if (e->obj == obj && e->kind == kind && e->slot == slot)
			return;
	}
	if (fp->nr >= COVER_FP_MAX) {
		fp->overflow = true;
		return;
	}
	fp->e[fp->nr++] = (struct cover_fp_ent){ obj, kind, slot };
}

COVER_NOTSAN void cover_footprint_record(struct cover_footprint *fp)
{
	if (fp)
		memset(fp, 0, sizeof(*fp));
	SET(footprint, fp);
}

static bool footprint_has(const struct cover_footprint *fp, int s, const void *obj, int kind)
{
	for (int i = 0; i < fp->nr; i++)
		if (fp->e[i].slot == s && fp->e[i].obj == obj && fp->e[i].kind == kind)
			return true;
	return false;
}

int cover_footprint_conflicts(const struct cover_footprint *fp, int a, int b,
			      const void **out, int *kinds, int max)
{
	int n = 0;

	for (int i = 0; i < fp->nr; i++) {
		const struct cover_fp_ent *e = &fp->e[i];

		if (e->slot != a || !footprint_has(fp, b, e->obj, e->kind))
			continue;
		if (n < max) {
			out[n] = e->obj;
			if (kinds)
				kinds[n] = e->kind;
		}
		n++;
	}
	return n;
}

COVER_NOTSAN void __cover_hit(const char *file, int line, const char *label, int cls,
			      const void *obj, int kind)
{
	struct cover_cpu *c = my_cpu();
	int me = (int)(c - cpus), site;

	if (!RLX(pub[me].in_op) || !obj)
		return;
	{
		int ck = cls * 16 + kind;
		struct site_cache *sc = &c->scache[((unsigned int)line ^
						    (unsigned int)((uintptr_t)label >> 3)) % SCACHE];

		if (sc->file == file && sc->label == label && sc->line == line && sc->cls_kind == ck) {
			site = sc->id;
		} else {
			site = site_intern(file, line, label, cls, kind);
			*sc = (struct site_cache){ file, label, line, ck, site };
		}
	}
	INC(c->events);
	if (site < 0) {
		__atomic_fetch_add(&dropped_sites, 1, __ATOMIC_RELAXED);
		return;
	}
	SET(c->last_site, site);
	SET(c->last_contact, false);
	seg_add(c, obj);
	if (unlikely(RLX(footprint) != NULL))
		footprint_add(me, obj, kind);
	if (win_off)
		;	/* sites only: no window, no pair */
	else if (win_exact)
		window_exact(c, me, site, obj, kind);
	else
		window_fast(c, me, site, obj, kind);
	{
		int k = RLX(kind_sites[RLX(site_info[site].kind)]);
		int got = RLX(site_partners[site]);

		SET(c->last_uncovered, k > got ? k - got : 0);
	}
}

/*
 * Exact mode: the windows on whatever lay at @obj are closed, so that
 * the allocator's next object there is new to the coverage. Called
 * before the memory is freed, so before anyone can have it again; the
 * only other writer then is the running CPU, which takes a slot only if
 * it is empty or closed (a CAS that finds it changed leaves it).
 */
COVER_NOTSAN void __cover_forget(const void *obj)
{
	unsigned int mask = win_buckets - 1;

	if (!win_exact)
		return;
	for (int kind = 0; kind < COVER_NR_KINDS; kind++) {
		uint64_t key = exact_key(obj, kind);
		unsigned int b = exact_bucket(key);

		for (unsigned int n = 0; n < win_buckets; n++) {
			for (int w = 0; w < COVER_WAYS; w++) {
				uint64_t e = RLX(win[b][w]);

				if (e && RLX(win_key[b][w]) == key)
					__atomic_compare_exchange_n(&win[b][w], &e, 0, false,
								    __ATOMIC_RELAXED,
								    __ATOMIC_RELAXED);
			}
			if (!RLX(win_spill[b]))
				break;
			b = (b + 1) & mask;
		}
	}
}

static const char *const lock_op_label[] = {
	[COVER_OP_LOCK] = "lock", [COVER_OP_TRYLOCK] = "trylock", [COVER_OP_UNLOCK] = "unlock",
	[COVER_OP_CONTENDED] = "contended", [COVER_OP_TRYFAIL] = "trylock-failed",
};

COVER_NOTSAN void __cover_lock(const void *lock, int cls, int op, const char *file, int line)
{
	const char *p = lock;
	const void *obj = lock;
	int kind = COVER_LOCK;

	/* Pointer arithmetic only: the lock's object is never read here. */
	switch (cls) {
	case LOCK_CLASS_PG_LOCKED:
		obj = p - 1 - PG_locked - offsetof(struct page, flags);
		kind = COVER_PAGE;
		break;
	case LOCK_CLASS_PG_CHAINLOCK:
		obj = p - 1 - PG_chainlock - offsetof(struct page, flags);
		kind = COVER_PAGE;
		break;
	case LOCK_CLASS_PG_MAPLOCK:
		obj = p - 1 - PG_maplock - offsetof(struct page, flags);
		kind = COVER_PAGE;
		break;
	case LOCK_CLASS_MMAP_SEM:
		obj = p - offsetof(struct mm_struct, mmap_sem);
		kind = COVER_MM;
		break;
	case LOCK_CLASS_PAGE_TABLE_LOCK:
		obj = p - offsetof(struct mm_struct, page_table_lock);
		kind = COVER_MM;
		break;
	case LOCK_CLASS_I_SEM:
		obj = p - offsetof(struct address_space, i_sem);
		kind = COVER_MAPPING;
		break;
	case LOCK_CLASS_I_SHARED_SEM:
		obj = p - offsetof(struct address_space, i_shared_sem);
		kind = COVER_MAPPING;
		break;
	case LOCK_CLASS_TREE_LOCK:
		obj = p - offsetof(struct address_space, tree_lock);
		kind = COVER_MAPPING;
		break;
	case LOCK_CLASS_I_MMAP_LOCK:
		obj = p - offsetof(struct address_space, i_mmap_lock);
		kind = COVER_MAPPING;
		break;
	case LOCK_CLASS_ANON_VMA_LOCK:
		obj = p - offsetof(struct anon_vma, lock);
		kind = COVER_ANON_VMA;
		break;
	case LOCK_CLASS_LRU_LOCK:
		obj = p - offsetof(struct zone, lru_lock);
		kind = COVER_ZONE;
		break;
	case LOCK_CLASS_ZONE_LOCK:
		obj = p - offsetof(struct zone, lock);
		kind = COVER_ZONE;
		break;
	default:
		break;
	}
	__cover_hit(file, line, lock_op_label[op], cls, obj, kind);
}

COVER_NOTSAN void __cover_lock_intent(const void *lock, int cls)
{
	struct cover_cpu *c = my_cpu();

	SET(c->intent, lock);
	SET(c->intent_cls, cls);
}

COVER_NOTSAN void __cover_lock_busy(int op, const char *file, int line)
{
	struct cover_cpu *c = my_cpu();
	const void *lock = RLX(c->intent);

	if (lock)
		__cover_lock(lock, RLX(c->intent_cls), op, file, line);
}

COVER_NOTSAN void __cover_op(const char *op)
{
	struct cover_cpu *c = my_cpu();
	int id = -1;

	if (op) {
		for (int i = 0; i < COVER_MAX_OPS; i++) {
			const char *o = RLX(op_names[i]);

			if (!o) {
				const char *null = NULL;

				if (__atomic_compare_exchange_n(&op_names[i], &null, op, false,
								__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
					id = i;
					break;
				}
				o = null;
			}
			/* Operation names are static strings: one pointer each. */
			if (o == op) {
				id = i;
				break;
			}
		}
	}
	struct cover_pub *p = &pub[c - cpus];

	if (!c->pairs) {
		/* calloc: the table costs nothing until a pair lands in it. */
		if (!pair_tab[c - cpus])
			pair_tab[c - cpus] = calloc(COVER_CPU_PAIRS, sizeof(struct pair_ent));
		c->pairs = pair_tab[c - cpus];
	}
	SET(p->seq, RLX(p->seq) + 1);
	SET(p->op, id);
	SET(p->in_op, op != NULL);
}

/*
 * Clear every table; @windows false: record sites only. Only what the
 * last run can have written is cleared (a CPU no task used, the window
 * table after a run of sites only): explore resets thousands of times.
 */
static COVER_NOTSAN void reset(bool enable, bool exact, bool windows)
{
	size_t used = (size_t)win_buckets * sizeof(win[0]);

	for (int i = 0; i < COVER_MAX_CPUS; i++) {
		if (!cpus[i].touched && !win_dirty)
			continue;
		if (cpus[i].nr_pairs && pair_tab[i])
			memset(pair_tab[i], 0, COVER_CPU_PAIRS * sizeof(struct pair_ent));
		memset(&cpus[i], 0, sizeof(cpus[i]));
		memset(&pub[i], 0, sizeof(pub[i]));
		pub[i].op = -1;
		cpus[i].last_site = -1;
		cpus[i].pairs = NULL;
	}
	if (win_dirty) {
		memset(win, 0, used);
		if (win_exact) {
			memset(win_key, 0, (size_t)win_buckets * sizeof(win_key[0]));
			memset(win_spill, 0, win_buckets);
		}
		memset(covered, 0, sizeof(covered));
	}
	win_buckets = exact ? WIN_BUCKETS_MAX : WIN_BUCKETS_FAST;
	win_exact = exact && windows;
	win_off = !windows;
	win_dirty = windows;
	memset(site_key, 0, sizeof(site_key));
	memset(site_slot_id, 0, sizeof(site_slot_id));
	memset(site_info, 0, sizeof(site_info));
	memset(site_partners, 0, sizeof(site_partners));
	memset(kind_sites, 0, sizeof(kind_sites));
	memset(op_names, 0, sizeof(op_names));
	nr_sites = 0;
	distinct = 0;
	dropped_sites = 0;
	__atomic_store_n(&cover_enabled, enable, __ATOMIC_RELAXED);
}

COVER_NOTSAN void cover_reset(bool enable)
{
	reset(enable, false, true);
}

COVER_NOTSAN void cover_reset_exact(bool enable, bool exact)
{
	reset(enable, exact, true);
}

COVER_NOTSAN void cover_reset_sites_only(bool enable)
{
	reset(enable, false, false);
}

COVER_NOTSAN unsigned long cover_distinct(void)
{
	return RLX(distinct);
}

COVER_NOTSAN void cover_take_last(struct cover_last *out)
{
	struct cover_cpu *c = my_cpu();

	const void *open = RLX(c->last_obj);
	int n = RLX(c->nr_seg_obj);

	out->nr_objs = n > COVER_SEG_OBJS ? -1 : n;
	for (int i = 0; i < n && i < COVER_SEG_OBJS; i++)
		out->objs[i] = RLX(c->seg_obj[i]);
	/* The next segment starts inside the window of the last site's object. */
	SET(c->nr_seg_obj, open ? 1 : 0);
	SET(c->seg_obj[0], open);
	out->site = RLX(c->last_site);
	out->uncovered = RLX(c->last_uncovered);
	out->new_pair = RLX(c->last_new);
	out->contact = RLX(c->last_contact);
	SET(c->last_site, -1);
	SET(c->last_new, false);
	SET(c->last_contact, false);
}

COVER_NOTSAN int cover_nr_sites(void)
{
	int n = RLX(nr_sites);

	return n < COVER_MAX_SITES ? n : COVER_MAX_SITES;
}

COVER_NOTSAN bool cover_site(int id, struct cover_site_info *out)
{
	if (id < 0 || id >= cover_nr_sites())
		return false;
	*out = site_info[id];
	return out->label != NULL;
}

static const char *const kind_names[COVER_NR_KINDS] = {
	[COVER_PAGE] = "page", [COVER_VMA] = "vma", [COVER_MAPPING] = "mapping",
	[COVER_MM] = "mm", [COVER_ANON_VMA] = "anon_vma", [COVER_ZONE] = "zone",
	[COVER_LOCK] = "lock", [COVER_TEST] = "test",
};

const char *cover_kind_name(int kind)
{
	return kind >= 0 && kind < COVER_NR_KINDS ? kind_names[kind] : "?";
}

int cover_site_format(int id, char *buf, size_t len)
{
	struct cover_site_info s;

	if (!cover_site(id, &s))
		return snprintf(buf, len, "?");
	if (s.cls < 0 && !s.file)
		return snprintf(buf, len, "yield %s (%s)", s.label, cover_kind_name(s.kind));
	if (s.cls < 0)
		return snprintf(buf, len, "%s:%d yield %s (%s)", s.file, s.line, s.label,
				cover_kind_name(s.kind));
	return snprintf(buf, len, "%s:%d %s %s", s.file, s.line, s.label,
			s.cls >= 0 ? lock_class_name(s.cls) : "?");
}

COVER_NOTSAN const char *cover_op_name(int id)
{
	return id >= 0 && id < COVER_MAX_OPS ? RLX(op_names[id]) : NULL;
}

COVER_NOTSAN bool cover_pair_covered(int a, int b)
{
	size_t p;

	if (a < 0 || b < 0 || a >= COVER_MAX_SITES || b >= COVER_MAX_SITES)
		return false;
	p = pair_index(a, b);
	return RLX(covered[p / 64]) & (1ULL << (p % 64));
}

static void pair_decode(size_t p, int *a, int *b)
{
	int x = 0;

	while ((size_t)(x + 1) * (size_t)(x + 2) / 2 <= p)
		x++;
	*b = x;
	*a = (int)(p - (size_t)x * (size_t)(x + 1) / 2);
}

COVER_NOTSAN void cover_for_each(void (*fn)(int, int, int, int, unsigned long, void *), void *arg)
{
	/*
	 * Sum the CPUs' tables: gather every entry, then fold equal keys.
	 * The tables are small (COVER_CPU_PAIRS), so a quadratic-free pass
	 * through a scratch open-addressing table is enough.
	 */
	size_t cap = 1;
	size_t total = 0;
	struct pair_ent *acc;
	uint64_t *seen;

	for (int i = 0; i < COVER_MAX_CPUS; i++)
		total += (size_t)RLX(cpus[i].nr_pairs);
	while (cap < 2 * total + 2)
		cap <<= 1;
	acc = calloc(cap, sizeof(*acc));
	if (!acc)
		return;
	for (int i = 0; i < COVER_MAX_CPUS; i++) {
		if (!RLX(cpus[i].nr_pairs) || !pair_tab[i])
			continue;
		for (int j = 0; j < COVER_CPU_PAIRS; j++) {
			uint64_t k = RLX(pair_tab[i][j].key);
			size_t s;

			if (!k)
				continue;
			for (s = mix64(k) & (cap - 1); acc[s].key && acc[s].key != k; s = (s + 1) & (cap - 1))
				;
			acc[s].key = k;
			acc[s].count += RLX(pair_tab[i][j].count);
		}
	}
	seen = calloc(ARRAY_SIZE(covered), sizeof(*seen));
	for (size_t s = 0; s < cap; s++) {
		uint64_t k = acc[s].key - 1;
		size_t p = (size_t)(k & ((1u << 22) - 1));
		int b, a;

		if (!acc[s].key)
			continue;
		pair_decode(p, &a, &b);
		if (seen)
			seen[p / 64] |= 1ULL << (p % 64);
		fn(a, b, (int)((k >> 22) & 63), (int)((k >> 28) & 63), acc[s].count, arg);
	}
	/* Covered, but every CPU's table was full: no count, no operations. */
	for (size_t w = 0; seen && w < ARRAY_SIZE(covered); w++) {
		uint64_t miss = RLX(covered[w]) & ~seen[w];

		while (miss) {
			size_t p = w * 64 + (size_t)__builtin_ctzll(miss);
			int a, b;

			miss &= miss - 1;
			pair_decode(p, &a, &b);
			fn(a, b, 63, 63, 0, arg);
		}
	}
	free(seen);
	free(acc);
}

COVER_NOTSAN void cover_get_stats(struct cover_stats *s)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < COVER_MAX_CPUS; i++) {
		s->events += RLX(cpus[i].events);
		s->hits += RLX(cpus[i].hits);
		s->dropped_pairs += RLX(cpus[i].dropped_pairs);
		s->evicted_open += RLX(cpus[i].evicted_open);
	}
	s->distinct = RLX(distinct);
	s->dropped_sites = RLX(dropped_sites);
}
