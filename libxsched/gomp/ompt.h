/* SPDX-License-Identifier: MIT */
/*
 * ompt.h - the OMPT tool interface of the drop-in (internal): the hooks
 * the constructs call, one line each.
 *
 * Every hook is XG_OMPT(event(...)): one test of xg_ompt_on, marked
 * unlikely, and a call into ompt.c only when a tool is attached. With no
 * tool the cost at a hook is one load and one not-taken branch, and the
 * event's arguments are not even computed.
 *
 * xg_ompt_on is set once, by the library's constructor (xg_env_init()
 * under pthread_once) after the tool's initializer returned, and cleared
 * at exit before the tool's finalizer runs. It is read with a relaxed
 * load: it orders nothing (a thread that runs OpenMP code was started by
 * the runtime after the constructor, or synchronized with it through
 * pthread_once), and the relaxed load is the plain `mov` a plain variable
 * would be, while staying a data-race-free access when exit clears it
 * under a thread that is still running.
 *
 * ompt.c keeps its own per-thread and per-task state (the ompt_data_t of
 * every thread, region and task); the constructs' structures only carry
 * xg_team.ompt, the region record of a team's current region.
 */
#ifndef XSCHED_GOMP_OMPT_H
#define XSCHED_GOMP_OMPT_H

#include <stdbool.h>
#include <stdint.h>

#include "gomp.h"

/* Hidden: read PC-relative, not through the GOT. */
extern _Atomic bool xg_ompt_on __attribute__((visibility("hidden")));

/* Whether a tool is attached (see the top). */
static inline bool xg_ompt_active(void)
{
	/* Relaxed: a flag set before the threads that read it started
	 * (see the top); it publishes nothing. */
	return xs_unlikely(xs_load_relaxed(&xg_ompt_on));
}

#define XG_OMPT(call)                                                                              \
	do {                                                                                       \
		if (xg_ompt_active())                                                              \
			xg_ompt_##call;                                                            \
	} while (0)

/* Set while xg_ompt_task() creates the task through GOMP_task again
 * (the calling thread's own). */
extern __thread bool xg_ompt_creating
	__attribute__((tls_model("initial-exec"), visibility("hidden")));

/* GOMP_task: true when the tool path created the task (the caller then
 * returns); false with no tool attached, or from the tool path itself.
 * The call is the last thing the caller does on that path (a tail call):
 * nothing of the caller needs to survive it, which keeps the path
 * without a tool as it was. */
#define XG_OMPT_TASK(...)                                                                          \
	(xg_ompt_active() && !xg_ompt_creating && (xg_ompt_task(__VA_ARGS__), true))
#define XG_OMPT_TASKLOOP_TASK(...)                                                                 \
	(xg_ompt_active() && !xg_ompt_creating && (xg_ompt_taskloop_task(__VA_ARGS__), true))

/*
 * A construct whose events surround it: `if (XG_OMPT_AROUND(x())) return;`
 * first in its entry point. With a tool, xg_ompt_x() reports the begin,
 * calls the entry point again (which then finds it is inside and goes
 * on), reports the end and returns true. One test on the path without a
 * tool, which keeps its tail call.
 */
#define XG_OMPT_AROUND(call) (xg_ompt_active() && xg_ompt_##call)

/* omp_test_lock and omp_test_nest_lock: the result @r passed through,
 * reported as an acquisition when it is one. */
#define XG_OMPT_TESTED(r, lock, kind) (xg_ompt_active() ? xg_ompt_tested((r), (lock), (kind)) : (r))

/* What a hook reports; ompt.c maps them to omp-tools.h's values, so that
 * the constructs need not include the tool header. */
enum xg_ompt_work { XG_OMPT_WORK_LOOP, XG_OMPT_WORK_SECTIONS };
enum xg_ompt_mutex {
	XG_OMPT_LOCK,
	XG_OMPT_NEST_LOCK,
	XG_OMPT_TEST_LOCK,
	XG_OMPT_TEST_NEST_LOCK,
	XG_OMPT_CRITICAL,
	XG_OMPT_ATOMIC,
};

/* env.c: find and start a tool (OMP_TOOL, OMP_TOOL_LIBRARIES, the
 * program's own ompt_start_tool), once, from the library's constructor. */
void xg_ompt_init(void);

/* team.c: a thread met OpenMP outside every region (initial task). */
void xg_ompt_initial_thread(void);
/* team.c: region begin (the encountering thread, before its team starts),
 * each thread's implicit task begin, its implicit barrier and end; the
 * region's end on the encountering thread after every thread left. */
void xg_ompt_parallel_begin(struct xg_team *team, unsigned requested, unsigned flags);
void xg_ompt_implicit_begin(struct xg_team *team, uint32_t tid);
void xg_ompt_implicit_barrier(void);
void xg_ompt_implicit_end(void);
void xg_ompt_parallel_end(struct xg_team *team);

/* sync.c: the next team barrier of this thread is GOMP_barrier's. */
void xg_ompt_barrier_explicit(void);
/* ws.c: a team barrier (xg_barrier), as XG_OMPT_AROUND. */
bool xg_ompt_barrier(void);

/* Worksharing: a loop or sections construct begins or ends on this
 * thread; single: this thread runs it (@executor) or not. A combined
 * construct's first construct is a sections one when the encountering
 * thread said so before the region (xg_ompt_preset()), else a loop. */
void xg_ompt_work_begin(enum xg_ompt_work kind, uint64_t count);
void xg_ompt_work_end(enum xg_ompt_work kind);
void xg_ompt_preset(enum xg_ompt_work kind);
void xg_ompt_single(bool executor);
void xg_ompt_single_end(void);

/* task.c */
void xg_ompt_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
		  long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
		  void *detach);
bool xg_ompt_taskwait(void);
/* taskloop.c: a taskloop of @n iterations, in a taskgroup of its own
 * unless nogroup (@group false); task.c's xg_task_create: one of its
 * tasks, as XG_OMPT_TASK (its block patched by @patch). */
void xg_ompt_taskloop_begin(uint64_t n, bool group);
void xg_ompt_taskloop_end(bool group);
void xg_ompt_taskloop_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
			   long size, long align, bool if_clause, bool final,
			   void (*patch)(void *, const void *), const void *patch_arg);
void xg_ompt_taskgroup_begin(void);
bool xg_ompt_taskgroup_end(void);

/* lock.c: @lock is the wait id (the lock's or critical's address). */
void xg_ompt_lock_init(const void *lock, enum xg_ompt_mutex kind);
void xg_ompt_lock_destroy(const void *lock, enum xg_ompt_mutex kind);
void xg_ompt_acquire(const void *lock, enum xg_ompt_mutex kind);
void xg_ompt_acquired(const void *lock, enum xg_ompt_mutex kind);
void xg_ompt_released(const void *lock, enum xg_ompt_mutex kind);
/* A nest lock's owner set it again (@depth > 1: nest_lock begin, 1: the
 * first acquisition) or unset it to @depth (0: released). */
void xg_ompt_nest_acquired(const void *lock, uint32_t depth);
void xg_ompt_nest_released(const void *lock, uint32_t depth);
int xg_ompt_tested(int r, const void *lock, enum xg_ompt_mutex kind);

#endif /* XSCHED_GOMP_OMPT_H */
