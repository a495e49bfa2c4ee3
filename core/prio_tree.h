/* SPDX-License-Identifier: MIT */
/*
 * A radix priority search tree (McCreight, SIAM J. Comput. 14(2), 1985) of
 * closed intervals [start, last], as 2.6.7 introduced it (mm/prio_tree.c,
 * Rajesh Venkatasubramanian) for a file's i_mmap: a vma is the interval of
 * file pages it maps, and a stabbing query finds the vmas that map a given
 * page offset in O(log n + m), however many vmas map elsewhere.
 *
 * Structure: a heap on `last` (a node's last is at least its children's),
 * and a radix tree on `start` (at depth d the branch is bit index_bits-1-d
 * of start) for the first index_bits levels; below them the branch takes
 * the bits of the size (last - start), so that intervals sharing a start
 * still find a place. An insert meeting its own interval returns the node
 * already there, and the caller chains the newcomer to it (the vma code's
 * vm_set ring); after an expansion it may miss it and add a second node
 * for the interval (prio_tree.c). index_bits grows when an interval ends beyond
 * what it covers (prio_tree_expand(), rare and at most O(log^2 n)).
 *
 * The model's node stores its interval: the vma code sets it from
 * vm_pgoff and the vma's size before insert and removes the vma before
 * either changes. An empty child is NULL and the root's parent is NULL
 * (the kernel pointed both at the node itself).
 *
 * No lock of its own: the owner serialises (i_mmap_lock or i_shared_sem
 * for a file's tree).
 */
#ifndef RT_CORE_PRIO_TREE_H
#define RT_CORE_PRIO_TREE_H

#include <stdbool.h>
#include <stddef.h>

struct prio_tree_node {
	struct prio_tree_node *left;	/* the owner's lock */
	struct prio_tree_node *right;	/* the owner's lock */
	struct prio_tree_node *parent;	/* the owner's lock; NULL at the root */
	unsigned long start;		/* radix_index: first page; set before insert */
	unsigned long last;		/* heap_index: last page; set before insert */
};

struct prio_tree_root {
	struct prio_tree_node *prio_tree_node;	/* the owner's lock; NULL: empty */
	unsigned int index_bits;		/* the owner's lock; radix levels */
};

static inline void INIT_PRIO_TREE_ROOT(struct prio_tree_root *root)
{
	root->prio_tree_node = NULL;
	root->index_bits = 1;
}

static inline void INIT_PRIO_TREE_NODE(struct prio_tree_node *node)
{
	node->left = node->right = node->parent = NULL;
}

static inline bool prio_tree_empty(const struct prio_tree_root *root)
{
	return root->prio_tree_node == NULL;
}

/**
 * prio_tree_insert() - insert @node, whose start and last are set
 * @root: the tree
 * @node: a node in no tree, start <= last
 *
 * Context: the owner's lock held.
 * Return: @node, or the node already in the tree with the same interval
 * (then @node is not inserted).
 */
struct prio_tree_node *prio_tree_insert(struct prio_tree_root *root,
					struct prio_tree_node *node);

/**
 * prio_tree_remove() - take @node out of the tree
 * @root: the tree
 * @node: a node in @root
 *
 * Context: the owner's lock held.
 */
void prio_tree_remove(struct prio_tree_root *root, struct prio_tree_node *node);

/**
 * prio_tree_replace() - put @node where @old is; @old leaves the tree
 * @root: the tree
 * @old: a node in @root
 * @node: a node in no tree with @old's interval
 *
 * Context: the owner's lock held.
 */
void prio_tree_replace(struct prio_tree_root *root, struct prio_tree_node *old,
		       struct prio_tree_node *node);

/*
 * Called on each node found; nonzero stops the query and is returned.
 * It must not change the tree.
 */
typedef int (*prio_tree_visit_t)(struct prio_tree_node *node, void *arg);

/**
 * prio_tree_query() - the stabbing query: every node overlapping [@first, @last]
 * @root: the tree
 * @first: first index of the query
 * @last: last index (>= @first)
 * @visit: called on each node whose interval overlaps, in no set order
 * @arg: passed to @visit
 *
 * Mirrors prio_tree_first()/prio_tree_next(): a subtree is skipped when
 * its root ends before @first (the heap) or, on the radix levels, when
 * every start in it lies beyond @last.
 *
 * Context: the owner's lock held.
 * Return: 0, or what @visit returned to stop.
 */
int prio_tree_query(struct prio_tree_root *root, unsigned long first, unsigned long last,
		    prio_tree_visit_t visit, void *arg);

/*
 * Nodes visited by prio_tree_query() calls of this thread, overlapping or
 * not (the cost the tests and benchmarks measure). Context: any.
 */
unsigned long prio_tree_nodes_visited(void);

/**
 * prio_tree_check() - verify the heap and radix invariants and parent links
 * @root: the tree
 *
 * Context: the owner's lock held.
 * Return: the number of nodes, or -1 when an invariant is broken.
 */
long prio_tree_check(const struct prio_tree_root *root);

#endif /* RT_CORE_PRIO_TREE_H */
