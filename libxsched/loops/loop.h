/* SPDX-License-Identifier: MIT */
/*
 * loop.h - the chunk dispenser of parallel loops (internal).
 *
 * One implementation for xs_parallel_for() (loop.c) and the libgomp
 * drop-in's worksharing loops (gomp/loop.c, loop_ull.c, ordered.c): both
 * dispense a loop over its iteration numbers [0, n), whatever its type,
 * bounds and direction; the caller maps number i to start + i * step.
 *
 *   static   thread t takes chunks t, t + P, t + 2P, ... (one block each
 *            when chunk is 0); no shared state
 *   dynamic  a fetch_add on `next`
 *   guided   a CAS loop on `next` taking max(chunk, left / P)
 *   hybrid   thread t's block [a_t, b_t) (the static block) is laid out as
 *            ns static tasks, then ndt_t dynamic tasks of dsize_t iterations
 *            (dsize_t = grain per mille of the block, at least 1). The
 *            dynamic tasks are claimed through slots[t].span, front and
 *            back indices in one word: the owner takes from the front, a
 *            thief from the back (monotonic loops: from the front too), each
 *            with one CAS that succeeds only while front < back.
 *   affinity hybrid over positions in an affinity schedule's order
 *            (affinity.h): thread t's block is its planned part; a chunk
 *            of positions becomes runs of consecutive iterations.
 *
 * Invariants (checked by tests/loops/loop-*.c: every iteration exactly once;
 * the first one also at every read and write of a span word in XS_DEBUG
 * builds, which the sanitizer builds are):
 *  - for every t, span(t) = front | back << 32 with front <= back <= ndt_t,
 *    front only grows, back only shrinks; task k of t is run by whoever
 *    moved front past k or back onto k, exactly one of them;
 *  - static tasks of t are run by t alone, each once (its private cursor),
 *    unless claim_all: then they are in span(t) too, whose bound is
 *    ns + ndt_t (hybrid) or t's chunk count (static cyclic).
 * The dispenser hands out numbers only, so its atomics are relaxed: what
 * loop bodies publish is ordered by the job's barrier (or, in the drop-in,
 * the team barrier and the ordered turn).
 *
 * Ordering guarantees the drop-in relies on: each thread's own chunks come
 * in increasing order; under `monotonic` a thief takes only from threads
 * numbered at least as high as the last it took from, front first, so all
 * of a thread's chunks increase (ordered turns pass chunk to chunk).
 */
#ifndef XSCHED_LOOP_H
#define XSCHED_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "xsched.h"
#include "base/atomics.h"

struct xs_victim_view;
struct xs_affinity_map;

/* Thread t's claim word of its dynamic tasks, on a line of its own; in
 * xs_parallel_for()'s static block loops (loop.c), its block's pieces. */
struct xs_loop_slot {
	xs_cache_aligned _Atomic uint64_t span; /* front | back << 32 */
	_Atomic uint64_t pieces; /* loop number << 32 | front << 16 | back */
};

struct xs_loop_disp {
	uint64_t n;             /* iterations [0, n) */
	uint64_t chunk;         /* static: 0 = block; dynamic, guided: >= 1 */
	uint32_t kind;          /* XS_LOOP_STATIC .. XS_LOOP_HYBRID */
	uint32_t nthreads;      /* >= 1 */
	uint32_t ns, nd, grain; /* hybrid */
	bool monotonic;         /* hybrid: every thread's chunks increase */
	bool claim_all;         /* every chunk claimable (xs_loop_disp_claim_all) */
	struct xs_loop_slot *slots;           /* hybrid: nthreads of them */
	const struct xs_victim_view *victims; /* hybrid: by thread id, or NULL */
	const struct xs_affinity_map *amap;   /* affinity: the schedule */
	/* dynamic, guided: next undispensed iteration (RMW, own line). */
	xs_cache_aligned _Atomic uint64_t next;
};

/* A thread's private progress through one loop. */
struct xs_loop_cursor {
	uint32_t tid;
	uint32_t phase;         /* hybrid: static, own dynamic, steal, done */
	uint64_t trip;          /* static chunks / static tasks taken */
	uint32_t src;           /* monotonic hybrid: lowest thread to take from */
	uint64_t pos, pos_end;  /* affinity: positions of the chunk being run */
};

/*
 * Set up @d for @n iterations over @nthreads threads with the resolved
 * schedule @s (kind not DEFAULT, checked). Hybrid needs @slots (nthreads of
 * them; NULL otherwise) and takes victims, nearest first, from @victims
 * when it is for nthreads workers (else in id order). Call before the
 * threads may take chunks; publishing @d is the caller's release.
 */
void xs_loop_disp_init(struct xs_loop_disp *d, uint64_t n, uint32_t nthreads,
		       const struct xs_loop_sched *s, bool monotonic, struct xs_loop_slot *slots,
		       const struct xs_victim_view *victims);

/* The same for the affinity schedule @m (nthreads its workers; kind in
 * @s is ignored): the hybrid schedule over @m's positions. */
void xs_loop_disp_init_affinity(struct xs_loop_disp *d, uint64_t n, uint32_t nthreads,
				const struct xs_loop_sched *s, struct xs_loop_slot *slots,
				const struct xs_victim_view *victims,
				const struct xs_affinity_map *m);

/*
 * Make every chunk of @d claimable by every thread, for loops that must
 * not wait for a thread that is not running (elastic loops, loop.c): a
 * static or hybrid thread's private part would be stranded with it.
 * After this, thread t's chunks are all in its claim word slots[t]:
 *   static block   the block in `pieces` tasks (XS_LOOP_HYBRID, ns =
 *                  pieces, nd = 0), taken front first by t, back first
 *                  by the others;
 *   static cyclic  its chunks t, t + P, ... as tasks 0, 1, ... (a thread
 *                  with more than 2^31 of them: dynamic instead);
 *   hybrid         its ns static tasks then its dynamic tasks;
 *   dynamic, guided  nothing private: unchanged.
 * Call after xs_loop_disp_init() (not for affinity or monotonic loops),
 * before publishing @d; @slots: nthreads of them.
 */
void xs_loop_disp_claim_all(struct xs_loop_disp *d, struct xs_loop_slot *slots);

static inline void xs_loop_cursor_init(struct xs_loop_cursor *c, uint32_t tid)
{
	c->tid = tid;
	c->phase = 0;
	c->trip = 0;
	c->src = tid;
	c->pos = c->pos_end = 0;
}

/* The next chunk [*lo, *hi) (never empty) of thread @c->tid; false when
 * that thread has nothing more to do. */
bool xs_loop_disp_next(struct xs_loop_disp *d, struct xs_loop_cursor *c, uint64_t *lo,
		       uint64_t *hi);

/* Iterations from @start to @end (exclusive) by @stride, stepping up or
 * down; all three as 64-bit patterns (@stride positive, the magnitude of
 * the step); @is_signed: the bounds are signed, else unsigned. */
static inline uint64_t xs_loop_trip_count(uint64_t start, uint64_t end, uint64_t stride, bool up,
					  bool is_signed)
{
	bool empty;
	uint64_t d;

	if (is_signed)
		empty = up ? (int64_t)start >= (int64_t)end : (int64_t)start <= (int64_t)end;
	else
		empty = up ? start >= end : start <= end;
	if (empty)
		return 0;
	d = up ? end - start : start - end;
	return d / stride + (d % stride != 0);
}

/* The schedule of XSCHED_LOOP_* in @opt for the drop-in, with kind 0 when
 * XSCHED_LOOP_SCHEDULE is auto (OMP_SCHEDULE decides). */
struct xs_options;
void xs_loop_sched_from_options(const struct xs_options *opt, struct xs_loop_sched *s);

#endif /* XSCHED_LOOP_H */
