// SPDX-License-Identifier: MIT
/*
 * barrier.c - tree barrier with termination detection.
 *
 * Shape. Workers form a binary tree (parent of i is (i - 1) / 2). A barrier
 * episode is a series of waves. In each wave every worker waits for the
 * reports of its children, adds its own counters, and reports the sums to
 * its parent by writing its own node and releasing `report_seq` (lock-free
 * gathering: each child writes only its own line, no lock, no RMW). The
 * root decides: either it releases, or it starts another wave, and
 * publishes the decision in one word, rt->barrier_down, that every other
 * worker waits on (a plain release store, no RMW). The way up needs the
 * tree, since sums must be added; the way down does not: one store that
 * all waiters see costs about one cache-line transfer at any team size,
 * where a decision passed down the tree costs one per level. Each parent
 * still wakes its children (xs_park_notify()), so a parked waiter is
 * woken in log N steps rather than by the root alone. While it waits, a
 * worker keeps running the tasks that arrive in its queues.
 *
 * A runtime of more workers than CPUs uses a flat tree instead: every
 * worker is a child of the root (arity N - 1). There waiters park at once
 * (worker.c), so each level of the tree is a wake-up and a wait for a CPU
 * on the way up and again on the way down; flat, the root gathers and
 * releases everyone itself: 1000 regions of 8 threads on 2 CPUs took
 * 0.69-0.81 s flat against 0.82-1.68 s binary, libgomp 0.61-0.86 s
 * (docs/perf/corun.md). Nothing below depends on the tree's shape.
 *
 * Where a task can be, every place, and what keeps the barrier from
 * releasing while it is there:
 *  (a) Descriptors (libgomp's tasks, continuations, every spawn under slb
 *      and rp; counted: C before it is visible, F after its body and join):
 *      1. queued in an XQueue SPSC queue (pushed round-robin, redirected
 *         by NA-RP, or moved there by an NA-WS steal), or in a victim's
 *         hands between its own queue and the thief's during that move;
 *      2. running, or waiting in its own join, on some worker's stack;
 *      3. a continuation created and not yet made ready, or ready on the
 *         runtime's inject stack, or taken from it by a worker;
 *      4. run at once as a counted task because its queue was full
 *         (xs_task_push_counted(), C incremented before it runs);
 *      In 1-4 it is outstanding: C - F > 0 until its F increment.
 *      5. created by libgomp with unmet dependences: not in C until it is
 *         queued where its last predecessor completes, but counted on its
 *         parent (xs_task_count_child()), which cannot complete before it
 *         does: the parent is in 1-4, or a frame or root/implicit task
 *         (b), so the barrier waits for it through its parent.
 *  (b) Frames (not counted; always a child of the task that was running
 *      when it was pushed, which joins it before it completes):
 *      1. private, [split, top) of its spawner's deque;
 *      2. public, [head, split), not taken yet;
 *      3. claimed by the spawner (fn == NULL) and running there by a
 *         direct call, possibly published afterwards (a thief that takes
 *         it runs nothing and sets done);
 *      4. taken back by the spawner past head, a share of the public
 *         frames per CAS (xs_deque_take_own()), and waiting for its turn
 *         in the spawner's join, running or finished there;
 *      5. stolen: running on the thief's stack, or finished with done set
 *         and not yet popped by the spawner's join.
 *      A frame's spawner is a descriptor, a root or implicit task, or a
 *      frame; following spawners from any live frame ends at a live
 *      descriptor (case (a)) or a root/implicit task that has not
 *      completed - and a worker arrives only after its root or implicit
 *      task's join, which waits for every frame of case 5 and runs the
 *      rest (xs_barrier_arrive_and_wait() joins before the first wave).
 *  (c) A descriptor context made lazily for a frame (xs_task_ctx()): not a
 *      task, the frame's own record; its descriptor children are (a).
 *  (d) A task run immediately (full queue, full deque, an undeferred
 *      OpenMP task): part of the task that runs it, which is in (a)-(b)
 *      or a root/implicit task.
 * A stolen frame can itself create descriptors on the thief while its
 * spawner's worker has already reported; rule 2 below (Y counts) covers
 * that case, rule 1 covers everything else.
 *
 * Counters. The barrier's own, per worker (struct xs_barrier_counts,
 * barrier.h; owner-written, not statistics: a build without statistics
 * keeps them). C_w (created) = descriptors worker w queued (any push
 * policy; a counted task run at once because its queue was full, (a) 4)
 * plus continuations it created, each incremented before the task is
 * published, plus Y_w; F_w (finished) = queued descriptors w completed,
 * incremented after the body and its join returned, plus Y_w. Y_w
 * (rejoined) counts frames of w's that w found taken when it joined
 * them; it is added to both sums, so C - F is still the number of
 * descriptors outstanding, but a stolen frame makes C grow (rule 2).
 * A descriptor is outstanding from its C increment to its F increment, so
 * at any moment the true totals satisfy F <= C, with equality iff no
 * descriptor is queued or running. Frames and tasks run immediately are
 * not counted as such. All counters only grow.
 *
 * Why a release is never premature. Let C_k, F_k be the sums gathered in
 * wave k. Every read of wave k happens-before the root's decision on wave
 * k (acquire/release chain up the tree), and every read of wave k+1
 * happens-after it (the wave start travels down before anyone reads). Let t
 * be the root's decision on wave k.
 *
 *  1. Four-counter rule (Mattern): if F_k == C_{k+1}, then at t
 *     F(t) >= F_k (wave-k reads precede t, counters grow) and
 *     C(t) <= C_{k+1} (wave-(k+1) reads follow t), so F(t) >= C(t), hence
 *     F(t) == C(t): no descriptor was outstanding at t. Every worker had
 *     arrived before its wave-k read, and arrives only with no frame of
 *     its root or implicit task left (it joins them first), so every
 *     root and implicit task had completed or was parked in the barrier
 *     with no children; a frame alive at t would lead, through its parents, to a
 *     live descriptor or a live root/implicit task: there is none, so no
 *     frame is alive either. Nothing runs, so nothing can be created
 *     later: the state is final and the release is safe.
 *
 *  2. First-wave shortcut: if C_1 == R, the total created at the previous
 *     release (when nothing was alive), then nothing was created in this
 *     episode. Suppose some descriptor was; take the first, created at
 *     time s by worker W. W was not running a descriptor task of this
 *     episode (that would be an earlier one) nor of the previous one
 *     (none was left), so it was running its root or implicit task, or a
 *     frame whose parents lead to one. If that root/implicit task is W's,
 *     W had not arrived at s, its wave-1 read came later and counted the
 *     descriptor: C_1 > R. If it is another worker V's, the frame W ran
 *     had been stolen from a worker whose task (on the way up to V's
 *     root/implicit task) joined it after s and before that root/implicit
 *     task completed, so before V's arrival and wave-1 read: that join
 *     counted Y, and C_1 > R again. The same holds for frames: a frame
 *     alive after the wave-1 reads has a live root/implicit ancestor
 *     (possible only if its owner had not arrived: contradiction) or a
 *     descriptor ancestor (excluded above). A barrier in which nobody
 *     spawned, or every spawn stayed with its spawner, costs one wave up
 *     and the release down.
 *
 * A worker drains its queues before reporting; that only makes waves more
 * likely to succeed, it is not needed for safety.
 */
#include <errno.h>

#include "core/runtime.h"

#define XS_DOWN_RELEASE 1u

/* The tree's arity: 2, or every worker a child of the root in a runtime
 * of more workers than CPUs (see Shape above). */
static inline uint32_t xs_tree_arity(const struct xs_worker *w)
{
	return w->rt->oversubscribed && w->nworkers > 2 ? w->nworkers - 1 : 2;
}

static inline uint32_t xs_tree_parent(const struct xs_worker *w)
{
	return (w->id - 1) / xs_tree_arity(w);
}

struct xs_report_wait {
	struct xs_barrier_node *node;
	uint64_t seq;
};

static bool xs_report_arrived(void *arg)
{
	struct xs_report_wait *rw = arg;

	/* Acquire pairs with the child's release of report_seq: its sums are
	 * visible, and so (transitively) are its subtree's counter reads. */
	return xs_load_acquire(&rw->node->report_seq) >= rw->seq;
}

struct xs_down_wait {
	_Atomic uint64_t *down;
	uint64_t seq;
};

static bool xs_down_arrived(void *arg)
{
	struct xs_down_wait *dw = arg;

	/* Acquire pairs with the root's release of barrier_down: the
	 * decision, and for a release every task's effects, which the root
	 * acquired through the reports. */
	return xs_load_acquire(dw->down) >> 1 >= dw->seq;
}

/*
 * Wait for a barrier word: first look at nothing else for a moment, then
 * wait as any idle worker (xs_worker_wait_on()), which between two looks
 * at the word polls load-balancing requests, pops every queue and tries
 * to steal. In a barrier that no task holds up, the word arrives about a
 * round trip after the teammate's store; looking only at it meanwhile
 * sees the line the moment it lands, instead of after whatever probe of
 * the teammates' queues and deques is under way. A task queued here waits
 * at most the spin (a few microseconds) longer. A runtime of more workers
 * than CPUs skips it: there the teammate needs this CPU (worker.c parks
 * at once), and so does OMP_WAIT_POLICY=passive (spin_ns 0).
 */
#define XS_BARRIER_SPINS 64

static void xs_barrier_wait_word(struct xs_worker *w, bool (*done)(void *), void *arg,
				 uint32_t awaited)
{
	if (!w->rt->oversubscribed && w->rt->spin_ns)
		for (uint32_t i = 0; i < XS_BARRIER_SPINS; i++) {
			if (done(arg))
				return;
			xs_cpu_relax();
		}
	xs_worker_wait_on(w, done, arg, awaited);
}

/* Gather wave @seq from the children of @w and add @w's own counters. */
static void xs_barrier_gather(struct xs_worker *w, uint64_t seq, uint64_t *created,
			      uint64_t *finished)
{
	struct xs_runtime *rt = w->rt;
	uint32_t k = xs_tree_arity(w);
	uint64_t rejoined;

	*created = 0;
	*finished = 0;
	for (uint32_t c = k * w->id + 1; c <= k * w->id + k && c < w->nworkers; c++) {
		struct xs_barrier_node *cn = &rt->workers[c]->bnode;
		struct xs_report_wait rw = { cn, seq };

		/* Child c reports: while it is switched out, park (worker.c). */
		xs_barrier_wait_word(w, xs_report_arrived, &rw, c);
		*created += cn->report_created;
		*finished += cn->report_finished;
	}
	/* Own counts last, so they are read after this worker's arrival
	 * and after the wave start it answers. Relaxed: this thread is their
	 * only writer (barrier.h). */
	rejoined = xs_load_relaxed(&w->bcnt.rejoined);
	*created += xs_load_relaxed(&w->bcnt.created) + rejoined;
	*finished += xs_load_relaxed(&w->bcnt.finished) + rejoined;
	xs_counter_inc(&w->ctr.barrier_waves);
}

/*
 * A wave that failed and saw no progress since the previous one means the
 * outstanding tasks are running long on some worker, or a continuation is
 * waiting for a device. Waves then come at most every backoff_ns, doubling
 * from XS_BACKOFF_MIN_NS to XS_BACKOFF_MAX_NS, so that waiting costs no CPU;
 * the root still runs whatever is handed to it meanwhile.
 */
#define XS_BACKOFF_MIN_NS 2000u
#define XS_BACKOFF_MAX_NS 1000000u

/* Root: release after this wave? Implements rules 1 and 2 above. */
static bool xs_barrier_decide(struct xs_worker *root, uint64_t created, uint64_t finished)
{
	struct xs_barrier_state *b = &root->bar;
	bool release, stuck;

	stuck = b->wave_in_episode && created == b->prev_created &&
		finished == b->prev_finished;
	if (b->wave_in_episode++ == 0)
		release = created == b->released_total;
	else
		release = b->prev_finished == created;
#if defined(XS_MUTATE_BARRIER_EARLY)
	/* Mutation (tests/mutants/check.sh): release on the first wave,
	 * whatever is still queued or running. The tests must fail. */
	release = true;
#elif defined(XS_MUTATE_BARRIER_TWO_COUNTER)
	/* Mutation: one wave whose sums agree releases (no four-counter
	 * rule): a task counted created after its own wave-k read and
	 * finished before another's can hide. The tests must fail. */
	release = created == finished;
#endif
	b->prev_finished = finished;
	b->prev_created = created;
	if (release) {
		b->released_total = created;
		b->wave_in_episode = 0;
		b->backoff_ns = 0;
	} else if (!stuck) {
		b->backoff_ns = 0;
	} else {
		b->backoff_ns = b->backoff_ns ? b->backoff_ns * 2 : XS_BACKOFF_MIN_NS;
		if (b->backoff_ns > XS_BACKOFF_MAX_NS)
			b->backoff_ns = XS_BACKOFF_MAX_NS;
	}
	return release;
}

void xs_barrier_arrive_and_wait(struct xs_worker *w)
{
	struct xs_runtime *rt = w->rt;
	uint64_t t0 = xs_prof_begin(w->log);

	/* Arrive with no frame of the implicit task left (see above). */
	if (w->dq.top != w->dq.base) {
		xs_deque_count(&w->dq);
		xs_deque_join_from(w, w->dq.base);
	}
	for (;;) {
		uint64_t seq = ++w->bar.seq, created, finished;
		uint32_t k;
		bool release;

		xs_worker_drain(w);
		xs_barrier_gather(w, seq, &created, &finished);
		if (w->id == 0) {
			release = xs_barrier_decide(w, created, finished);
			if (!release && w->bar.backoff_ns)
				xs_worker_pause(w, w->bar.backoff_ns);
		} else {
			struct xs_down_wait dw = { &rt->barrier_down, seq };

			w->bnode.report_created = created;
			w->bnode.report_finished = finished;
			/* Release publishes the sums above to the parent's
			 * acquire in xs_report_arrived(). */
			xs_store_release(&w->bnode.report_seq, seq);
			xs_park_notify(&rt->workers[xs_tree_parent(w)]->park);
			xs_barrier_wait_word(w, xs_down_arrived, &dw, xs_tree_parent(w));
			/* Relaxed: xs_down_arrived() acquired this wave's
			 * decision, and the root writes the next one only
			 * after this worker's next report. */
			release = xs_load_relaxed(&rt->barrier_down) & XS_DOWN_RELEASE;
		}
		if (w->id == 0)
			/* Release pairs with the acquire in xs_down_arrived(). */
			xs_store_release(&rt->barrier_down,
					 seq << 1 | (release ? XS_DOWN_RELEASE : 0));
		k = xs_tree_arity(w);
		/* Wake a child that parked waiting for the decision: we have
		 * seen it, so either the child's re-check after announcing
		 * its sleep sees it too, or this notify sees the child
		 * asleep (park.h's handshake). */
		for (uint32_t c = k * w->id + 1; c <= k * w->id + k && c < w->nworkers; c++)
			xs_park_notify(&rt->workers[c]->park);
		if (release)
			break;
	}
	xs_prof_end(w->log, XS_EV_BARRIER, t0);
}

int xs_barrier_wait(void)
{
	struct xs_worker *w = xs_self;

	if (!w || !w->own.implicit || w->dq.ctx != w->own.implicit)
		return -EPERM;
	xs_barrier_arrive_and_wait(w);
	return 0;
}
