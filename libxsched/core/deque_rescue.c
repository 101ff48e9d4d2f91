// SPDX-License-Identifier: MIT
/*
 * deque_rescue.c - thieves publish the private frames of a stranded worker
 * without its help (the detection: rescue.h; the deque: deque.h, deque.c).
 *
 * A worker switched out while it works (a hog on its CPU, a co-running
 * program), or inside one long task, holds the frames above its split
 * point: thieves take only [head, split), and splitreq waits for its next
 * spawn or join. A thief that finds the victim stranded (xschedd's worker
 * state PREEMPTED or STOPPED, or a splitreq unanswered for
 * XSCHED_RESCUE_US) moves the victim's split up to the victim's top
 * itself; from then on thieves steal those frames as any public frame.
 * The victim's copy of split (d->split) is stale then, and the victim may
 * be frozen anywhere, e.g. between the test of a frame and its claim. So
 * the owner *claims first and checks after*, and the rescuer announces
 * itself before it looks - Dekker, with an asymmetric fence as in park.h:
 *
 *   rescuer T on victim V                   owner V, each frame claim or
 *                                           store that lowers top
 *   R1 CAS(V.splitreq, r, r|RESCUE|HELD)    O1 store_relaxed(f->fn, NULL)
 *      (fails if RESCUE is set)                or store_relaxed(top, x)
 *   R2 membarrier(PRIVATE_EXPEDITED)        O2 compiler barrier
 *   R3 ts = load_acquire(V.ts); s = split   O3 r = load_relaxed(splitreq)
 *   R4 t = load_acquire(V.top)              O4 RESCUE in r: ack (below)
 *   R5 t > s: CAS(V.ts, (h, s), (h, t))
 *      release; retried while only head
 *      moved, given up if split moved
 *   R6 fetch_and(V.splitreq, ~HELD)
 *      release
 *
 *   ack (owner): wait until HELD is clear (acquire, pairs with R6); take
 *   split from ts; clear RESCUE with a CAS (only the owner clears it, and
 *   no rescuer can start while it is set, so no later claim is lost).
 *
 * membarrier() runs a full fence on every CPU that runs a thread of the
 * process, and a thread not running gets one from the switch that resumes
 * it: every owner store before that point is visible to R3-R5 and to the
 * thieves after them, and every owner load after it sees R1. So for each
 * claim or top store, either the rescuer (and every thief that steals what
 * it published) sees it, or the owner's check sees the claim. Hence:
 *
 *  - a frame the owner claimed before: a thief finds fn NULL and hands the
 *    slot back (done = XS_FRAME_BACK) without running it, as for a frame
 *    claimed and later published by the owner itself (deque.c);
 *  - a frame whose claim the check follows with RESCUE seen: the rescuer
 *    may have published it, and a thief may have read fn before or after
 *    the claim. xs_deque_rescue_claimed() decides: still private after the
 *    resync, or private again by a reclaim CAS (no thief took it): the
 *    owner runs it; else the thief's done says whether it ran it (RAN) or
 *    found the claim (BACK: the owner runs it). Exactly once either way;
 *  - top lowered with RESCUE seen: the rescuer may have published slots at
 *    or above the new top (fn NULL: run, or cleared by wait_stolen); the
 *    pop-down goes back up to the split and takes them back as stolen
 *    frames before the owner pushes there again (deque.c);
 *  - the owner's own CASes on ts (publish, reclaim, take_own) compare the
 *    whole word: a publish that meets a split it did not set acks first;
 *    reclaim and take_own are correct for any split.
 * A spawn's top store is a release (the frame to R4's acquire, and from
 * R5's release to the thieves' acquire CAS); its check is xs_spawn()'s
 * splitreq load. R5 publishes only up to a top it read after R2, so never
 * a slot the owner retired before that point.
 *
 * False alarms (a victim that was only slow) cost one membarrier and one
 * ack, never a frame. The model: tests/models/deque.pml (-DRESCUE).
 */
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>

#include "base/clock.h"
#include "core/runtime.h"
#include "daemon/daemon_client.h"

bool xs_deque_rescue_check(struct xs_worker *w)
{
	struct xs_deque *d = &w->dq;
	uint32_t r;
	unsigned spins = 0;

	/* O2: pairs with the rescuer's membarrier (R2), see above. */
	xs_fence_compiler();
	/* O3. Relaxed: RESCUE is cleared only by us, so a set bit stays. */
	r = xs_plain_load_relaxed(&d->splitreq);
	if (xs_likely(!(r & XS_SPLITREQ_RESCUE)))
		return false;
	for (;;) {
		/* Acquire pairs with R6: the rescuer's CAS on ts is done. A
		 * rescuer never blocks while HELD; yield if it was switched
		 * out. */
		while ((r = xs_plain_load_acquire(&d->splitreq)) & XS_SPLITREQ_HELD) {
			if (++spins % 64)
				xs_cpu_relax();
			else
				sched_yield();
		}
		/* Relaxed: ordered after R5 by the acquire above. */
		d->split = xs_ts_split(xs_load_relaxed(&w->dqs.ts));
		/* Relaxed: fails only when a thief raised REQ meanwhile (no
		 * rescuer can set HELD while RESCUE is set): retry. */
		if (xs_plain_cas_strong_relaxed(&d->splitreq, &r, r & ~XS_SPLITREQ_RESCUE))
			return true;
	}
}

static bool xs_rescue_done(void *arg)
{
	struct xs_frame *f = arg;

	/* Acquire pairs with the thief's release of done (deque.c). */
	return xs_plain_load_acquire(&f->done) != 0;
}

bool xs_deque_rescue_claimed(struct xs_worker *w, uint32_t i)
{
	struct xs_frame *f = &w->dq.frames[i];

	if (i >= w->dq.split || xs_deque_reclaim(w, i))
		return true;
	/* Published by the rescuer and taken by a thief: its done says
	 * whether it saw our claim. The pop-down waits for it again, finds
	 * done set and gives the slot back. */
	if (!xs_rescue_done(f))
		xs_worker_wait_until(w, xs_rescue_done, f);
	return xs_plain_load_relaxed(&f->done) == XS_FRAME_BACK;
}

/* xs_sync() claimed frame @i and saw splitreq set. */
int xs_task_rescued(uint32_t i)
{
	struct xs_worker *w = xs_self;

	return !xs_deque_rescue_check(w) || xs_deque_rescue_claimed(w, i);
}

/* xs_sync() lowered top from @hi to base and saw splitreq set. */
int xs_task_retired(uint32_t hi)
{
	struct xs_worker *w = xs_self;

	if (xs_deque_rescue_check(w) && w->dq.split > w->dq.base) {
		/* Relaxed: as every top store, see above. */
		xs_plain_store_relaxed(&w->dq.top, hi);
		xs_deque_join_from(w, hi);
	}
	return xs_task_wait();
}

/* Publish @v's private frames for it (R1-R6). True if some became public. */
static bool xs_deque_rescue(struct xs_worker *w, struct xs_worker *v)
{
	struct xs_deque *d = &v->dq;
	uint32_t r = xs_plain_load_relaxed(&d->splitreq), s, t;
	uint64_t old;
	bool moved = false;

	if (r & XS_SPLITREQ_RESCUE)
		return false; /* a claim V has not seen yet */
	/* R1. Acq_rel, with R2 the fence of the Dekker pair above; fails
	 * when another rescuer or a thief got there first. */
	if (!xs_plain_cas_strong_acq_rel_relaxed(&d->splitreq, &r,
						 r | XS_SPLITREQ_RESCUE | XS_SPLITREQ_HELD))
		return false;
	/* R2 (xs_deque_rescue_scan() runs only with membarrier). */
	syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
	/* R3, R4. Acquire: R3 pairs with the owner's release store of ts in
	 * wait_stolen (its top stores before it); R4 with a spawn's release
	 * of top (the frames below it). */
	old = xs_load_acquire(&v->dqs.ts);
	s = xs_ts_split(old);
	t = xs_plain_load_acquire(&d->top);
	/* R5. Release: the frames [s, t) to the thieves' acquire CAS. */
	while (t > s && xs_ts_split(old) == s) {
		xs_counter_inc(&w->fctr.ts_writes_thief);
		if (xs_cas_weak_release(&v->dqs.ts, &old, xs_ts(xs_ts_head(old), t))) {
			xs_counter_add(&w->fctr.rescued_frames, t - s);
			xs_counter_inc(&w->fctr.rescues);
			moved = true;
			break;
		}
	}
	/* R6. Release pairs with the owner's acquire in the ack. */
	xs_plain_fetch_and_release(&d->splitreq, ~XS_SPLITREQ_HELD);
	return moved;
}

/* Whether @v looks stranded: xschedd says preempted or stopped, or it
 * has left a splitreq unanswered (its publish count still) for the
 * threshold. Advice only, see rescue.h. */
static bool xs_deque_stranded(struct xs_worker *w, struct xs_worker *v, uint64_t now)
{
	struct xs_runtime *rt = w->rt;
	uint64_t thr = (uint64_t)rt->opt.rescue_us * 1000u;
	/* Relaxed: an owner-written counter, a hint. */
	uint64_t pubs = xs_load_relaxed(&v->fctr.publishes);
	const struct xs_daemon_conn *c = rt->daemon ? xs_daemon_idle(rt->daemon) : NULL;

	if (c && c->slot[v->id] != UINT32_MAX &&
	    xs_rescue_worker_stranded(&c->workers[c->slot[v->id]], c->tid[v->id],
				      xs_now_ns(), thr))
		return true;
	if (w->rescue.armed_ns && w->rescue.victim == v->id)
		return xs_rescue_watch_missed(&w->rescue, pubs, now, thr);
	xs_rescue_watch_arm(&w->rescue, v->id, pubs, now);
	return false;
}

bool xs_deque_rescue_scan(struct xs_worker *w)
{
	struct xs_runtime *rt = w->rt;
	uint64_t now;

	if (!xs_park_asymmetric)
		return false; /* the owner's side is a compiler barrier only */
	/* A look reads each victim's top, on the line its owner writes at
	 * every spawn: at most four looks per threshold, not at every
	 * failed steal. */
	now = xs_now_ns();
	if (now < w->rescue.next_scan_ns)
		return false;
	w->rescue.next_scan_ns = now + (uint64_t)rt->opt.rescue_us * 250u;
	for (uint32_t k = 1; k < w->nworkers; k++) {
		struct xs_worker *v = rt->workers[(w->id + k) % w->nworkers];
		/* Relaxed: hints; xs_deque_rescue() reads them again after
		 * its fence. */
		uint32_t s = xs_ts_split(xs_load_relaxed(&v->dqs.ts));
		uint32_t t = xs_plain_load_relaxed(&v->dq.top);

		if (t <= s) {
			if (w->rescue.armed_ns && w->rescue.victim == v->id)
				xs_rescue_watch_disarm(&w->rescue);
			continue;
		}
		if (xs_deque_stranded(w, v, now)) {
			xs_rescue_watch_disarm(&w->rescue);
			return xs_deque_rescue(w, v);
		}
	}
	return false;
}
