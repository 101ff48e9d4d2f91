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
	/* Down: (wave << 1) | release-bit, written by the parent. */
	xs_cache_aligned _Atomic uint64_t down;
};

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
