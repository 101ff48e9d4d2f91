// SPDX-License-Identifier: MIT
/*
 * ompt.c - the OMPT tool interface (OpenMP 5.1, chapter 19): tools such as
 * LLVM's Archer, TAU, Score-P and HPCToolkit attach to unmodified
 * `gcc -fopenmp` programs run on the drop-in.
 *
 * Start-up (xg_ompt_init(), from the library's constructor): unless
 * OMP_TOOL=disabled, the first ompt_start_tool found is asked for a tool:
 * the program's own (dlsym(RTLD_DEFAULT)), then each library of
 * OMP_TOOL_LIBRARIES (colon-separated, dlopen()ed in order). When one
 * returns a tool whose initializer returns nonzero, xg_ompt_on is set and
 * the hooks of ompt.h start calling in here. OMP_TOOL_VERBOSE_INIT
 * (stdout, stderr, or a file name) logs each step. At exit the runtimes'
 * threads are ended (thread_end on each), the initial task and thread
 * end, the flag is cleared and the tool's finalizer runs.
 *
 * The lookup function's entry points are in ompt_inquiry.c, the records
 * both files share in ompt_records.h.
 *
 * State. Each thread has a struct xo_thread (TLS): its ompt_data_t, the
 * task it runs (`cur`), and what a hook needs to pair an end with its
 * begin. A region is a struct xo_region, made by the encountering thread
 * at parallel begin and found by the team's threads through xg_team.ompt;
 * a task is a struct xo_task. Implicit and initial tasks are allocated at
 * their begin; an explicit task's record is made at its creation, holds
 * the copy of its argument block, and travels to the thread that runs it
 * as the argument of xo_task_main(), which runs the body between the
 * task_schedule events: the runtime's own task paths (frames, queues,
 * dependences) run it unchanged. A task record outlives its children
 * (xo_task_main() joins them before it frees the record), so every task's
 * parent chain, which ompt_get_task_info() walks, is valid.
 *
 * What is not reported: tasks with a detach clause (their event lives in
 * their argument block, which the tool path replaces), masked/master (gcc
 * inlines them: no runtime call), the dispatch and reduction events,
 * target and device events (no devices).
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "depend.h"
#include "ompt_records.h"

_Atomic bool xg_ompt_on;
__thread struct xo_thread xo_self __attribute__((tls_model("initial-exec")));
__thread bool xg_ompt_creating __attribute__((tls_model("initial-exec")));

/* The tool, once started. */
static ompt_start_tool_result_t *xo_tool;
static pthread_key_t xo_thread_key;

/* ---------------------------------------------------------------- */
/* Threads and the initial task */

static void xo_thread_begin(ompt_thread_t type)
{
	if (xs_likely(xo_self.begun))
		return;
	xo_self.begun = true;
	xo_self.state = ompt_state_work_serial;
	/* A value for the key so that its destructor reports the end. */
	pthread_setspecific(xo_thread_key, &xo_self);
	ompt_callback_thread_begin_t fn = (ompt_callback_thread_begin_t)xo_cb(
		ompt_callback_thread_begin);
	if (fn)
		fn(type, &xo_self.data);
}

static void xo_thread_end(void)
{
	if (!xo_self.begun)
		return;
	xo_self.begun = false;
	XO_CALL(thread_end, &xo_self.data);
}

/* The key's destructor: a thread of the runtime (or of the program) that
 * ran OpenMP code exits. */
static void xo_thread_exit(void *arg)
{
	(void)arg;
	if (xg_ompt_active())
		xo_thread_end();
}

static void *xo_calloc(size_t size)
{
	void *p = calloc(1, size);

	if (!p) {
		xg_warn("out of memory for OMPT's records");
		abort();
	}
	return p;
}

/* The initial task of the calling thread (OpenMP 5.1 19.4.1): its thread
 * begins as an initial thread, its implicit region of one thread. */
struct xo_task *xo_initial(void)
{
	struct xo_region *r;
	struct xo_task *t;

	if (xo_self.cur)
		return xo_self.cur;
	xo_thread_begin(ompt_thread_initial);
	r = xo_calloc(sizeof(*r));
	r->nthreads = 1;
	t = xo_calloc(sizeof(*t));
	t->region = r;
	t->flags = ompt_task_initial;
	xo_self.cur = t;
	XO_CALL(implicit_task, ompt_scope_begin, &r->data, &t->data, 1, 1, ompt_task_initial);
	return t;
}

void xg_ompt_initial_thread(void)
{
	xo_initial();
}

static inline ompt_data_t *xo_data(struct xo_task *t)
{
	return t ? &t->data : NULL;
}

/* ---------------------------------------------------------------- */
/* Parallel regions, implicit tasks, barriers */

static void xo_single_close(void);

void xg_ompt_preset(enum xg_ompt_work kind)
{
	xo_self.preset_sections = kind == XG_OMPT_WORK_SECTIONS;
}

void xg_ompt_parallel_begin(struct xg_team *team, unsigned requested, unsigned flags)
{
	struct xo_task *enc = xo_cur();
	struct xo_region *r = xo_calloc(sizeof(*r));

	(void)flags;
	r->parent = enc->region;
	r->encountering = enc;
	r->nthreads = team->nthreads;
	r->sections_preset = xo_self.preset_sections;
	xo_self.preset_sections = false;
	/* Published to the team's threads with the region's job (a release
	 * in xs_runtime_parallel_begin(), acquired by each worker). */
	team->ompt = r;
	XO_CALL(parallel_begin, &enc->data, &enc->frame, &r->data,
		requested ? requested : team->nthreads,
		ompt_parallel_invoker_program | ompt_parallel_team, NULL);
}

void xg_ompt_implicit_begin(struct xg_team *team, uint32_t tid)
{
	struct xo_region *r = team->ompt;
	struct xo_task *t;

	if (!r)
		return;
	xo_thread_begin(ompt_thread_worker);
	t = xo_calloc(sizeof(*t));
	t->region = r;
	t->parent = r->encountering;
	t->prev = xo_self.cur;
	t->flags = ompt_task_implicit;
	t->tid = tid;
	xo_self.cur = t;
	xo_self.state = r->nthreads > 1 ? ompt_state_work_parallel : ompt_state_work_serial;
	XO_CALL(implicit_task, ompt_scope_begin, &r->data, &t->data, r->nthreads, tid,
		ompt_task_implicit);
	/* A combined construct's first worksharing construct: set up before
	 * the team started, every thread is in it now. */
	if (team->ws_preset)
		XO_CALL(work, r->sections_preset ? ompt_work_sections : ompt_work_loop,
			ompt_scope_begin, &r->data, &t->data,
			r->sections_preset ? team->ws[0].sections : team->ws[0].loop.n, NULL);
}

static void xo_sync(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, bool wait)
{
	struct xo_task *t = xo_cur();
	ompt_data_t *pd = &t->region->data;

	if (endpoint == ompt_scope_begin) {
		XO_CALL(sync_region, kind, endpoint, pd, &t->data, NULL);
		if (wait)
			XO_CALL(sync_region_wait, kind, endpoint, pd, &t->data, NULL);
	} else {
		if (wait)
			XO_CALL(sync_region_wait, kind, endpoint, pd, &t->data, NULL);
		XO_CALL(sync_region, kind, endpoint, pd, &t->data, NULL);
	}
}

void xg_ompt_implicit_barrier(void)
{
	xo_single_close();
	xo_self.state = ompt_state_wait_barrier_implicit_parallel;
	xo_sync(ompt_sync_region_barrier_implicit_parallel, ompt_scope_begin, true);
}

void xg_ompt_implicit_end(void)
{
	struct xo_task *t = xo_self.cur;

	if (!t || !(t->flags & ompt_task_implicit))
		return;
	xo_sync(ompt_sync_region_barrier_implicit_parallel, ompt_scope_end, true);
	XO_CALL(implicit_task, ompt_scope_end, &t->region->data, &t->data, t->region->nthreads,
		t->tid, ompt_task_implicit);
	xo_self.cur = t->prev;
	xo_self.state = t->prev && t->prev->region->nthreads > 1 ? ompt_state_work_parallel
								  : ompt_state_work_serial;
	free(t);
}

void xg_ompt_parallel_end(struct xg_team *team)
{
	struct xo_region *r = team->ompt;

	if (!r)
		return;
	xg_ompt_implicit_end();
	XO_CALL(parallel_end, &r->data, &r->encountering->data,
		ompt_parallel_invoker_program | ompt_parallel_team, NULL);
	team->ompt = NULL;
	free(r);
}

void xg_ompt_barrier_explicit(void)
{
	xo_self.barrier_explicit = true;
}

bool xg_ompt_barrier(void)
{
	/* GOMP_barrier is both gcc's `barrier` directive and the barrier
	 * at the end of a single (no other call tells them apart): the
	 * generic barrier kind. A loop's or sections' end is known. */
	bool plain = xo_self.barrier_explicit;
	ompt_sync_region_t kind = plain ? ompt_sync_region_barrier
					: ompt_sync_region_barrier_implicit_workshare;

	if (xo_self.in_barrier)
		return false;
	xo_single_close();
	xo_self.barrier_explicit = false;
	xo_self.state = plain ? ompt_state_wait_barrier_explicit
			      : ompt_state_wait_barrier_implicit_workshare;
	xo_sync(kind, ompt_scope_begin, true);
	xo_self.in_barrier = true;
	xg_barrier();
	xo_self.in_barrier = false;
	xo_sync(kind, ompt_scope_end, true);
	xo_self.state = ompt_state_work_parallel;
	return true;
}

/* ---------------------------------------------------------------- */
/* Worksharing */

static void xo_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, uint64_t count)
{
	struct xo_task *t = xo_cur();

	XO_CALL(work, kind, endpoint, &t->region->data, &t->data, count, NULL);
}

/* A single's executor has no call at its end (GOMP_single_start returns
 * true and the body follows): its end is reported at the thread's next
 * construct, barrier or the end of its implicit task. */
static void xo_single_close(void)
{
	if (xo_self.single_open) {
		xo_self.single_open = false;
		xo_work(ompt_work_single_executor, ompt_scope_end, 1);
	}
}

void xg_ompt_work_begin(enum xg_ompt_work kind, uint64_t count)
{
	xo_single_close();
	xo_work(kind == XG_OMPT_WORK_SECTIONS ? ompt_work_sections : ompt_work_loop,
		ompt_scope_begin, count);
}

void xg_ompt_work_end(enum xg_ompt_work kind)
{
	xo_work(kind == XG_OMPT_WORK_SECTIONS ? ompt_work_sections : ompt_work_loop,
		ompt_scope_end, 0);
}

void xg_ompt_single(bool executor)
{
	xo_single_close();
	if (executor) {
		xo_work(ompt_work_single_executor, ompt_scope_begin, 1);
		xo_self.single_open = true;
	} else {
		xo_work(ompt_work_single_other, ompt_scope_begin, 1);
		xo_work(ompt_work_single_other, ompt_scope_end, 0);
	}
}

void xg_ompt_single_end(void)
{
	xo_single_close();
}

/* ---------------------------------------------------------------- */
/* Explicit tasks */

/* The body of a task created through the tool path, run by whichever
 * thread runs the task. */
static void xo_task_main(void *arg)
{
	struct xo_task *t = *(struct xo_task **)arg;
	struct xo_task *prev;
	/* The task is not inside its runner's constructs. */
	bool creating = xg_ompt_creating, in_barrier = xo_self.in_barrier,
	     in_taskwait = xo_self.in_taskwait, in_taskgroup_end = xo_self.in_taskgroup_end;

	xo_thread_begin(ompt_thread_worker);
	prev = xo_self.cur;
	t->prev = prev;
	xg_ompt_creating = false;
	xo_self.in_barrier = false;
	xo_self.in_taskwait = false;
	xo_self.in_taskgroup_end = false;
	XO_CALL(task_schedule, xo_data(prev), ompt_task_switch, &t->data);
	xo_self.cur = t;
	t->fn(t->arg);
	/* Its children complete before its record goes: their parent
	 * pointers stay valid (the runtime joins them right after anyway). */
	xg_task_join();
	XO_CALL(task_schedule, &t->data, ompt_task_complete, xo_data(prev));
	xo_self.cur = prev;
	xg_ompt_creating = creating;
	xo_self.in_barrier = in_barrier;
	xo_self.in_taskwait = in_taskwait;
	xo_self.in_taskgroup_end = in_taskgroup_end;
	free(t);
}

static ompt_dependence_type_t xo_dep_type(uintptr_t kind)
{
	switch (kind) {
	case XG_DEP_IN: return ompt_dependence_type_in;
	case XG_DEP_OUT: return ompt_dependence_type_out;
	case XG_DEP_MUTEXINOUTSET: return ompt_dependence_type_mutexinoutset;
	case XG_DEP_INOUTSET: return ompt_dependence_type_inoutset;
	default: return ompt_dependence_type_inout;
	}
}

/* ompt_callback_dependences for gcc's @depend array (depend.h): every
 * address with its kind, depend objects resolved. */
static void xo_dependences(struct xo_task *t, void **depend)
{
	struct xg_depend_list l;
	ompt_dependence_t small[16], *deps;
	size_t n;

	xg_depend_list(depend, &l);
	n = l.n;
	deps = n <= 16 ? small : xo_calloc(n * sizeof(*deps));
	for (size_t i = 0; i < n; i++) {
		uintptr_t kind;

		deps[i].variable.ptr = xg_depend_at(&l, i, &kind);
		deps[i].dependence_type = xo_dep_type(kind);
	}
	XO_CALL(dependences, &t->data, deps, (int)n);
	if (deps != small)
		free(deps);
}

/* The record of an explicit task of the current task: @fn and a copy of
 * its block (copy-constructed by @cpyfn when given, then patched by
 * @patch when given), reported to the tool as created with @type. */
static struct xo_task *xo_task_new(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
				   long arg_size, long arg_align, int type, bool deps,
				   void (*patch)(void *, const void *), const void *patch_arg)
{
	size_t align = arg_align > 1 ? (size_t)arg_align : 1;
	size_t head = (sizeof(struct xo_task) + align - 1) & ~(align - 1);
	struct xo_task *parent = xo_cur(), *t;

	if (align > 16) {
		if (posix_memalign((void **)&t, align, head + (size_t)arg_size))
			t = NULL;
	} else {
		t = malloc(head + (size_t)arg_size);
	}
	if (!t) {
		xg_warn("out of memory for a task of %ld bytes", arg_size);
		abort();
	}
	memset(t, 0, sizeof(*t));
	t->fn = fn;
	t->arg = (char *)t + head;
	t->parent = parent;
	t->region = parent->region;
	t->tid = parent->tid;
	if (cpyfn)
		cpyfn(t->arg, data);
	else if (arg_size > 0)
		memcpy(t->arg, data, (size_t)arg_size);
	if (patch)
		patch(t->arg, patch_arg);
	if (xg_task_self()->final)
		type |= ompt_task_final;
	t->flags = type;
	XO_CALL(task_create, &parent->data, &parent->frame, &t->data, type, deps, NULL);
	return t;
}

void xg_ompt_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
		  long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
		  void *detach)
{
	bool deps = (flags & XG_TASK_DEPEND) && depend;
	int type = ompt_task_explicit;
	struct xo_task *t;

	if (flags & XG_TASK_DETACH) {
		/* Not reported (see the top): created as without a tool. */
		xg_ompt_creating = true;
		GOMP_task(fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority,
			  detach);
		xg_ompt_creating = false;
		return;
	}
	if (!if_clause)
		type |= ompt_task_undeferred;
	if (flags & XG_TASK_FINAL)
		type |= ompt_task_final;
	if (flags & XG_TASK_UNTIED)
		type |= ompt_task_untied;
	if (flags & XG_TASK_MERGEABLE)
		type |= ompt_task_mergeable;
	t = xo_task_new(fn, data, cpyfn, arg_size, arg_align, type, deps, NULL, NULL);
	if (deps)
		xo_dependences(t, depend);
	/* The runtime's own paths create it, with @t as its block. */
	xg_ompt_creating = true;
	GOMP_task(xo_task_main, &t, NULL, sizeof(t), _Alignof(struct xo_task *), if_clause, flags,
		  depend, priority, detach);
	xg_ompt_creating = false;
}

void xg_ompt_taskloop_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
			   long size, long align, bool if_clause, bool final,
			   void (*patch)(void *, const void *), const void *patch_arg)
{
	int type = ompt_task_explicit;
	struct xo_task *t;

	if (!if_clause)
		type |= ompt_task_undeferred;
	if (final)
		type |= ompt_task_final;
	t = xo_task_new(fn, data, cpyfn, size, align, type, false, patch, patch_arg);
	xg_ompt_creating = true;
	xg_task_create(xo_task_main, &t, NULL, sizeof(t), _Alignof(struct xo_task *), if_clause,
		       final, NULL, NULL);
	xg_ompt_creating = false;
}

/* A taskloop is a worksharing-like region of its own, its tasks inside
 * an implicit taskgroup unless nogroup; its end comes after the join. */
void xg_ompt_taskloop_begin(uint64_t n, bool group)
{
	xo_work(ompt_work_taskloop, ompt_scope_begin, n);
	if (group)
		xo_sync(ompt_sync_region_taskgroup, ompt_scope_begin, false);
}

void xg_ompt_taskloop_end(bool group)
{
	struct xo_task *t = xo_cur();

	if (group) {
		/* The wait, xg_task_join(), is over: begin and end together. */
		XO_CALL(sync_region_wait, ompt_sync_region_taskgroup, ompt_scope_begin,
			&t->region->data, &t->data, NULL);
		xo_sync(ompt_sync_region_taskgroup, ompt_scope_end, true);
	}
	xo_work(ompt_work_taskloop, ompt_scope_end, 0);
}

bool xg_ompt_taskwait(void)
{
	if (xo_self.in_taskwait)
		return false;
	xo_self.state = ompt_state_wait_taskwait;
	xo_sync(ompt_sync_region_taskwait, ompt_scope_begin, true);
	xo_self.in_taskwait = true;
	GOMP_taskwait();
	xo_self.in_taskwait = false;
	xo_sync(ompt_sync_region_taskwait, ompt_scope_end, true);
	xo_self.state = ompt_state_work_parallel;
	return true;
}

void xg_ompt_taskgroup_begin(void)
{
	xo_sync(ompt_sync_region_taskgroup, ompt_scope_begin, false);
}

/* The taskgroup began at GOMP_taskgroup_start (tasks created after that
 * are its members); its end is the wait. */
bool xg_ompt_taskgroup_end(void)
{
	struct xo_task *t;

	if (xo_self.in_taskgroup_end)
		return false;
	t = xo_cur();
	xo_self.state = ompt_state_wait_taskgroup;
	XO_CALL(sync_region_wait, ompt_sync_region_taskgroup, ompt_scope_begin, &t->region->data,
		&t->data, NULL);
	xo_self.in_taskgroup_end = true;
	GOMP_taskgroup_end();
	xo_self.in_taskgroup_end = false;
	XO_CALL(sync_region_wait, ompt_sync_region_taskgroup, ompt_scope_end, &t->region->data,
		&t->data, NULL);
	XO_CALL(sync_region, ompt_sync_region_taskgroup, ompt_scope_end, &t->region->data,
		&t->data, NULL);
	xo_self.state = ompt_state_work_parallel;
	return true;
}

/* ---------------------------------------------------------------- */
/* Locks, critical, atomic */

static ompt_mutex_t xo_mutex_kind(enum xg_ompt_mutex kind)
{
	switch (kind) {
	case XG_OMPT_LOCK: return ompt_mutex_lock;
	case XG_OMPT_NEST_LOCK: return ompt_mutex_nest_lock;
	case XG_OMPT_TEST_LOCK: return ompt_mutex_test_lock;
	case XG_OMPT_TEST_NEST_LOCK: return ompt_mutex_test_nest_lock;
	case XG_OMPT_CRITICAL: return ompt_mutex_critical;
	default: return ompt_mutex_atomic;
	}
}

static inline ompt_wait_id_t xo_wait_id(const void *lock)
{
	return (ompt_wait_id_t)(uintptr_t)lock;
}

void xg_ompt_lock_init(const void *lock, enum xg_ompt_mutex kind)
{
	xo_cur(); /* a thread's first event may be this one */
	XO_CALL(lock_init, xo_mutex_kind(kind), 0 /* omp_sync_hint_none */, XO_MUTEX_IMPL,
		xo_wait_id(lock), NULL);
}

void xg_ompt_lock_destroy(const void *lock, enum xg_ompt_mutex kind)
{
	xo_cur(); /* a thread's first event may be this one */
	XO_CALL(lock_destroy, xo_mutex_kind(kind), xo_wait_id(lock), NULL);
}

void xg_ompt_acquire(const void *lock, enum xg_ompt_mutex kind)
{
	xo_cur();
	xo_self.state = kind == XG_OMPT_CRITICAL ? ompt_state_wait_critical
			: kind == XG_OMPT_ATOMIC ? ompt_state_wait_atomic
			: ompt_state_wait_lock;
	xo_self.wait_id = xo_wait_id(lock);
	XO_CALL(mutex_acquire, xo_mutex_kind(kind), 0 /* omp_sync_hint_none */, XO_MUTEX_IMPL,
		xo_wait_id(lock), NULL);
}

void xg_ompt_acquired(const void *lock, enum xg_ompt_mutex kind)
{
	xo_self.state = xo_cur()->region->nthreads > 1 ? ompt_state_work_parallel
						       : ompt_state_work_serial;
	xo_self.wait_id = 0;
	XO_CALL(mutex_acquired, xo_mutex_kind(kind), xo_wait_id(lock), NULL);
}

void xg_ompt_released(const void *lock, enum xg_ompt_mutex kind)
{
	XO_CALL(mutex_released, xo_mutex_kind(kind), xo_wait_id(lock), NULL);
}

void xg_ompt_nest_acquired(const void *lock, uint32_t depth)
{
	if (depth == 1)
		xg_ompt_acquired(lock, XG_OMPT_NEST_LOCK);
	else
		XO_CALL(nest_lock, ompt_scope_begin, xo_wait_id(lock), NULL);
}

void xg_ompt_nest_released(const void *lock, uint32_t depth)
{
	if (depth == 0)
		xg_ompt_released(lock, XG_OMPT_NEST_LOCK);
	else
		XO_CALL(nest_lock, ompt_scope_end, xo_wait_id(lock), NULL);
}

int xg_ompt_tested(int r, const void *lock, enum xg_ompt_mutex kind)
{
	xg_ompt_acquire(lock, kind);
	if (kind == XG_OMPT_TEST_NEST_LOCK && r > 1)
		XO_CALL(nest_lock, ompt_scope_begin, xo_wait_id(lock), NULL);
	else if (r)
		xg_ompt_acquired(lock, kind);
	else
		xo_self.state = ompt_state_work_parallel;
	return r;
}

/* ---------------------------------------------------------------- */
/* Start-up and shutdown */

static FILE *xo_log;

__attribute__((format(printf, 1, 2))) static void xo_verbose(const char *fmt, ...)
{
	va_list ap;

	if (!xo_log)
		return;
	va_start(ap, fmt);
	vfprintf(xo_log, fmt, ap);
	va_end(ap);
	fflush(xo_log);
}

/* OMP_TOOL_VERBOSE_INIT: disabled (or unset), stdout, stderr (either
 * case), or a file to write the log to. */
static void xo_verbose_open(void)
{
	const char *v = getenv("OMP_TOOL_VERBOSE_INIT");

	if (!v || !*v || !strcasecmp(v, "disabled"))
		return;
	if (!strcasecmp(v, "stdout"))
		xo_log = stdout;
	else if (!strcasecmp(v, "stderr"))
		xo_log = stderr;
	else if (!(xo_log = fopen(v, "w")))
		xg_warn("OMP_TOOL_VERBOSE_INIT=%s: cannot open it for writing (%s); "
			"the tool's start-up is not logged", v, strerror(errno));
}

static void xo_verbose_close(void)
{
	if (xo_log && xo_log != stdout && xo_log != stderr)
		fclose(xo_log);
	xo_log = NULL;
}

#define XO_OMP_VERSION 201811 /* OpenMP 5.0, whose OMPT interface this is */
#define XO_RUNTIME_VERSION "libxsched-gomp (xsched OpenMP runtime, libgomp ABI)"

typedef ompt_start_tool_result_t *(*xo_start_fn)(unsigned int, const char *);

static ompt_start_tool_result_t *xo_try(xo_start_fn start)
{
	return start ? start(XO_OMP_VERSION, XO_RUNTIME_VERSION) : NULL;
}

/* OMP_TOOL_LIBRARIES: the first library whose ompt_start_tool returns a
 * tool. */
static ompt_start_tool_result_t *xo_from_libraries(void)
{
	const char *v = getenv("OMP_TOOL_LIBRARIES");
	ompt_start_tool_result_t *res = NULL;
	char *list, *save = NULL;

	if (!v || !*v) {
		xo_verbose("No OMP_TOOL_LIBRARIES defined.\n");
		return NULL;
	}
	xo_verbose("Searching tool libraries specified in OMP_TOOL_LIBRARIES...\n");
	list = strdup(v);
	if (!list)
		return NULL;
	for (char *lib = strtok_r(list, ":", &save); lib && !res;
	     lib = strtok_r(NULL, ":", &save)) {
		void *h;
		xo_start_fn start;

		xo_verbose("Opening %s... ", lib);
		h = dlopen(lib, RTLD_LAZY);
		if (!h) {
			xo_verbose("Failed: %s\n", dlerror());
			continue;
		}
		xo_verbose("Success.\n");
		xo_verbose("Searching for ompt_start_tool in %s... ", lib);
		start = (xo_start_fn)dlsym(h, "ompt_start_tool");
		if (!start) {
			xo_verbose("Failed: %s\n", dlerror());
			dlclose(h);
			continue;
		}
		xo_verbose("Success.\n");
		res = xo_try(start);
		if (res)
			xo_verbose("Tool was started and is using the OMPT interface.\n");
		else
			xo_verbose("Found but not using the OMPT interface.\n");
	}
	free(list);
	return res;
}

void xo_finalize(void)
{
	ompt_start_tool_result_t *tool = xo_tool;
	struct xo_task *t;

	if (!tool || !xg_ompt_active())
		return;
	/* The runtimes' threads end first, each reporting its end. */
	xg_pool_pause();
	t = xo_self.cur;
	if (t && (t->flags & ompt_task_initial)) {
		XO_CALL(implicit_task, ompt_scope_end, &t->region->data, &t->data, 1, 1,
			ompt_task_initial);
		xo_self.cur = NULL;
		free(t->region);
		free(t);
	}
	xo_thread_end();
	/* Relaxed: see ompt.h; no hook calls in after this. */
	xs_store_relaxed(&xg_ompt_on, false);
	xo_tool = NULL;
	tool->finalize(&tool->tool_data);
}

static void xo_atexit(void)
{
	xo_finalize();
}

void xg_ompt_init(void)
{
	const char *v = getenv("OMP_TOOL");
	ompt_start_tool_result_t *res;

	if (v && strcmp(v, "enabled") && strcmp(v, "disabled")) {
		xg_warn("OMP_TOOL=%s: expected enabled or disabled; no tool is started", v);
		return;
	}
	xo_verbose_open();
	xo_verbose("----- START LOGGING OF TOOL REGISTRATION -----\n");
	if (v && !strcmp(v, "disabled")) {
		xo_verbose("OMP_TOOL is disabled: no tool is started.\n");
		goto out;
	}
	xo_verbose("Search for OMP tool in current address space... ");
	res = xo_try((xo_start_fn)dlsym(RTLD_DEFAULT, "ompt_start_tool"));
	xo_verbose(res ? "Success.\n" : "Failed.\n");
	if (!res)
		res = xo_from_libraries();
	if (!res) {
		xo_verbose("No OMP tool loaded.\n");
		goto out;
	}
	if (pthread_key_create(&xo_thread_key, xo_thread_exit)) {
		xo_verbose("Cannot make a thread key: the tool is not started.\n");
		goto out;
	}
	xo_tool = res;
	if (!res->initialize(xo_lookup, 0, &res->tool_data)) {
		xo_verbose("The tool's initializer returned 0: it is not active.\n");
		xo_tool = NULL;
		goto out;
	}
	/* Relaxed: see ompt.h (no thread of the runtime exists yet). */
	xs_store_relaxed(&xg_ompt_on, true);
	xo_initial();
	atexit(xo_atexit);
	xo_verbose("Tool initialized: OMPT events are reported.\n");
out:
	xo_verbose("----- END LOGGING OF TOOL REGISTRATION -----\n");
	xo_verbose_close();
}
