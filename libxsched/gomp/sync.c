// SPDX-License-Identifier: MIT
/*
 * sync.c - parallel regions, barriers, single, cancellation entry points.
 */
#include <stdio.h>
#include <stdlib.h>

#include "gomp.h"
#include "ompt.h"

XG_EXPORT void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags)
{
	xg_parallel(fn, data, nthreads, flags);
}

/* The GOMP_1.0 form: the caller runs the body between start and end. */
XG_EXPORT void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned nthreads)
{
	xg_parallel_start(fn, data, nthreads, NULL, NULL);
}

XG_EXPORT void GOMP_parallel_end(void)
{
	xg_parallel_end();
}

XG_EXPORT void GOMP_barrier(void)
{
	XG_OMPT(barrier_explicit());
	xg_barrier();
}

XG_EXPORT bool GOMP_barrier_cancel(void)
{
	XG_OMPT(barrier_explicit());
	xg_barrier();
	return false;
}

/* The first thread to reach the construct runs it. */
XG_EXPORT bool GOMP_single_start(void)
{
	bool first = xg_single();

	XG_OMPT(single(first));
	return first;
}

struct xg_copy_wait {
	struct xg_ws *ws;
	uint64_t value;
};

static bool xg_copy_ready(void *arg)
{
	struct xg_copy_wait *c = arg;

	/* Acquire pairs with the release in GOMP_single_copy_end(). */
	return xs_load_acquire(&c->ws->copy_ready) == c->value;
}

/* single copyprivate: NULL for the thread that runs the construct; the
 * others get the pointer it hands to GOMP_single_copy_end(). gcc follows
 * the construct with a barrier, so the data outlives every copy. */
XG_EXPORT void *GOMP_single_copy_start(void)
{
	bool first;
	struct xg_ws *ws = xg_ws_enter(&first);
	struct xg_copy_wait c = { ws, xg_task_self()->implicit->ws_gen + 1 };
	void *data;

	XG_OMPT(single(first));
	if (first) {
		xg_ws_ready(ws);
		return NULL; /* leaves in GOMP_single_copy_end() */
	}
	xg_wait_until(xg_copy_ready, &c);
	data = xs_load_relaxed(&ws->copy);
	xg_ws_leave();
	return data;
}

XG_EXPORT void GOMP_single_copy_end(void *data)
{
	struct xg_task *it = xg_task_self()->implicit;
	struct xg_ws *ws = it->ws;

	XG_OMPT(single_end());
	/* Relaxed: published by the release of copy_ready below. */
	xs_store_relaxed(&ws->copy, data);
	/* Release: `copy` and the data it points to are visible to the
	 * threads that acquire copy_ready. */
	xs_store_release(&ws->copy_ready, it->ws_gen + 1);
	xg_team_notify(it->team);
	xg_ws_leave();
}

/* Cancellation is not supported (OMP_CANCELLATION=true gets a diagnostic
 * at start-up): nothing is ever cancelled, as with cancel-var false. */
XG_EXPORT bool GOMP_cancel(int which, bool do_cancel)
{
	(void)which;
	(void)do_cancel;
	return false;
}

XG_EXPORT bool GOMP_cancellation_point(int which)
{
	(void)which;
	return false;
}

/* The `error` directive (OpenMP 5.1) at execution time: @msg is not
 * necessarily NUL-terminated; @len is (size_t)-1 when it is. */
/* In libgomp's words (programs and gcc's testsuite match them): a blank
 * line, then "libgomp: [fatal error: ]error directive encountered[: msg]". */
static void xg_error_message(const char *kind, const char *msg, size_t len)
{
	if (!msg)
		fprintf(stderr, "\nlibgomp: %serror directive encountered\n", kind);
	else if (len == (size_t)-1)
		fprintf(stderr, "\nlibgomp: %serror directive encountered: %s\n", kind, msg);
	else
		fprintf(stderr, "\nlibgomp: %serror directive encountered: %.*s\n", kind, (int)len,
			msg);
}

XG_EXPORT void GOMP_warning(const char *msg, size_t len)
{
	xg_error_message("", msg, len);
}

XG_EXPORT void GOMP_error(const char *msg, size_t len)
{
	xg_error_message("fatal error: ", msg, len);
	exit(EXIT_FAILURE);
}
