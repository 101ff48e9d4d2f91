// SPDX-License-Identifier: MIT
/*
 * continuation.c - tasks made runnable from outside the runtime.
 *
 * A continuation is an ordinary queued-task descriptor from the creating
 * worker's pool, with no parent. Creating one counts it as created in the
 * creator's counters (barrier.c: it is outstanding until it has run), so a
 * job cannot end while a continuation is pending. xs_continuation_ready()
 * pushes it onto the runtime's inject stack - the one place where threads
 * that are not workers hand work in - and wakes the creator. Workers empty
 * the stack with a single exchange when they look for work (worker.c,
 * xs_inject_take(): the worker's loop calls into this file's stack, never
 * the reverse); since no one pops a single element, the stack has no ABA
 * problem.
 */
#include <errno.h>
#include <string.h>

#include "core/runtime.h"

struct xs_continuation *xs_continuation_create(xs_task_fn fn, const void *arg, size_t size)
{
	struct xs_worker *w = xs_self;
	struct xs_task *t;

	if (!w || !w->dq.ctx) {
		errno = EPERM;
		return NULL;
	}
	if (size > XS_TASK_ARG_MAX || !fn) {
		errno = fn ? E2BIG : EINVAL;
		return NULL;
	}
	t = xs_task_alloc(&w->pool);
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->fn = fn;
	t->parent = NULL;
	t->worker = w; /* until it runs: how xs_continuation_ready() finds rt */
	t->creator = (uint16_t)w->id;
	t->creator_node = (uint16_t)w->node;
	t->spawned = 0;
	if (size) /* arg may be NULL then: memcpy() must not get it */
		memcpy(t->arg, arg, size);
	/* Created now, before any other thread can see it: barrier.c. */
	xs_barrier_count_created(&w->bcnt);
	xs_counter_inc(&w->ctr.continuations);
	return (struct xs_continuation *)t;
}

void xs_continuation_ready(struct xs_continuation *c)
{
	struct xs_task *t = (struct xs_task *)c;
	/* Read before publishing: once pushed, t may run and be reused. */
	struct xs_worker *creator = t->worker;
	struct xs_runtime *rt = creator->rt;
	struct xs_task *head = xs_load_relaxed(&rt->inject);

	/* Release publishes the descriptor (and whatever the completing
	 * thread did before) to the acquire exchange in xs_inject_take() (worker.c). */
	do {
		t->next_free = head;
	} while (!xs_cas_weak_release(&rt->inject, &head, t));
	xs_park_notify(&creator->park);
}
