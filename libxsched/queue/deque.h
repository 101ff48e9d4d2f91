/* SPDX-License-Identifier: MIT */
/*
 * deque.h - the worker's split deque of task frames (internal side; the
 * owner's inline fast path is include/xsched/task_inline.h).
 *
 * Invariant, at every moment, of worker w's deque with ts = head << 32 |
 * split (the shared word) and top (owner-private):
 *
 *     head <= split <= top,   dq.split == split (only the owner moves it)
 *
 *  - [head, split): public frames; a thief takes `head` by a CAS that
 *    increments head. It then owns the frame until it releases `done`.
 *  - [split, top): private frames; the owner's alone.
 *  - below head, down to the oldest frame the owner has not joined yet:
 *    frames stolen (running or done), or taken back or claimed by the
 *    owner (fn == NULL once it runs them).
 *
 * The owner changes split only with a CAS on ts (thieves move head
 * concurrently); thieves change only head, only while head < split. The
 * owner moves head too: up past a share of the public frames it takes
 * back, up over the running task's claimed frames when a publish finds
 * nothing public (their done set to XS_FRAME_OWN after the CAS), both by
 * the same CAS; down only at a pop-down (below).
 *
 * Per frame i of [base of the oldest unjoined task, top):
 *  - fn == NULL iff the owner claimed it (it runs or ran on the owner);
 *    a thief that takes a claimed frame runs nothing.
 *  - done == 1 only for a frame below head whose taker has finished with
 *    it (a thief, or the owner, whose join takes back a share of the
 *    public frames with one CAS, xs_deque_take_own()); the owner resets
 *    it to 0 when it pops the frame.
 *  - The owner pops a frame (lowers top past it) only when it is private
 *    (i >= split, or made so by lowering split to i) or done; so a frame
 *    a thief holds is never overwritten. Taken frames are popped as a
 *    run: the join's pop-down, at the first taken frame i (then head ==
 *    split == top == i + 1, and every frame of the task below i is taken
 *    too), waits until each is done and lowers head and split to the
 *    task's base with one store.
 * Checked at every owner-side change under XS_DEBUG (xs_deque_check()).
 *
 * Ordering (what each access publishes; deque.c has the pairings):
 *   publish   owner: frame stores, then ts CAS (release)
 *   steal     thief: ts CAS (acquire), then reads fn/arg, runs, then
 *             done = 1 (release)
 *   join      owner: done load (acquire) sees the stolen task's effects;
 *             reclaim/take back: ts CAS (relaxed: only its place in ts's
 *             modification order decides who owns the frames); pop-down:
 *             one ts store (release) per run of taken frames
 *   splitreq  relaxed, a hint both ways; a request lost to a race is
 *             repeated by the thief, and a thief parks only after the
 *             fence of xs_park() and a last look at every ts.
 */
#ifndef XSCHED_DEQUE_H
#define XSCHED_DEQUE_H

#include <stdbool.h>
#include <stdint.h>

#include "xsched.h"
#include "base/atomics.h"

/* Frames reserved per worker: 2^22 x 64 bytes = 256 MiB of address space,
 * committed page by page as the deque grows. */
#define XS_DEQUE_FRAMES (1u << 22)

/*
 * Frames a task keeps queued: its spawn past this many joins the ones it
 * has first (oldest first, as the serial program runs them; thieves take
 * from the same end meanwhile), then queues the new child. Memory stays
 * XS_DEQUE_QUEUED x 64 bytes per level of the spawn tree however many
 * children a node has, and no child runs "now" ahead of its elder
 * siblings. The size trades memory for the stalls at each bound (the
 * join waits for the last child a thief took): uts's 250 000-child root
 * at 2 threads showed idle workers 1.7-2.5% of the time with 4096 (768 KiB
 * of frames less), 0.5-0.9% with 16384, and 0.0-0.1% unbounded.
 * dq.limit (the inline spawn's test) is the top at which the
 * out-of-line spawn looks again (xs_deque_make_room()); it never drops
 * below XS_DEQUE_QUEUED, which libgomp's frames (at most 80 deep,
 * gomp/task.c) rely on.
 */
#define XS_DEQUE_QUEUED 16384u

/* The most public frames a join takes back with one CAS on ts (deque.c,
 * xs_deque_take_count()). */
#define XS_DEQUE_TAKE_MAX 64u

/* The thieves' side of a worker's deque, on its own line. */
struct xs_deque_shared {
	xs_cache_aligned _Atomic uint64_t ts;   /* head << 32 | split */
};

/* Frame counters (deque.c): owner-written, summed by readers; not in
 * XS_COUNTERS, whose list is the stats page's ABI. */
struct xs_frame_counters {
	/* Own frames found taken at a join: the barrier's rejoined (Y). Of
	 * those, the ones a thief ran (not claimed by the owner before
	 * publication); counted even without statistics: gomp/task.c's
	 * bound reads it back. */
	xs_owned_t frames_stolen_ran;
	xs_counter_t frames_taken;      /* frames this worker stole and ran,
					 * from a worker of its node */
	xs_counter_t frames_taken_remote; /* ... from another node */
	/* Split moves up (splitreq served); counted even without
	 * statistics: a thief's rescue watch reads it (deque_rescue.c). */
	xs_owned_t publishes;
	xs_counter_t idle_work_ns;      /* parked while a frame it was woken
					 * for waited: wake to running */
	/* deque_rescue.c: a stranded victim's private frames this worker
	 * published on its behalf, and the claims that did so. */
	xs_counter_t rescued_frames;
	xs_counter_t rescues;
	/* Writes of a ts word (above; the line the owner and its thieves
	 * share): this worker's on its own (publish, take back, reclaim,
	 * pop-down; each CAS attempt counts) and on other workers' (steal
	 * and rescue CAS attempts). */
	xs_counter_t ts_writes_owner;
	xs_counter_t ts_writes_thief;
};

static inline uint32_t xs_ts_head(uint64_t ts)
{
	return (uint32_t)(ts >> 32);
}

static inline uint32_t xs_ts_split(uint64_t ts)
{
	return (uint32_t)ts;
}

static inline uint64_t xs_ts(uint32_t head, uint32_t split)
{
	return (uint64_t)head << 32 | split;
}

struct xs_worker;
struct xs_runtime;

/* The bits of struct xs_deque's splitreq. REQ: a thief asks the owner to
 * publish (set by thieves, cleared by the owner). RESCUE and HELD: the
 * rescue claim of deque_rescue.c (RESCUE cleared only by the owner, HELD
 * only by the rescuer). Thieves and rescuers change the word with RMWs
 * only, so that no bit is lost. */
#define XS_SPLITREQ_REQ    1u
#define XS_SPLITREQ_RESCUE 2u
#define XS_SPLITREQ_HELD   4u

/* A thief's `done` for a frame it took: it ran it (RAN), or found it
 * claimed by the owner (fn == NULL) and did not (BACK). OWN: the owner
 * took the public frame back the way a thief does and ran it itself
 * (xs_deque_take_own()): not a stolen task in the counters. */
#define XS_FRAME_RAN  1u
#define XS_FRAME_BACK 2u
#define XS_FRAME_OWN  3u

/* deque_rescue.c. Owner: after a store that claims a frame or lowers
 * top, whether a rescuer moved the split; if so, wait for it and take the
 * split it left (true). */
bool xs_deque_rescue_check(struct xs_worker *w);
/* deque.c: frame @i (< split) public or stolen: lower split to i if no
 * thief took it (true). */
bool xs_deque_reclaim(struct xs_worker *w, uint32_t i);
/* Owner: frame @i, just claimed (fn cleared), after a rescue check:
 * whether the owner still runs it. */
bool xs_deque_rescue_claimed(struct xs_worker *w, uint32_t i);
/* Thief: publish the private frames of a stranded worker. True if some
 * frames became public. */
bool xs_deque_rescue_scan(struct xs_worker *w);

int xs_deque_init(struct xs_worker *w);
void xs_deque_destroy(struct xs_worker *w);

/* Start of a job: frames on (ws, auto) or off (slb, rp: descriptors). */
void xs_deque_job_begin(struct xs_worker *w, bool frames);

/* Owner: top reached dq.limit. Join the running task's frames if it
 * holds XS_DEQUE_QUEUED of them, else raise the limit to XS_DEQUE_QUEUED
 * above its base (its ancestors hold the frames below). False when the
 * reservation itself is full: the caller runs the child now. */
bool xs_deque_make_room(struct xs_worker *w);

/* Owner: move the split up over half of the private frames and wake a
 * parked worker. */
void xs_deque_publish(struct xs_worker *w);

/* Owner: count the running task's frames [base, top) as pushed; once per
 * join, before xs_deque_join_from(w, base). */
static inline void xs_deque_count(struct xs_deque *d)
{
	/* Relaxed: owner-written; readers sum snapshots. */
	xs_plain_store_relaxed(&d->pushed, d->pushed + (d->top - d->base));
}

/* Owner: join the running task's frames from index @first on (frames
 * [base, first) already run), then its descriptor children. */
void xs_deque_join_from(struct xs_worker *w, uint32_t first);

/*
 * For layers that fill a frame's argument block in place (libgomp's
 * GOMP_task, which copies or copy-constructs the block straight into the
 * frame): xs_frame_next() is the next frame of the calling worker's deque,
 * or NULL when frames are off (slb, rp, profile) or the deque is full;
 * the caller sets fn and up to XS_TASK_ARG_MAX bytes of arg, then
 * xs_frame_commit() pushes it as a child of the running task, exactly as
 * xs_spawn() would. Nothing else may happen on the deque in between.
 */
static inline struct xs_frame *xs_frame_next(struct xs_deque *d)
{
	return xs_likely(d->top < d->limit) ? &d->frames[d->top] : NULL;
}

static inline void xs_frame_commit(struct xs_deque *d)
{
	/* Release: the frame to a rescuer's acquire of top, as in
	 * xs_spawn() (deque_rescue.c). */
	xs_plain_store_release(&d->top, d->top + 1);
	/* Relaxed: a hint from a thief, as in xs_spawn(). */
	if (xs_unlikely(xs_plain_load_relaxed(&d->splitreq) != 0))
		xs_task_publish();
}

/* Owner: join the running task's frames only (run the unstolen ones in
 * spawn order, wait for the stolen ones), not its descriptor children. */
static inline void xs_frame_join(struct xs_worker *w, struct xs_deque *d)
{
	if (d->top != d->base) {
		xs_deque_count(d);
		xs_deque_join_from(w, d->base);
	}
}

/* Thief: take and run the oldest public frame of some other worker.
 * Returns true if a task ran. */
bool xs_deque_steal(struct xs_worker *w);

/* Whether some other worker shows public frames (relaxed, a hint; used
 * after the park fence, see park.h). */
bool xs_deque_visible(struct xs_worker *w);

/* Thief about to spin or park: XSCHED_RESCUE_US in ns if another worker
 * holds private frames (a rescue may be due then), else 0. */
uint64_t xs_deque_rescue_park_ns(struct xs_worker *w);

/* The running task's descriptor context, made when a frame run by a
 * direct call first needs one. NULL outside tasks. */
struct xs_task *xs_task_ctx(struct xs_worker *w);

#endif /* XSCHED_DEQUE_H */
