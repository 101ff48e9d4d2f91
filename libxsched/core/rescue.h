/* SPDX-License-Identifier: MIT */
/*
 * rescue.h - finding a worker whose work is stranded, and (to come) taking
 * that work without its help (internal).
 *
 * A worker that the kernel has switched out while it was working - a hog
 * on its CPU, a co-running program, SIGSTOP - still holds its queued tasks:
 * the consumer side of its SPSC queues and its stealable frames are its
 * own, and a request to it waits until it runs again. Such a victim is
 * *stranded* once it has been off its CPU for longer than XSCHED_RESCUE_US.
 * Two detectors, one per source of truth:
 *
 *   xschedd   xs_rescue_worker_stranded(): the worker state says PREEMPTED
 *             (switched out while runnable) or STOPPED (SIGSTOP, ptrace),
 *             since longer than the threshold. BLOCKED is never stranded:
 *             a worker asleep on its futex has parked, and a worker parks
 *             only with nothing queued. (RUNNABLE, woken and waiting for a
 *             CPU, was BLOCKED just before: nothing stranded either.)
 *   no daemon struct xs_rescue_watch, the missed-poll detector: a thief
 *             that sent a request carrying round R arms a watch on the
 *             victim; the victim bumps its round (dlb.h) at the first
 *             scheduling point after the request, so a round still at R
 *             after the threshold means the victim passed no scheduling
 *             point for that long: switched out, stopped, or inside one
 *             long task. The caller arms it only for a victim that is not
 *             parked (park.h: a parked victim does not poll, and holds
 *             nothing). The same watch works on any counter the victim
 *             advances at its scheduling points.
 * Both only advise: a false "stranded" (the victim woke a moment ago, a
 * stale since_ns, a long task) costs a claim that is handed back, never a
 * task lost or run twice, because of the claim protocol below.
 *
 * ---- What a thief does with a stranded victim ----
 *
 * Frames (the work-first deque): deque_rescue.c publishes the victim's
 * private frames for it, with the claim-then-check rule on the victim's
 * side; modelled in tests/models/deque.pml (-DRESCUE). That is built.
 *
 * Descriptor tasks in the victim's SPSC queues (libgomp's, slb, rp): the
 * design below, modelled in tests/models/rescue-claim.pml; NOT built yet.
 *
 * Each worker V gets, on a cache line of its own, a claim word
 *
 *     claim = epoch << 32 | holder      holder: 0 = V itself, t + 1 = thief t
 *
 * and, on the line V writes anyway, a flag `consuming`. V's consumer side
 * (pops from its queues in[k], and moving the split point of its frame
 * deque, i.e. everything a thief could also want to do for V) runs in
 * consumer sections:
 *
 *   victim V, each consumer section         thief T, V found stranded
 *   store_relaxed(V.consuming, 1)           c = load_relaxed(V.claim)
 *   compiler barrier (*)                    if holder(c) != 0: give up
 *   c = load_acquire(V.claim)               CAS(V.claim, c, epoch(c) | T+1)
 *   if holder(c) != 0:                          (fails: someone else; give up)
 *       store_release(V.consuming, 0)       membarrier(PRIVATE_EXPEDITED) (*)
 *       -> its idle path (below)            if load_relaxed(V.consuming):
 *   if epoch(c) != V.seen_epoch:                store_release(V.claim,
 *       reload its cached consumer indexes           (epoch(c) + 1) << 32)
 *       and split point; seen_epoch = epoch     give up (V is awake)
 *   ... pop, move the split point ...       as the only consumer of V: pop up
 *   store_release(V.consuming, 0)               to S tasks from V's queues into
 *                                               its own work, or move V's split
 *                                               point over V's oldest frames
 *                                           store_release(V.claim,
 *                                               (epoch(c) + 1) << 32)  [hand-back]
 *
 * (*) The fence pair is asymmetric, as in park.h: the victim's hot path
 * pays a compiler barrier; the thief, rare, runs membarrier(), which puts
 * a full fence on every CPU running a thread of the process. Dekker's
 * argument then holds: either the thief sees consuming = 1 (V is in a
 * section: the thief hands back without touching anything), or V's load of
 * the claim comes after the thief's CAS and sees T (V keeps out). A V that
 * is not running during membarrier() gets its full fence from the context
 * switch that lets it run again. Where membarrier is missing, both sides
 * use a seq_cst fence (as park.c).
 *
 * Why it stays correct when the victim wakes mid-claim:
 *  - woken before the CAS: V is in its section or not; if it is, the thief
 *    sees consuming and hands back; if not, V's next section sees the claim;
 *  - woken after the CAS, during the thief's pops: V sees holder T and does
 *    not pop; it runs its idle path (steals, serves requests, runs what is
 *    already its own: its current frame and everything above the split
 *    point are still its own - the claim covers the consumer side only);
 *  - after the hand-back: the epoch moved, so V reloads the consumer
 *    indexes and the split point the thief left (the release of the
 *    hand-back publishes them, V's acquire load of the claim sees them)
 *    before its first pop. B-queue's consumer caches are private to the
 *    consumer: the reload makes them V's again.
 * So at every instant exactly one of {V inside a section, the holder of
 * the claim} consumes V's queues: the single-consumer invariant of the
 * SPSC queues holds, and a frame moves past the split point once (a thief
 * that took it is, for V's join, a thief like any other). Producers to V
 * are not involved: they only write the tails. A thief never blocks while
 * it holds a claim and takes at most S tasks per claim; it claims again at
 * its next idle visit while V is still stranded.
 *
 * Modelled in Spin (tests/models/rescue-claim.pml, run by
 * tests/core/rescue-claim-model.sh): V waking at every step of two thieves
 * racing for one claim while a producer pushes; no item popped twice or
 * lost, and dropping the epoch reload or the consuming check is caught.
 * The model is sequentially consistent: the fence pair (*) is what makes
 * the hardware so for the handshake's two words.
 */
#ifndef XSCHED_RESCUE_H
#define XSCHED_RESCUE_H

#include <stdbool.h>
#include <stdint.h>

#include "xsched/abi.h"
#include "base/atomics.h"

/*
 * Whether the worker in slot @ws, registered as thread @tid, has been
 * switched out while working (PREEMPTED) or stopped (STOPPED) since at
 * least @threshold_ns before @now_ns (CLOCK_MONOTONIC, the clock of
 * since_ns). Relaxed loads of memory the BPF programs write at every
 * switch: switches is read before and after, so a worker that was switched
 * in meanwhile is not stranded; a since_ns one switch old can only make a
 * worker look stranded early, which the claim protocol tolerates.
 */
static inline bool xs_rescue_worker_stranded(const struct xs_abi_worker *ws, uint32_t tid,
					     uint64_t now_ns, uint64_t threshold_ns)
{
	uint64_t switches, since;
	uint32_t st;

	switches = xs_plain_load_relaxed(&ws->switches);
	st = xs_plain_load_relaxed(&ws->state);
	if (st != XS_ABI_WORKER_PREEMPTED && st != XS_ABI_WORKER_STOPPED)
		return false;
	since = xs_plain_load_relaxed(&ws->since_ns);
	/* Acquire fence: the loads above before the re-reads below (pairs
	 * with nothing the BPF side does; it only keeps our own order). */
	xs_fence_acquire();
	if (xs_plain_load_relaxed(&ws->switches) != switches ||
	    xs_plain_load_relaxed(&ws->state) != st ||
	    xs_plain_load_relaxed(&ws->tid) != tid)
		return false;
	return now_ns > since && now_ns - since >= threshold_ns;
}

/* The missed-poll detector of one thief (owner-only, no atomics). */
struct xs_rescue_watch {
	uint64_t value;    /* the victim's counter (round) when armed */
	uint64_t armed_ns; /* when; 0: not armed */
	uint32_t victim;
	uint64_t next_scan_ns; /* deque_rescue.c: the next look at victims */
};

/* Watch @victim, whose counter reads @value now (a request carrying it was
 * just sent). A watch already on this victim at this value is kept, so the
 * time counts from the first request of the round. */
static inline void xs_rescue_watch_arm(struct xs_rescue_watch *w, uint32_t victim,
				       uint64_t value, uint64_t now_ns)
{
	if (w->armed_ns && w->victim == victim && w->value == value)
		return;
	w->victim = victim;
	w->value = value;
	w->armed_ns = now_ns ? now_ns : 1;
}

static inline void xs_rescue_watch_disarm(struct xs_rescue_watch *w)
{
	w->armed_ns = 0;
}

/*
 * The watched victim's counter reads @value at @now_ns: true when it has
 * not moved for @threshold_ns since the watch was armed (the victim missed
 * its polls: stranded). A counter that moved disarms the watch.
 */
static inline bool xs_rescue_watch_missed(struct xs_rescue_watch *w, uint64_t value,
					  uint64_t now_ns, uint64_t threshold_ns)
{
	if (!w->armed_ns)
		return false;
	if (value != w->value) {
		w->armed_ns = 0;
		return false;
	}
	return now_ns > w->armed_ns && now_ns - w->armed_ns >= threshold_ns;
}

#endif /* XSCHED_RESCUE_H */
