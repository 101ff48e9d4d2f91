// SPDX-License-Identifier: MIT
/*
 * task_pool.c - slabs and cross-worker returns of task descriptors.
 */
#include <stdlib.h>

#include "queue/task_pool.h"

#define XS_TASKS_PER_SLAB 256

struct xs_task_slab {
	struct xs_task_slab *next;
	struct xs_task task[XS_TASKS_PER_SLAB];
};

void xs_task_pool_init(struct xs_task_pool *pool, uint32_t owner)
{
	pool->local = NULL;
	pool->slabs = NULL;
	pool->owner = owner;
	/* Relaxed: no other thread knows the pool yet. */
	xs_store_relaxed(&pool->slabs_allocated, 0);
	xs_store_relaxed(&pool->remote, NULL);
}

void xs_task_pool_destroy(struct xs_task_pool *pool)
{
	struct xs_task_slab *s, *next;

	for (s = pool->slabs; s; s = next) {
		next = s->next;
		free(s);
	}
	pool->slabs = NULL;
	pool->local = NULL;
	/* Relaxed: the workers have stopped; nobody frees into it any more. */
	xs_store_relaxed(&pool->remote, NULL);
}

/* Add a slab: its first descriptor is returned, the rest go on the local
 * free list (which the caller found empty, or is filling). */
static struct xs_task *xs_task_pool_add_slab(struct xs_task_pool *pool)
{
	struct xs_task_slab *s = xs_alloc_cache_aligned(sizeof(*s));

	if (!s)
		return NULL;
	s->next = pool->slabs;
	pool->slabs = s;
	xs_counter_inc(&pool->slabs_allocated);
	for (int i = 1; i < XS_TASKS_PER_SLAB; i++) {
		s->task[i].pool_owner = pool->owner;
		s->task[i].next_free = i + 1 < XS_TASKS_PER_SLAB ? &s->task[i + 1] : pool->local;
	}
	s->task[0].pool_owner = pool->owner;
	pool->local = &s->task[1];
	return &s->task[0];
}

struct xs_task *xs_task_pool_refill(struct xs_task_pool *pool)
{
	struct xs_task *t;

	/*
	 * Acquire pairs with the release CAS in xs_task_pool_free_remote():
	 * the freeing worker's last uses of each descriptor (and its
	 * next_free link) happen before we hand it out again.
	 */
	t = xs_exchange_acquire(&pool->remote, NULL);
	if (t) {
		pool->local = t->next_free;
		return t;
	}
	return xs_task_pool_add_slab(pool);
}

int xs_task_pool_reserve(struct xs_task_pool *pool, uint32_t tasks)
{
	for (uint32_t n = 0; n < tasks; n += XS_TASKS_PER_SLAB) {
		struct xs_task *t = xs_task_pool_add_slab(pool);

		if (!t)
			return -1;
		xs_task_free_local(pool, t);
	}
	return 0;
}

void xs_task_pool_free_remote(struct xs_task_pool *pool, struct xs_task *t)
{
	/* Relaxed: only a starting guess for the CAS, which re-reads it. */
	struct xs_task *head = xs_load_relaxed(&pool->remote);

	/* Release publishes t->next_free and everything this worker did with
	 * the task to the owner's acquire exchange in xs_task_pool_refill(). */
	do {
		t->next_free = head;
	} while (!xs_cas_weak_release(&pool->remote, &head, t));
}
