// SPDX-License-Identifier: MIT
/*
 * worker.c - what a worker does: spawn, run, wait, find work, idle.
 *
 * XQueue. Worker i owns one SPSC queue from every worker j (j = i is its
 * master queue). With XSCHED_PUSH=rr spawning pushes round-robin over the
 * queues *into* every worker, starting with the spawner's own master queue
 * (static load balancing); with local it pushes into the master queue and
 * leaves the spreading to the thieves of dlb.c. Either way, when the chosen
 * queue is full the child runs immediately. Popping tries the master queue
 * first (newest first: it is private), then the auxiliary queues.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "daemon/daemon_client.h"
#include "core/runtime.h"
#include "core/spread.h"

static void xs_task_join(struct xs_worker *w, struct xs_task *t);
static inline void xs_woken_settled(struct xs_worker *w);

/*
 * The next task for a worker that waits for @joining (NULL: for anything):
 * master queue first, newest task first (it is private to this worker);
 * then the auxiliary queues, oldest first, rotating where to start. A
 * saturated worker (see xs_nest_enter()) that joins takes from its master
 * queue only @joining's own children, which bounds the nesting by the depth
 * of the task tree: everything else there can wait for a shallower frame.
 */
static struct xs_task *xs_worker_pop_for(struct xs_worker *w, const struct xs_task *joining)
{
	struct xs_task *t = NULL;

	if (xs_likely(!w->own.saturated_at) || !joining ||
	    ((t = xs_spsc_peek_newest(w->in[0])) && t->parent == joining))
		t = xs_spsc_pop_newest(w->in[0]);
	else
		t = NULL;
	if (t || w->nworkers == 1)
		return t;
	for (uint32_t n = 1; n < w->nworkers; n++) {
		uint32_t k = w->own.aux_next;

		w->own.aux_next = k + 1 == w->nworkers ? 1 : k + 1;
		t = xs_spsc_pop(w->in[k]);
		if (t)
			return t;
	}
	return NULL;
}

struct xs_task *xs_worker_pop(struct xs_worker *w)
{
	return xs_worker_pop_for(w, NULL);
}

static bool xs_worker_has_queued(struct xs_worker *w)
{
	for (uint32_t k = 0; k < w->nworkers; k++)
		if (xs_spsc_nonempty(w->in[k]))
			return true;
	return false;
}

/* Copy an argument block; the common sizes become a few moves. */
static inline void xs_arg_copy(void *dst, const void *src, size_t size)
{
	switch (size) {
	case 8: memcpy(dst, src, 8); break;
	case 16: memcpy(dst, src, 16); break;
	case 24: memcpy(dst, src, 24); break;
	case 32: memcpy(dst, src, 32); break;
	default: memcpy(dst, src, size); break;
	}
}

/* Hand a finished child's completion to its parent and free it. */
static void xs_task_complete(struct xs_worker *w, struct xs_task *t)
{
	struct xs_task *parent = t->parent;
	struct xs_worker *pw = parent ? parent->worker : NULL;

	if (!parent) {
		/* A continuation: nobody joins it; the barrier counts it. */
	} else if (pw == w) {
		/* The parent is suspended on this very thread. */
		parent->done_local++;
	} else {
		/* Release publishes everything the child did to the parent's
		 * acquire in xs_task_children_done(). After this RMW the parent
		 * may complete and be freed: touch only pw from here on. */
		xs_fetch_add_release(&parent->done_remote, 1);
		xs_park_notify(&pw->park);
	}
	if (t->pool_owner == w->id)
		xs_task_free_local(&w->pool, t);
	else
		xs_task_pool_free_remote(&w->rt->workers[t->pool_owner]->pool, t);
}

static void xs_worker_wait_for(struct xs_worker *w, bool (*done)(void *), void *arg,
			       const struct xs_task *joining, uint32_t awaited);

static bool xs_task_children_done_cb(void *arg)
{
	return xs_task_children_done(arg);
}

/*
 * Join the children of @t, running other tasks meanwhile. The newest task
 * of the master queue is most often t's own last child, so that is tried
 * first without the general waiting loop.
 */
static void xs_task_join(struct xs_worker *w, struct xs_task *t)
{
	uint64_t t0 = xs_prof_begin(w->log);
	struct xs_task *next;

	/* Children start in the order they were spawned, as in serial code
	 * (branch-and-bound search depends on it): the ones still in our
	 * master queue sit above first_slot, so turn that run around. */
	if (t->first_slot != XS_NO_SLOT) {
		xs_spsc_reverse_from(w->in[0], t->first_slot);
		t->first_slot = XS_NO_SLOT;
	}
	while (!xs_task_children_done(t) && (next = xs_spsc_peek_newest(w->in[0])) &&
	       (!w->own.saturated_at || next->parent == t)) {
		xs_spsc_pop_newest(w->in[0]);
		xs_task_run_queued(w, next);
	}
	if (!xs_task_children_done(t))
		xs_worker_wait_for(w, xs_task_children_done_cb, t, t, XS_AWAIT_NOBODY);
	xs_prof_end(w->log, XS_EV_TASKWAIT, t0);
}

/* Join every child of the running task @t: its frames, then its counted
 * descriptor children. */
static inline void xs_task_join_all(struct xs_worker *w, struct xs_task *t)
{
	if (w->dq.top != w->dq.base) {
		xs_deque_count(&w->dq);
		xs_deque_join_from(w, w->dq.base);
	}
	if (t->spawned && !xs_task_children_done(t))
		xs_task_join(w, t);
}

/* Run @frame (a descriptor living on this thread's stack: root, implicit
 * or immediate task) with argument @arg to completion, joining its
 * children. */
void xs_task_run_frame(struct xs_worker *w, struct xs_task *frame, void *arg)
{
	struct xs_task *saved = w->dq.ctx;
	uint32_t base = w->dq.base;

	frame->worker = w;
	frame->spawned = 0;
	frame->first_slot = XS_NO_SLOT;
	w->dq.ctx = frame;
	w->dq.base = w->dq.top;
	frame->fn(arg);
	xs_task_join_all(w, frame);
	w->dq.ctx = saved;
	w->dq.base = base;
}

/* Count a completed queued task: finished for the barrier and, for the
 * statistics, by where it was created (paper: self, NUMA-local,
 * NUMA-remote). tasks_self is not counted: stats.c derives it from the
 * barrier's finished, so a task run by its creator costs one count. */
static void xs_count_completed(struct xs_worker *w, const struct xs_task *t)
{
	xs_barrier_count_finished(&w->bcnt);
	if (t->creator == w->id)
		return;
	xs_counter_inc(t->creator_node == w->node ? &w->ctr.tasks_local : &w->ctr.tasks_remote);
}

/*
 * Nesting. A task that waits runs other tasks on top of its own stack
 * frame, and those may wait in turn. Running only the waiter's own
 * descendants would bound that by the depth of the task tree, but could
 * deadlock (a descendant may sit in another worker's queue, waiting for
 * that worker to run one of ours). So every queued task is run, and the
 * flow of new work is what gets bounded: once a quarter of the thread's
 * stack is all that is left, the worker raises park.saturated, after which
 * spawners treat its queues as full, victims skip its requests and it
 * sends none. What it already holds is finite, so the nesting stays
 * bounded and nothing that was handed to it is ever refused. Its own
 * surplus could still deepen the stack (under NA-RP a join's children are
 * elsewhere, and the newest tasks of its queue belong to older frames), so
 * a saturated join takes from its own queue only the joining task's
 * children (xs_worker_pop_for()). It lowers the flag when the task that
 * crossed the mark returns.
 */
static __thread uintptr_t xs_stack_mark __attribute__((tls_model("initial-exec")));

/* The lowest frame address a nested task may start at on the calling
 * thread (a quarter of its stack above the bottom), cached per thread. */
uintptr_t xs_thread_stack_mark(void)
{
	pthread_attr_t attr;
	size_t size;
	void *low;

	if (xs_likely(xs_stack_mark))
		return xs_stack_mark;
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		if (pthread_attr_getstack(&attr, &low, &size) == 0)
			xs_stack_mark = (uintptr_t)low + size / 4;
		pthread_attr_destroy(&attr);
	}
	if (!xs_stack_mark) /* unknown stack: never saturate for depth */
		xs_stack_mark = 1;
	return xs_stack_mark;
}

static inline void xs_nest_enter(struct xs_worker *w)
{
	w->own.nest++;
	if (xs_unlikely((uintptr_t)__builtin_frame_address(0) < w->own.stack_mark) &&
	    !w->own.saturated_at) {
		w->own.saturated_at = w->own.nest;
		/* Relaxed: a hint for feeders, see xs_worker_saturated(). */
		xs_store_relaxed(&w->park.saturated, true);
	}
}

static inline void xs_nest_leave(struct xs_worker *w)
{
	if (xs_unlikely(w->own.saturated_at == w->own.nest)) {
		w->own.saturated_at = 0;
		xs_store_relaxed(&w->park.saturated, false);
	}
	w->own.nest--;
}

void xs_task_run_queued(struct xs_worker *w, struct xs_task *t)
{
	uint64_t t0 = xs_prof_begin(w->log);
	struct xs_task *saved = w->dq.ctx;
	uint32_t base = w->dq.base;
	/* XSCHED_DLB=auto measures one task in 32. */
	bool sample = w->dlb.automatic && !(++w->dlb.sample % 32);
	uint64_t s0 = sample ? xs_tsc() : 0;

	if (w->log && t->creator != w->id)
		xs_profile_flow(w->log, XS_EV_MOVE, t->creator, t0);
	/* Set before the body runs, hence before any child can read it. */
	t->worker = w;
	t->first_slot = XS_NO_SLOT;
	w->dq.ctx = t;
	w->dq.base = w->dq.top;
	xs_nest_enter(w);
	t->fn(t->arg);
	xs_task_join_all(w, t);
	xs_nest_leave(w);
	w->dq.ctx = saved;
	w->dq.base = base;
	if (sample)
		xs_dlb_auto_sample(w, xs_tsc() - s0);
	/* Counted finished only after the body and its join: barrier.c. */
	xs_count_completed(w, t);
	xs_prof_end(w->log, XS_EV_TASK, t0);
	xs_task_complete(w, t);
	xs_dlb_poll(w);
}

/* Run a frame stolen from @victim: a task of its own on this stack, with
 * the nesting bound of queued tasks. Uncounted (its parent waits for it
 * on the victim); barrier.c says why that is safe. */
void xs_task_run_stolen(struct xs_worker *w, xs_task_fn fn, void *arg, struct xs_worker *victim)
{
	uint64_t t0 = xs_prof_begin(w->log);
	struct xs_task frame;

	if (w->log)
		xs_profile_flow(w->log, XS_EV_STEAL, victim->id, t0);
	frame.fn = fn;
	frame.parent = NULL;
	xs_woken_settled(w);
	xs_nest_enter(w);
	xs_task_run_frame(w, &frame, arg);
	xs_nest_leave(w);
	xs_prof_end(w->log, XS_EV_TASK, t0);
}

__attribute__((noinline)) static void xs_task_run_immediate(struct xs_worker *w, xs_task_fn fn, const void *arg,
				  size_t size)
{
	uint64_t t0 = xs_prof_begin(w->log);
	struct xs_task frame;

	frame.fn = fn;
	frame.parent = NULL;
	xs_arg_copy(frame.arg, arg, size);
	xs_task_run_frame(w, &frame, frame.arg);
	xs_counter_inc(&w->ctr.immediate);
	xs_prof_end(w->log, XS_EV_TASK, t0);
}

/*
 * Choose the queue for a new task: the thief we redirect to (NA-RP), else
 * the next queue round-robin (SLB). Returns NULL when that queue is full,
 * so the task runs immediately; *wake is the consumer's parker, or NULL
 * when the consumer is this worker.
 */
static inline struct xs_spsc *xs_spawn_target(struct xs_worker *w, struct xs_parker **wake)
{
	struct xs_spsc *q;
	uint32_t k;

	if (xs_unlikely(w->dlb.redirect_left)) {
		q = xs_worker_queue_to(w, w->dlb.redirect_to);
		if (xs_spsc_reserve(q)) {
			xs_counter_inc(xs_dlb_thief_local(w, w->dlb.redirect_to)
					       ? &w->ctr.stolen_local
					       : &w->ctr.stolen_remote);
			*wake = &w->rt->workers[w->dlb.redirect_to]->park;
			/* The request counts as served with its first task,
			 * so that statistics read while a round is still open
			 * never show more than S tasks moved a request. */
			if (!w->dlb.redirect_sent++)
				xs_counter_inc(&w->ctr.requests_with_steal);
			if (!--w->dlb.redirect_left)
				xs_dlb_redirect_end(w);
			return q;
		}
		xs_counter_inc(&w->ctr.requests_target_full);
		xs_dlb_redirect_end(w);
	}
	k = w->own.rr;
	if (w->dlb.p.push == XS_PUSH_RR)
		w->own.rr = k + 1 == w->nworkers ? 0 : k + 1;
	q = w->out[k];
	if (!k) {
		*wake = NULL;
	} else {
		*wake = &w->out_worker[k]->park;
		if (xs_worker_saturated(w->out_worker[k]))
			return NULL; /* as if full: run it here */
	}
	return xs_spsc_reserve(q) ? q : NULL;
}

/*
 * XSCHED_PUSH=local: tasks stay with their spawner until a thief asks, and
 * a thief that found nothing for XSCHED_SPIN_US parks - so a spawner with
 * work to spare wakes one. One wake at a time: `waking` is set here and
 * cleared by the woken worker once it runs a task or parks again, which
 * bounds the futex traffic when there is not enough work for everybody.
 */
static void xs_wake_a_thief(struct xs_worker *w)
{
	struct xs_runtime *rt = w->rt;

	/* Relaxed: hints; a stale answer costs a wake or a wait of at most
	 * one spin period, and xs_park_wake() itself is exact. */
	if (xs_likely(!xs_load_relaxed(&rt->nparked)) || xs_load_relaxed(&rt->waking) ||
	    xs_exchange_relaxed(&rt->waking, 1))
		return;
	for (uint32_t k = 1; k < w->nworkers; k++) {
		struct xs_worker *v = w->out_worker[k];

		if (xs_load_relaxed(&v->park.state) == XS_PARK_SLEEPING) {
			xs_store_relaxed(&v->park.woken, true);
			xs_park_wake(&v->park);
			return;
		}
	}
	xs_store_relaxed(&rt->waking, 0);
}

/* A worker woken by xs_wake_a_thief() is busy or asleep again. */
static inline void xs_woken_settled(struct xs_worker *w)
{
	/* Relaxed: see the comment on parker.woken (park.h). */
	if (xs_unlikely(xs_load_relaxed(&w->park.woken))) {
		xs_store_relaxed(&w->park.woken, false);
		xs_store_relaxed(&w->rt->waking, 0);
	}
}

/* Make queued task @t, just filled in, visible in @q (its slot reserved by
 * xs_spawn_target()) and wake whoever should know. */
static inline void xs_task_queue_publish(struct xs_worker *w, struct xs_spsc *q, struct xs_task *t,
				   struct xs_parker *wake)
{
	/* Counted created before it becomes visible: barrier.c. */
	xs_barrier_count_created(&w->bcnt);
	xs_spsc_push(q, t);
	if (wake)
		xs_park_notify(wake);
	else if (w->dlb.p.push == XS_PUSH_LOCAL)
		xs_wake_a_thief(w);
}

static inline void xs_task_fill(struct xs_worker *w, struct xs_task *t, struct xs_task *parent,
				xs_task_fn fn, const void *arg, size_t size)
{
	t->fn = fn;
	t->parent = parent;
	t->creator = (uint16_t)w->id;
	t->creator_node = (uint16_t)w->node;
	t->spawned = 0;
	xs_arg_copy(t->arg, arg, size);
}

void xs_task_count_child(struct xs_task *parent)
{
	if (!parent->spawned++) {
		/* First counted child: start the completion counts
		 * (spawned == 0 means they are not looked at). */
		parent->done_local = 0;
		xs_store_relaxed(&parent->done_remote, 0);
	}
}

/*
 * Queue a child of the current task; -EAGAIN, with nothing done, when
 * its queue is full (or its consumer saturated). @log is the worker's
 * profile log or NULL, a constant in each of the two spawn functions
 * below: the probes of the one a job runs without a profile fold away.
 */
static __attribute__((always_inline)) inline int
xs_task_queue_with(struct xs_worker *w, struct xs_profile_log *log, xs_task_fn fn,
		   const void *arg, size_t size)
{
	struct xs_parker *wake;
	struct xs_spsc *q;
	struct xs_task *t, *cur = xs_task_ctx(w);
	uint64_t t0 = xs_prof_begin(log);

	xs_dlb_poll(w);
	q = xs_spawn_target(w, &wake);
	if (xs_likely(q) && cur && (t = xs_task_alloc(&w->pool))) {
		xs_task_fill(w, t, cur, fn, arg, size);
		xs_task_count_child(cur);
		if (q == w->in[0] && cur->first_slot == XS_NO_SLOT)
			cur->first_slot = q->head;
		xs_task_queue_publish(w, q, t, wake);
		xs_prof_end(log, XS_EV_TASK_CREATE, t0);
		return 0;
	}
	xs_prof_end(log, XS_EV_TASK_CREATE, t0);
	/* A full queue is surplus a sleeping thief should come and take. */
	if (w->dlb.p.push == XS_PUSH_LOCAL)
		xs_wake_a_thief(w);
	return -EAGAIN;
}

/* The descriptor spawn of a job without a profile, and of one with:
 * xs_worker_spawn_begin() puts one of them in own.queue. */
static int xs_task_queue(struct xs_worker *w, xs_task_fn fn, const void *arg, size_t size)
{
	return xs_task_queue_with(w, NULL, fn, arg, size);
}

static int xs_task_queue_profiled(struct xs_worker *w, xs_task_fn fn, const void *arg,
				  size_t size)
{
	return xs_task_queue_with(w, w->log, fn, arg, size);
}

/* The checks both spawns make: 0, or the error they return. Workers run
 * user code only inside tasks, so a thread that is none is refused; a
 * frame of NULL would be called by whichever worker runs it. */
static inline int xs_task_spawn_check(const struct xs_worker *w, xs_task_fn fn, size_t size)
{
	if (xs_unlikely(!w))
		return -EPERM;
	if (xs_unlikely(size > XS_TASK_ARG_MAX))
		return -E2BIG;
	if (xs_unlikely(!fn))
		return -EINVAL;
	return 0;
}

int xs_task_spawn(xs_task_fn fn, const void *arg, size_t size)
{
	struct xs_worker *w = xs_self;
	int err = xs_task_spawn_check(w, fn, size);

	if (xs_unlikely(err))
		return err;
	if (w->dq.limit) {
		/* Frames (ws, auto): xs_spawn() pushes below the limit; at it,
		 * the task's XS_DEQUE_QUEUED queued children run first (or
		 * the limit moves up), and only a full reservation runs the
		 * child now, as a full queue's. */
		if (xs_likely(w->dq.top < w->dq.limit) || xs_deque_make_room(w))
			return xs_spawn(fn, arg, size);
		xs_task_run_immediate(w, fn, arg, size);
		return 0;
	}
	if (xs_unlikely(w->own.queue(w, fn, arg, size)))
		xs_task_run_immediate(w, fn, arg, size);
	return 0;
}

/*
 * xs_task_spawn() that leaves the full-queue case to the caller: -EAGAIN
 * means nothing was queued and the caller runs the task itself, now (the
 * libgomp layer runs it in place, without copying its argument block).
 */
int xs_task_try_spawn(xs_task_fn fn, const void *arg, size_t size)
{
	struct xs_worker *w = xs_self;
	int err = xs_task_spawn_check(w, fn, size);

	if (xs_unlikely(err))
		return err;
	/* Not counted here: the caller counts the task it runs now (ext.h,
	 * xs_count_run_at_once(); xs_task_run_undeferred()). */
	if (xs_likely(!w->own.queue(w, fn, arg, size)))
		return 0;
	return -EAGAIN;
}

/*
 * A child of @parent that @parent's worker counted at creation with
 * xs_task_count_child() and that this worker (any worker) now queues: the
 * libgomp layer creates a task with unmet dependences early and queues it
 * where its last predecessor completes. When the queue is full it runs here
 * at once, still as a counted (queued) task, so that its completion reaches
 * @parent and the barrier's counts stay balanced.
 */
void xs_task_push_counted(struct xs_task *parent, xs_task_fn fn, const void *arg, size_t size)
{
	struct xs_worker *w = xs_self;
	struct xs_parker *wake = NULL;
	struct xs_spsc *q;
	struct xs_task *t = xs_task_alloc(&w->pool);

	if (xs_unlikely(!t)) {
		/* The task cannot run without a descriptor that completes to
		 * its parent, and the parent cannot complete without it. */
		fputs("libxsched: out of memory for a task descriptor\n", stderr);
		abort();
	}
	xs_dlb_poll(w);
	q = xs_spawn_target(w, &wake);
	xs_task_fill(w, t, parent, fn, arg, size);
	if (xs_likely(q)) {
		xs_task_queue_publish(w, q, t, wake);
		return;
	}
	/* Created before it runs, as a queued task's (barrier.c, (a) 4). */
	xs_barrier_count_created(&w->bcnt);
	xs_task_run_queued(w, t);
}

/* Run @fn(@arg) here and now as a task of its own (children joined before
 * it returns), with @arg used in place: an undeferred OpenMP task. */
void xs_task_run_undeferred(xs_task_fn fn, void *arg)
{
	struct xs_worker *w = xs_self;
	struct xs_task frame;

	frame.fn = fn;
	frame.parent = NULL;
	/* Relaxed: owner-written (task_inline.h, run_at_once). */
	xs_plain_store_relaxed(&w->dq.run_at_once, w->dq.run_at_once + 1);
	xs_task_run_frame(w, &frame, arg);
}

/*
 * Run the current task's children that still wait in this worker's master
 * queue, oldest first, without waiting for those that other workers took:
 * what a spawner does before it runs a new child at once (a layer's bound
 * on queued tasks, see libxsched/gomp/task.c), so that its children still
 * start in the order they were spawned. Stops at the first queued task
 * that is not a child (one a released dependence queued here).
 */
void xs_task_run_own_children(void)
{
	struct xs_worker *w = xs_self;
	struct xs_task *t = w->dq.ctx, *next;

	/* A frame's lazy context has no descriptor children to queue. */
	if (t == XS_CTX_LAZY)
		return;
	if (t->first_slot != XS_NO_SLOT) {
		xs_spsc_reverse_from(w->in[0], t->first_slot);
		t->first_slot = XS_NO_SLOT;
	}
	while ((next = xs_spsc_peek_newest(w->in[0])) && next->parent == t) {
		xs_spsc_pop_newest(w->in[0]);
		xs_task_run_queued(w, next);
	}
}

/*
 * The running task's descriptor context. A frame run by a direct call
 * (xs_frame_call()) starts with none (XS_CTX_LAZY); the first time it
 * needs one - a descriptor child (libgomp, rp), its use by libgomp - one
 * comes from the pool, and xs_task_end() joins and frees it.
 */
struct xs_task *xs_task_ctx(struct xs_worker *w)
{
	struct xs_task *t = w->dq.ctx;

	if (xs_likely(t != XS_CTX_LAZY))
		return t;
	t = xs_task_alloc(&w->pool);
	if (xs_unlikely(!t)) {
		fputs("libxsched: out of memory for a task context\n", stderr);
		abort();
	}
	t->fn = NULL;
	t->parent = NULL;
	t->worker = w;
	t->spawned = 0;
	t->first_slot = XS_NO_SLOT;
	w->dq.ctx = t;
	return t;
}

struct xs_task *xs_task_current(void)
{
	return xs_self ? xs_task_ctx(xs_self) : NULL;
}

int xs_task_wait(void)
{
	struct xs_worker *w = xs_self;
	struct xs_task *t;

	if (xs_unlikely(!w))
		return -EPERM;
	if (w->dq.top != w->dq.base) {
		xs_deque_count(&w->dq);
		xs_deque_join_from(w, w->dq.base);
	}
	t = w->dq.ctx;
	if (t != XS_CTX_LAZY && t->spawned && !xs_task_children_done(t))
		xs_task_join(w, t);
	return 0;
}

/* xs_sync() met a frame that is public, or a thief's request: the rest
 * of the join, from frame @first on. */
int xs_task_wait_from(uint32_t first)
{
	struct xs_worker *w = xs_self;
	struct xs_task *t;

	xs_deque_join_from(w, first);
	t = w->dq.ctx;
	if (t != XS_CTX_LAZY && t->spawned && !xs_task_children_done(t))
		xs_task_join(w, t);
	return 0;
}

/* End of a frame run by xs_frame_call() that left children, or made a
 * descriptor context: join them all, give the context back. */
void xs_task_end(void)
{
	struct xs_worker *w = xs_self;
	struct xs_task *t;

	if (w->dq.top != w->dq.base) {
		xs_deque_count(&w->dq);
		xs_deque_join_from(w, w->dq.base);
	}
	t = w->dq.ctx;
	if (t == XS_CTX_LAZY)
		return;
	if (t->spawned && !xs_task_children_done(t))
		xs_task_join(w, t);
	xs_task_free_local(&w->pool, t);
	w->dq.ctx = XS_CTX_LAZY;
}

int xs_worker_id(void)
{
	return xs_self ? (int)xs_self->id : -1;
}

int xs_worker_count(void)
{
	return xs_self ? (int)xs_self->nworkers : 0;
}

/* Move every ready continuation (continuation.c) into our master queue,
 * running the ones that do not fit. Returns true if there were any. */
bool xs_inject_take(struct xs_worker *w)
{
	struct xs_task *t, *next;

	if (!xs_inject_pending(w->rt))
		return false;
	/* Acquire pairs with the release CAS in xs_continuation_ready() (and,
	 * through the release sequence, with every push before it). */
	t = xs_exchange_acquire(&w->rt->inject, NULL);
	for (; t; t = next) {
		next = t->next_free;
		if (xs_spsc_reserve(w->in[0]))
			xs_spsc_push(w->in[0], t);
		else
			xs_task_run_queued(w, t);
	}
	return true;
}

struct xs_wait_ctx {
	struct xs_worker *w;
	bool (*done)(void *);
	void *arg;
};

static bool xs_never(void *arg)
{
	(void)arg;
	return false;
}

static bool xs_wait_has_work(void *p)
{
	struct xs_wait_ctx *c = p;

	return c->done(c->arg) || xs_worker_has_queued(c->w) || xs_inject_pending(c->w->rt) ||
	       (!c->w->own.saturated_at && xs_deque_visible(c->w));
}

/*
 * A waiting worker yields its CPU every XS_SPINS_PER_YIELD looks for work
 * while it spins: the thread it waits for may be one that is not running
 * (more runnable threads than CPUs: a co-running program, more workers
 * than CPUs). A yield is costly when the worker got its CPU back more than
 * XS_YIELD_COSTLY_NS after the first notification it had during the yield
 * (park.h, "Yielding"): what it waited for had happened, and the thread it
 * gave the CPU to kept it for a whole slice (a CPU hog, niced or not: CFS
 * runs the next entity on a yield whatever its weight). Yielding then only
 * loses slices: the next XS_COSTLY_PARKS waits spin without yielding, then
 * park, which leaves the CPU to the hog until the notifier's wake-up
 * preempts it. With a nice-19 fuzzer on one of 2 CPUs, the drop-in's
 * 2-thread loops (50 000 barriers) took 0.07-0.16 s so, against
 * 0.07-1.7 s yielding every 64 looks, and libomp 0.14-0.16 s
 * (docs/perf/corun.md).
 *
 * How long the yield took says nothing by itself. Two co-running programs'
 * teams, 2 threads each on 2 CPUs, go fastest when each yields to the
 * other until one has both its threads on CPU and runs its barriers at
 * full speed for a slice: a waiter's yield then lasts that slice, while
 * its own teammate was not running either, so nothing was lost. Counting
 * such yields costly (a rule of "any yield over 100 us", which this one
 * replaced) fed on itself: a waiter that stops yielding holds its CPU for the spin
 * time, which makes the other program's yields long, which stops theirs;
 * two co-running copies of the drop-in's loops (50 000 barriers) took
 * 5.5 s in some runs, 0.17 s in others, and in the slow ones each worker
 * had ~560 costly yields and ~35 000 waits that spun out and parked.
 *
 * A runtime of more workers than CPUs (rt->oversubscribed) does not spin
 * out its time: it parks at the first yield point, after
 * XS_SPINS_PER_YIELD looks, as libgomp does with more threads than CPUs.
 * Some teammate is always waiting for a CPU there, and the one we wait
 * for is likely it; spinning, or yielding to whoever else is runnable,
 * only delays it: 10^4 regions of 4 threads on 2 CPUs took 2-3x
 * libgomp's time spinning (docs/perf/corun.md).
 */
#define XS_SPINS_PER_YIELD 64u
#define XS_YIELD_COSTLY_NS 100000u
#define XS_COSTLY_PARKS 64u

static void xs_worker_yield(struct xs_worker *w)
{
	uint64_t costly = XS_YIELD_COSTLY_NS;

	if (w->own.yield_costly)
		return;
	/* A co-running waiter that stopped yielding holds the CPU for up to
	 * its spin time: not a hog, so not costly, whatever XSCHED_SPIN_US. */
	if (costly < 2 * w->rt->spin_ns)
		costly = 2 * w->rt->spin_ns;
	xs_park_yield_open(&w->park);
	sched_yield();
	if (xs_park_yield_close(&w->park) > costly)
		w->own.yield_costly = XS_COSTLY_PARKS;
}

/*
 * Waiting for a switched-out teammate (XSCHED_AWAIT_OFFCPU_US, 20 us by
 * default). A waiter that waits for one particular worker (a barrier
 * child's report, the parent's release, the job that worker 0 posts)
 * names it, and at every yield point of its spin (every
 * XS_SPINS_PER_YIELD looks, where it reads the clock anyway) asks
 * xschedd's worker state (daemon_client.h) whether that worker has been
 * switched out while it could run - preempted, stopped, or woken and
 * still without a CPU - for XSCHED_AWAIT_OFFCPU_US. If so it parks at once
 * instead of spinning out XSCHED_SPIN_US: the teammate runs again only
 * when its CPU is free, and the waiter's CPU could run another thread
 * meanwhile (a co-running program's, or the teammate itself). A teammate
 * on its CPU leaves the spin as it was; so does a wait without a daemon
 * connection, or with a stale worker state. The threshold keeps short
 * switches (a woken thread on its way to an idle CPU, a kernel thread's
 * moment) from costing a park and a futex wake: parking at every
 * preemption made two co-running copies of the drop-in's loops slower,
 * while 20 us shortened their makespan by 5-6% (docs/perf/corun.md).
 *
 * Only the moment of the park changes: the park itself (park.h) is the
 * same Dekker handshake with the same re-check, so the no-lost-wake-up
 * argument and its model (tests/models/park.pml, which does not model how
 * long a waiter spins) are untouched.
 */

/* Whether @w should stop spinning for worker @v (see above). */
static bool xs_worker_awaited_out(struct xs_worker *w, uint32_t v, uint64_t now)
{
	struct xs_daemon_client *dc = w->rt->daemon;
	const struct xs_daemon_conn *c;

	if (v == XS_AWAIT_NOBODY || v == w->id || !dc || !w->rt->await_offcpu_ns)
		return false;
	/* Polls when due; NULL unless the worker state is fresh. */
	c = xs_daemon_idle(dc);
	if (!c || !xs_daemon_switched_out(dc, c, v, now, w->rt->await_offcpu_ns))
		return false;
	xs_counter_inc(&dc->wctr[w->id].early_parks);
	return true;
}

/*
 * Run queued tasks until @done(@arg) holds. With nothing to run, spin for
 * XSCHED_SPIN_US, yielding the CPU every XS_SPINS_PER_YIELD pauses unless
 * yields proved costly (xs_worker_yield()), then park; whoever makes
 * @done true or pushes to us notifies our parker (park.h).
 */
void xs_worker_wait_until(struct xs_worker *w, bool (*done)(void *), void *arg)
{
	xs_worker_wait_for(w, done, arg, NULL, XS_AWAIT_NOBODY);
}

/* xs_worker_wait_until() for a condition that worker @awaited makes true:
 * parks early while that worker is switched out (see above). */
void xs_worker_wait_on(struct xs_worker *w, bool (*done)(void *), void *arg, uint32_t awaited)
{
	xs_worker_wait_for(w, done, arg, NULL, awaited);
}

/*
 * Look at @done(@arg) alone, for the spin window at most, yielding as a
 * full wait does; true once it holds. For a worker between loops
 * (runtime.c): the next one is likely posted within microseconds, and
 * the full wait's round of pops, steals and requests per look would see
 * it late, and read lines the poster writes. Between jobs nothing else is
 * queued for the worker but continuations, which end the lingering; it
 * then waits as usual (stealing, parking). Nothing when waiters do not
 * spin (XSCHED_SPIN_US=0, more workers than CPUs).
 */
bool xs_worker_linger(struct xs_worker *w, bool (*done)(void *), void *arg)
{
	uint64_t since, now;
	uint32_t spins = 0;

	if (!w->rt->spin_ns || w->rt->oversubscribed)
		return done(arg);
	since = xs_now_ns();
	xs_idle_begin(&w->idle, since);
	while (!done(arg)) {
		if (++spins % XS_SPINS_PER_YIELD) {
			xs_cpu_relax();
			continue;
		}
		now = xs_now_ns();
		if (now - since >= w->rt->spin_ns || xs_inject_pending(w->rt))
			break;
		xs_worker_yield(w);
	}
	xs_idle_end(&w->idle, xs_now_ns());
	return done(arg);
}

/*
 * How long an idle stretch that begins now spins before it parks:
 * XSCHED_SPIN_US, or XSCHED_RESCUE_US while a teammate holds private
 * frames. Such a teammate publishes half of them at its next spawn or
 * join (our failed steal raised its splitreq), at the latest when its
 * running task ends, and counts as stranded only past XSCHED_RESCUE_US
 * (deque_rescue.c): work is on its way. A thief that parked meanwhile
 * cost the publisher a futex wake and then waited for a CPU: 2-14 ms a
 * park on a loaded 2-CPU machine (`perf sched timehist`,
 * docs/perf/dropin.md), where libgomp's waiter spins through the same
 * gap.
 * Read once per stretch: the teammate's top is on the line it writes at
 * every spawn. XSCHED_SPIN_US=0 (OMP_WAIT_POLICY=passive) never spins.
 */
static uint64_t xs_worker_spin_window(struct xs_worker *w)
{
	uint64_t held;

	if (!w->rt->spin_ns)
		return 0;
	held = xs_deque_rescue_park_ns(w);
	return held > w->rt->spin_ns ? held : w->rt->spin_ns;
}

/* xs_worker_wait_until() on behalf of a task that joins its children. */
static void xs_worker_wait_for(struct xs_worker *w, bool (*done)(void *), void *arg,
			       const struct xs_task *joining, uint32_t awaited)
{
	struct xs_wait_ctx ctx = { w, done, arg };
	uint64_t idle_since = 0, stall_t0 = 0, rescue_ns, now, spin_ns = 0;
	uint32_t spins = 0;

	while (!done(arg)) {
		struct xs_task *t;

		xs_dlb_poll(w);
		t = xs_worker_pop_for(w, joining);
		if (t) {
			if (idle_since) {
				xs_prof_end(w->log, XS_EV_STALL, stall_t0);
				xs_idle_end(&w->idle, xs_now_ns());
				idle_since = 0;
			}
			w->dlb.idle_visits = 0;
			xs_woken_settled(w);
			xs_task_run_queued(w, t);
			continue;
		}
		if (!w->own.saturated_at && xs_deque_steal(w)) {
			if (idle_since) {
				xs_prof_end(w->log, XS_EV_STALL, stall_t0);
				xs_idle_end(&w->idle, xs_now_ns());
				idle_since = 0;
			}
			w->dlb.idle_visits = 0;
			continue;
		}
		if (xs_inject_take(w))
			continue;
		if (w->own.in_job)
			xs_dlb_idle(w);
		if (!idle_since) {
			idle_since = xs_now_ns();
			xs_idle_begin(&w->idle, idle_since);
			stall_t0 = xs_prof_begin(w->log);
			spins = 0;
			spin_ns = xs_worker_spin_window(w);
			xs_spread_note(w);
		}
		if (++spins % XS_SPINS_PER_YIELD) {
			xs_cpu_relax();
			continue;
		}
		now = xs_now_ns();
		if (!w->rt->oversubscribed && now - idle_since < spin_ns &&
		    !xs_worker_awaited_out(w, awaited, now)) {
			/* A teammate behind us on this CPU: move, not yield. */
			if (!xs_spread(w, now))
				xs_worker_yield(w);
			continue;
		}
		if (w->own.yield_costly)
			w->own.yield_costly--;
		xs_woken_settled(w);
		/* Relaxed: nparked is a hint for xs_wake_a_thief(); a spawner
		 * that misses this increment only wakes nobody this time, and
		 * thieves are never needed for progress (the owner runs its
		 * own tasks), so no wake-up that matters can be lost. */
		xs_fetch_add_relaxed(&w->rt->nparked, 1);
		/* (rescue) Frames held private by a worker that may be
		 * stranded: look again after the rescue threshold. */
		if ((rescue_ns = xs_deque_rescue_park_ns(w)))
			xs_park_timed(&w->park, xs_wait_has_work, &ctx, &w->ctr.parks, rescue_ns);
		else
			xs_park(&w->park, xs_wait_has_work, &ctx, &w->ctr.parks);
		xs_fetch_sub_relaxed(&w->rt->nparked, 1);
		xs_deque_woken(w);
		idle_since = xs_now_ns();
		spin_ns = xs_worker_spin_window(w);
	}
	if (idle_since) {
		xs_prof_end(w->log, XS_EV_STALL, stall_t0);
		xs_idle_end(&w->idle, xs_now_ns());
	}
}

/*
 * Run one queued task, or else sleep until something is handed to us or
 * @ns have passed. For a worker that has nothing to wait *for* but must
 * not spin (the barrier's root between waves that saw no progress).
 */
void xs_worker_pause(struct xs_worker *w, uint64_t ns)
{
	struct xs_wait_ctx ctx = { w, xs_never, NULL };
	struct xs_task *t = xs_worker_pop(w);

	if (t) {
		xs_task_run_queued(w, t);
		return;
	}
	if (!w->own.saturated_at && xs_deque_steal(w))
		return;
	if (xs_inject_take(w))
		return;
	xs_park_timed(&w->park, xs_wait_has_work, &ctx, &w->ctr.parks, ns);
}

void xs_worker_drain(struct xs_worker *w)
{
	struct xs_task *t;

	while ((t = xs_worker_pop(w)))
		xs_task_run_queued(w, t);
}

/* Start of a job (job.c): how this worker spawns during it. */
void xs_worker_spawn_begin(struct xs_worker *w)
{
	w->own.rr = 0;
	/* Frames under ws and auto with local push (their default); slb,
	 * rp and XSCHED_PUSH=rr spawn descriptors into XQueue, and so does
	 * XSCHED_PROFILE, whose log has an event per task and spawn. */
	xs_deque_job_begin(w, w->dlb.p.push == XS_PUSH_LOCAL &&
				      w->rt->dlb.strategy != XS_DLB_RP && !w->log);
	/* Whether descriptor spawns record events: decided here, once, not
	 * branched on at every spawn. */
	w->own.queue = w->log ? xs_task_queue_profiled : xs_task_queue;
}

/* Make @frame the implicit task of this worker's part of a parallel job,
 * running as the current task until xs_worker_implicit_end(). */
void xs_worker_implicit_begin(struct xs_worker *w, struct xs_task *frame)
{
	frame->fn = NULL;
	frame->parent = NULL;
	frame->worker = w;
	frame->spawned = 0;
	frame->first_slot = XS_NO_SLOT;
	w->own.implicit = frame;
	w->dq.ctx = frame;
	w->dq.base = w->dq.top;
}

/* Join the implicit task's children; it is then finished. */
void xs_worker_implicit_end(struct xs_worker *w, struct xs_task *frame)
{
	xs_task_join_all(w, frame);
	w->dq.ctx = NULL;
	w->own.implicit = NULL;
}
