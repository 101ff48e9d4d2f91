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
 *
 * A parker whose owner parks at nearly every wait - one of more workers
 * than CPUs, which parks without spinning (worker.c) - is made `symmetric`
 * before anyone can see it: both sides then use the seq_cst fence. There a
 * membarrier() per park cost more than everything else the wait did: it
 * interrupts the other CPUs and serialises on a kernel mutex, where a
 * notifier's fence costs tens of cycles (docs/perf/corun.md).
 * The flag never changes afterwards, so both sides always agree on it.
 */
#ifndef XSCHED_PARK_H
#define XSCHED_PARK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/atomics.h"

enum { XS_PARK_AWAKE = 0, XS_PARK_SLEEPING = 1 };

/*
 * Yielding. A waiter that gives its CPU away with sched_yield() (worker.c)
 * wants to know what that cost it: not how long it was away - a yield to a
 * co-running program's thread that then runs its own team for a slice is
 * what lets both programs go on - but how long it stayed away *after* what
 * it waits for had happened. So around the yield it sets yield_stamp to
 * XS_YIELD_OPEN, and the first notifier to find that value replaces it by
 * the time (CLOCK_MONOTONIC ns, always > XS_YIELD_OPEN); the waiter's
 * lateness is its return time minus the stamp. The futex word and the
 * Dekker handshake above are not involved.
 */
#define XS_YIELD_OPEN 1u

struct xs_parker {
	xs_cache_aligned _Atomic uint32_t state;  /* futex word */
	/* Lives on the line every pusher reads anyway: true while the owner
	 * is nested too deep to take more work (worker.c, xs_nest_enter()). */
	_Atomic bool saturated;
	/* 0, XS_YIELD_OPEN while the owner yields, or the first notifier's
	 * stamp; same line as state, which every notifier reads anyway. */
	_Atomic uint64_t yield_stamp;
	/* Set before the parker is shared, never changed: both sides fence
	 * with seq_cst, the sleeper without membarrier() (above). */
	bool symmetric;
	/* Notes a waker leaves for the owner, written just before
	 * xs_park_wake() on this line, which the wake writes anyway; the
	 * owner reads and clears them once it runs again. Relaxed both ways,
	 * hints that order nothing.
	 *  woken: set by a spawner that woke the owner to come and steal
	 *  (worker.c, xs_wake_a_thief()), cleared by the owner once it is
	 *  busy or asleep again; a stale value only clears rt->waking early
	 *  or late.
	 *  wake_ns: when a publisher of frames woke it (deque.c), taken by
	 *  the owner when it runs again: the idle-with-work clock. */
	_Atomic bool woken;
	_Atomic uint64_t wake_ns;
};

_Static_assert(sizeof(struct xs_parker) == XS_CACHE_LINE,
	       "a parker is one line: notifiers and wakers touch only it");

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

/* Stamp the yield of @p's owner with the time, if nobody did yet. */
void xs_park_stamp(struct xs_parker *p);

/* Called after publishing something the owner of @p may be waiting for. */
static inline void xs_park_notify(struct xs_parker *p)
{
	if (xs_likely(xs_park_asymmetric && !p->symmetric))
		xs_fence_compiler(); /* the sleeper's membarrier() is our fence */
	else
		xs_fence_seq_cst();  /* pairs with the sleeper's seq_cst fence */
	/* Relaxed: ordered by the fence above against our publishing store. */
	if (xs_unlikely(xs_load_relaxed(&p->state) == XS_PARK_SLEEPING))
		xs_park_wake(p);
	/* Relaxed: a hint (see xs_park_stamp()); missing an owner's fresh
	 * XS_YIELD_OPEN only leaves that yield unstamped. */
	else if (xs_unlikely(xs_load_relaxed(&p->yield_stamp) == XS_YIELD_OPEN))
		xs_park_stamp(p);
}

/*
 * The owner of @p brackets a sched_yield() with these. Close returns how
 * long after the first notification since the open it came back, in ns
 * (at least 1), or 0 if nobody notified it meanwhile.
 */
void xs_park_yield_open(struct xs_parker *p);
uint64_t xs_park_yield_close(struct xs_parker *p);

#endif /* XSCHED_PARK_H */
