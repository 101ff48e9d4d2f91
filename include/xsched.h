/* SPDX-License-Identifier: MIT */
/*
 * xsched.h - the public API of libxsched, a lock-less task runtime.
 *
 * A runtime owns N worker threads. Work enters it as a root task
 * (xs_runtime_run) or as one implicit task per worker (xs_runtime_parallel).
 * Inside a task, xs_task_spawn() creates a child task carrying a small inline
 * argument block, and xs_task_wait() waits for the children of the current
 * task. A task always joins its children before it completes (fully strict,
 * as in Cilk), so argument blocks that point into the parent's stack stay
 * valid until the parent returns.
 *
 * Conventions (liburing style): functions return >= 0 on success and -errno
 * on failure; constructors return NULL and set errno.
 */
#ifndef XSCHED_H
#define XSCHED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XSCHED_VERSION_MAJOR 0
#define XSCHED_VERSION_MINOR 1

/* Largest argument block a task can carry inline (bytes). */
#define XS_TASK_ARG_MAX 48

struct xs_runtime;

/*
 * A task body. @arg points to the task's private copy of the argument block
 * given to xs_task_spawn(); it is valid until the body returns.
 */
typedef void (*xs_task_fn)(void *arg);

/*
 * Create a runtime with @nworkers workers; 0 means XSCHED_WORKERS, or the
 * number of CPUs in the calling thread's affinity mask. Other settings come
 * from the XSCHED_* environment (xsched(7), xs_option_describe();
 * XSCHED_VERBOSE=1 prints the values in effect). Returns NULL and
 * sets errno on failure: EINVAL for a bad option (a message naming it is
 * printed on stderr), ENOMEM (also when the XQueue matrix, workers^2 x
 * XSCHED_QUEUE_SIZE slots, would take more than half of the machine's
 * memory: a message names both), EAGAIN when threads cannot be created.
 */
struct xs_runtime *xs_runtime_create(unsigned int nworkers);

/* Stop the workers and free everything. Prints statistics when
 * XSCHED_SHOW_STATS=1 and writes the profile when XSCHED_PROFILE is set. */
void xs_runtime_destroy(struct xs_runtime *rt);

/* Run @fn(@arg) as the root task on worker 0 (the calling thread) and
 * return when it and every task it spawned transitively have completed.
 * Returns 0, -EINVAL for bad arguments, -EBUSY if called from a worker or
 * while another thread runs a job or a loop on @rt. */
int xs_runtime_run(struct xs_runtime *rt, xs_task_fn fn, void *arg);

/* Run @fn(@arg) once on every worker (worker 0 is the calling thread) and
 * return after the closing team barrier. Same returns as xs_runtime_run(). */
int xs_runtime_parallel(struct xs_runtime *rt, xs_task_fn fn, void *arg);

/*
 * Spawn a child of the current task: @fn runs with a private copy of the
 * @size bytes at @arg (size <= XS_TASK_ARG_MAX). Under XSCHED_DLB=ws and
 * auto the child becomes a frame on the spawner's deque, which idle
 * workers steal from oldest first, and which xs_task_wait() runs in spawn
 * order; a task with 16384 children queued runs those first (as
 * xs_task_wait() would), then queues the new one. Under slb it is pushed to the next queue in round-robin order
 * (under rp to the spawner's queue, or its redirect target); when that
 * queue is full the child runs immediately, before xs_task_spawn() returns.
 * Returns 0, -E2BIG if size > XS_TASK_ARG_MAX, -EPERM outside a task,
 * -EINVAL for a NULL @fn (nothing is spawned).
 */
int xs_task_spawn(xs_task_fn fn, const void *arg, size_t size);

/* Wait until every child spawned so far by the current task has completed,
 * running other tasks meanwhile. Returns 0 or -EPERM outside a task. */
int xs_task_wait(void);

/*
 * Team barrier for the implicit tasks of xs_runtime_parallel(). Returns when
 * every worker has arrived and no task is queued or running anywhere. Every
 * worker must call it the same number of times. Returns 0, -EPERM when not
 * called from an implicit task of xs_runtime_parallel().
 */
int xs_barrier_wait(void);

/*
 * Continuations: work that becomes runnable when something outside the
 * runtime completes (a GPU job, an I/O completion). Created inside a task,
 * a continuation belongs to the running job: xs_runtime_run() and team
 * barriers do not return before it has run. It is not a child of the task
 * that created it, which may return (yield) at once.
 */
struct xs_continuation;

/* From inside a task: prepare @fn to run with a private copy of the @size
 * bytes at @arg once xs_continuation_ready() is called. Returns NULL and
 * sets errno: EPERM outside a task, E2BIG if size > XS_TASK_ARG_MAX,
 * ENOMEM. */
struct xs_continuation *xs_continuation_create(xs_task_fn fn, const void *arg, size_t size);

/* Make @c runnable. Any thread may call it (a CUDA host callback, say),
 * exactly once per continuation. */
void xs_continuation_ready(struct xs_continuation *c);

/* The calling worker's id in [0, xs_worker_count()), or -1 outside. */
int xs_worker_id(void);

/* The number of workers of the calling worker's runtime, or 0 outside. */
int xs_worker_count(void);

/* Number of workers of @rt. */
unsigned int xs_runtime_workers(const struct xs_runtime *rt);

/*
 * Dynamic load balancing (XSCHED_DLB and friends set the defaults). Idle
 * workers (thieves) send requests to victims through lock-less message
 * cells; a victim moves queued tasks to the thief (work stealing, ws) or
 * sends it its next spawned tasks (redirect push, rp). auto measures task
 * sizes and follows the guidance table of the XQueue paper.
 */
enum xs_dlb_strategy { XS_DLB_SLB, XS_DLB_WS, XS_DLB_RP, XS_DLB_AUTO };

/* Where xs_task_spawn() puts a task: round-robin over every worker's queue
 * (static load balancing, as in the XQueue paper), or its own queue only,
 * so that tasks move between workers only when a thief asks (needs ws, rp
 * or auto). XS_PUSH_AUTO is round-robin under slb and local otherwise. */
enum xs_push_policy { XS_PUSH_AUTO, XS_PUSH_RR, XS_PUSH_LOCAL };

struct xs_dlb_config {
	unsigned int strategy;      /* enum xs_dlb_strategy */
	unsigned int push;          /* enum xs_push_policy */
	unsigned int victims;       /* N: victims asked per attempt, 1..64 */
	unsigned int steal;         /* S: tasks per request, 1..4096 */
	unsigned int timeout;       /* T: idle visits between attempts, 1..10^8 */
	unsigned int local_percent; /* P: percent of requests kept on the node, 0..100 */
};

/* Read or change @rt's load balancing. Setting is allowed only between
 * jobs (-EBUSY from inside a worker); a value out of range is -EINVAL with
 * a message naming the field and its range. */
int xs_runtime_get_dlb(const struct xs_runtime *rt, struct xs_dlb_config *cfg);
int xs_runtime_set_dlb(struct xs_runtime *rt, const struct xs_dlb_config *cfg);

/* Counters summed over all workers (see XSCHED_SHOW_STATS). */
struct xs_stats {
	uint64_t tasks_executed;        /* task bodies run, queued and immediate */
	uint64_t tasks_self;            /* queued tasks run by their creator */
	uint64_t tasks_local;           /* ... by another worker of the creator's node */
	uint64_t tasks_remote;          /* ... by a worker of another node */
	uint64_t immediate;             /* run at once because their queue was full */
	uint64_t static_pushes;         /* pushed: descriptors queued (any
					 * push policy) and frames */
	uint64_t continuations;         /* continuations created */
	uint64_t requests_sent;         /* steal requests written by thieves */
	uint64_t requests_handled;      /* valid requests served by victims */
	uint64_t requests_with_steal;   /* served requests that moved tasks */
	uint64_t requests_source_empty; /* served requests with nothing to move */
	uint64_t requests_target_full;  /* served requests stopped by a full queue */
	uint64_t stolen_local;          /* tasks moved/redirected to same-node thieves */
	uint64_t stolen_remote;         /* tasks moved/redirected to other-node thieves */
	uint64_t parks;                 /* times a worker parked on its futex */
	uint64_t barrier_waves;         /* termination-detection waves reported */
	uint64_t slabs_allocated;       /* task-descriptor slabs taken from malloc */
	/* Frames (XSCHED_DLB=ws, auto): */
	uint64_t frames_taken;          /* frames stolen and run by a thief */
	uint64_t frames_stolen;         /* frames their spawner found stolen */
	uint64_t publishes;             /* times a spawner made frames public */
	uint64_t idle_work_ns;          /* ns workers slept while a frame they
					 * were woken for waited (woken to
					 * running), summed over workers */
	uint64_t ts_writes_owner;       /* CASes and stores of a worker on its
					 * own deque's shared word (ts) */
	uint64_t ts_writes_thief;       /* CASes of thieves and rescuers on
					 * other workers' ts */
};

/* Snapshot @rt's counters into @out. Safe while tasks run (counters are
 * read relaxed, so a running snapshot is approximate). Returns 0, -EINVAL,
 * or -EOPNOTSUPP in a library built without statistics (-DXS_NO_STATS). */
int xs_runtime_stats(struct xs_runtime *rt, struct xs_stats *out);

/*
 * Parallel loops (loop.c). Each call is one job of @rt, like
 * xs_runtime_parallel(): every worker takes chunks of the iteration space
 * until none is left, and the call returns once all of them have run.
 *
 *   static   one block per worker (chunk 0), or chunks of @chunk
 *            iterations dealt round-robin (cyclic); no shared state
 *   dynamic  chunks of @chunk (>= 1) iterations, first come first served
 *   guided   chunks of max(@chunk, remaining / workers), shrinking
 *   hybrid   each worker's block is split into @ns static tasks followed
 *            by @nd dynamic tasks of @grain per mille of the block each;
 *            a worker runs its static tasks, then its dynamic ones, then
 *            takes dynamic tasks of the slowest worker (the one with the
 *            most left), nearest first through the victim tables, with a
 *            lock-free claim (owners from the front, thieves from the back)
 *   affinity the hybrid schedule over the order of an affinity schedule
 *            (XSCHED_AFFINITY_FILE, made by xsched-affinity from a recorded
 *            run): each worker's block is the logical threads the plan gave
 *            it, in the planned order; its dynamic tail still goes to idle
 *            workers. Loops the schedule does not fit run hybrid.
 *
 * XS_LOOP_DEFAULT means the whole schedule of the XSCHED_LOOP_* options
 * (XSCHED_LOOP_SCHEDULE=auto: hybrid), the other fields ignored.
 */
enum xs_loop_kind {
	XS_LOOP_DEFAULT, XS_LOOP_STATIC, XS_LOOP_DYNAMIC, XS_LOOP_GUIDED, XS_LOOP_HYBRID,
	XS_LOOP_AFFINITY
};

struct xs_loop_sched {
	unsigned int kind;      /* enum xs_loop_kind */
	unsigned int ns;        /* hybrid: static tasks per worker, 1..64 */
	unsigned int nd;        /* hybrid: dynamic tasks per worker, 0..1024 */
	unsigned int grain;     /* hybrid: one dynamic task, per mille of a
				 * worker's block, 1..1000; nd x grain <= 1000 */
	uint64_t chunk;         /* static: 0 = one block per worker; dynamic,
				 * guided: 0 = 1; iterations per (minimum) chunk */
};

/* @s filled from the XSCHED_LOOP_* options of @rt (kind resolved, never
 * DEFAULT). Returns 0 or -EINVAL. */
int xs_loop_sched_default(const struct xs_runtime *rt, struct xs_loop_sched *s);

/* 0, or -EINVAL after a message naming the field of @s that is out of
 * range and the accepted range. */
int xs_loop_sched_check(const struct xs_loop_sched *s);

/*
 * Loop bodies get chunks: @count iterations, the first being @first, each
 * next one @step further (the caller's step). Within a chunk iterations
 * are consecutive; computing first + k * step in uint64_t never overflows.
 */
typedef void (*xs_for_fn)(void *arg, int64_t first, uint64_t count);
typedef void (*xs_for_u64_fn)(void *arg, uint64_t first, uint64_t count);

/*
 * Run the iterations of `for (i = begin; step > 0 ? i < end : i > end;
 * i += step)` on the workers of @rt, each exactly once, with schedule
 * @sched (NULL: xs_loop_sched_default()); returns when all have run and
 * every task their bodies spawned has completed. It waits for no worker
 * that has not joined the loop (one the kernel is not running): the
 * schedule says which worker runs a chunk first, and any worker may run
 * any chunk another has not started. Any step but 0; the bounds span
 * the whole signed (xs_parallel_for) or unsigned (_u64) 64-bit range.
 * Returns 0, -EINVAL for bad arguments (a message names a bad schedule
 * field), -EBUSY from inside a worker, -ENOMEM.
 */
int xs_parallel_for(struct xs_runtime *rt, int64_t begin, int64_t end, int64_t step,
		    const struct xs_loop_sched *sched, xs_for_fn fn, void *arg);
int xs_parallel_for_u64(struct xs_runtime *rt, uint64_t begin, uint64_t end, int64_t step,
			const struct xs_loop_sched *sched, xs_for_u64_fn fn, void *arg);

/*
 * 2-D blocked loop over [r0, r1) x [c0, c1): tiles of @rb x @cb (the last
 * ones smaller), numbered row-major, dispensed with @sched (chunk counts
 * tiles). @fn gets one tile [tr0, tr1) x [tc0, tc1) per call. Same returns
 * as xs_parallel_for(); rb, cb >= 1.
 */
typedef void (*xs_for_2d_fn)(void *arg, int64_t tr0, int64_t tr1, int64_t tc0, int64_t tc1);
int xs_parallel_for_2d(struct xs_runtime *rt, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
		       uint64_t rb, uint64_t cb, const struct xs_loop_sched *sched,
		       xs_for_2d_fn fn, void *arg);

/*
 * Affinity recording (XSCHED_AFFINITY_RECORD, xsched-affinity record):
 * the data a loop's iterations read and write, for the recorder to watch.
 * Only whole pages inside [@addr, @addr + @len) are watched (allocate
 * page-aligned data to watch all of it). At most 64 regions. Returns 0,
 * -EINVAL (NULL, no whole page), -ENOSPC; _remove() -ENOENT when @addr
 * starts no region.
 */
int xs_affinity_region_add(const void *addr, size_t len);
int xs_affinity_region_remove(const void *addr);

/* One row of the options table that drives the XSCHED_* variables. */
struct xs_option_info {
	const char *name;       /* environment variable, e.g. "XSCHED_WORKERS" */
	const char *doc;        /* one line */
	const char *range;      /* accepted values, human readable */
	const char *def;        /* default, human readable */
};

/* Describe option @index (0, 1, ...). Returns 0, -ENOENT past the end,
 * -EINVAL for a NULL @info. */
int xs_option_describe(unsigned int index, struct xs_option_info *info);

#ifdef __cplusplus
}
#endif

/*
 * xs_spawn() and xs_sync(): xs_task_spawn() and xs_task_wait() with their
 * work-first fast path inline (a frame write to spawn; a direct call to
 * join a child nobody stole). Same contracts; see xsched/task_inline.h.
 */
#include "xsched/task_inline.h"

/*
 * Typed tasks: XS_TASK_<k>() declares a task function with its spawn and
 * its join (a direct, inlinable call when nobody stole the child), on the
 * same deque. See xsched/task_typed.h.
 */
#include "xsched/task_typed.h"

#endif /* XSCHED_H */
