// SPDX-License-Identifier: MIT
/*
 * The radix priority search tree (core/prio_tree.c): insert, duplicate
 * intervals, remove, the stabbing query against a brute-force scan of
 * the same intervals, random operations with the invariants checked
 * after each, and the query's cost: the nodes it visits stay near the
 * tree's height when no interval overlaps, however many there are.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "prio_tree.h"
#include "rt_check.h"

#define MAX_NODES	2048

struct item {
	struct prio_tree_node node;
	bool in_tree;		/* inserted as its own node */
	bool dup;		/* its interval was there: not inserted */
	bool hit;		/* found by the current query */
};

static struct item items[MAX_NODES];

static struct item *item_of(struct prio_tree_node *n)
{
	return (struct item *)((char *)n - offsetof(struct item, node));
}

static int mark_hit(struct prio_tree_node *n, void *arg)
{
	int *count = arg;
	struct item *it = item_of(n);

	ck_assert_msg(!it->hit, "node [%lu,%lu] reported twice", n->start, n->last);
	it->hit = true;
	(*count)++;
	return 0;
}

/* The query over [first, last] finds exactly the items in the tree that overlap it. */
static void check_query(struct prio_tree_root *root, int nr, unsigned long first,
			unsigned long last)
{
	int found = 0, expected = 0;

	for (int i = 0; i < nr; i++)
		items[i].hit = false;
	ck_assert_int_eq(prio_tree_query(root, first, last, mark_hit, &found), 0);
	for (int i = 0; i < nr; i++) {
		struct prio_tree_node *n = &items[i].node;
		bool overlaps = items[i].in_tree && n->start <= last && n->last >= first;

		ck_assert_msg(items[i].hit == overlaps,
			      "query [%lu,%lu]: node [%lu,%lu] in_tree %d hit %d",
			      first, last, n->start, n->last, items[i].in_tree, items[i].hit);
		expected += overlaps;
	}
	ck_assert_int_eq(found, expected);
}

static void set_interval(struct item *it, unsigned long start, unsigned long last)
{
	memset(it, 0, sizeof(*it));
	it->node.start = start;
	it->node.last = last;
}

/* Insert, recording whether it went in or found its interval there. */
static void insert_item(struct prio_tree_root *root, struct item *it)
{
	struct prio_tree_node *r = prio_tree_insert(root, &it->node);

	if (r == &it->node) {
		it->in_tree = true;
	} else {
		ck_assert_uint_eq(r->start, it->node.start);
		ck_assert_uint_eq(r->last, it->node.last);
		ck_assert(item_of(r)->in_tree);
		it->dup = true;
	}
}

START_TEST(test_prio_tree_insert_and_duplicates)
{
	struct prio_tree_root root;

	INIT_PRIO_TREE_ROOT(&root);
	ck_assert(prio_tree_empty(&root));
	set_interval(&items[0], 3, 9);
	set_interval(&items[1], 0, 0);
	set_interval(&items[2], 3, 9);		/* the same as items[0] */
	set_interval(&items[3], 5, 1000);	/* grows index_bits */
	set_interval(&items[4], 3, 4);
	for (int i = 0; i < 5; i++)
		insert_item(&root, &items[i]);
	ck_assert(items[0].in_tree && items[1].in_tree && items[3].in_tree && items[4].in_tree);
	ck_assert(items[2].dup && !items[2].in_tree);
	ck_assert_int_eq(prio_tree_check(&root), 4);
	ck_assert_ptr_eq(root.prio_tree_node, &items[3].node);	/* the heap's top */
	ck_assert_uint_ge(root.index_bits, 10);
	check_query(&root, 5, 0, 0);
	check_query(&root, 5, 4, 4);
	check_query(&root, 5, 10, 10);
	check_query(&root, 5, 0, 2000);
	check_query(&root, 5, 1001, 5000);
}
END_TEST

START_TEST(test_prio_tree_remove)
{
	struct prio_tree_root root;
	int nr = 64;

	INIT_PRIO_TREE_ROOT(&root);
	for (int i = 0; i < nr; i++) {
		set_interval(&items[i], (unsigned long)i, (unsigned long)(i + (i * 7) % 13));
		insert_item(&root, &items[i]);
		ck_assert(items[i].in_tree);
	}
	ck_assert_int_eq(prio_tree_check(&root), nr);
	/* Remove the root, leaves and inner nodes, checking after each. */
	for (int k = 0; k < nr; k++) {
		struct item *it = k % 3 == 0 ? item_of(root.prio_tree_node) : &items[(k * 37) % nr];

		if (!it->in_tree)
			continue;
		prio_tree_remove(&root, &it->node);
		it->in_tree = false;
		ck_assert_int_ge(prio_tree_check(&root), 0);
		check_query(&root, nr, (unsigned long)k, (unsigned long)k + 2);
	}
	for (int i = 0; i < nr; i++)
		if (items[i].in_tree) {
			prio_tree_remove(&root, &items[i].node);
			items[i].in_tree = false;
		}
	ck_assert(prio_tree_empty(&root));
	ck_assert_int_eq(prio_tree_check(&root), 0);
}
END_TEST

/* Random intervals, every stabbing query checked against the brute-force list. */
START_TEST(test_prio_tree_query_brute_force)
{
	uint64_t rng = rt_test_seed() ^ 0x51ed27c4a1ULL;

	for (int round = 0; round < 40; round++) {
		struct prio_tree_root root;
		unsigned long span = 16UL << (round % 8);
		int nr = 1 + (int)(rt_rand(&rng) % 400);

		INIT_PRIO_TREE_ROOT(&root);
		for (int i = 0; i < nr; i++) {
			unsigned long s = rt_rand(&rng) % span;
			unsigned long len = rt_rand(&rng) % (span / 4 + 1);

			set_interval(&items[i], s, s + len);
			insert_item(&root, &items[i]);
		}
		ck_assert_int_ge(prio_tree_check(&root), 1);
		for (int q = 0; q < 50; q++) {
			unsigned long f = rt_rand(&rng) % (span + span / 4);
			unsigned long l = f + (q % 2 ? 0 : rt_rand(&rng) % 8);

			check_query(&root, nr, f, l);
		}
		check_query(&root, nr, 0, ~0UL);
	}
}
END_TEST

/* Inserts and removals mixed, with index_bits growing from 1, checked after each. */
START_TEST(test_prio_tree_random_operations)
{
	uint64_t rng = rt_test_seed() ^ 0x9a3b5ULL;
	struct prio_tree_root root;
	int nr = MAX_NODES;

	INIT_PRIO_TREE_ROOT(&root);
	memset(items, 0, sizeof(items));
	for (int step = 0; step < 20000; step++) {
		struct item *it = &items[rt_rand(&rng) % (uint64_t)nr];
		unsigned int bits = (unsigned int)(step / 1500) + 2;	/* intervals grow */

		if (it->in_tree) {
			prio_tree_remove(&root, &it->node);
			it->in_tree = false;
		} else {
			unsigned long span = 1UL << (bits > 40 ? 40 : bits);
			unsigned long s = rt_rand(&rng) % span;
			/* Many share a start or an interval: the size levels fill. */
			unsigned long len = rt_rand(&rng) % 4 == 0 ? 0 : rt_rand(&rng) % span;

			set_interval(it, s, s + len);
			insert_item(&root, it);
		}
		if (step % 97 == 0) {
			long n = prio_tree_check(&root);
			long in = 0;

			for (int i = 0; i < nr; i++)
				in += items[i].in_tree;
			ck_assert_int_eq(n, in);
			check_query(&root, nr, rt_rand(&rng) % (1UL << 20),
				    rt_rand(&rng) % (1UL << 20) + (1UL << 20));
			{
				unsigned long p = rt_rand(&rng) % (1UL << 16);

				check_query(&root, nr, p, p);
			}
		}
	}
	for (int i = 0; i < nr; i++)
		if (items[i].in_tree)
			prio_tree_remove(&root, &items[i].node);
	ck_assert(prio_tree_empty(&root));
}
END_TEST

/*
 * 1000 intervals that do not contain the page asked about, then the same
 * with 1 that does: the query visits O(log n + m) nodes, not n.
 */
START_TEST(test_prio_tree_query_cost_logarithmic)
{
	struct prio_tree_root root;
	unsigned long before, visited;
	int found = 0;

	INIT_PRIO_TREE_ROOT(&root);
	/* Windows of 8 pages over a 16384-page file, none covering page 100. */
	for (int i = 0; i < 1000; i++) {
		unsigned long s = 200 + (unsigned long)i * 16;

		set_interval(&items[i], s, s + 7);
		insert_item(&root, &items[i]);
	}
	set_interval(&items[1000], 96, 103);
	insert_item(&root, &items[1000]);
	ck_assert_int_eq(prio_tree_check(&root), 1001);
	for (int i = 0; i <= 1000; i++)
		items[i].hit = false;
	before = prio_tree_nodes_visited();
	prio_tree_query(&root, 100, 100, mark_hit, &found);
	visited = prio_tree_nodes_visited() - before;
	ck_assert_int_eq(found, 1);
	ck_assert(items[1000].hit);
	/* Two nodes per level at most, on 15 radix levels. */
	ck_assert_msg(visited <= 2 * (root.index_bits + 1), "visited %lu of 1001 nodes (bits %u)",
		      visited, root.index_bits);
}
END_TEST

static Suite *prio_tree_suite(void)
{
	Suite *s = suite_create("prio_tree");
	TCase *tc = tcase_create("tree");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_prio_tree_insert_and_duplicates);
	tcase_add_test(tc, test_prio_tree_remove);
	tcase_add_test(tc, test_prio_tree_query_brute_force);
	tcase_add_test(tc, test_prio_tree_random_operations);
	tcase_add_test(tc, test_prio_tree_query_cost_logarithmic);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return rt_check_main(prio_tree_suite());
}
