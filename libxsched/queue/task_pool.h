/* SPDX-License-Identifier: MIT */
/*
 * task_pool.h - per-worker pools of task descriptors.
 *
 * The owner allocates from `local` and frees its own descriptors back to
 * it with plain accesses. A descriptor freed on another worker is pushed
 * onto the owner's `remote` stack (a lock-free Treiber push); the owner
 * takes the whole stack with one exchange when `local` runs dry. Pushers
 * never pop and the owner only takes everything at once, so there is no
 * ABA problem. Slabs come from malloc only when both lists are empty; in
 * steady state a task costs no malloc.
 */
#ifndef XSCHED_TASK_POOL_H
#define XSCHED_TASK_POOL_H

#include "base/atomics.h"
#include "queue/task.h"

struct xs_task_slab;

struct xs_task_pool {
	struct xs_task *local;                      /* owner only */
	struct xs_task_slab *slabs;                 /* owner only */
	uint32_t owner;                             /* worker id */
	xs_counter_t slabs_allocated;               /* owner-written */
	/* Written by other workers; on its own line. */
	xs_cache_aligned _Atomic(struct xs_task *) remote;
};

void xs_task_pool_init(struct xs_task_pool *pool, uint32_t owner);
void xs_task_pool_destroy(struct xs_task_pool *pool);

/* Slow path of xs_task_alloc(): collect remote frees or add a slab. */
struct xs_task *xs_task_pool_refill(struct xs_task_pool *pool);

/* Put at least @tasks descriptors in @pool now (whole slabs). Owner only.
 * Returns 0, or -1 when malloc fails. */
int xs_task_pool_reserve(struct xs_task_pool *pool, uint32_t tasks);

/* Push @t onto @pool's remote stack. Any thread but the owner. */
void xs_task_pool_free_remote(struct xs_task_pool *pool, struct xs_task *t);

/* Allocate a descriptor. Owner only. NULL only when malloc fails. */
static inline struct xs_task *xs_task_alloc(struct xs_task_pool *pool)
{
	struct xs_task *t = pool->local;

	if (xs_unlikely(!t))
		return xs_task_pool_refill(pool);
	pool->local = t->next_free;
	return t;
}

/* Free a descriptor of this pool. Owner only. */
static inline void xs_task_free_local(struct xs_task_pool *pool, struct xs_task *t)
{
	t->next_free = pool->local;
	pool->local = t;
}

#endif /* XSCHED_TASK_POOL_H */
