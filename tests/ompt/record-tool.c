// SPDX-License-Identifier: MIT
/*
 * record-tool.c - an OMPT tool (built as a shared object, or into a
 * program with -DRECORD_IN_PROGRAM) that records the events of a run and
 * checks them against what OpenMP 5.1 requires, then prints one line:
 *
 *   ompt: errors=E threads=T parallel=P implicit=I ... (see xr_report())
 *
 * Rules checked as the events come (each breach counts one error and is
 * printed on stderr): a thread's events come between its thread_begin and
 * thread_end; parallel_end names a parallel_begin's data; an implicit task
 * begins inside a region that began and not yet ended, and ends on the
 * same thread; a task is scheduled only after its task_create, and its
 * dependences are reported after its creation and before its first
 * schedule; it completes once; sync regions, their waits and work
 * regions are properly nested per thread (begin/end with the same kind);
 * a mutex is acquired after an acquire on the same thread and released
 * by the thread that holds it. At finalize every begin must have its end.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp-tools.h>

static pthread_mutex_t xr_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t xr_next = 1;
static int xr_errors;

enum {
	C_THREADS, C_PARALLEL, C_IMPLICIT, C_TASKS, C_DEPS, C_DEP_ENTRIES, C_BARRIER,
	C_BARRIER_WS, C_BARRIER_PAR, C_TASKWAIT, C_TASKGROUP, C_LOOP, C_SECTIONS,
	C_SINGLE_EXEC, C_SINGLE_OTHER, C_TASKLOOP, C_LOCK, C_NEST, C_NEST_AGAIN, C_CRITICAL,
	C_LOCK_INIT, C_WAITS, C_N
};
static const char *const xr_names[C_N] = {
	"threads", "parallel", "implicit", "tasks", "deps", "dep_entries", "barrier",
	"barrier_ws", "barrier_par", "taskwait", "taskgroup", "loop", "sections",
	"single_exec", "single_other", "taskloop", "lock", "nest", "nest_again", "critical",
	"lock_init", "waits",
};
static long xr_count[C_N];

/* Per thread: a stack of open scopes (sync, wait, work), the lock held. */
#define XR_DEPTH 64
struct xr_thread {
	int begun, ended;
	int depth;
	int stack[XR_DEPTH];
	ompt_wait_id_t acquiring;
};
static __thread struct xr_thread xr_t;

/* Tasks: value = id; states kept in a table by id. */
#define XR_MAX 100000
static unsigned char xr_task_state[XR_MAX]; /* 1 created, 2 deps, 3 running, 4 done */
static unsigned char xr_region_state[XR_MAX]; /* 1 begun, 2 ended */

static void xr_error(const char *fmt, const char *what)
{
	xr_errors++;
	fprintf(stderr, "ompt-record: ");
	fprintf(stderr, fmt, what);
	fputc('\n', stderr);
}

static void xr_count_one(int c)
{
	pthread_mutex_lock(&xr_lock);
	xr_count[c]++;
	pthread_mutex_unlock(&xr_lock);
}

static void xr_thread_check(const char *event)
{
	if (!xr_t.begun || xr_t.ended) {
		pthread_mutex_lock(&xr_lock);
		xr_error("%s outside its thread's begin/end", event);
		pthread_mutex_unlock(&xr_lock);
	}
}

static void xr_push(int tag, const char *event)
{
	xr_thread_check(event);
	if (xr_t.depth < XR_DEPTH)
		xr_t.stack[xr_t.depth] = tag;
	xr_t.depth++;
}

static void xr_pop(int tag, const char *event)
{
	xr_thread_check(event);
	if (xr_t.depth <= 0 || (xr_t.depth <= XR_DEPTH && xr_t.stack[xr_t.depth - 1] != tag)) {
		pthread_mutex_lock(&xr_lock);
		xr_error("%s ends a scope it did not begin", event);
		pthread_mutex_unlock(&xr_lock);
		return;
	}
	xr_t.depth--;
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
	(void)type;
	if (xr_t.begun)
		xr_error("%s twice on one thread", "thread_begin");
	xr_t.begun = 1;
	data->value = 1;
	xr_count_one(C_THREADS);
}

static void on_thread_end(ompt_data_t *data)
{
	xr_thread_check("thread_end");
	if (data->value != 1 || xr_t.depth)
		xr_error("%s with its data lost or a scope open", "thread_end");
	xr_t.ended = 1;
}

static uint64_t xr_id(void)
{
	uint64_t id;

	pthread_mutex_lock(&xr_lock);
	id = xr_next++;
	pthread_mutex_unlock(&xr_lock);
	return id < XR_MAX ? id : XR_MAX - 1;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
			      unsigned int n, int flags, const void *ra)
{
	(void)frame, (void)n, (void)flags, (void)ra;
	xr_thread_check("parallel_begin");
	if (!task || !task->value)
		xr_error("%s from a task that was not reported", "parallel_begin");
	par->value = xr_id();
	pthread_mutex_lock(&xr_lock);
	xr_region_state[par->value] = 1;
	xr_count[C_PARALLEL]++;
	pthread_mutex_unlock(&xr_lock);
}

static void on_parallel_end(ompt_data_t *par, ompt_data_t *task, int flags, const void *ra)
{
	(void)task, (void)flags, (void)ra;
	xr_thread_check("parallel_end");
	pthread_mutex_lock(&xr_lock);
	if (xr_region_state[par->value] != 1)
		xr_error("%s of a region not begun", "parallel_end");
	xr_region_state[par->value] = 2;
	pthread_mutex_unlock(&xr_lock);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
			     unsigned int n, unsigned int index, int flags)
{
	(void)n, (void)index;
	if (ep == ompt_scope_begin) {
		xr_push(1000, "implicit_task begin");
		task->value = xr_id();
		if (flags & ompt_task_initial) {
			par->value = xr_id();
			return;
		}
		pthread_mutex_lock(&xr_lock);
		if (xr_region_state[par->value] != 1)
			xr_error("%s outside its region", "implicit_task begin");
		xr_count[C_IMPLICIT]++;
		pthread_mutex_unlock(&xr_lock);
	} else {
		xr_pop(1000, "implicit_task end");
	}
}

static void on_task_create(ompt_data_t *parent, const ompt_frame_t *frame, ompt_data_t *task,
			   int flags, int has_deps, const void *ra)
{
	(void)frame, (void)flags, (void)has_deps, (void)ra;
	xr_thread_check("task_create");
	if (!parent || !parent->value)
		xr_error("%s by a task not reported", "task_create");
	task->value = xr_id();
	pthread_mutex_lock(&xr_lock);
	xr_task_state[task->value] = 1;
	xr_count[C_TASKS]++;
	pthread_mutex_unlock(&xr_lock);
}

static void on_dependences(ompt_data_t *task, const ompt_dependence_t *deps, int n)
{
	(void)deps;
	pthread_mutex_lock(&xr_lock);
	if (xr_task_state[task->value] != 1)
		xr_error("%s not between creation and first schedule", "dependences");
	xr_task_state[task->value] = 2;
	xr_count[C_DEPS]++;
	xr_count[C_DEP_ENTRIES] += n;
	pthread_mutex_unlock(&xr_lock);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
	xr_thread_check("task_schedule");
	pthread_mutex_lock(&xr_lock);
	if (status == ompt_task_complete) {
		if (!prior || xr_task_state[prior->value] != 3)
			xr_error("%s of a task not running", "task_schedule complete");
		else
			xr_task_state[prior->value] = 4;
	} else if (next && xr_task_state[next->value] != 0) {
		/* an explicit task (implicit ones have state 0) */
		if (xr_task_state[next->value] != 1 && xr_task_state[next->value] != 2)
			xr_error("%s of a task not created or run twice", "task_schedule");
		xr_task_state[next->value] = 3;
	}
	pthread_mutex_unlock(&xr_lock);
}

static int xr_sync_counter(ompt_sync_region_t kind)
{
	switch (kind) {
	case ompt_sync_region_barrier:
	case ompt_sync_region_barrier_explicit: return C_BARRIER;
	case ompt_sync_region_barrier_implicit_workshare: return C_BARRIER_WS;
	case ompt_sync_region_barrier_implicit_parallel: return C_BARRIER_PAR;
	case ompt_sync_region_taskwait: return C_TASKWAIT;
	case ompt_sync_region_taskgroup: return C_TASKGROUP;
	default: return -1;
	}
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep,
			   ompt_data_t *par, ompt_data_t *task, const void *ra)
{
	(void)par, (void)ra;
	if (!task || !task->value)
		xr_error("%s in a task not reported", "sync_region");
	if (ep == ompt_scope_begin) {
		int c = xr_sync_counter(kind);

		xr_push(100 + kind, "sync_region begin");
		if (c < 0)
			xr_error("%s of an unexpected kind", "sync_region");
		else
			xr_count_one(c);
	} else {
		xr_pop(100 + kind, "sync_region end");
	}
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep,
				ompt_data_t *par, ompt_data_t *task, const void *ra)
{
	(void)par, (void)task, (void)ra;
	if (ep == ompt_scope_begin) {
		xr_push(200 + kind, "sync_region_wait begin");
		xr_count_one(C_WAITS);
	} else {
		xr_pop(200 + kind, "sync_region_wait end");
	}
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par,
		    ompt_data_t *task, uint64_t count, const void *ra)
{
	(void)par, (void)task, (void)count, (void)ra;
	if (ep == ompt_scope_begin) {
		xr_push(300 + kind, "work begin");
		xr_count_one(kind == ompt_work_loop ? C_LOOP
			     : kind == ompt_work_sections ? C_SECTIONS
			     : kind == ompt_work_single_executor ? C_SINGLE_EXEC
			     : kind == ompt_work_taskloop ? C_TASKLOOP : C_SINGLE_OTHER);
	} else {
		xr_pop(300 + kind, "work end");
	}
}

static void on_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
			 ompt_wait_id_t id, const void *ra)
{
	(void)kind, (void)hint, (void)impl, (void)id, (void)ra;
	xr_count_one(C_LOCK_INIT);
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
			     ompt_wait_id_t id, const void *ra)
{
	(void)kind, (void)hint, (void)impl, (void)ra;
	xr_thread_check("mutex_acquire");
	xr_t.acquiring = id;
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t id, const void *ra)
{
	(void)ra;
	if (xr_t.acquiring != id)
		xr_error("%s without mutex_acquire", "mutex_acquired");
	xr_t.acquiring = 0;
	xr_push(400, "mutex_acquired");
	xr_count_one(kind == ompt_mutex_critical ? C_CRITICAL
		     : kind == ompt_mutex_nest_lock || kind == ompt_mutex_test_nest_lock ? C_NEST
		     : C_LOCK);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t id, const void *ra)
{
	(void)kind, (void)id, (void)ra;
	xr_pop(400, "mutex_released");
}

static void on_nest_lock(ompt_scope_endpoint_t ep, ompt_wait_id_t id, const void *ra)
{
	(void)id, (void)ra;
	if (ep == ompt_scope_begin) {
		xr_push(500, "nest_lock begin");
		xr_count_one(C_NEST_AGAIN);
	} else {
		xr_pop(500, "nest_lock end");
	}
}

static int xr_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	static const char *const inquiry[] = {
		"ompt_get_callback", "ompt_get_thread_data", "ompt_get_parallel_info",
		"ompt_get_task_info", "ompt_get_unique_id", "ompt_get_num_procs",
		"ompt_get_num_places", "ompt_get_place_num", "ompt_get_proc_id",
		"ompt_get_state", "ompt_enumerate_states", "ompt_enumerate_mutex_impls",
		"ompt_get_task_memory",
	};

	(void)device, (void)data;
	if (!set) {
		xr_error("%s missing", "ompt_set_callback");
		return 0;
	}
	for (size_t i = 0; i < sizeof(inquiry) / sizeof(inquiry[0]); i++)
		if (!lookup(inquiry[i]))
			xr_error("lookup(%s) returned NULL", inquiry[i]);
#define SET(event, fn)                                                                             \
	if (set(ompt_callback_##event, (ompt_callback_t)fn) != ompt_set_always)                    \
		xr_error("%s not always delivered", #event)
	SET(thread_begin, on_thread_begin);
	SET(thread_end, on_thread_end);
	SET(parallel_begin, on_parallel_begin);
	SET(parallel_end, on_parallel_end);
	SET(implicit_task, on_implicit_task);
	SET(task_create, on_task_create);
	SET(task_schedule, on_task_schedule);
	SET(dependences, on_dependences);
	SET(sync_region, on_sync_region);
	SET(sync_region_wait, on_sync_region_wait);
	SET(work, on_work);
	SET(lock_init, on_lock_init);
	SET(mutex_acquire, on_mutex_acquire);
	SET(mutex_acquired, on_mutex_acquired);
	SET(mutex_released, on_mutex_released);
	SET(nest_lock, on_nest_lock);
#undef SET
	return 1;
}

static void xr_finalize(ompt_data_t *data)
{
	(void)data;
	for (uint64_t i = 1; i < xr_next && i < XR_MAX; i++) {
		if (xr_region_state[i] == 1)
			xr_error("%s without its end", "parallel_begin");
		if (xr_task_state[i] && xr_task_state[i] != 4)
			xr_error("%s never completed", "a task");
	}
	printf("ompt: errors=%d", xr_errors);
	for (int c = 0; c < C_N; c++)
		printf(" %s=%ld", xr_names[c], xr_count[c]);
	printf("\n");
	fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
	static ompt_start_tool_result_t result = { xr_initialize, xr_finalize, { 0 } };

	(void)version, (void)runtime;
	return &result;
}
