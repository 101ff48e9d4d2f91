/* SPDX-License-Identifier: MIT */
/*
 * spread.h - an unpinned team keeps its workers on distinct CPUs.
 *
 * Two teammates that Linux runs on one CPU (wake-affine placement after a
 * futex wake pulls the woken worker onto its waker's CPU; the load balancer
 * sees two threads per CPU and leaves them) pay a context switch at every
 * barrier: one waits, spins, yields, the other runs. A waiting worker that
 * sees a teammate it may wait for on its own CPU moves itself to a CPU of
 * its affinity mask where no teammate was seen, by narrowing its mask to
 * that CPU and restoring it at once (the kernel migrates a thread whose
 * CPU leaves its mask; restoring does not move it back).
 */
#ifndef XSCHED_SPREAD_H
#define XSCHED_SPREAD_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/atomics.h"

/*
 * A worker's spreading state, on a line of its own: its owner writes
 * every field (cpu at the start of a wait, and only when it changed;
 * after and moves when it moves); teammates read cpu at their yield
 * points (spread.c). Off the owner's hot lines, which teammates would
 * otherwise pull away at every look.
 */
struct xs_spread_state {
	/* The CPU the worker was last seen on (-1: not yet): a hint for
	 * teammates, relaxed both ways. */
	xs_cache_aligned _Atomic int32_t cpu;
	uint64_t after;           /* when it may next move (owner-private) */
	xs_counter_t moves;       /* the moves it made (owner-written) */
};

struct xs_worker;

/*
 * Where a worker on CPU @me should go: -1 unless some entry of @team (the
 * last CPUs of its awake teammates, -1 for unknown) is @me; then the lowest
 * CPU of @allowed that is neither @me nor in @team, or -1 if there is none.
 */
int xs_spread_target(int me, const int *team, uint32_t n, const cpu_set_t *allowed);

/* Record the CPU the calling worker runs on, for its teammates. */
void xs_spread_note(struct xs_worker *w);

/* At a yield point of a wait: move @w off a CPU it shares with an awake
 * teammate (at most once per XS_SPREAD_GAP_NS). True if it moved. */
bool xs_spread(struct xs_worker *w, uint64_t now);

#endif /* XSCHED_SPREAD_H */
