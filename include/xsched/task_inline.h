/* SPDX-License-Identifier: MIT */
/*
 * xsched/task_inline.h - the work-first fast path of xs_task_spawn() and
 * xs_task_wait(), inline (included by xsched.h; use xs_spawn()/xs_sync()).
 *
 * Every worker owns a deque of task frames: a stack of struct xs_frame in
 * a large virtual reservation (pages commit on first touch, so a task may
 * have millions of children without a cliff). The running task's children
 * are the frames [base, top). A spawn writes the next frame and bumps top;
 * a join runs the task's frames in spawn order, each by a direct call, as
 * the serial program would - unless a thief took it meanwhile.
 *
 * Split deque (as in Lace). Frames [head, split) are public: a thief takes
 * the oldest one, head, with one CAS on the packed word ts = head << 32 |
 * split, without the owner's help. Frames [split, top) are private: only
 * the owner touches them, with plain loads and stores. A thief that finds
 * nothing public sets the owner's splitreq; the owner, at its next spawn or
 * join, moves the split up over half of its private frames (publish) and
 * wakes a parked worker. A join that reaches a public frame moves the split
 * back down with a CAS (the frame is its own again) or finds it stolen and
 * waits for the thief's release of `done`, running other work meanwhile.
 *
 * The fields below are the owner's and are described for the inline code;
 * everything else is libxsched's (libxsched/queue/deque.c has the proofs).
 */
#ifndef XSCHED_TASK_INLINE_H
#define XSCHED_TASK_INLINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

struct xs_task;
struct xs_worker;

/* One queued child: 64 bytes, a cache line. */
struct xs_frame {
	void (*fn)(void *arg);  /* NULL once the owner has started it */
	uint32_t done;          /* stolen frames: 1 once the thief finished it */
	uint32_t pad;
	unsigned char arg[48] __attribute__((aligned(16)));
};

/* The owner's line of a worker's deque (the first member of the worker). */
struct xs_deque {
	struct xs_frame *frames;
	uint32_t top;           /* next free frame */
	uint32_t split;         /* [split, top) private; owner's copy of ts */
	uint32_t base;          /* the running task's first child frame */
	uint32_t limit;         /* top < limit: a spawn may push a frame; 0:
				 * this job spawns descriptors (slb, rp) */
	/* Descriptor context of the running task, for descriptor children
	 * (libgomp, rp, continuations): XS_CTX_LAZY while a frame run by a
	 * direct call has not needed one. */
	struct xs_task *ctx;
	/* Frames pushed, each counted once: xs_spawn()'s (and the drop-in's)
	 * when joined (one add per join, not per spawn), typed ones at their
	 * spawn (task_typed.h, Counting). Every frame pushed runs once, here
	 * or on a thief, so readers take it as tasks created and run.
	 * Owner-written with relaxed stores, summed by readers (the
	 * statistics, the stats page); never compiled out: it is the only
	 * count of the fast path's tasks. */
	uint64_t pushed;
	/* Tasks a layer ran at once by a direct call instead of queueing
	 * them (the drop-in's undeferred and included tasks: libxsched/ext.h,
	 * xs_count_run_at_once()); counted as pushed is, read as immediate. */
	uint64_t run_at_once;
	/* Set (relaxed) by thieves that found nothing public: publish. On a
	 * line of its own: the owner reads it at every spawn and join, idle
	 * thieves poll it, and it is written at most once per publication. */
	uint32_t splitreq __attribute__((aligned(64)));
};

#define XS_CTX_LAZY ((struct xs_task *)1)

/* The calling thread's worker (NULL outside workers); its deque is its
 * first member. Initial-exec TLS, as libgomp's own: one %fs-relative
 * load in every user of the fast paths (a program links libxsched, or
 * preloads the drop-in; a dlopen() takes the 8 bytes from glibc's static
 * TLS surplus) instead of a __tls_get_addr() call or its relaxation. */
extern __thread __attribute__((tls_model("initial-exec"))) struct xs_worker *xs_self;

/* Out-of-line halves: xs_task_spawn(), xs_task_wait(), xs_task_wait_from()
 * and xs_task_end() in libxsched/core/worker.c, xs_task_publish() in
 * libxsched/queue/deque.c, xs_task_rescued() and xs_task_retired() in
 * libxsched/core/deque_rescue.c. */
int xs_task_spawn(void (*fn)(void *arg), const void *arg, size_t size);
int xs_task_wait(void);
void xs_task_publish(void);
int xs_task_wait_from(uint32_t first);
void xs_task_end(void);
int xs_task_rescued(uint32_t i);
int xs_task_retired(uint32_t top);

static inline struct xs_deque *xs_deque_self(void)
{
	return (struct xs_deque *)(void *)xs_self;
}

/*
 * Spawn a child of the running task: same contract as xs_task_spawn().
 * The common case is a frame write and an increment.
 */
static inline int xs_spawn(void (*fn)(void *arg), const void *arg, size_t size)
{
	struct xs_deque *d = xs_deque_self();
	struct xs_frame *f;

	/* !fn: xs_task_spawn() refuses it (a constant @fn folds the test). */
	if (__builtin_expect(!d || d->top >= d->limit || size > sizeof(f->arg) || !fn, 0))
		return xs_task_spawn(fn, arg, size);
	f = &d->frames[d->top];
	f->fn = fn;
	memcpy(f->arg, arg, size);
	/* Release: the frame to a rescuer's acquire of top (deque_rescue.c);
	 * its check is the splitreq load below. */
	__atomic_store_n(&d->top, d->top + 1, __ATOMIC_RELEASE);
	/* Relaxed: a hint from a thief; the publication itself is ordered
	 * by the CAS in xs_task_publish(). */
	if (__builtin_expect(__atomic_load_n(&d->splitreq, __ATOMIC_RELAXED) != 0, 0))
		xs_task_publish();
	return 0;
}

/* Run frame @f of @d, just claimed (its fn cleared), as a task: its own
 * children start at top; it joins them before it is done. */
static inline void xs_frame_call(struct xs_deque *d, void (*fn)(void *arg), void *arg)
{
	struct xs_task *ctx = d->ctx;
	uint32_t base = d->base;

	d->ctx = XS_CTX_LAZY;
	d->base = d->top;
	fn(arg);
	if (__builtin_expect(d->top != d->base || d->ctx != XS_CTX_LAZY, 0))
		xs_task_end();
	d->ctx = ctx;
	d->base = base;
}

/*
 * Wait for every child of the running task: same contract as
 * xs_task_wait(). Private frames run here by a direct call, oldest first
 * (spawn order); anything else is the out-of-line path's.
 */
static inline int xs_sync(void)
{
	struct xs_deque *d = xs_deque_self();
	uint32_t i;

	if (__builtin_expect(!d, 0))
		return -1; /* -EPERM, without <errno.h> in every user */
	/* Relaxed: owner-written; readers sum snapshots. */
	__atomic_store_n(&d->pushed, d->pushed + (d->top - d->base), __ATOMIC_RELAXED);
	for (i = d->base; i < d->top; i++) {
		struct xs_frame *f = &d->frames[i];
		void (*fn)(void *) = f->fn;

		if (__builtin_expect(i < d->split ||
				     __atomic_load_n(&d->splitreq, __ATOMIC_RELAXED) != 0, 0))
			return xs_task_wait_from(i);
		/* Claimed: a later publication may expose this frame to a
		 * thief, which then finds fn NULL and leaves it alone.
		 * Relaxed: a thief reads fn once a rescuer published the
		 * frame; claim first, then look for a rescue (a compiler
		 * barrier against the rescuer's membarrier, deque_rescue.c). */
		__atomic_store_n(&f->fn, NULL, __ATOMIC_RELAXED);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (__builtin_expect(__atomic_load_n(&d->splitreq, __ATOMIC_RELAXED) != 0, 0) &&
		    !xs_task_rescued(i))
			continue;
		xs_frame_call(d, fn, f->arg);
	}
	/* A publication while the frames ran may have exposed some of them:
	 * the out-of-line join takes back or waits for what is public. */
	if (__builtin_expect(d->split > d->base, 0))
		return xs_task_wait_from(d->top);
	i = d->top;
	/* Relaxed, then the rescue check as above: deque_rescue.c. */
	__atomic_store_n(&d->top, d->base, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__builtin_expect(__atomic_load_n(&d->splitreq, __ATOMIC_RELAXED) != 0, 0))
		return xs_task_retired(i);
	if (__builtin_expect(d->ctx != XS_CTX_LAZY, 0))
		return xs_task_wait();
	return 0;
}

#ifdef __cplusplus
}
#endif
#endif /* XSCHED_TASK_INLINE_H */
