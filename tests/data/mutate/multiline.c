// SPDX-License-Identifier: MIT
/*
 * Fixture for scripts/test_mutate.py: statements and lock calls that span
 * lines, locks that are an if's body, and operator names in comments and
 * strings. It compiles on its own (cc -fsyntax-only), so a test can check
 * that every mutant of it still does.
 */

struct lk { int v; };
struct obj { struct lk l; int n, a, b, total; };
void spin_lock(struct lk *l);
void spin_lock_nested(struct lk *l, int subclass);
void spin_unlock(struct lk *l);
void bump(struct obj *x, int by);
void rt_log(const char *s);

void ml_nested(struct obj *a, struct obj *b)
{
	spin_lock(&a->l);
	spin_lock_nested(&b->l,
			 1);
	b->n++;
	spin_unlock(&b->l);
	spin_unlock(&a->l);
}

void ml_store(struct obj *x)
{
	spin_lock(&x->l);
	x->total = x->a +
		   x->b;
	spin_unlock(&x->l);
	spin_lock(&x->l);
	bump(x,
	     1);
	spin_unlock(&x->l);
}

void ml_cond(struct obj *x, int c)
{
	if (c)
		spin_lock(&x->l);
	x->n++;
	if (c)
		spin_unlock(&x->l);
}

void ml_comment(struct obj *x, int c)
{
	spin_lock(&x->l);
	if (c)	/* rare */
		x->n++;
	spin_unlock(&x->l);
	rt_log("list_add(&a, &b); WRITE_ONCE(x, 1);");
	/* list_add() would do; WRITE_ONCE(x->n, 1) would not */
}

void ml_oneline(struct obj *x, struct obj *y, int c)
{
	spin_lock(&y->l);
	y->n++;
	if (c) spin_unlock(&y->l);
	spin_lock(&x->l);
	x->a = 1; x->b = 2;
	spin_unlock(&x->l);
}

void ml_recheck(struct obj *x)
{
	spin_lock(&x->l);
	if (x->a &&
	    x->b)
		x->n = 0;
	spin_unlock(&x->l);
	spin_lock(&x->l);
	if (x->n > 9) {
		spin_unlock(&x->l);
		return;
	}
	spin_unlock(&x->l);
}
