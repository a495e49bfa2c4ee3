// SPDX-License-Identifier: MIT
/*
 * The radix priority search tree of 2.6.7's mm/prio_tree.c, written anew
 * for the model (core/prio_tree.h describes the structure).
 *
 * Order of nodes: a node is "above" another when its interval ends later,
 * or ends at the same index and starts earlier. Along every root-to-leaf
 * path the order strictly decreases, so an insert meets an equal interval
 * before it would have to displace anything below it (which is why insert
 * can answer "already there"). Where two siblings end at the same index,
 * removal promotes the one above: on the radix levels that is the left
 * one (its start is smaller), and on the size levels all nodes of a
 * subtree share their start, so no two siblings there tie.
 *
 * One limit, 2.6.7's too: prio_tree_expand() moves the old tree down by
 * the levels it adds, so nodes already on the size levels sit where
 * fewer bits placed them. Queries do not depend on those levels (they
 * prune there by the heap only); an insert may then miss an equal
 * interval and add a second node for it, which queries report like any
 * other, and a path may grow past 2 * index_bits levels.
 */
#include "prio_tree.h"

#include <limits.h>

#include "bug.h"
#include "cacheline.h"

#define PT_BITS_PER_LONG	((unsigned int)(sizeof(unsigned long) * CHAR_BIT))

static _Thread_local unsigned long nodes_visited;

unsigned long prio_tree_nodes_visited(void)
{
	return nodes_visited;
}

/* The largest index a tree with @bits radix levels holds. */
static inline unsigned long prio_tree_maxindex(unsigned int bits)
{
	return bits >= PT_BITS_PER_LONG ? ~0UL : (1UL << bits) - 1;
}

static inline bool above(const struct prio_tree_node *a, const struct prio_tree_node *b)
{
	return a->last > b->last || (a->last == b->last && a->start < b->start);
}

void prio_tree_replace(struct prio_tree_root *root, struct prio_tree_node *old,
		       struct prio_tree_node *node)
{
	struct prio_tree_node *parent = old->parent;

	/* The lines it relinks: the node, its parent (or root), old's children. */
	line_write(node, LINE_TREE);
	line_write(parent ? (const void *)parent : root, LINE_TREE);
	if (old->left)
		line_write(old->left, LINE_TREE);
	if (old->right)
		line_write(old->right, LINE_TREE);
	INIT_PRIO_TREE_NODE(node);
	node->parent = parent;
	if (!parent) {
		BUG_ON(root->prio_tree_node != old);
		root->prio_tree_node = node;
	} else if (parent->left == old) {
		parent->left = node;
	} else {
		BUG_ON(parent->right != old);
		parent->right = node;
	}
	node->left = old->left;
	if (node->left)
		node->left->parent = node;
	node->right = old->right;
	if (node->right)
		node->right->parent = node;
}

/*
 * @node ends beyond what index_bits covers (or the tree is empty): add
 * radix levels. Every start in the tree has a 0 in each new top bit, so
 * the old tree hangs down the left. One new level takes @node as root
 * directly; each further level needs a node of its own, and takes the
 * current maximum out of the old tree (its remaining nodes fit below it),
 * so the new levels form a left spine of decreasing nodes.
 */
static struct prio_tree_node *prio_tree_expand(struct prio_tree_root *root,
					       struct prio_tree_node *node)
{
	struct prio_tree_node *spine_top = NULL, *spine_end = NULL;

	line_write(root, LINE_TREE);
	line_write(node, LINE_TREE);
	if (node->last > prio_tree_maxindex(root->index_bits))
		root->index_bits++;
	while (node->last > prio_tree_maxindex(root->index_bits)) {
		struct prio_tree_node *max;

		root->index_bits++;
		if (prio_tree_empty(root))
			continue;
		max = root->prio_tree_node;
		prio_tree_remove(root, max);
		INIT_PRIO_TREE_NODE(max);
		if (!spine_top) {
			spine_top = max;
		} else {
			spine_end->left = max;
			max->parent = spine_end;
		}
		spine_end = max;
	}

	INIT_PRIO_TREE_NODE(node);
	if (spine_top) {
		node->left = spine_top;
		spine_top->parent = node;
	} else {
		spine_end = node;
	}
	if (!prio_tree_empty(root)) {
		spine_end->left = root->prio_tree_node;
		spine_end->left->parent = spine_end;
	}
	root->prio_tree_node = node;
	return node;
}

struct prio_tree_node *prio_tree_insert(struct prio_tree_root *root,
					struct prio_tree_node *node)
{
	struct prio_tree_node *inserted = node, *cur;
	unsigned long mask;
	bool size_level = false;

	BUG_ON(node->start > node->last);
	if (prio_tree_empty(root) || node->last > prio_tree_maxindex(root->index_bits))
		return prio_tree_expand(root, node);

	cur = root->prio_tree_node;
	mask = 1UL << (root->index_bits - 1);
	for (;;) {
		unsigned long index;

		/*
		 * Only the newcomer may be answered with an equal node: a
		 * displaced node meeting its equal (a second node that an
		 * expansion let in) goes on down beside it.
		 */
		if (node == inserted && cur->start == node->start && cur->last == node->last)
			return cur;
		if (above(node, cur)) {
			struct prio_tree_node *displaced = cur;

			/* @node takes cur's place; the displaced node goes on down. */
			prio_tree_replace(root, cur, node);
			cur = node;
			node = displaced;
		}
		index = size_level ? node->last - node->start : node->start;
		if (index & mask) {
			if (!cur->right) {
				line_write(cur, LINE_TREE);
				line_write(node, LINE_TREE);
				INIT_PRIO_TREE_NODE(node);
				cur->right = node;
				node->parent = cur;
				return inserted;
			}
			cur = cur->right;
		} else {
			if (!cur->left) {
				line_write(cur, LINE_TREE);
				line_write(node, LINE_TREE);
				INIT_PRIO_TREE_NODE(node);
				cur->left = node;
				node->parent = cur;
				return inserted;
			}
			cur = cur->left;
		}
		mask >>= 1;
		if (!mask) {
			/*
			 * The radix bits spent: branch on the size. The size
			 * bits may run out too, where prio_tree_expand() left
			 * nodes below the radix levels placed by fewer bits
			 * than the walk now reads; as in 2.6.7 they start
			 * over, and the walk goes on down to a free child.
			 */
			mask = 1UL << (root->index_bits - 1);
			size_level = true;
		}
	}
}

void prio_tree_remove(struct prio_tree_root *root, struct prio_tree_node *node)
{
	struct prio_tree_node *cur = node, *parent;

	/* Down to a leaf, along the larger child each time. */
	while (cur->left || cur->right) {
		if (!cur->left)
			cur = cur->right;
		else if (!cur->right)
			cur = cur->left;
		else
			cur = cur->left->last >= cur->right->last ? cur->left : cur->right;
	}
	parent = cur->parent;
	line_write(parent ? (const void *)parent : root, LINE_TREE);
	if (!parent) {
		BUG_ON(root->prio_tree_node != cur || cur != node);
		root->prio_tree_node = NULL;
		return;
	}
	if (parent->left == cur)
		parent->left = NULL;
	else
		parent->right = NULL;
	/*
	 * Each node of the path moves up one level, into the place of its
	 * parent, until @node's place is taken. A node moved up stays in
	 * the subtree it was in, so its start keeps the bits of the path.
	 */
	while (cur != node) {
		struct prio_tree_node *up = cur->parent;

		prio_tree_replace(root, up, cur);
		cur = up;
	}
	INIT_PRIO_TREE_NODE(node);
}

struct query {
	unsigned long first, last;
	unsigned int bits;
	prio_tree_visit_t visit;
	void *arg;
};

/*
 * @n is at a radix level while @mask is nonzero and @size_level false;
 * @value holds the start bits its path fixed so far.
 */
static int query_node(const struct query *q, struct prio_tree_node *n,
		      unsigned long mask, unsigned long value, bool size_level)
{
	unsigned long child_mask = mask >> 1;
	bool child_size = size_level;
	int ret;

	nodes_visited++;
	if (n->last < q->first)
		return 0;	/* nothing below ends later */
	if (n->start <= q->last) {
		ret = q->visit(n, q->arg);
		if (ret)
			return ret;
	}
	if (!size_level && !child_mask) {
		child_mask = 1UL << (q->bits - 1);
		child_size = true;
	}
	if (n->left) {
		ret = query_node(q, n->left, child_mask, value, child_size);
		if (ret)
			return ret;
	}
	if (n->right) {
		unsigned long rvalue = size_level ? value : value | mask;

		/* On a radix level every start on the right is >= rvalue. */
		if (!size_level && q->last < rvalue)
			return 0;
		return query_node(q, n->right, child_mask, rvalue, child_size);
	}
	return 0;
}

int prio_tree_query(struct prio_tree_root *root, unsigned long first, unsigned long last,
		    prio_tree_visit_t visit, void *arg)
{
	struct query q = { first, last, root->index_bits, visit, arg };

	BUG_ON(first > last);
	if (prio_tree_empty(root))
		return 0;
	return query_node(&q, root->prio_tree_node, 1UL << (root->index_bits - 1), 0, false);
}

/* The subtree of @n: -1 if broken, else its size. */
static long check_node(const struct prio_tree_root *root, const struct prio_tree_node *n,
		       unsigned int depth, unsigned long value, unsigned long fixed)
{
	unsigned long bit = 0;
	long l = 0, r = 0;

	if (n->start > n->last || n->last > prio_tree_maxindex(root->index_bits))
		return -1;
	if ((n->start & fixed) != value)
		return -1;	/* the radix levels above chose another branch */
	if (depth < root->index_bits)
		bit = 1UL << (root->index_bits - 1 - depth);
	if (n->left) {
		if (n->left->parent != n || above(n->left, n))
			return -1;
		l = check_node(root, n->left, depth + 1, value, fixed | bit);
	}
	if (n->right) {
		if (n->right->parent != n || above(n->right, n))
			return -1;
		r = check_node(root, n->right, depth + 1, value | bit, fixed | bit);
	}
	if (l < 0 || r < 0)
		return -1;
	return 1 + l + r;
}

long prio_tree_check(const struct prio_tree_root *root)
{
	const struct prio_tree_node *n = root->prio_tree_node;

	if (!n)
		return 0;
	if (n->parent)
		return -1;
	return check_node(root, n, 0, 0, 0);
}
