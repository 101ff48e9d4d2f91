/* SPDX-License-Identifier: MIT */
/*
 * trace.h - an XSCHED_PROFILE file in memory, and what xsched-trace derives
 * from it.
 *
 * The file is the Chrome trace-event JSON that libxsched/obs/profile.c writes:
 * {"displayTimeUnit":"ns","traceEvents":[...],"xsched":{...}} with one
 * "ph":"M" thread_name event and any number of "ph":"X" complete events
 * per worker (tid), timestamps and durations in microseconds with three
 * decimals, and the per-worker counters under "xsched". trace_load()
 * accepts that shape (any JSON whitespace, any key order, unknown keys
 * skipped), the Chrome array form (the events as a top-level array), and
 * "ph":"B"/"E" begin/end pairs besides "X" (an E ends the innermost open B
 * of its thread; its name, if any, must match). It rejects anything else
 * with the file, line, column and byte offset of the problem.
 *
 * Nesting. Events of one thread nest: TASK inside TASKWAIT (a task run
 * while joining), TASK inside TASK_CREATE (a full queue runs the child at
 * once), TASKWAIT and TASK_CREATE inside TASK, STALL inside TASKWAIT, and
 * everything inside THREAD. Every instant of a thread belongs to the
 * innermost event open at that instant, so the exclusive times of the six
 * kinds plus the time inside the thread's span covered by no event
 * (OUTSIDE: between jobs) add up to the span exactly. An event that ends
 * after its enclosing event (the three-decimal rounding can make a child
 * stick out by a nanosecond) is cut at the parent's end.
 */
#ifndef XSCHED_TRACE_TRACE_H
#define XSCHED_TRACE_TRACE_H

#include <stddef.h>
#include <stdint.h>

enum trace_kind {
	TK_THREAD,
	TK_TASK,
	TK_TASK_CREATE,
	TK_TASKWAIT,
	TK_BARRIER,
	TK_STALL,
	TK_NKINDS,
	TK_OUTSIDE = TK_NKINDS, /* in the span, in no event (summaries only) */
	TK_NCOLUMNS
};

extern const char *const trace_kind_names[TK_NCOLUMNS];

struct trace_event {
	int64_t start, end; /* ns since the trace's origin */
	uint32_t kind;
};

struct trace_thread {
	int64_t tid;
	char name[64];
	struct trace_event *ev;
	size_t n, cap;
	struct trace_event *open; /* B events not yet ended, innermost last */
	size_t nopen, capopen;
	/* From the "xsched" counters, when the file has them for this tid. */
	int has_counters;
	uint64_t counter_executed; /* tasks_self+tasks_local+tasks_remote+immediate */
	uint64_t events_dropped;
	uint64_t events_short;     /* left out: shorter than XSCHED_PROFILE_MIN_NS */
	uint64_t counter_stolen;   /* stolen_local+stolen_remote: taken by thieves */

	/* Filled by trace_summarize(). */
	int64_t first, last;          /* span: first start .. last end */
	int64_t excl[TK_NCOLUMNS];    /* exclusive ns per kind, OUTSIDE last */
	uint64_t executed, created;   /* TASK and TASK_CREATE events */
};

struct trace {
	const char *path;
	struct trace_thread *thr; /* sorted by tid after trace_load() */
	size_t nthr;
	size_t last_thr; /* lookup cache while loading */
	uint64_t nevents;
	double tsc_per_us;
};

/* Load @path into @t. Returns 0, or -1 after writing one line to @err
 * (capacity @errlen) that names the file and the position. */
int trace_load(struct trace *t, const char *path, char *err, size_t errlen);

/* The same from @len bytes at @buf (no NUL needed), naming @path in errors:
 * a pure function of the buffer (the fuzz target's entry point). */
int trace_parse(struct trace *t, const char *path, const char *buf, size_t len, char *err,
		size_t errlen);
void trace_free(struct trace *t);

/* Sort every thread's events and compute the per-thread summary fields.
 * Returns 0 or -1 (out of memory, message in @err). */
int trace_summarize(struct trace *t, char *err, size_t errlen);

/* The whole trace's extent: min first, max last over threads. */
void trace_extent(const struct trace *t, int64_t *first, int64_t *last);

#endif /* XSCHED_TRACE_TRACE_H */
