/* SPDX-License-Identifier: MIT */
/*
 * task.h - the task descriptor.
 *
 * A descriptor is owned by the worker whose pool it came from (pool_owner)
 * and is returned there when freed, whichever worker frees it.
 *
 * Completion of children. A task runs on one worker from start to end
 * (tasks are tied), and joins its children before it completes, so a child
 * may always refer to its parent. The parent counts the children it pushed
 * in `spawned`; a child that completes on the parent's own worker bumps
 * `done_local` (same thread, plain access), one that completes elsewhere
 * bumps `done_remote` with a release RMW. All children are done when
 * spawned == done_local + done_remote. Children run immediately (queue
 * full) are not counted: they have completed when xs_task_spawn() returns.
 */
#ifndef XSCHED_TASK_H
#define XSCHED_TASK_H

#include <stdint.h>

#include "xsched.h"
#include "base/atomics.h"

struct xs_worker;

struct xs_task {
	xs_task_fn fn;
	struct xs_task *parent;     /* NULL for root, implicit and inline tasks */
	struct xs_worker *worker;   /* the worker running it; set before any child exists */
	uint32_t pool_owner;        /* worker id whose pool holds the descriptor */
	uint16_t creator;           /* worker id that spawned it */
	uint16_t creator_node;      /* its NUMA node index */
	uint64_t spawned;           /* children pushed; written by `worker` only */
	/* Valid only while spawned > 0: reset when the first child is pushed. */
	uint64_t done_local;        /* children completed on `worker`; same thread */
	_Atomic uint64_t done_remote; /* children completed on other workers */
	union {
		/* Free, or a continuation not yet run: pool and inject links. */
		struct xs_task *next_free;
		/* Running: master-queue index of the first child pushed since
		 * the last join, or XS_NO_SLOT (worker.c, spawn order). */
		uint32_t first_slot;
	};
	_Alignas(16) unsigned char arg[XS_TASK_ARG_MAX];
};

#define XS_NO_SLOT UINT32_MAX

_Static_assert(sizeof(struct xs_task) == 112, "task descriptor layout changed");

/* True when every counted child of @t has completed. Called by t->worker. */
static inline int xs_task_children_done(struct xs_task *t)
{
	/* Acquire pairs with the release fetch_add in xs_task_complete(): the
	 * children's results are visible once their completion is counted. */
	return t->spawned == t->done_local + xs_load_acquire(&t->done_remote);
}

#endif /* XSCHED_TASK_H */
