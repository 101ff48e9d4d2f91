/* SPDX-License-Identifier: MIT */
/*
 * profile.h - per-worker event log (XSCHED_PROFILE=<path>).
 *
 * Each worker appends intervals (type, start, end) stamped with the TSC to
 * its own log; nobody else touches it until the workers have stopped, when
 * xs_profile_write() turns all logs into Chrome trace-event JSON (one track
 * per worker thread, under the process's pid and each thread's kernel tid;
 * it opens in Perfetto). When profiling is off the worker's log pointer is
 * NULL and every probe costs one predictable branch.
 */
#ifndef XSCHED_PROFILE_H
#define XSCHED_PROFILE_H

#include <stdint.h>

#include "base/atomics.h"
#include "base/clock.h"

enum xs_event_type {
	XS_EV_THREAD,      /* a worker's life inside the runtime */
	XS_EV_TASK,        /* executing a task body */
	XS_EV_TASK_CREATE, /* inside xs_task_spawn() */
	XS_EV_TASKWAIT,    /* inside xs_task_wait() / the join at task end */
	XS_EV_BARRIER,     /* inside the team barrier */
	XS_EV_STALL,       /* idle: no task found, spinning or parked */
	XS_EV_STEAL,       /* an instant: this worker took a frame of worker
			    * `arg` (start == end) */
	XS_EV_MOVE,        /* an instant: this worker runs a task descriptor
			    * worker `arg` created (NA-WS, NA-RP, a push) */
	XS_EV_NTYPES
};

extern const char *const xs_event_names[XS_EV_NTYPES];

struct xs_event {
	uint64_t start, end;   /* TSC */
	uint32_t type;
	uint32_t arg;          /* XS_EV_STEAL: the victim's worker id */
};

/* Written by its worker only (xs_profile_thread(), the probes); read by
 * xs_profile_write() after the workers have stopped (pthread_join). */
struct xs_profile_log {
	struct xs_event *ev;
	uint64_t n, cap, dropped;
	uint32_t tid;          /* the worker thread's kernel tid */
	char name[16];         /* its name (/proc/.../comm) */
};

struct xs_profile_log *xs_profile_log_create(uint64_t cap);
void xs_profile_log_destroy(struct xs_profile_log *log);

static inline void xs_profile_record(struct xs_profile_log *log, enum xs_event_type type,
				     uint64_t start, uint64_t end)
{
	if (xs_unlikely(log->n == log->cap)) {
		log->dropped++;
		return;
	}
	log->ev[log->n++] = (struct xs_event){ .start = start, .end = end, .type = type };
}

/* A task that came from worker @from (XS_EV_STEAL or XS_EV_MOVE). */
static inline void xs_profile_flow(struct xs_profile_log *log, enum xs_event_type type,
				   uint32_t from, uint64_t at)
{
	if (xs_unlikely(log->n == log->cap)) {
		log->dropped++;
		return;
	}
	log->ev[log->n++] = (struct xs_event){ .start = at, .end = at, .type = type, .arg = from };
}

/* The calling thread is @log's worker from now on: its tid and name. */
void xs_profile_thread(struct xs_profile_log *log);

/* Probes: one branch each when profiling is off. */
#define xs_prof_begin(log) ((log) ? xs_tsc() : 0)
#define xs_prof_end(log, type, start)                                          \
	do {                                                                   \
		if (log)                                                       \
			xs_profile_record((log), (type), (start), xs_tsc());   \
	} while (0)

struct xs_runtime;

/*
 * Write every worker's log and counters to @path, in which %p stands for
 * the process id and %r for the runtime's number in the process (1, 2,
 * ...). Without %r, a second runtime of the process writes PATH.r2 (its
 * number before the extension), so runtimes never overwrite each other.
 * Returns 0 or -errno; *written gets the path used.
 */
int xs_profile_write(struct xs_runtime *rt, const char *path, char *written, size_t size);

#endif /* XSCHED_PROFILE_H */
