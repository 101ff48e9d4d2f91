/* SPDX-License-Identifier: MIT */
/*
 * park.h - parking a worker on a futex without lost wake-ups.
 *
 * A worker that has nothing to do spins a bounded time, then parks. Anyone
 * who makes something available to a worker (pushes a task into one of its
 * queues, completes one of its children, signals it in the barrier, posts a
 * job) calls xs_park_notify() on it *after* publishing that thing.
 *
 * The protocol is a Dekker handshake:
 *
 *   sleeper                          notifier
 *   state = SLEEPING                 publish X          (store)
 *   heavy fence                      light fence
 *   if (X visible) cancel            if (state == SLEEPING)
 *   futex_wait(state, SLEEPING)          state = AWAKE, futex_wake
 *
 * Either the sleeper's re-check sees X, or the notifier's load sees
 * SLEEPING: both stores cannot be missed by both loads once each side has a
 * full fence between its store and its load. Parking is rare and notifying
 * is on the push path, so the fence cost is made asymmetric: the sleeper
 * issues membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs a full
 * fence on every CPU running a thread of this process, and the notifier's
 * "light fence" is then only a compiler fence. Where membarrier is not
 * available both sides use a seq_cst fence.
 *
 * futex_wait() re-checks state == SLEEPING in the kernel, so a wake that
 * lands between the re-check and the wait is not lost either.
 */
#ifndef XSCHED_PARK_H
#define XSCHED_PARK_H

#include <stdbool.h>
#include <stdint.h>

#include "atomics.h"

enum { XS_PARK_AWAKE = 0, XS_PARK_SLEEPING = 1 };

struct xs_parker {
	xs_cache_aligned _Atomic uint32_t state;  /* futex word */
	/* Lives on the line every pusher reads anyway: true while the owner
	 * is nested too deep to take more work (worker.c, xs_nest_enter()). */
	_Atomic bool saturated;
};

/* Set up membarrier for this process once; returns true when the cheap
 * notifier path can be used. Idempotent, thread-safe. */
bool xs_park_global_init(void);

/* Whether notifiers may use a compiler fence (membarrier registered). */
extern bool xs_park_asymmetric;

/*
 * Park the calling thread on @p unless @has_work(@arg) reports something
 * after the fence; @sleeps (owner-written) counts the times it went to
 * sleep, before it sleeps. Returns when woken (possibly spuriously) or when
 * has_work was true; true if it actually slept. The caller loops around its
 * own condition.
 */
bool xs_park(struct xs_parker *p, bool (*has_work)(void *arg), void *arg,
	     xs_counter_t *sleeps);

/* xs_park() that also returns after @timeout_ns. */
bool xs_park_timed(struct xs_parker *p, bool (*has_work)(void *arg), void *arg,
		   xs_counter_t *sleeps, uint64_t timeout_ns);

void xs_park_wake(struct xs_parker *p);

/* Called after publishing something the owner of @p may be waiting for. */
static inline void xs_park_notify(struct xs_parker *p)
{
	if (xs_likely(xs_park_asymmetric))
		xs_fence_compiler(); /* the sleeper's membarrier() is our fence */
	else
		xs_fence_seq_cst();  /* pairs with the sleeper's seq_cst fence */
	/* Relaxed: ordered by the fence above against our publishing store. */
	if (xs_unlikely(xs_load_relaxed(&p->state) == XS_PARK_SLEEPING))
		xs_park_wake(p);
}

#endif /* XSCHED_PARK_H */
