/* SPDX-License-Identifier: MIT */
/*
 * stats_page.h - publishing a runtime's counters for xsched-top (internal;
 * the page's layout is include/xsched/stats_page.h).
 *
 * Where the numbers come from. The workers keep their counters where they
 * always did (struct xs_counters in struct xs_worker, owner-written); a
 * publisher thread, one per runtime, copies relaxed snapshots of them into
 * the shared page every XS_STATS_PERIOD_NS. So the task hot path costs
 * exactly what it did before: not one extra instruction, no shared-memory
 * store, no clock read. The price is a thread that wakes ten times a
 * second for a copy of a few hundred bytes per worker, and numbers that
 * are up to one period old (the page is final once the workers are idle
 * for a period, which is what tests rely on). Doing the copy at the
 * workers' idle points instead would cost them time in the one place they
 * are not idle (a thief going idle wants to steal) and would leave the page
 * stale while every worker runs long tasks.
 *
 * Idle time is the one new number: an owner-written clock per worker
 * (struct xs_idle_clock) advanced where the worker already reads the time,
 * at the start of a wait in worker.c, plus one clock read when the wait
 * ends. Worker 0 also counts as idle between jobs, when its thread is the
 * application's.
 */
#ifndef XSCHED_STATS_PAGE_INTERNAL_H
#define XSCHED_STATS_PAGE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/atomics.h"

#define XS_STATS_PERIOD_NS 100000000ull

/*
 * Idle accounting of one worker; written by the thread running it only.
 * Invariant: since == 0 while the worker is busy; otherwise it is the
 * CLOCK_MONOTONIC time the current idle stretch began, and ns holds the
 * finished stretches only.
 */
struct xs_idle_clock {
	xs_counter_t ns;
	_Atomic uint64_t since;
};

static inline void xs_idle_begin(struct xs_idle_clock *c, uint64_t now)
{
	/* Relaxed: read by the publisher only, see xs_idle_read(). */
	if (!xs_load_relaxed(&c->since))
		xs_store_relaxed(&c->since, now ? now : 1);
}

static inline void xs_idle_end(struct xs_idle_clock *c, uint64_t now)
{
	uint64_t since = xs_load_relaxed(&c->since);

	if (!since)
		return;
	xs_store_relaxed(&c->since, 0);
	/* Release: a reader that sees the stretch in ns (acquire in
	 * xs_idle_read()) also sees since == 0 or a later stretch, so it never
	 * counts this stretch twice. */
	xs_store_release(&c->ns, xs_load_relaxed(&c->ns) + (now > since ? now - since : 0));
}

struct xs_runtime;

/* xs_runtime_create(), workers allocated and placed, threads not started:
 * create and fill the page (nothing under XSCHED_STATS_PAGE=0; a page that
 * cannot be created is a warning, never an error of the runtime). */
void xs_stats_page_create(struct xs_runtime *rt);
/* A worker thread records its tid (xs_worker_main, before rows_ready). */
void xs_stats_page_thread(struct xs_runtime *rt, uint32_t id);
/* After the worker threads started: start the publisher. */
void xs_stats_page_start(struct xs_runtime *rt);
/* Job start (@begin) and end, on the thread that runs worker 0, at @now
 * (xs_now_ns(): the caller reads the clock once for the daemon and this). */
void xs_stats_page_job(struct xs_runtime *rt, bool begin, uint64_t now);
/* xs_runtime_free(), workers joined or never started: stop the publisher,
 * remove the page. */
void xs_stats_page_destroy(struct xs_runtime *rt);

#endif /* XSCHED_STATS_PAGE_INTERNAL_H */
