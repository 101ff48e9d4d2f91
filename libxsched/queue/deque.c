// SPDX-License-Identifier: MIT
/*
 * deque.c - the split deque of task frames: publication, joins that meet
 * thieves, stealing (the owner's inline half: xsched/task_inline.h; the
 * invariant: deque.h).
 *
 * How it fits with XQueue and the DLB protocol. Under XSCHED_DLB=ws (and
 * auto) xs_task_spawn() pushes frames, and thieves take the oldest public
 * frame directly with one CAS on the victim's ts word, however long the
 * victim's running task is: no request, no round. A thief that finds no
 * public frame raises the victim's splitreq, which the victim serves at
 * its next spawn or join by moving the split over half of its private
 * frames. Descriptor tasks (libgomp's, continuations, and every spawn
 * under slb and rp) keep travelling through the XQueue SPSC queues with
 * the request/round cells of dlb.c: an idle worker first pops its queues,
 * then steals a frame, then sends requests. `slb` keeps the paper's
 * round-robin push and `rp` its redirect, descriptors only.
 *
 * Why a frame runs exactly once. A frame is run by the owner only after
 * it claimed it while private (i >= split: no thief can take it, since a
 * thief's CAS needs head < split and only the owner moves split) or after
 * a CAS that lowered split to i succeeded with head <= i (from then on no
 * thief can take it), or after its own CAS moved head past it (the join
 * takes back a share of the public frames at once, xs_deque_take_own()).
 * A thief runs it only after its CAS moved head past it. The CASes on ts are totally ordered, so exactly one side wins. A
 * frame claimed by the owner and later published anyway has fn == NULL
 * (the claim is before the publishing CAS in the owner's program order,
 * and the thief's acquire CAS reads from that release): the thief only
 * releases `done`.
 *
 * Memory ordering, access by access:
 *  - xs_deque_publish_to(): the frames [nh, ns) (nh: head, or the
 *    join's frame i when head == split and [split, i) are its claimed
 *    frames) were written with plain stores (xs_spawn(), and fn = NULL
 *    for frames claimed since); the CAS
 *    that moves split is a release, read by a thief's acquire CAS on ts
 *    (the one that takes the frame, or an earlier one of the same
 *    release sequence: thieves' CASes are RMWs, so they continue it).
 *    Its load of ts and the CAS's failure are acquires: a split the owner
 *    did not set is a rescuer's release (deque_rescue.c, R5), which makes
 *    the rescuer's claim visible to the check that follows.
 *  - xs_deque_steal_from(): acquire CAS; only after it are fn and arg
 *    read; the release store of done after the task publishes what it
 *    did to the owner's acquire load in xs_frame_done().
 *  - xs_deque_reclaim(), xs_deque_take_own(): relaxed CAS. The owner
 *    reads no thief's data on success (the frame is its own, written by
 *    itself); on failure it waits for done, which is the acquire.
 *  - xs_deque_wait_stolen_run(): ts = (lo, lo) by one release store for a
 *    run [lo, i] of taken frames, once every one of them is done: head
 *    goes back down only here, when nothing at or above lo is in a
 *    thief's hands. One store per run, not one per taken frame plus a
 *    CAS per frame taken back: the shared line is the cost (that was 1.8
 *    writes of it per sparselu task at 2 threads, docs/perf/core.md).
 *  - xs_deque_wake_one() after a publish or a steal that left frames:
 *    the Dekker pairing with xs_park() (park.h), over ts and park.state.
 *  - splitreq: relaxed both ways (a hint; see deque.h).
 *
 * ABA. The owner lowers head again when it pops below a stolen frame, so
 * ts may take a value a stalled thief read long ago. Its CAS then succeeds
 * on a frame that is public *now*, published by the release that wrote the
 * current value, and it reads the frame only after the CAS: harmless.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>

#include "base/clock.h"
#include "core/runtime.h"

/*
 * The calling thread's worker, NULL outside one (declared in
 * xsched/task_inline.h, exported for the inline fast paths). A worker
 * begins with its deque, so this is also the calling thread's deque: the
 * deque layer owns the pointer, and every layer above reads it.
 */
__thread struct xs_worker *xs_self __attribute__((tls_model("initial-exec")));

_Static_assert(sizeof(struct xs_frame) == 64, "a frame is one cache line");
_Static_assert(offsetof(struct xs_frame, arg) == 16, "frame argument block alignment");
_Static_assert(sizeof(((struct xs_frame *)0)->arg) == XS_TASK_ARG_MAX,
	       "a frame carries a whole argument block");
_Static_assert(offsetof(struct xs_deque, splitreq) == XS_CACHE_LINE,
	       "thieves' splitreq is off the owner's line");

/*
 * Debug builds (XS_DEBUG: the sanitizer builds) check the owner-side
 * invariant of deque.h after every change of split or top by the owner:
 * head <= split <= top and split equal to the owner's copy. head is read
 * relaxed; it only grows while the owner is not looking, never past split.
 */
#ifdef XS_DEBUG
static void xs_deque_check(struct xs_worker *w)
{
	/* Acquire: a rescuer's split (R5, deque_rescue.c) brings its RESCUE
	 * bit (R1) with it. */
	uint64_t ts = xs_load_acquire(&w->dqs.ts);

	if (xs_ts_head(ts) <= xs_ts_split(ts) && xs_ts_split(ts) == w->dq.split &&
	    w->dq.split <= w->dq.top && w->dq.base <= w->dq.top)
		return;
	/* A rescue in flight moves the split behind the owner's back; the
	 * owner's ack resyncs it (deque_rescue.c). */
	if (xs_plain_load_relaxed(&w->dq.splitreq) & XS_SPLITREQ_RESCUE)
		return;
	fprintf(stderr, "xsched: worker %u's deque breaks head %u <= split %u (owner's %u) "
		"<= top %u, base %u\n", w->id, xs_ts_head(ts), xs_ts_split(ts), w->dq.split,
		w->dq.top, w->dq.base);
	abort();
}
#else
static inline void xs_deque_check(struct xs_worker *w)
{
	(void)w;
}
#endif

int xs_deque_init(struct xs_worker *w)
{
	size_t bytes = (size_t)XS_DEQUE_FRAMES * sizeof(struct xs_frame);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	w->dq.frames = p;
	w->dq.top = w->dq.split = w->dq.base = 0;
	w->dq.limit = 0;
	w->dq.ctx = NULL;
	xs_store_relaxed(&w->dqs.ts, 0);
	return 0;
}

void xs_deque_destroy(struct xs_worker *w)
{
	if (w->dq.frames)
		munmap(w->dq.frames, (size_t)XS_DEQUE_FRAMES * sizeof(struct xs_frame));
	w->dq.frames = NULL;
}

void xs_deque_job_begin(struct xs_worker *w, bool frames)
{
	/* Between jobs the deque is empty: top == split == head == 0. */
	w->dq.limit = frames ? XS_DEQUE_QUEUED : 0;
}

_Static_assert(XS_DEQUE_QUEUED <= XS_DEQUE_FRAMES, "the bound fits the reservation");

bool xs_deque_make_room(struct xs_worker *w)
{
	struct xs_deque *d = &w->dq;

	if (d->top - d->base >= XS_DEQUE_QUEUED) {
		/* The elder siblings first: after the join top == base. */
		xs_deque_count(d);
		xs_deque_join_from(w, d->base);
	}
	/* top - base < XS_DEQUE_QUEUED here, so the new limit is above top
	 * unless the reservation ends first. */
	d->limit = d->base < XS_DEQUE_FRAMES - XS_DEQUE_QUEUED ? d->base + XS_DEQUE_QUEUED
							      : XS_DEQUE_FRAMES;
	return d->top < d->limit;
}

/*
 * Wake one parked worker for frames just published (or left public by a
 * steal). Dekker with xs_park() (park.h): our ts CAS, then the fence of
 * xs_park_notify(), then the loads of nparked and of each park.state;
 * the sleeper raises nparked and its state, runs the heavy fence, then
 * looks at every ts in xs_deque_visible(). One side sees the other. The
 * sleepers are our teammates, whose parkers are symmetric when ours is.
 */
static void xs_deque_wake_one(struct xs_worker *w)
{
	struct xs_runtime *rt = w->rt;

	if (xs_likely(xs_park_asymmetric && !w->park.symmetric))
		xs_fence_compiler(); /* the sleeper's membarrier() is our fence */
	else
		xs_fence_seq_cst();
	/* Relaxed: ordered by the fence above; see the comment on nparked. */
	if (xs_likely(!xs_load_relaxed(&rt->nparked)))
		return;
	for (uint32_t k = 1; k < w->nworkers; k++) {
		struct xs_worker *v = w->out_worker[k];

		/* Relaxed: ordered by the fence above (Dekker, as notify). */
		if (xs_load_relaxed(&v->park.state) == XS_PARK_SLEEPING) {
			/* Relaxed: a timestamp for the idle-with-work counter,
			 * read by the sleeper after the wake's acq_rel. */
			xs_store_relaxed(&v->park.wake_ns, xs_now_ns());
			xs_park_wake(&v->park);
			return;
		}
	}
}

/*
 * Move the split up over the private frames below @end: all of them
 * (@all), else the older half, rounded up. The new split is computed
 * after the rescue check, from the split a rescuer may have left, and
 * the CAS expects that split: a publish never lowers the split, which
 * thieves may have taken frames under (head <= split, deque.h).
 *
 * The private frames of the running task below @from are claimed ones
 * the owner already ran (a join serving a request at its frame @from;
 * 0: none). When nothing is public
 * (head == split), the same CAS moves head up to @from as well, so that
 * thieves do not take those frames one CAS each only to find fn NULL
 * (sparselu: a third of its thieves' CASes): they are below head then,
 * untouchable by thieves and rescuers (which move split only up from
 * its current value), and after the CAS their done is set to
 * XS_FRAME_OWN, as for frames taken back, for the pop-down to find.
 */
static void xs_deque_publish_to(struct xs_worker *w, uint32_t from, uint32_t end, bool all)
{
	struct xs_deque *d = &w->dq;
	uint32_t s, ns, nh;
	uint64_t old;

	xs_deque_rescue_check(w); /* a rescuer's split first (rescue) */
	s = d->split;
	/* Nothing private below @end: keep the request for the next spawn. */
	if (end <= s)
		return;
	/* Relaxed: cleared before the split moves, so a thief that asks
	 * again after seeing the new split gets another publication. An RMW
	 * (rescue): the word's other bits are the rescuers'. */
	xs_plain_fetch_and_relaxed(&d->splitreq, ~XS_SPLITREQ_REQ);
	/* Only the running task's own frames [base, from) are known to be
	 * claimed and run: below base lie an ancestor's, some unrun. */
	if (from < s || from >= end || s < d->base)
		from = s;
	ns = all ? end : from + (end - from + 1) / 2;
	/* Acquire, here and on failure: a split we did not set is a
	 * rescuer's, and reading its release CAS (R5, deque_rescue.c; the
	 * thieves' CASes continue its release sequence) makes its RESCUE bit
	 * (R1) visible to the check, which takes its split. It published at
	 * least up to our top, so nothing is left to do. Release (success)
	 * publishes the frames [nh, ns) (plain stores) to the thief's acquire
	 * CAS in xs_deque_steal_from(). Thieves move head concurrently:
	 * retry with the head they left. */
	old = xs_load_acquire(&w->dqs.ts);
	do {
		if (xs_ts_split(old) != s) { /* (rescue) */
			xs_deque_rescue_check(w);
			return;
		}
		nh = xs_ts_head(old) == s ? from : xs_ts_head(old);
	} while (xs_counter_inc(&w->fctr.ts_writes_owner),
		 !xs_cas_weak_release_acquire(&w->dqs.ts, &old, xs_ts(nh, ns)));
	/* Relaxed: the owner's own frames, below head now; its pop-down
	 * reads them back in program order. */
	for (uint32_t j = s; j < nh; j++)
		xs_plain_store_relaxed(&d->frames[j].done, XS_FRAME_OWN);
	d->split = ns;
	xs_deque_check(w);
	xs_owned_inc(&w->fctr.publishes); /* the rescue watch reads it */
	xs_deque_wake_one(w);
}

void xs_deque_publish(struct xs_worker *w)
{
	xs_deque_publish_to(w, 0, w->dq.top, false);
}

void xs_task_publish(void)
{
	xs_deque_publish(xs_self);
}

/* Frame @i (< split) is public or stolen. Lower split to i if no thief
 * took it (true: it is private again), else false. */
bool xs_deque_reclaim(struct xs_worker *w, uint32_t i)
{
	/* Relaxed: we read nothing a thief wrote; the CAS's place in ts's
	 * modification order is all that decides who owns frame i. */
	uint64_t old = xs_load_relaxed(&w->dqs.ts);

	for (;;) {
		if (xs_ts_head(old) > i)
			return false;
		xs_counter_inc(&w->fctr.ts_writes_owner);
		if (xs_cas_weak_relaxed(&w->dqs.ts, &old, xs_ts(xs_ts_head(old), i))) {
			w->dq.split = i;
			return true;
		}
	}
}

static bool xs_frame_done(void *arg)
{
	struct xs_frame *f = arg;

	/* Acquire pairs with the thief's release of done: what the stolen
	 * task did is visible to its parent from here on. */
	return xs_plain_load_acquire(&f->done) != 0;
}

/*
 * How many of @pub public frames a join takes back with one CAS, from the
 * oldest on (xs_deque_take_own()): its share, pub / nworkers (at least
 * one, at most XS_DEQUE_TAKE_MAX), so every thief can still find as many
 * as the owner took, and the owner comes back to the shared word once per
 * share instead of once per frame. The share shrinks as the public frames
 * run out, so at the end of a row of equal tasks the owner holds at most
 * one more than a thief does. The bound caps what a long first frame (a
 * subtree) keeps from the thieves.
 */
static uint32_t xs_deque_take_count(const struct xs_worker *w, uint32_t pub)
{
	uint32_t k = pub / w->nworkers;

	return k < 1 ? 1 : k > XS_DEQUE_TAKE_MAX ? XS_DEQUE_TAKE_MAX : k;
}

/*
 * Frame @i (< split) is public. If it is the oldest public frame, take it
 * and the public frames after it, a share of them (xs_deque_take_count()),
 * the way a thief takes one: one CAS moves head past them all, the frames
 * above stay public for the thieves. Returns the end of the run taken
 * (> i; the caller runs [i, end) in order, xs_deque_run_own()). If a thief
 * got frame i first, i. If older public frames remain below it (an
 * ancestor's), lower split to i instead (xs_deque_reclaim()): i + 1 on
 * success (private again), i on failure (stolen meanwhile); *priv tells
 * the two outcomes that make frame i the owner's apart.
 */
static uint32_t xs_deque_take_own(struct xs_worker *w, uint32_t i, bool *priv)
{
	/* Relaxed: as in xs_deque_reclaim(). */
	uint64_t old = xs_load_relaxed(&w->dqs.ts);
	uint32_t k;

	*priv = false;
	for (;;) {
		if (xs_ts_head(old) > i)
			return i;
		if (xs_ts_head(old) < i) {
			*priv = xs_deque_reclaim(w, i);
			return *priv ? i + 1 : i;
		}
		/* The whole word is compared: the share is of the public
		 * frames [i, split) of this very value (a rescuer may have
		 * raised split since d->split was read; deque_rescue.c). */
		k = xs_deque_take_count(w, xs_ts_split(old) - i);
		xs_counter_inc(&w->fctr.ts_writes_owner);
		if (xs_cas_weak_relaxed(&w->dqs.ts, &old, old + ((uint64_t)k << 32)))
			return i + k;
	}
}

/* Frame @i, taken by xs_deque_take_own() (below head, the owner's): run
 * it. The pop-down treats it as taken and finds it done (our own relaxed
 * store, read back by this thread). */
static void xs_deque_run_own(struct xs_worker *w, uint32_t i)
{
	struct xs_frame *f = &w->dq.frames[i];
	xs_task_fn fn = f->fn;

	xs_plain_store_relaxed(&f->fn, NULL); /* thieves' loads */
	xs_frame_call(&w->dq, fn, f->arg);
	xs_plain_store_relaxed(&f->done, XS_FRAME_OWN);
}

/* Frame @i (below head) was stolen, or taken by xs_deque_take_own():
 * wait for its taker, then clear the slot. ts is not touched: the caller
 * lowers it once the frames it waits for are all back. Returns the
 * taker's done (XS_FRAME_*). */
static uint32_t xs_deque_wait_frame(struct xs_worker *w, uint32_t i)
{
	struct xs_frame *f = &w->dq.frames[i];
	uint32_t done;

	/* Counted before the task that spawned it can complete: barrier.c's
	 * rule 2 needs it in the created sum of the worker whose task joins
	 * it, whatever the thief did with it. */
	xs_barrier_count_rejoined(&w->bcnt);
	if (!xs_frame_done(f))
		xs_worker_wait_until(w, xs_frame_done, f);
	/* Relaxed: our own acquire above read it. */
	done = xs_plain_load_relaxed(&f->done);
	if (done == XS_FRAME_RAN)
		xs_owned_inc(&w->fctr.frames_stolen_ran);
	/* Relaxed: the frame is the owner's again (done acquired above).
	 * (rescue) fn cleared: a rescuer may publish this slot again before
	 * the owner sees its claim, and a thief must then find no task. */
	xs_plain_store_relaxed(&f->fn, NULL);
	xs_plain_store_relaxed(&f->done, 0);
	return done;
}

/*
 * Frames [@lo, @i] are all below head, with head == split == top == i + 1
 * (nothing public, nothing private above them): wait for each taker, then
 * lower head and split to lo with one store. Whatever runs nested while we
 * wait (xs_worker_wait_until()) pushes above i and has restored head ==
 * split == top == i + 1 before it returns, so the word stays (i + 1, i + 1)
 * throughout, and lowering head is safe only now, when nothing in
 * [lo, i + 1) is in a thief's hands. Returns the last done waited for
 * (frame lo's).
 */
static uint32_t xs_deque_wait_stolen_run(struct xs_worker *w, uint32_t lo, uint32_t i)
{
	uint32_t done;

#ifdef XS_DEBUG
	/* Relaxed: only the owner lowers head or moves split here; a rescue
	 * in flight is the one exception, resynced by the owner's ack. */
	uint64_t ts = xs_load_relaxed(&w->dqs.ts);

	if (ts != xs_ts(i + 1, i + 1) &&
	    !(xs_plain_load_relaxed(&w->dq.splitreq) & XS_SPLITREQ_RESCUE)) {
		fprintf(stderr, "xsched: worker %u waits for taken frames [%u, %u] with head %u, "
			"split %u (both should be %u)\n", w->id, lo, i, xs_ts_head(ts),
			xs_ts_split(ts), i + 1);
		abort();
	}
#endif
	for (uint32_t j = i;; j--) {
		done = xs_deque_wait_frame(w, j);
		if (j == lo)
			break;
	}
	/* Release, though no thief can act on (lo, lo): a stalled thief's CAS
	 * expects a value with head < split. It pairs with a rescuer's
	 * acquire (R3, deque_rescue.c): the slots' clearing above and the
	 * top stores before it come with it, and a rescuer that publishes
	 * [lo, top) then finds fn NULL there. */
	xs_store_release(&w->dqs.ts, xs_ts(lo, lo));
	xs_counter_inc(&w->fctr.ts_writes_owner);
	w->dq.split = lo;
	xs_deque_check(w);
	return done;
}

/* Frame @i was stolen, or taken by xs_deque_take_own() (head == split ==
 * top == i + 1): wait for its taker, then take the slot and the split
 * back. Returns the taker's done (XS_FRAME_*). */
static uint32_t xs_deque_wait_stolen(struct xs_worker *w, uint32_t i)
{
	return xs_deque_wait_stolen_run(w, i, i);
}

void xs_deque_join_from(struct xs_worker *w, uint32_t first)
{
	struct xs_deque *d = &w->dq;
	uint32_t lo = d->base, hi = d->top, own = first;

	/* Spawn order: claim and run each frame no thief has taken. Frames
	 * below `own` were taken by xs_deque_take_own() as a run: ours. */
	for (uint32_t i = first; i < hi; i++) {
		struct xs_frame *f = &d->frames[i];
		xs_task_fn fn;
		bool priv;

		/* Relaxed: a hint, see xs_spawn(). Served before a child that
		 * may run long, with every frame left: this join takes its
		 * frames from the oldest on anyway, as thieves do. */
		uint32_t r = xs_plain_load_relaxed(&d->splitreq);

		if (r & XS_SPLITREQ_RESCUE)
			xs_deque_rescue_check(w);
		if ((r & XS_SPLITREQ_REQ) && d->split < hi)
			xs_deque_publish_to(w, i, hi, true);
		if (i < own) {
			xs_deque_run_own(w, i);
			continue;
		}
		if (i < d->split) {
			own = xs_deque_take_own(w, i, &priv);
			if (!priv) {
				if (own > i)
					xs_deque_run_own(w, i);
				continue; /* stolen, or taken and run: popped below */
			}
			own = i; /* reclaimed: private, claimed below */
		}
		fn = f->fn;
		/* Relaxed, then the rescue check (deque_rescue.c). */
		xs_plain_store_relaxed(&f->fn, NULL);
		if (xs_deque_rescue_check(w) && !xs_deque_rescue_claimed(w, i))
			continue; /* a thief ran it: popped below */
		xs_frame_call(d, fn, f->arg);
	}
	/* Newest first: drop what we ran, wait for what thieves took. Each
	 * store that lowers top is followed by the rescue check; a rescuer
	 * that published above the new top makes us go back up to its split
	 * (deque_rescue.c). Relaxed: read by rescuers after their fence.
	 * The first frame found taken (reclaim fails: head > i, so head ==
	 * split == top == i + 1 after the check) has every frame below it,
	 * down to lo, taken too: one wait for the run and one store of ts
	 * (xs_deque_wait_stolen_run()), then top = lo and its check. */
	for (uint32_t i = hi;;) {
		if (i == lo) {
			xs_plain_store_relaxed(&d->top, lo);
			if (xs_deque_rescue_check(w) && d->split > lo) {
				i = d->split;
				continue;
			}
			break;
		}
		i--;
		xs_plain_store_relaxed(&d->top, i + 1);
		if (xs_deque_rescue_check(w) && d->split > i + 1) {
			i = d->split;
			continue;
		}
		if (i >= d->split || xs_deque_reclaim(w, i))
			continue;
		xs_deque_wait_stolen_run(w, lo, i);
		i = lo;
	}
	xs_deque_check(w);
}

/*
 * Typed tasks (xsched/task_typed.h). A typed join takes the newest frame,
 * i = top - 1, instead of running [base, top) oldest first. Its inline
 * half pops a private frame by a store of top and the rescue check; this
 * is the rest, entered with top == i + 1: frame i public or stolen, or a
 * thief's request or a rescue seen. Each case is one the pop-down of
 * xs_deque_join_from() meets for its newest frame, and is handled the
 * same way: private (or made private by a reclaim CAS) is popped with
 * the rescue check after the store, and a rescuer that published the
 * frame before it saw the pop sends us round again; stolen is waited
 * for. Returns 1 when the caller runs the frame's task (popped, never
 * run), 0 when a thief ran it: popped, its result in the frame. The frame
 * was counted at its spawn (task_typed.h, Counting).
 */
int xs_task_join_newest(void)
{
	struct xs_worker *w = xs_self;
	struct xs_deque *d = &w->dq;
	uint32_t i = d->top - 1;
	/* Relaxed: a hint, as in xs_spawn(). */
	uint32_t r = xs_plain_load_relaxed(&d->splitreq);
	bool ran = false;

	if (r & XS_SPLITREQ_RESCUE)
		xs_deque_rescue_check(w);
	/* A thief asks: the older half of the private frames below this one
	 * (the one we are about to run stays ours; with none below, the
	 * request waits for the next spawn). */
	if (r & XS_SPLITREQ_REQ)
		xs_deque_publish_to(w, 0, i, false);
	for (;;) {
		if (i >= d->split || xs_deque_reclaim(w, i)) {
			/* Relaxed, then the rescue check (deque_rescue.c). */
			xs_plain_store_relaxed(&d->top, i);
			if (xs_deque_rescue_check(w) && d->split > i) {
				/* Published before the rescuer saw the pop: a
				 * public frame again (fn intact, or cleared
				 * by the wait below once it ran). */
				xs_plain_store_relaxed(&d->top, i + 1);
				continue;
			}
			xs_deque_check(w);
			return !ran;
		}
		/* A thief has it: it runs NAME_xs_thief(), which stores the
		 * result in the frame; the slot is ours again after this.
		 * (BACK: only a frame we ran and a rescuer republished.) */
		if (xs_deque_wait_stolen(w, i) == XS_FRAME_RAN)
			ran = true;
	}
}

/* The frame a typed spawn fills when the inline test fails: frames off
 * for xs_spawn() (slb, rp, profile: typed children are frames anyway),
 * no worker, or a full deque. */
struct xs_frame *xs_task_typed_frame(void)
{
	struct xs_worker *w = xs_self;

	if (xs_unlikely(!w)) {
		fputs("libxsched: a typed task was spawned outside a task (no worker)\n", stderr);
		abort();
	}
	if (xs_unlikely(w->dq.top >= XS_DEQUE_FRAMES)) {
		fprintf(stderr, "libxsched: worker %u holds %u unjoined frames, the most a deque "
			"holds: no frame for a typed task\n", w->id, w->dq.top);
		abort();
	}
	return &w->dq.frames[w->dq.top];
}

/* XS_DEBUG builds: a typed join met no child of its own kind, or a
 * Lace-shaped body's top (xs_top) is not the deque's. */
void xs_task_typed_misuse(const char *name)
{
	fprintf(stderr, "libxsched: typed task %s: the running task's newest unjoined child is "
		"not a %s spawn, or top moved behind XS_SPAWN()/XS_JOIN() (xsched/task_typed.h, "
		"Rules)\n", name, name);
	abort();
}

/* Take the oldest public frame of @v and run it. *seen: there was one. */
static bool xs_deque_steal_from(struct xs_worker *w, struct xs_worker *v, bool *seen)
{
	/* Acquire: see the CAS below; this load only decides whether to try. */
	uint64_t old = xs_load_acquire(&v->dqs.ts);
	struct xs_frame *f;
	xs_task_fn fn;
	uint32_t h;

	while (xs_ts_head(old) < xs_ts_split(old)) {
		*seen = true;
		h = xs_ts_head(old);
		xs_counter_inc(&w->fctr.ts_writes_thief);
		/* Acquire pairs with the owner's release CAS in publish: the
		 * frame's contents are visible. On failure `old` is reloaded
		 * (another thief, or the owner reclaiming): try again. */
		if (!xs_cas_weak_acquire(&v->dqs.ts, &old, old + (1ull << 32)))
			continue;
		f = &v->dq.frames[h];
		/* Relaxed: the owner's claim of a frame a rescuer published
		 * may race with this load (deque_rescue.c). */
		fn = xs_plain_load_relaxed(&f->fn);
		if (h + 1 < xs_ts_split(old))
			xs_deque_wake_one(w); /* more left: one more thief */
		if (fn) {
			xs_counter_inc(v->node == w->node ? &w->fctr.frames_taken
							  : &w->fctr.frames_taken_remote);
			xs_task_run_stolen(w, fn, f->arg, v);
		}
		/* Release publishes what the task did to the owner's acquire
		 * in xs_frame_done(); after it the frame is the owner's. BACK:
		 * not run here (deque_rescue.c runs it when the claim was
		 * the owner's, made after a rescue published it). */
		xs_plain_store_release(&f->done, fn ? XS_FRAME_RAN : XS_FRAME_BACK);
		xs_park_notify(&v->park);
		return fn != NULL;
	}
	/* Nothing public: ask the owner to publish. Relaxed, a hint; written
	 * only when clear, so polling thieves do not bounce its line; an RMW
	 * that keeps the rescue bits. */
	if (!(xs_plain_load_relaxed(&v->dq.splitreq) & XS_SPLITREQ_REQ))
		xs_plain_fetch_or_relaxed(&v->dq.splitreq, XS_SPLITREQ_REQ);
	return false;
}

bool xs_deque_steal(struct xs_worker *w)
{
	struct xs_runtime *rt = w->rt;
	uint32_t n = w->nworkers;
	bool seen;

	if (n == 1)
		return false;
	do {
		seen = false;
		/* Nearest first would need the victim view; a rotating start
		 * (the last victim that had work) spreads thieves. */
		for (uint32_t j = 0; j < n - 1; j++) {
			uint32_t k = 1 + (w->own.steal_next + j) % (n - 1);

			if (xs_deque_steal_from(w, rt->workers[(w->id + k) % n], &seen)) {
				w->own.steal_next = k - 1;
				return true;
			}
		}
	} while (seen || xs_deque_rescue_scan(w)); /* claimed frames only, lost
						      * races, or rescued: again */
	return false;
}

/*
 * Before parking: ask every other worker to publish (a parked thief sends
 * no request, so without this a spawner would never learn that somebody
 * waits), then look for public frames. Called after the park fence: an
 * owner that publishes after this look sees our SLEEPING state and wakes
 * a sleeper (xs_deque_wake_one()).
 */
bool xs_deque_visible(struct xs_worker *w)
{
	for (uint32_t k = 0; k < w->nworkers; k++) {
		struct xs_worker *v = w->rt->workers[k];
		/* Relaxed: read after the park fence, see xs_deque_wake_one(). */
		uint64_t ts = xs_load_relaxed(&v->dqs.ts);

		if (v == w)
			continue;
		if (xs_ts_head(ts) < xs_ts_split(ts))
			return true;
		/* Relaxed: a hint, as in xs_deque_steal_from(). */
		if (!(xs_plain_load_relaxed(&v->dq.splitreq) & XS_SPLITREQ_REQ))
			xs_plain_fetch_or_relaxed(&v->dq.splitreq, XS_SPLITREQ_REQ);
	}
	return false;
}

/*
 * Before an idle stretch: XSCHED_RESCUE_US in ns if some other worker
 * holds private frames (a rescue may be due then, deque_rescue.c), else
 * 0. Only where rescues can happen: the owner's side of the rescue is a
 * compiler barrier only with membarrier() (park.h).
 */
uint64_t xs_deque_rescue_park_ns(struct xs_worker *w)
{
	if (!xs_park_asymmetric)
		return 0;
	for (uint32_t k = 1; k < w->nworkers; k++) {
		struct xs_worker *v = w->rt->workers[(w->id + k) % w->nworkers];

		/* Relaxed: hints, as in xs_deque_rescue_scan(). */
		if (xs_plain_load_relaxed(&v->dq.top) >
		    xs_ts_split(xs_load_relaxed(&v->dqs.ts)))
			return (uint64_t)w->rt->opt.rescue_us * 1000u;
	}
	return 0;
}

/* A worker woken for frames: the time since the waker published counts
 * as idle with stealable work (owner-written counter). */
void xs_deque_woken(struct xs_worker *w)
{
	/* Relaxed: written by the waker before the wake's acq_rel exchange,
	 * which our return from the futex acquired. */
	uint64_t t = xs_exchange_relaxed(&w->park.wake_ns, 0);
	uint64_t now;

	if (!t)
		return;
	now = xs_now_ns();
	if (now > t)
		xs_counter_add(&w->fctr.idle_work_ns, now - t);
}
