/* SPDX-License-Identifier: MIT */
/*
 * Private to core/slab.c and its tests: where a cache's free objects lie
 * (the calling task's array, the cache's free list) and the array sizes
 * enable_cpucache() chose.
 */
#ifndef RT_CORE_SLAB_INTERNAL_H
#define RT_CORE_SLAB_INTERNAL_H

#include "slab.h"

/* Objects on @cachep's free list. Context: takes the cache's lock. */
unsigned int kmem_cache_list_count(struct kmem_cache *cachep);

/* Objects in the calling task's array of @cachep (0 when it has none). Context: any. */
unsigned int kmem_cache_array_avail(struct kmem_cache *cachep);

/* enable_cpucache()'s array limit of @cachep (0: no arrays). */
unsigned int kmem_cache_array_limit(const struct kmem_cache *cachep);

/* Objects moved per refill and per flush. */
unsigned int kmem_cache_batchcount(const struct kmem_cache *cachep);

#endif /* RT_CORE_SLAB_INTERNAL_H */
