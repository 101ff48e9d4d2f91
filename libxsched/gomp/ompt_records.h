/* SPDX-License-Identifier: MIT */
/*
 * ompt_records.h - what ompt.c (the events, start-up) and ompt_inquiry.c
 * (the lookup function's entry points) share: the records of threads,
 * regions and tasks, and how an event's callback is called. Internal to
 * those two files; the constructs see only ompt.h.
 *
 * A thread's struct xo_thread is its own (TLS): only it writes it. A
 * region's record is written by its encountering thread before the team
 * starts and read by the team's threads after (published with the
 * region's job). A task's record is written by its creator before the
 * task is queued (published by the queue) and then by the thread that
 * runs it; the tool's ompt_data_t in each is the tool's to use.
 */
#ifndef XSCHED_GOMP_OMPT_RECORDS_H
#define XSCHED_GOMP_OMPT_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef XG_OMP_TOOLS_H
#include XG_OMP_TOOLS_H
#else
#include <omp-tools.h>
#endif

#include "gomp.h"
#include "ompt.h"

/* The one mutex implementation: lock.c's futex word. */
#define XO_MUTEX_IMPL 1

struct xo_region {
	ompt_data_t data;
	struct xo_region *parent;   /* the encountering task's region */
	struct xo_task *encountering;
	uint32_t nthreads;
	bool sections_preset;       /* a combined parallel sections */
};

struct xo_task {
	ompt_data_t data;
	ompt_frame_t frame;         /* no frame information: zeros */
	struct xo_task *parent;     /* generating task; NULL: initial */
	struct xo_task *prev;       /* the task its thread resumes after it */
	struct xo_region *region;   /* the region it binds to */
	int flags;                  /* ompt_task_flag_t */
	uint32_t tid;               /* thread number in its team */
	void (*fn)(void *);         /* explicit: the body and its block */
	void *arg;
};

struct xo_thread {
	ompt_data_t data;
	struct xo_task *cur;        /* the task this thread runs */
	bool begun;                 /* thread_begin reported */
	bool single_open;           /* single_executor begun, not ended */
	bool barrier_explicit;      /* the next barrier is GOMP_barrier's */
	bool preset_sections;       /* the next region is parallel sections */
	/* Inside the tool path of XG_OMPT_AROUND's barrier, taskwait,
	 * taskgroup end (the construct runs again, without its events). */
	bool in_barrier, in_taskwait, in_taskgroup_end;
	ompt_state_t state;
	ompt_wait_id_t wait_id;
};

#define XO_HIDDEN __attribute__((visibility("hidden")))

extern __thread struct xo_thread xo_self __attribute__((tls_model("initial-exec"))) XO_HIDDEN;

/* The callbacks the tool registered, by event number (ompt_inquiry.c's
 * ompt_set_callback). */
#define XO_EVENTS 64
extern _Atomic(ompt_callback_t) xo_callbacks[XO_EVENTS] XO_HIDDEN;

static inline ompt_callback_t xo_cb(ompt_callbacks_t event)
{
	/* Acquire pairs with xo_set_callback()'s release: a tool that
	 * registers while threads run has its callback's setup visible. */
	return xs_load_acquire(&xo_callbacks[event]);
}

/* xo_ompt_callback_<event>_fn: each event's callback type (several events
 * share one, as sync_region_wait has sync_region's). */
#define XO_TYPE(event, type, number) typedef type xo_##event##_fn;
FOREACH_OMPT_EVENT(XO_TYPE)
#undef XO_TYPE

/* Call @event's callback, if the tool registered one. */
#define XO_CALL(event, ...)                                                                        \
	do {                                                                                       \
		xo_ompt_callback_##event##_fn fn_ = (xo_ompt_callback_##event##_fn)xo_cb(          \
			ompt_callback_##event);                                                    \
		if (fn_)                                                                           \
			fn_(__VA_ARGS__);                                                          \
	} while (0)


/* The calling thread's task; its initial task (begun now) outside every
 * region. */
struct xo_task *xo_initial(void) XO_HIDDEN;

static inline struct xo_task *xo_cur(void)
{
	return xs_likely(xo_self.cur != NULL) ? xo_self.cur : xo_initial();
}

/* The entry points XG_OMPT_AROUND's tool paths run again (task.c). */
void GOMP_taskwait(void);
void GOMP_taskgroup_end(void);
/* task.c: a task of a taskloop (taskloop.c has its declaration). */
void xg_task_create(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long size,
		    long align, bool if_clause, bool final, void (*patch)(void *, const void *),
		    const void *patch_arg);

/* ompt_inquiry.c: the lookup function handed to the tool's initializer. */
ompt_interface_fn_t xo_lookup(const char *name) XO_HIDDEN;
/* ompt.c: end the tool (at exit, or ompt_finalize_tool()). */
void xo_finalize(void) XO_HIDDEN;

#endif /* XSCHED_GOMP_OMPT_RECORDS_H */
