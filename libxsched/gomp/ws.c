// SPDX-License-Identifier: MIT
/*
 * ws.c - the ring of worksharing constructs of a team, team barriers,
 * waiting, and the drop-in's diagnostics.
 *
 * Every thread of a team meets the same sequence of worksharing constructs
 * (OpenMP requires it); a thread's k-th construct lives in slot
 * k % XG_WS_RING of the team. A slot serves construct k once its `gen` is
 * k: a thread that ran XG_WS_RING constructs ahead (nowait) waits there
 * for the slowest thread to leave the slot. Lock-free: one fetch_add to
 * arrive, one to leave, release/acquire on gen and ready (gomp.h).
 *
 * Waiting. A thread that waits here for another (ready, gen, the ordered
 * turn, a doacross sink, copyprivate data) runs queued tasks, spins, then
 * parks as any idle xsched worker (xg_wait_until()); so every such store is
 * followed by xg_team_notify(), which wakes the team's parked workers: an
 * xs_park_notify() per worker, a load of its parker word unless it sleeps.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gomp.h"
#include "ompt.h"
#include "ext.h"

void xg_warn(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "libxsched-gomp: %s\n", line);
}

void xg_unsupported(const char *what)
{
	fprintf(stderr, "libxsched-gomp: %s is not supported by xsched; aborting\n", what);
	fflush(stderr);
	abort();
}

void xg_wait_until(bool (*done)(void *), void *arg)
{
	struct xs_worker *w = xs_self;

	if (done(arg))
		return;
	if (w) {
		xs_worker_wait_until(w, done, arg);
		return;
	}
	/* Outside any worker there is nothing to run: the condition is made
	 * true by another thread of a team this thread is not part of. */
	for (uint32_t spins = 0; !done(arg); spins++) {
		if (spins % 64)
			xs_cpu_relax();
		else
			sched_yield();
	}
}

void xg_team_notify(const struct xg_team *team)
{
	struct xs_runtime *rt = team->rt;
	struct xs_worker *self = xs_self;

	if (!rt)
		return; /* serialized: nobody else waits */
	for (uint32_t i = 0; i < rt->nworkers; i++)
		if (rt->workers[i] != self)
			xs_park_notify(&rt->workers[i]->park);
}

void xg_barrier(void)
{
	struct xg_team *team = xg_task_self()->team;

	if (XG_OMPT_AROUND(barrier()))
		return;
	if (team->rt)
		xs_barrier_wait();
	else
		xs_task_wait(); /* serialized: the tasks it created */
}

struct xg_gen_wait {
	_Atomic uint64_t *word;
	uint64_t value;
};

static bool xg_word_reached(void *arg)
{
	struct xg_gen_wait *g = arg;

	/* Acquire pairs with the release that stored the value (the slot's
	 * last leaver, or the construct's initialising thread). */
	return xs_load_acquire(g->word) == g->value;
}

static struct xg_task *xg_implicit_self(void)
{
	struct xg_task *it = xg_task_self()->implicit;

	if (xs_unlikely(!it))
		xg_unsupported("a worksharing construct inside an explicit task (non-conforming)");
	return it;
}

struct xg_ws *xg_ws_enter(bool *first)
{
	struct xg_task *it = xg_implicit_self();
	uint64_t k = it->ws_count++;
	struct xg_ws *ws = &it->team->ws[k % XG_WS_RING];
	struct xg_gen_wait g = { &ws->gen, k };

	xg_wait_until(xg_word_reached, &g);
	/* Relaxed: the acquire of gen ordered the last leaver's reset of
	 * `arrived` before this RMW; the payload is ordered by `ready`. */
	*first = xs_fetch_add_relaxed(&ws->arrived, 1) == 0;
	if (!*first) {
		struct xg_gen_wait r = { &ws->ready, k + 1 };

		xg_wait_until(xg_word_reached, &r);
	}
	it->ws = ws;
	it->ws_gen = k;
	xs_loop_cursor_init(&it->cur, it->tid);
	it->chunk_lo = it->chunk_hi = 0;
	it->ordered_done = true;
	return ws;
}

/*
 * A plain single has no payload, so it takes no slot of the ring: thread
 * by thread, single k of the region is run by the thread whose CAS moves
 * the team's count from k to k + 1, one RMW on one line per thread, and
 * nobody waits or is woken (libgomp decides the same way). A thread whose
 * CAS fails was not first: the count is past k, or behind it because the
 * thread ran ahead through nowait singles; then single k is still taken
 * by the thread that takes single k - 1, which goes on to try k. So each
 * single is run exactly once. Relaxed: the count orders nothing; the
 * closing barrier orders the body before what follows.
 */
bool xg_single(void)
{
	struct xg_task *it = xg_implicit_self();
	uint64_t k = it->singles++;

	return xs_cas_strong_relaxed(&it->team->singles, &k, k + 1);
}

void xg_ws_ready(struct xg_ws *ws)
{
	/* Release: the payload written by the first thread is visible to
	 * every thread that acquires ready (xg_ws_enter()). */
	struct xg_task *it = xg_task_self()->implicit;

	xs_store_release(&ws->ready, it->ws_gen + 1);
	xg_team_notify(it->team);
}

void xg_ws_leave(void)
{
	struct xg_task *it = xg_implicit_self();
	struct xg_ws *ws = it->ws;

	if (!ws)
		return;
	it->ws = NULL;
	/* acq_rel: each leaver's use of the payload happens-before the last
	 * leaver's reset (release half of the others, acquire half of it). */
	if (xs_fetch_add_acq_rel(&ws->left, 1) + 1 != it->team->nthreads)
		return;
	xg_doacross_free(ws);
	/* ws->mem stays: gcc may read it after GOMP_loop_end's barrier; it is
	 * freed when the slot is set up again or the region ends. */
	xs_store_relaxed(&ws->arrived, 0);
	xs_store_relaxed(&ws->left, 0);
	/* Release: the reset above is visible to the thread that acquires the
	 * next generation in xg_ws_enter(). */
	xs_store_release(&ws->gen, it->ws_gen + XG_WS_RING);
	xg_team_notify(it->team);
}
