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

#include "atomics.h"

/*
 * Tasks executed by a worker = tasks_self + tasks_other + immediate; the
 * queued tasks it completed (barrier.c's F) = tasks_self + tasks_other.
 */
#define XS_COUNTERS(X)                                                                     \
	X(tasks_self, "queued tasks run by the worker that created them")                 \
	X(tasks_other, "queued tasks run by another worker")                               \
	X(immediate, "tasks run immediately because the target queue was full")            \
	X(static_pushes, "tasks pushed to a queue (round-robin, static load balancing)")  \
	X(parks, "times the worker parked on its futex")                                   \
	X(barrier_waves, "termination-detection waves this worker reported")

struct xs_counters {
#define XS_COUNTER_FIELD(name, doc) xs_counter_t name;
	XS_COUNTERS(XS_COUNTER_FIELD)
#undef XS_COUNTER_FIELD
};

struct xs_runtime;

/* Tasks executed and queued tasks completed by worker counters @c. */
static inline uint64_t xs_counters_executed(const struct xs_counters *c)
{
	return xs_load_relaxed(&c->tasks_self) + xs_load_relaxed(&c->tasks_other) +
	       xs_load_relaxed(&c->immediate);
}

static inline uint64_t xs_counters_queued_done(const struct xs_counters *c)
{
	return xs_load_relaxed(&c->tasks_self) + xs_load_relaxed(&c->tasks_other);
}

/* Print the per-worker table and totals (XSCHED_SHOW_STATS=1). */
void xs_stats_print(struct xs_runtime *rt, FILE *out);

/* Total of one counter over all workers, by field offset. */
uint64_t xs_stats_total(struct xs_runtime *rt, size_t offset);

#endif /* XSCHED_STATS_H */
