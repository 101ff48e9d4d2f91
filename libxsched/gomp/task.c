// SPDX-License-Identifier: MIT
/*
 * task.c - explicit tasks: GOMP_task, taskwait, taskgroup, taskyield.
 *
 * An OpenMP task is an xsched task. Its body runs in a context (struct
 * xg_task) on the executing thread's stack, and joins its children before
 * it returns, as xsched requires; OpenMP lets a task complete before its
 * children, so this only waits longer. Dependences (depend.c) are released
 * when the body returns, before the join, which is OpenMP's completion.
 *
 * Argument blocks. Tasks without dependences whose block fits (at most
 * XG_INLINE_DATA bytes, 16-byte alignment, no copy constructor) travel
 * inline, behind a 16-byte header, in the frame or descriptor: no
 * allocation. Others live in a heap record, as do tasks with dependences
 * (their node is part of it).
 *
 * Deferred tasks are frames. Under the work-first core (XSCHED_DLB=ws or
 * auto, the default) a task without dependences or detach whose block fits
 * is a frame on the creating thread's deque (deque.h): its header and
 * block are written into the frame, nothing shared is written, and the
 * parent's taskwait runs its frames by a direct call in creation order, or
 * waits for the ones a thief took. A record's pointer is a frame's
 * argument the same way.
 * Tasks with dependences (queued by whichever thread completes the last
 * predecessor) and every task when frames are off (slb, rp,
 * XSCHED_PROFILE) are xsched descriptors in XQueue, counted in the
 * parent's descriptor context.
 *
 * Undeferred tasks (if(0), tasks of a final task, tasks met outside any
 * region) run at once by a direct call with a task context of their own;
 * only when some descendant could be deferred do they also get a join scope
 * on the deque (xs_frame_call()), after their dependences are met.
 *
 * Queued tasks, with frames. Two bounds per thread keep the queue short
 * and the order serial. (1) A task keeps at most XG_QUEUED_MAX children
 * queued: at the bound it first joins the ones it has (oldest first, as
 * the serial program runs them), then queues the new one - unless
 * thieves take them: then it queues up to XG_HELD_MAX before it joins,
 * rather than wait at every bound for a child a thief runs
 * (xg_bound_join()). (2) A task whose ancestors hold XG_DEPTH_MAX frames on its
 * thread (the deque below its scope: children not joined yet, one or more
 * a level) creates included tasks: each runs at once by a direct call, and
 * so does everything below it (nodefer), in serial order, depth first -
 * as libgomp runs new tasks undeferred once 64 x threads wait in its
 * team's queue, and as a cut-off would. The frames above stay there for
 * thieves, and a stolen frame starts a deque scope of its own on its
 * thief, with XG_DEPTH_MAX levels of parallelism below it again. Running a
 * new task ahead of its queued elder siblings instead would turn a
 * depth-first search around (a branch and bound that takes before it
 * leaves would leave first, and prune as a LIFO runtime does, not as the
 * serial program). An included task's taskwait has nothing to wait for;
 * a serialized parallel region nested in it joins the enclosing scope at
 * its end (elder siblings, whose parent context still exists). A detached
 * task created there is included too, as past libgomp's bound.
 *
 * Detached tasks. A detached task's body returns, then its thread waits
 * for the event, running queued descriptors meanwhile (detach.c) - not
 * the frames its parent queued after it, which only its parent's join
 * runs. A later sibling may be what fulfills the event, so a task that
 * creates a detached task queues it and every later child of its own as
 * descriptors (queue_children), as without frames.
 *
 * Tasks with dependences have a bound of their own: a task with
 * XG_DEPS_QUEUED_MAX x threads children not completed runs a new one with
 * dependences itself, once its predecessors completed (xg_deps_bound()).
 *
 * The descriptor form (frames off) counts its master queue instead: a
 * thread that holds XG_QUEUED_MAX there, or whose queue is full, runs the
 * new task now, after its queued elder siblings.
 */
#include <stdlib.h>
#include <string.h>

#include "depend.h"
#include "ext.h"
#include "ompt.h"

#define XG_INLINE_DATA (XS_TASK_ARG_MAX - 16)

/* Children a task keeps queued on its thread before it runs them. */
#define XG_QUEUED_MAX 64
/* Frames a task may hold on its deque, stolen ones included, before it
 * joins them all (see xg_bound()). */
#define XG_HELD_MAX 4096
/* Children with dependences per thread of the team that a task keeps
 * pending (created, not completed) before it runs new ones at once
 * (xg_deps_bound()): a lookahead of a few thousand tasks, so that a
 * creator that is preempted or busy leaves the others enough ready work
 * (64 left sparselu's second thread idle, docs/perf/dropin.md). */
#define XG_DEPS_QUEUED_MAX 4096
/* Frames of its ancestors on its thread past which a task's children run
 * included (with frames; see the top). */
#define XG_DEPTH_MAX 16

/* Inline argument block: header, then the data at offset 16. */
struct xg_inline_hdr {
	void (*fn)(void *);
	uintptr_t parent;           /* struct xg_task *, | 1 when final */
};
_Static_assert(sizeof(struct xg_inline_hdr) == 16, "inline data starts 16-byte aligned");

/* A task in the heap: with dependences, or a large or aligned block. */
struct xg_record {
	struct xg_dnode node;       /* first: depend.c frees the record by it */
	void (*fn)(void *);
	struct xg_task *parent;
	struct xs_task *xparent;    /* the xsched task that counted it */
	void *data;                 /* into this allocation, aligned */
	bool final;
	bool has_deps;
};

/* gcc passes data NULL for a task without data (size 0). */
static inline void xg_copy(void *dst, const void *src, long size)
{
	if (size > 0)
		memcpy(dst, src, (size_t)size);
}

/* The context of a task of @parent run by thread @tid of the team. */
static inline void xg_task_init(struct xg_task *t, struct xg_task *parent, bool final,
				uint32_t tid)
{
	t->team = parent->team;
	t->parent = parent;
	t->implicit = NULL;
	t->icv = parent->icv;
	t->deps = NULL;
	t->region = NULL;
	t->reductions = parent->reductions;
	t->final = final;
	t->nodefer = final || parent->nodefer;
	t->queue_children = false;
	t->thieves = false;
	t->tid = tid;
}

/* The binding team's thread number of the thread running a task of @parent. */
static inline uint32_t xg_task_tid(const struct xg_task *parent)
{
	return parent->team->rt ? xs_self->id : 0;
}

static void xg_task_body(void (*fn)(void *), void *data, struct xg_task *parent, bool final,
			 uint32_t tid, struct xg_dnode *node)
{
	struct xg_task *saved = xg_cur;
	struct xg_task t;

	xg_task_init(&t, parent, final, tid);
	xg_cur = &t;
	fn(data);
	if (node)
		xg_depend_complete(node);
	/* Join the children while `t` (their parent context) exists. */
	xs_sync();
	if (t.deps)
		xg_depend_free(&t);
	xg_cur = saved;
}

static void xg_inline_main(void *arg)
{
	struct xg_inline_hdr *h = arg;
	struct xg_task *parent = (struct xg_task *)(h->parent & ~(uintptr_t)1);

	xg_task_body(h->fn, (char *)arg + sizeof(*h), parent, h->parent & 1, xg_task_tid(parent),
		     NULL);
}

static void xg_record_main(void *arg)
{
	struct xg_record *r = *(struct xg_record **)arg;

	xg_task_body(r->fn, r->data, r->parent, r->final, xg_task_tid(r->parent),
		     r->has_deps ? &r->node : NULL);
	if (r->has_deps)
		xg_dnode_put(&r->node); /* the task's reference */
	else
		free(r);
}

/* Released by its last predecessor, on whichever worker completed it. */
static void xg_record_release(struct xg_dnode *node)
{
	struct xg_record *r = node->owner;

	xs_task_push_counted(r->xparent, xg_record_main, &r, sizeof(r));
}

static struct xg_record *xg_record_new(void (*fn)(void *), void *data,
				       void (*cpyfn)(void *, void *), long size, long align,
				       struct xg_task *parent, bool final)
{
	size_t a = align > 1 ? (size_t)align : 1;
	size_t head = (sizeof(struct xg_record) + a - 1) & ~(a - 1);
	struct xg_record *r;

	if (a & (a - 1))
		xg_unsupported("a task argument alignment that is not a power of two");
	if (a > 16) {
		if (posix_memalign((void **)&r, a, head + (size_t)size))
			r = NULL;
	} else {
		r = malloc(head + (size_t)size);
	}
	if (!r) {
		xg_warn("out of memory for a task of %ld bytes", size);
		abort();
	}
	r->fn = fn;
	r->parent = parent;
	r->data = (char *)r + head;
	r->final = final;
	r->has_deps = false;
	if (cpyfn)
		cpyfn(r->data, data);
	else
		xg_copy(r->data, data, size);
	return r;
}

static bool xg_flag_set(void *arg)
{
	/* Acquire pairs with the release store in xg_wait_release(). */
	return xs_load_acquire((_Atomic bool *)arg);
}

struct xg_waiter {
	struct xg_dnode node;
	_Atomic bool ready;
	struct xs_parker *park;
};

static void xg_wait_release(struct xg_dnode *node)
{
	struct xg_waiter *w = (struct xg_waiter *)node;
	struct xs_parker *park = w->park;

	/* Release: the predecessors' effects are visible to the waiter.
	 * After this store the waiter may return and its frame vanish. */
	xs_store_release(&w->ready, true);
	if (park)
		xs_park_notify(park);
}

/* Wait until the siblings @depend names have completed (taskwait depend,
 * undeferred task with dependences). */
static void xg_depend_wait(struct xg_task *cur, void **depend)
{
	struct xg_waiter w;

	/* Relaxed: w is not shared until it is registered. */
	xs_store_relaxed(&w.ready, false);
	w.park = xs_self ? &xs_self->park : NULL;
	if (xg_depend_register(cur, &w.node, depend, false, xg_wait_release, NULL))
		return;
	xg_wait_until(xg_flag_set, &w.ready);
}

/*
 * Whether no task that @cur creates can be deferred, and the innermost
 * xsched frame around it has no deferred child either: in a final task
 * every descendant is included (the final task itself has a frame of its
 * own, with no xsched child); a team of one thread on a runtime of its own
 * runs every task at once; outside every region there is no worker. Then
 * an undeferred child needs no xsched frame of its own: nothing to count,
 * nothing to join, and a taskwait in it finds nothing to wait for. (A
 * serialized team nested in a region, rt NULL, runs on its encountering
 * task's frame, which may have deferred children: not here.)
 */
static inline bool xg_nothing_deferred(const struct xg_task *cur)
{
	return cur->nodefer || !xs_self || (cur->team->nthreads == 1 && cur->team->rt);
}

/*
 * Run an undeferred task of @cur whose descendants cannot be deferred
 * either: a direct call inside a task context, which omp_in_final(), a
 * taskwait (nothing to wait for: its children completed as they were
 * created) and the dependences among its children need; nothing else.
 */
static inline __attribute__((always_inline)) void
xg_run_included(void (*fn)(void *), void *data, struct xg_task *cur, bool final)
{
	struct xg_task *saved = xg_cur;
	struct xg_task t;

	/* The same thread runs it: cur's thread number is its own. */
	xs_count_run_at_once();
	xg_task_init(&t, cur, final, cur->tid);
	t.nodefer = true;
	xg_cur = &t;
	fn(data);
	if (xs_unlikely(t.deps != NULL))
		xg_depend_free(&t);
	xg_cur = saved;
}

/*
 * Run an undeferred task of @cur that may have deferred descendants: as
 * xg_run_included(), in a join scope of its own on the deque (the frames
 * it pushes start at top; a descriptor context is made only if it needs
 * one), which it leaves after joining its children while its context `t`
 * still exists. What xs_frame_call() does, around the task context.
 */
static inline __attribute__((always_inline)) void
xg_run_scoped(void (*fn)(void *), void *data, struct xg_task *cur, bool final)
{
	struct xs_deque *d = xs_deque_self();
	struct xs_task *ctx = d->ctx;
	uint32_t base = d->base;
	struct xg_task *saved = xg_cur;
	struct xg_task t;

	xs_count_run_at_once();
	xg_task_init(&t, cur, final, cur->tid);
	xg_cur = &t;
	d->ctx = XS_CTX_LAZY;
	d->base = d->top;
	fn(data);
	if (xs_unlikely(d->top != d->base || d->ctx != XS_CTX_LAZY))
		xs_task_end();
	if (xs_unlikely(t.deps != NULL))
		xg_depend_free(&t);
	d->ctx = ctx;
	d->base = base;
	xg_cur = saved;
}

/* Run @fn(@data) now as an undeferred task; @data is the task's own.
 * @included: its descendants run at once too (the depth bound). */
static void xg_run_in_place(void (*fn)(void *), void *data, struct xg_task *cur, bool final,
			    bool included)
{
	if (included || xg_nothing_deferred(cur))
		xg_run_included(fn, data, cur, final);
	else
		xg_run_scoped(fn, data, cur, final);
}

/* Blocks up to this size are copied on the stack for undeferred tasks. */
#define XG_STACK_COPY_MAX 4096

/* Run a task now with a private copy of @data (copy-constructed by @cpyfn
 * when given) and, when @patch is given, its loop bounds patched in. */
static void xg_task_run_now(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
			    long size, long align, struct xg_task *cur, bool final,
			    void (*patch)(void *, const void *), const void *patch_arg,
			    bool included)
{
	size_t a = align > 1 ? (size_t)align : 1;
	size_t bytes = (size_t)size + a;
	char small[bytes <= XG_STACK_COPY_MAX ? bytes : 1];
	char *buf, *copy;

	if (!cpyfn && !patch) {
		/* gcc builds a fresh block per task and does not touch it after
		 * GOMP_task returns: an undeferred task may use it in place (as
		 * libgomp does). */
		xg_run_in_place(fn, data, cur, final, included);
		return;
	}
	buf = bytes <= XG_STACK_COPY_MAX ? small : malloc(bytes);
	if (!buf) {
		xg_warn("out of memory for a task of %ld bytes", size);
		abort();
	}
	copy = (char *)(((uintptr_t)buf + a - 1) & ~(uintptr_t)(a - 1));
	if (cpyfn)
		cpyfn(copy, data);
	else
		xg_copy(copy, data, size);
	if (patch)
		patch(copy, patch_arg);
	xg_run_in_place(fn, copy, cur, final, included);
	if (buf != small)
		free(buf);
}

/*
 * A task with XG_QUEUED_MAX frames on its deque, [base, top), creates
 * another child. While no thief takes its children, it joins them, oldest
 * first, as the serial program would run them, then queues the new one.
 * Once thieves take them (some frame of its scope taken now, or a thief
 * ran one of the children an earlier join found), it queues the new one,
 * up to XG_HELD_MAX frames, then joins: a join waits for the children
 * thieves run, with nothing else to do when they are all it has, and a
 * creator of coarse tasks in a `single` (alignment) idled that way for
 * most of a task at every bound. True: join first.
 *
 * Taken, not merely public: a worker about to park asks every deque to
 * publish (xs_deque_visible()), and that request outlives the park - a
 * thread that parked before the region and is now in user code leaves
 * one behind, so the first spawn publishes with no thief to take. A
 * public frame nobody took costs the join nothing (it reclaims it).
 */
static bool xg_bound_join(struct xs_worker *w, const struct xs_deque *d, struct xg_task *cur)
{
	uint32_t head;

	if (d->top - d->base >= XG_HELD_MAX)
		return true;
	if (cur->thieves)
		return false;
	/* Relaxed: our own deque word, which thieves' CASes move up; a
	 * stale head is a choice of schedule, never of correctness. */
	head = xs_ts_head(xs_load_relaxed(&w->dqs.ts));
	if (head > d->base) {
		cur->thieves = true;
		return false;
	}
	return true;
}

/* Join the current task's frames at the bound; remember whether a thief
 * ran one of them. */
static void xg_bound_join_frames(struct xs_worker *w, struct xs_deque *d, struct xg_task *cur)
{
	/* Relaxed: owner-written counters, read back by their owner. */
	uint64_t ran = xs_load_relaxed(&w->fctr.frames_stolen_ran);

	xs_frame_join(w, d);
	if (xs_load_relaxed(&w->fctr.frames_stolen_ran) != ran)
		cur->thieves = true;
}

/*
 * Queue a task without dependences as a frame of the calling worker: its
 * block inline when it fits, else a record. At the bound, xg_bound()
 * decides: join first, queue, or run it now.
 */
static void xg_task_frame(struct xs_worker *w, void (*fn)(void *), void *data,
			  void (*cpyfn)(void *, void *), long size, long align,
			  struct xg_task *cur, bool final, void (*patch)(void *, const void *),
			  const void *patch_arg)
{
	struct xs_deque *d = &w->dq;
	struct xg_record *r = NULL;
	struct xs_frame *f;

	if (xs_unlikely(d->base >= XG_DEPTH_MAX)) {
		/* Its ancestors' frames fill the deque: included. */
		xg_task_run_now(fn, data, cpyfn, size, align, cur, final, patch, patch_arg,
				true);
		return;
	}
	if (xs_unlikely(d->top - d->base >= XG_QUEUED_MAX) && xg_bound_join(w, d, cur))
		xg_bound_join_frames(w, d, cur); /* its elder siblings first */
	if (xs_likely(!cpyfn && size <= XG_INLINE_DATA && align <= 16)) {
		struct xg_inline_hdr *h;

		/* top - base < XG_HELD_MAX and base < XG_DEPTH_MAX: room. */
		f = xs_frame_next(d);
		h = (struct xg_inline_hdr *)(void *)f->arg;
		h->fn = fn;
		h->parent = (uintptr_t)cur | final;
		xg_copy(f->arg + sizeof(*h), data, size);
		if (patch)
			patch(f->arg + sizeof(*h), patch_arg);
		f->fn = xg_inline_main;
		xs_frame_commit(d);
		return;
	}
	/* The copy constructor may create tasks of its own: before the frame
	 * is taken. */
	r = xg_record_new(fn, data, cpyfn, size, align, cur, final);
	if (patch)
		patch(r->data, patch_arg);
	f = xs_frame_next(d);
	if (xs_unlikely(!f || (d->top - d->base >= XG_QUEUED_MAX && xg_bound_join(w, d, cur)))) {
		/* The constructor's tasks filled it: now, after them. */
		xg_bound_join_frames(w, d, cur);
		xs_frame_call(d, xg_record_main, &r);
		return;
	}
	memcpy(f->arg, &r, sizeof(r));
	f->fn = xg_record_main;
	xs_frame_commit(d);
}

/* Queue a task without dependences: a frame when frames are on, else a
 * descriptor, inline when its block fits. */
static void xg_task_defer(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
			  long size, long align, struct xg_task *cur, bool final,
			  void (*patch)(void *, const void *), const void *patch_arg)
{
	struct xs_worker *w = xs_self;
	struct xg_record *r;

	if (xs_likely(w->dq.limit && !cur->queue_children)) {
		xg_task_frame(w, fn, data, cpyfn, size, align, cur, final, patch, patch_arg);
		return;
	}
	if (xs_unlikely(xs_worker_queued_self(w) >= XG_QUEUED_MAX)) {
		xs_task_run_own_children();
		xg_task_run_now(fn, data, cpyfn, size, align, cur, final, patch, patch_arg,
				false);
		return;
	}
	if (!cpyfn && size <= XG_INLINE_DATA && align <= 16) {
		unsigned char block[XS_TASK_ARG_MAX] __attribute__((aligned(16)));
		struct xg_inline_hdr *h = (struct xg_inline_hdr *)block;

		h->fn = fn;
		h->parent = (uintptr_t)cur | final;
		xg_copy(block + sizeof(*h), data, size);
		if (patch)
			patch(block + sizeof(*h), patch_arg);
		if (xs_unlikely(xs_task_try_spawn(xg_inline_main, block,
						  sizeof(*h) + (size_t)size))) {
			/* Its queue is full: run it now, in its block (XQueue's
			 * rule), after its queued elder siblings (see above). */
			xs_task_run_own_children();
			xg_run_in_place(fn, block + sizeof(*h), cur, final, false);
		}
		return;
	}
	r = xg_record_new(fn, data, cpyfn, size, align, cur, final);
	if (patch)
		patch(r->data, patch_arg);
	/* A descriptor in the worker's queue like the inline form: the queue
	 * is what the bound above counts. */
	if (xs_unlikely(xs_task_try_spawn(xg_record_main, &r, sizeof(r)))) {
		xs_task_run_own_children();
		xs_task_run_undeferred(xg_record_main, &r);
	}
}

/*
 * Whether a task with dependences that @cur creates runs now instead of
 * being queued: @xparent (cur's xsched context, which counts them) has
 * XG_DEPS_QUEUED_MAX x threads children not completed yet, waiting for
 * predecessors or not. A creator of coarse tasks in a `single` (sparselu:
 * 88 450 tasks) otherwise builds its whole graph first - a record and
 * edges per task, 40 MB malloc'd and freed again every run - while the
 * others run what is ready; past the bound it runs each new task itself
 * once its predecessors completed (running queued tasks while it waits),
 * so records and edges are reused while they are hot. libgomp bounds only
 * its ready tasks (64 x threads queued: one waiting for predecessors is
 * not counted), so there a graph builder creates nearly all of it first.
 * The bound counts the waiting ones too, so it is wider than libgomp's:
 * at 64 x threads the creator ran 60% of sparselu's tasks itself, one at
 * a time in creation order, and the window it left the other threads
 * (128 tasks at 2 threads) ran dry whenever it waited or was preempted.
 * Not after cur created a detached task (queue_children): a predecessor's
 * event may be fulfilled by the code that follows in cur.
 */
static inline bool xg_deps_bound(const struct xg_task *cur, struct xs_task *xparent)
{
	uint64_t pending;

	if (cur->queue_children || !xparent->spawned)
		return false;
	/* Acquire pairs with the release fetch_add in xs_task_complete(),
	 * as xs_task_children_done() reads it; a stale count only moves
	 * when the bound is met. done_local and spawned are our own. */
	pending = xparent->spawned - xparent->done_local -
		  xs_load_acquire(&xparent->done_remote);
	return pending >= (uint64_t)XG_DEPS_QUEUED_MAX * cur->team->nthreads;
}

/* GOMP_task with a copy constructor, dependences or detach. */
static __attribute__((noinline)) void
xg_task_general(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
		long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
		void *detach, struct xg_task *cur)
{
	bool final = (flags & XG_TASK_FINAL) || cur->final;
	bool deps = (flags & XG_TASK_DEPEND) && depend;
	struct xg_record *r;

	(void)priority; /* a hint; xsched's queues have no priorities */
	if (flags & XG_TASK_DETACH)
		fn = xg_detach_prepare(fn, data, detach);
	/* Undeferred: if(0), included (in a final task), a team of one
	 * thread (nobody else could run it: running it now is the cheapest
	 * schedule, as in libgomp; but not a detached task, whose event the
	 * code after it may fulfill), or no worker to queue on (outside every
	 * region: the initial task's team of one). */
	if (!if_clause || cur->nodefer || (cur->team->nthreads == 1 && !(flags & XG_TASK_DETACH)) ||
	    !xs_self) {
		if (deps)
			xg_depend_wait(cur, depend);
		/* Included (the cut-offs' leaves): a direct call, data in place. */
		if (!cpyfn && xg_nothing_deferred(cur))
			xg_run_included(fn, data, cur, final);
		else if (!cpyfn)
			xg_run_scoped(fn, data, cur, final);
		else
			xg_task_run_now(fn, data, cpyfn, arg_size, arg_align, cur, final,
					NULL, NULL, false);
		return;
	}
	if (!deps) {
		if (flags & XG_TASK_DETACH)
			cur->queue_children = true; /* see the top */
		xg_task_defer(fn, data, cpyfn, arg_size, arg_align, cur, final, NULL, NULL);
		return;
	}
	if (xs_unlikely(xg_deps_bound(cur, xs_task_current()))) {
		/* Past the bound: wait for its predecessors (running queued
		 * tasks meanwhile), then run it now, as libgomp does. */
		xg_depend_wait(cur, depend);
		if (!cpyfn)
			xg_run_scoped(fn, data, cur, final);
		else
			xg_task_run_now(fn, data, cpyfn, arg_size, arg_align, cur, final,
					NULL, NULL, false);
		return;
	}
	r = xg_record_new(fn, data, cpyfn, arg_size, arg_align, cur, final);
	r->has_deps = true;
	r->xparent = xs_task_current();
	/* Counted now, queued when its last predecessor completes. */
	xs_task_count_child(r->xparent);
	if (xg_depend_register(cur, &r->node, depend, true, xg_record_release, r))
		xg_depend_ready(&r->node);
}

/*
 * Copy a block of up to XG_INLINE_DATA bytes (gcc's are mostly 8 to 32)
 * in 4-byte words. gcc fills the block with stores of its fields' sizes
 * just before the call: a wider load spanning two of them (an int and a
 * pointer, say) cannot be forwarded from the store buffer and waits for
 * both stores to retire, which was a third of GOMP_task's time in fib.
 * A 4-byte load lies within one field's store and is forwarded.
 */
typedef uint32_t xg_word __attribute__((may_alias));

static inline void xg_copy_words(void *dst, const void *src, long size)
{
	xg_word *d = dst;
	const xg_word *s = src;

	for (long i = 0; i < size / 4; i++)
		d[i] = s[i];
	if (xs_unlikely(size & 3))
		memcpy((char *)dst + (size & ~3L), (const char *)src + (size & ~3L),
		       (size_t)(size & 3));
}

static inline void xg_copy_small(void *dst, const void *src, long size)
{
	switch (size) {
	case 0: break;
	case 8: xg_copy_words(dst, src, 8); break;
	case 16: xg_copy_words(dst, src, 16); break;
	case 24: xg_copy_words(dst, src, 24); break;
	case 32: xg_copy_words(dst, src, 32); break;
	default: xg_copy_words(dst, src, size); break;
	}
}

/*
 * The common tasks inline: a deferred task with a small block becomes a
 * frame (xg_task_frame()'s fast case), an undeferred one a direct call;
 * copy constructors, dependences and detach take xg_task_general().
 */
XG_EXPORT void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
			 long arg_size, long arg_align, bool if_clause, unsigned flags,
			 void **depend, int priority, void *detach)
{
	struct xg_task *cur = xg_task_self();
	struct xs_worker *w = xs_self;
	bool final;

	if (XG_OMPT_TASK(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
			 detach))
		return;
	if (xs_unlikely(cpyfn || (flags & (XG_TASK_DEPEND | XG_TASK_DETACH)))) {
		xg_task_general(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend,
				priority, detach, cur);
		return;
	}
	final = (flags & XG_TASK_FINAL) || cur->final;
	if (xs_unlikely(!if_clause || cur->nodefer || !w || cur->team->nthreads == 1)) {
		/* Undeferred, as in xg_task_general(). */
		if (xg_nothing_deferred(cur))
			xg_run_included(fn, data, cur, final);
		else
			xg_run_scoped(fn, data, cur, final);
		return;
	}
	if (xs_likely(w->dq.limit && !cur->queue_children && w->dq.base < XG_DEPTH_MAX &&
		      w->dq.top - w->dq.base < XG_QUEUED_MAX && arg_size <= XG_INLINE_DATA &&
		      arg_align <= 16)) {
		struct xs_frame *f = &w->dq.frames[w->dq.top];
		struct xg_inline_hdr *h = (struct xg_inline_hdr *)(void *)f->arg;

		h->fn = fn;
		h->parent = (uintptr_t)cur | final;
		xg_copy_small(f->arg + sizeof(*h), data, arg_size);
		f->fn = xg_inline_main;
		xs_frame_commit(&w->dq);
		return;
	}
	xg_task_defer(fn, data, NULL, arg_size, arg_align, cur, final, NULL, NULL);
}

/* Join the current task's children; in a task that defers nothing they
 * have all completed (and the deque's scope is an ancestor's). */
static inline void xg_join(void)
{
	struct xg_task *t = xg_cur;

	if (xs_likely(!t || !t->nodefer))
		xs_sync();
}

void xg_task_join(void)
{
	xg_join();
}

XG_EXPORT void GOMP_taskwait(void)
{
	if (XG_OMPT_AROUND(taskwait()))
		return;
	xg_join();
}

XG_EXPORT void GOMP_taskwait_depend(void **depend)
{
	xg_depend_wait(xg_task_self(), depend);
}

void xg_depend_wait_self(void **depend)
{
	xg_depend_wait(xg_task_self(), depend);
}

XG_EXPORT void GOMP_taskyield(void)
{
	struct xs_worker *w = xs_self;
	struct xs_task *t;

	/* Run one queued task, if there is one, on top of this one. */
	if (w && (t = xs_worker_pop(w)))
		xs_task_run_queued(w, t);
}

/* A taskgroup waits for its tasks and their descendants; xsched tasks join
 * their children before completing, so joining ours is enough (and also
 * waits for children created before the group). */
XG_EXPORT void GOMP_taskgroup_start(void)
{
	XG_OMPT(taskgroup_begin());
}

XG_EXPORT void GOMP_taskgroup_end(void)
{
	if (XG_OMPT_AROUND(taskgroup_end()))
		return;
	xg_join();
}

XG_EXPORT int omp_in_final(void)
{
	return xg_task_self()->final;
}

/* For taskloop.c: create one task of a taskloop, its bounds patched into
 * its copy of the argument block by @patch. */
void xg_task_create(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long size,
		    long align, bool if_clause, bool final, void (*patch)(void *, const void *),
		    const void *patch_arg)
{
	struct xg_task *cur = xg_task_self();

	if (XG_OMPT_TASKLOOP_TASK(fn, data, cpyfn, size, align, if_clause, final, patch, patch_arg))
		return;
	final = final || cur->final;
	if (!if_clause || cur->nodefer || cur->team->nthreads == 1 || !xs_self) {
		xg_task_run_now(fn, data, cpyfn, size, align, cur, final, patch, patch_arg,
				false);
		return;
	}
	xg_task_defer(fn, data, cpyfn, size, align, cur, final, patch, patch_arg);
}
