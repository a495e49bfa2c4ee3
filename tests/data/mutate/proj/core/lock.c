// SPDX-License-Identifier: MIT
/* Fixture project for scripts/test_mutate.py's run tests. */

void f(void)
{
	spin_lock(&l);
	x = 1;
	spin_unlock(&l);
	list_add(&e, &h);
}
