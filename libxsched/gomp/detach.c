// SPDX-License-Identifier: MIT
/*
 * detach.c - the detach clause: a task that completes when both its body
 * has returned and its event has been fulfilled (omp_fulfill_event).
 *
 * The event is a heap object the task's omp_event_handle_t points at. gcc
 * lays the handle out first in the task's argument block, and libgomp
 * stores the event there as well as at @detach, so the task's body finds
 * it in its own copy of the block. GOMP_task (task.c) runs such a task
 * through xg_detach_main(), which calls the body, then waits for the
 * event, running other tasks meanwhile, before returning: the task's
 * dependences are released and its parent's join counts it only then,
 * which is OpenMP's completion of a detached task.
 */
#include <stdlib.h>

#include "gomp.h"
#include "ext.h"

struct xg_event {
	void (*fn)(void *);        /* the task's body */
	_Atomic bool fulfilled;
	/* The worker waiting for it, or NULL. */
	_Atomic(struct xs_parker *) park;
	/* Two references, the task's and omp_fulfill_event()'s: the last
	 * to drop it frees it. */
	_Atomic uint32_t refs;
};

static void xg_event_put(struct xg_event *ev)
{
	/* Acq_rel: the other side's last accesses happen before the free. */
	if (xs_fetch_sub_acq_rel(&ev->refs, 1) == 1)
		free(ev);
}

void (*xg_detach_prepare(void (*fn)(void *), void *data, void *detach))(void *)
{
	struct xg_event *ev = malloc(sizeof(*ev));

	if (!ev) {
		xg_warn("out of memory for a detached task's event");
		abort();
	}
	ev->fn = fn;
	/* Relaxed: published to the task by its creation (the queue's
	 * release), to the fulfilling thread by the program's own
	 * synchronization that handed it the event. */
	xs_store_relaxed(&ev->fulfilled, false);
	xs_store_relaxed(&ev->park, NULL);
	xs_store_relaxed(&ev->refs, 2);
	*(void **)detach = ev;
	if (data)
		*(void **)data = ev;
	return xg_detach_main;
}

static bool xg_event_fulfilled(void *arg)
{
	/* Acquire pairs with the release in omp_fulfill_event(). */
	return xs_load_acquire(&((struct xg_event *)arg)->fulfilled);
}

void xg_detach_main(void *data)
{
	struct xg_event *ev = *(struct xg_event **)data;

	ev->fn(data);
	if (!xg_event_fulfilled(ev)) {
		/* Seq_cst, with omp_fulfill_event()'s store and load: either it
		 * sees our parker, or we see its fulfilled flag. */
		if (xs_self)
			xs_store_seq_cst(&ev->park, &xs_self->park);
		if (!xs_load_seq_cst(&ev->fulfilled))
			xg_wait_until(xg_event_fulfilled, ev);
	}
	xg_event_put(ev);
}

XG_EXPORT void omp_fulfill_event(uintptr_t event)
{
	struct xg_event *ev = (struct xg_event *)event;
	struct xs_parker *park;
	bool was = false;

	/* Release: what the fulfilling thread did before is visible to the
	 * task's successors (xg_event_fulfilled()'s acquire). Seq_cst on
	 * success, see xg_detach_main(). */
	if (!xs_cas_strong_seq_cst(&ev->fulfilled, &was, true)) {
		xg_warn("omp_fulfill_event: event %p already fulfilled", (void *)ev);
		abort();
	}
	/* Seq_cst: the other half of the pair, see xg_detach_main(). */
	park = xs_load_seq_cst(&ev->park);
	if (park)
		xs_park_notify(park);
	xg_event_put(ev);
}
