// SPDX-License-Identifier: MIT
/* Fixture for scripts/test_mutate.py: one site per operator. */

void fixture_lock(struct mm_struct *mm, struct page *page)
{
	spin_lock(&mm->page_table_lock);
	mm->rss++;
	spin_unlock(&mm->page_table_lock);
}

void fixture_recheck(struct mm_struct *mm, pte_t *pte, pte_t orig)
{
	spin_lock(&mm->page_table_lock);
	if (!pte_same(*pte, orig))
		goto out;
	count++;
	SetPageDirty(page);
	spin_unlock(&mm->page_table_lock);
out:
	return;
}

void fixture_two(struct mm_struct *a, struct mm_struct *b)
{
	down_write(&a->mmap_sem);
	page_map_lock(page);
	list_add(&x->list, &head);
	page_map_unlock(page);
	up_write(&a->mmap_sem);
	n = __atomic_load_n(&a->count, __ATOMIC_ACQUIRE);
	WRITE_ONCE(b->flags, n | 1);
}
