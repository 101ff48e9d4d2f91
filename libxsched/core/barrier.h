/* SPDX-License-Identifier: MIT */
/*
 * barrier.h - the team barrier: a tree with lock-free gathering, lock-less
 * release, and termination detection (see barrier.c for the argument).
 */
#ifndef XSCHED_BARRIER_H
#define XSCHED_BARRIER_H

#include <stdint.h>

#include "base/atomics.h"

/*
 * One node per worker. Workers form a binary tree: the parent of i is
 * (i - 1) / 2 (flat, every parent 0, in a runtime of more workers than
 * CPUs: barrier.c). The up line is written only by the node's worker (its report
 * to the parent), the down line only by the parent (wave starts and the
 * release), so each line has exactly one writer.
 */
struct xs_barrier_node {
	/* Up: this subtree's counter sums for wave `report_seq`. The sums are
	 * plain fields published by the release store of report_seq. */
	xs_cache_aligned _Atomic uint64_t report_seq;
	uint64_t report_created;
	uint64_t report_finished;
};

/*
 * The barrier's termination counts (barrier.c, "Counters": C, F and Y),
 * one set per worker, written only by that worker (xs_owned_inc(): a
 * relaxed load + store on its own line, no RMW) and summed by the
 * barrier's waves, which read a worker's set on its own thread. They are
 * the proof's, not statistics: -DXS_NO_STATS keeps them. Statistics
 * (obs/stats.c) read them, never the other way round. All only grow.
 */
struct xs_barrier_counts {
	xs_owned_t created;  /* C: descriptors made outstanding here - queued
			      * (any push policy, NA-RP redirects), counted
			      * and run at once because the queue was full,
			      * continuations created - each before it is
			      * visible to anyone */
	xs_owned_t finished; /* F: queued descriptors completed here (any
			      * creator), after the body and its join */
	xs_owned_t rejoined; /* Y: own frames found taken (stolen, or taken
			      * back by xs_deque_take_own()) at a join;
			      * added to both sums */
};

/* A descriptor is created: before it can be seen, run or completed. */
static inline void xs_barrier_count_created(struct xs_barrier_counts *c)
{
	xs_owned_inc(&c->created);
}

/* A queued descriptor has completed: after its body and its join. */
static inline void xs_barrier_count_finished(struct xs_barrier_counts *c)
{
	xs_owned_inc(&c->finished);
}

/* A join found an own frame taken: before the task that spawned it can
 * complete. */
static inline void xs_barrier_count_rejoined(struct xs_barrier_counts *c)
{
	xs_owned_inc(&c->rejoined);
}

/* Root-only bookkeeping (worker 0) and every worker's wave sequence. */
struct xs_barrier_state {
	uint64_t seq;             /* waves this worker took part in */
	uint64_t released_total;  /* root: tasks created at the last release */
	uint64_t prev_finished;   /* root: finished-sum of the previous wave */
	uint64_t prev_created;    /* root: created-sum of the previous wave */
	uint64_t backoff_ns;      /* root: pause before the next wave (0: none) */
	uint32_t wave_in_episode; /* root: 1 for the first wave of a barrier */
};

struct xs_worker;

/* Arrive at the team barrier and return when every worker has arrived and
 * no task is queued or running anywhere. */
void xs_barrier_arrive_and_wait(struct xs_worker *w);

#endif /* XSCHED_BARRIER_H */
