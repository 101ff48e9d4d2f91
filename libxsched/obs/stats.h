/* SPDX-License-Identifier: MIT */
/*
 * stats.h - per-worker counters, written by their owner only.
 *
 * Readers (XSCHED_SHOW_STATS, the profile, later xsched-top) sum relaxed
 * snapshots; a snapshot taken while workers run is approximate by design.
 */
#ifndef XSCHED_STATS_H
#define XSCHED_STATS_H

#include <stdio.h>

#include "base/atomics.h"

/*
 * Tasks executed by a worker = tasks_self + tasks_local + tasks_remote +
 * immediate. The names are the stats page's ABI (include/xsched/stats_page.h)
 * and struct xs_stats's (include/xsched.h), so they stay; what feeds them
 * may change. Two are not incremented in w->ctr but derived from the
 * barrier's termination counts (core/barrier.h) by xs_worker_counters():
 * tasks_self and static_pushes; it adds the deque's counts of frames and
 * of tasks run at once (task_inline.h) to those and to immediate.
 * -DXS_NO_STATS compiles every increment in w->ctr out.
 */
#define XS_COUNTERS(X)                                                                     \
	X(tasks_self, "queued tasks run by the worker that created them (derived)")       \
	X(tasks_local, "queued tasks run here, created by another worker of this node")   \
	X(tasks_remote, "queued tasks run here, created on another node")                  \
	X(immediate, "tasks run at once, not queued (full queue; drop-in: undeferred)")   \
	X(static_pushes, "tasks pushed: queued descriptors (any policy), frames (derived)")  \
	X(continuations, "continuations created (xs_continuation_create)")                \
	X(requests_sent, "steal requests written into a victim's request cell")            \
	X(requests_handled, "valid requests this worker served as a victim")               \
	X(requests_with_steal, "served requests that moved at least one task")             \
	X(requests_source_empty, "served requests that found nothing to move")             \
	X(requests_target_full, "served requests stopped by the thief's full queue")      \
	X(stolen_local, "tasks moved or redirected to a thief on this node")              \
	X(stolen_remote, "tasks moved or redirected to a thief on another node")          \
	X(parks, "times the worker parked on its futex")                                   \
	X(barrier_waves, "termination-detection waves this worker reported")

struct xs_counters {
#define XS_COUNTER_FIELD(name, doc) xs_counter_t name;
	XS_COUNTERS(XS_COUNTER_FIELD)
#undef XS_COUNTER_FIELD
};

struct xs_runtime;

/* Queued tasks completed, and tasks executed, by the counters @c that
 * xs_worker_counters() filled in. */
static inline uint64_t xs_counters_queued_done(const struct xs_counters *c)
{
	return xs_load_relaxed(&c->tasks_self) + xs_load_relaxed(&c->tasks_local) +
	       xs_load_relaxed(&c->tasks_remote);
}

static inline uint64_t xs_counters_executed(const struct xs_counters *c)
{
	return xs_counters_queued_done(c) + xs_load_relaxed(&c->immediate);
}

struct xs_worker;

/* @w's counters, frames included, into @out (stats.c). */
void xs_worker_counters(const struct xs_worker *w, struct xs_counters *out);

/* Print the per-worker table and totals (XSCHED_SHOW_STATS=1). */
void xs_stats_print(struct xs_runtime *rt, FILE *out);

/* Total of one counter over all workers, by field offset. */
uint64_t xs_stats_total(struct xs_runtime *rt, size_t offset);

#endif /* XSCHED_STATS_H */
