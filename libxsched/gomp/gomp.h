/* SPDX-License-Identifier: MIT */
/*
 * gomp.h - the libgomp drop-in (internal): OpenMP on the xsched runtime.
 *
 * Mapping. A parallel region of P threads is one xs_runtime_parallel() job
 * of a P-worker runtime (team.c keeps one runtime per team size, created on
 * first use, its threads parked in between); OpenMP thread i is worker i,
 * the encountering thread being worker 0. An OpenMP task is an xsched task
 * (task.c), a team barrier is xs_barrier_wait(), whose termination
 * detection also waits for every task of the team, as OpenMP requires.
 * A region of more than one thread met inside another region is a nested
 * active region: it runs on a runtime of its own, the encountering thread
 * stepping out of its outer worker (team.c; omp_get_supported_active_levels()
 * is 255). A nested region that gets one thread runs serialized on the
 * encountering thread.
 *
 * Task contexts. Every OpenMP task being executed (implicit or explicit)
 * has a struct xg_task on the stack of the thread running it; xg_cur (TLS)
 * points at the innermost one. A child task refers to its parent's context
 * for inherited state: xsched joins a task's children before it returns
 * (task.c), so a parent's context outlives its children.
 *
 * Every diagnostic is one line on stderr starting with "libxsched-gomp: ".
 */
#ifndef XSCHED_GOMP_H
#define XSCHED_GOMP_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xsched.h"
#include "ext.h"

#define XG_EXPORT __attribute__((visibility("default")))

/* omp_sched_t and the GFS_* values gcc passes to GOMP_loop_start(). */
enum xg_sched {
	XG_SCHED_RUNTIME = 0,
	XG_SCHED_STATIC = 1,
	XG_SCHED_DYNAMIC = 2,
	XG_SCHED_GUIDED = 3,
	XG_SCHED_AUTO = 4,
	/* xsched's extension (XSCHED_LOOP_SCHEDULE=hybrid): what
	 * omp_get_schedule() reports for it, an implementation-defined kind. */
	XG_SCHED_HYBRID = 5,
	/* XSCHED_LOOP_SCHEDULE=affinity: hybrid over an affinity schedule. */
	XG_SCHED_AFFINITY = 6,
};
#define XG_SCHED_MONOTONIC 0x80000000u

/* The flags of GOMP_task, GOMP_taskloop and GOMP_target_ext (gcc's
 * gomp-constants.h, GOMP_TASK_FLAG_*). */
#define XG_TASK_UNTIED     (1u << 0)
#define XG_TASK_FINAL      (1u << 1)
#define XG_TASK_MERGEABLE  (1u << 2)
#define XG_TASK_DEPEND     (1u << 3)
#define XG_TASK_PRIORITY   (1u << 4)
#define XG_TASK_UP         (1u << 8)
#define XG_TASK_GRAINSIZE  (1u << 9)
#define XG_TASK_IF         (1u << 10)
#define XG_TASK_NOGROUP    (1u << 11)
#define XG_TASK_REDUCTION  (1u << 12)
#define XG_TASK_DETACH     (1u << 13)
#define XG_TASK_STRICT     (1u << 14)

/* OMP_TARGET_OFFLOAD */
enum xg_offload { XG_OFFLOAD_DEFAULT, XG_OFFLOAD_MANDATORY, XG_OFFLOAD_DISABLED };
/* omp_invalid_device (OpenMP 5.2; gcc 13's value) */
#define XG_DEVICE_INVALID -4

/* omp_proc_bind_t */
enum xg_bind { XG_BIND_FALSE, XG_BIND_TRUE, XG_BIND_PRIMARY, XG_BIND_CLOSE, XG_BIND_SPREAD };

/* The internal control variables of a data environment (OpenMP 5.1 2.4). */
struct xg_icv {
	uint32_t nthreads;          /* nthreads-var (first level) */
	uint32_t run_sched;         /* run-sched-var: enum xg_sched | MONOTONIC */
	int32_t run_chunk;          /* its chunk size; <= 0: default */
	uint32_t max_active_levels; /* max-active-levels-var */
	uint32_t thread_limit;      /* thread-limit-var */
	uint32_t bind;              /* bind-var: enum xg_bind */
	uintptr_t def_alloc;        /* def-allocator-var; 0: OMP_ALLOCATOR's */
	int32_t default_device;     /* default-device-var (XG_DEVICE_INVALID:
				     * none, OMP_TARGET_OFFLOAD=mandatory) */
	bool dynamic;               /* dyn-var */
	/* nthreads-var is OMP_NUM_THREADS's list from this element on (when
	 * >= 0; -1: a single value, set by omp_set_num_threads). */
	int8_t nthreads_at;
	/* bind-var is OMP_PROC_BIND's list from this element on (>= 0), or
	 * a single value (-1). */
	int8_t bind_at;
};

/* Process-wide settings from the environment (env.c). */
struct xg_global {
	struct xg_icv icv;          /* the initial data environment */
	uint32_t nprocs;            /* omp_get_num_procs() */
	uint32_t num_places;        /* places of OMP_PLACES */
	/* The drop-in binds the threads to their places (there are). */
	bool bind_threads;
	uint32_t place_kind;        /* 0 threads, 1 cores, 2 sockets */
	int32_t max_task_priority;  /* OMP_MAX_TASK_PRIORITY */
	bool wait_passive;          /* OMP_WAIT_POLICY=passive */
	bool wait_active;           /* OMP_WAIT_POLICY=active */
	uint32_t num_teams;         /* OMP_NUM_TEAMS (0: unset) */
	uint32_t teams_thread_limit;/* OMP_TEAMS_THREAD_LIMIT (0: unset) */
	bool display_affinity;      /* OMP_DISPLAY_AFFINITY */
	uint32_t target_offload;    /* OMP_TARGET_OFFLOAD: enum xg_offload */
	/* XSCHED_LOOP_*: the hybrid schedule's ns, nd, grain (kind and chunk
	 * went into icv.run_sched/run_chunk when XSCHED_LOOP_SCHEDULE is set). */
	struct xs_loop_sched loop;
};
extern struct xg_global xg_env;

/* places.c: parse OMP_PLACES' value @v; the number of places, or -1 when
 * it is malformed or names no usable CPU (@why says what is wrong);
 * *kind: 0 threads .. 4 numa_domains, 5 a list. xg_places_clear(): no
 * places (bind-var false). */
int xg_places_init(const char *v, uint32_t *kind, char *why, size_t why_len);
void xg_places_clear(void);
void xg_places_print(FILE *f); /* "{0:2},{2}", as libgomp shows them */

/* Where a thread of a team is bound: its place and place partition. */
struct xg_place_slot {
	uint32_t place, part_off, part_len;
};
/* A thread's partition before it entered a region (xg_places_enter). */
struct xg_place_save {
	uint32_t part_off, part_len;
};
struct xg_team;
/* Bind the calling (initial) thread to place 0, at load. */
void xg_places_bind_initial(void);
/* The encountering thread: where each thread of @team goes under @bind
 * (team->place_slots). Only when xg_env.bind_threads. */
void xg_places_team(struct xg_team *team, uint32_t bind);
/* Thread @tid of @team binds itself to its place and takes its partition
 * until xg_places_leave(). */
void xg_places_enter(const struct xg_team *team, uint32_t tid, struct xg_place_save *save);
void xg_places_leave(const struct xg_place_save *save);
/* The calling thread's place; -1: not bound. */
int32_t xg_places_current(void);
/* Around creating a runtime from a bound thread: the process's mask, so
 * that the runtime sees every CPU (xs_affinity_cpus()); narrow keeps
 * errno. */
bool xg_places_widen(cpu_set_t *saved);
void xg_places_narrow(bool widened, const cpu_set_t *saved);

/* display_env.c, affinity_fmt.c, allocator.c: what omp_display_env shows. */
void xg_display_env(bool verbose);
void omp_display_affinity(const char *format);
const char *xg_affinity_format(void);
const char *xg_allocator_name(uintptr_t allocator);
uintptr_t xg_allocator_default(void);
/* env.c: OMP_NUM_THREADS' list and OMP_PROC_BIND's; each returns its
 * length (0: not set; OMP_PROC_BIND: not a list). */
uint32_t xg_env_nthreads_list(const uint32_t **list);
uint32_t xg_env_bind_list(const uint32_t **list);

/* Load the OMP_* environment into xg_env once (thread-safe). */
void xg_env_init(void);
/* Parse the OMP_* environment into xg_env now; xg_env_init() does it once.
 * Called directly by tests/fuzz/omp-env.c. */
void xg_env_load(void);

/* The ICVs of a region's implicit tasks: nthreads-var drops its first
 * element (OMP_NUM_THREADS=4,2: regions nested in a team of 4 get 2). */
void xg_env_nthreads_level(struct xg_icv *icv);

/* ------------------------------------------------------------------ */
/* Worksharing constructs (ws.c). */

/* A loop construct: its iterations [0, n) are dispensed by the ws slot's
 * struct xs_loop_disp (libxsched/loops/loop.h), shared with xs_parallel_for(). */
struct xg_loop {
	uint64_t n;                 /* iterations */
	/* Iteration start value and step as raw 64-bit patterns: iteration
	 * i is start + i * step, modulo 2^64 (long and unsigned long long
	 * loops, up or down, share this). */
	uint64_t start, step;
	uint64_t end;               /* the loop's end value, for the last chunk */
	bool ordered;
};

/* Slots of the ring of worksharing constructs a team can have open at once
 * (threads may run ahead through nowait constructs). */
#define XG_WS_RING 16

/*
 * One worksharing construct of a team. Construct k of a region (every thread
 * meets the same sequence) uses slot k % XG_WS_RING once `gen` == k. The
 * first thread to arrive (arrived 0 -> 1) fills in the payload and releases
 * `ready` = k + 1; the others acquire it. The last to leave (left reaching
 * nthreads) resets the counts and releases gen = k + XG_WS_RING.
 */
struct xg_ws {
	xs_cache_aligned _Atomic uint64_t gen;
	_Atomic uint64_t ready;
	_Atomic uint32_t arrived;
	_Atomic uint32_t left;
	/* Dispensed by atomic RMW, on a line of its own. */
	xs_cache_aligned _Atomic uint64_t next;  /* next iteration/section */
	_Atomic uint64_t ordered_pos;            /* next iteration allowed in `ordered` */
	xs_cache_aligned struct xg_loop loop;
	struct xs_loop_disp disp;                /* the loop's chunk dispenser */
	struct xs_loop_slot *hslots;             /* hybrid: nthreads claim words */
	struct xg_team *team;                    /* the team whose ring holds it */
	uint64_t sections;                       /* count of a sections construct */
	void *mem;                               /* GOMP_loop_start's team memory */
	_Atomic(void *) copy;                    /* single copyprivate data */
	_Atomic uint64_t copy_ready;             /* k + 1 once `copy` is set */
	struct xg_doacross *doacross;
	uintptr_t *task_red;                     /* task reductions: the first thread's */
};

/* The teams league a thread is in (teams.c). */
struct xg_league {
	uint32_t num_teams;         /* omp_get_num_teams() - 1 */
	uint32_t team_num;          /* omp_get_team_num() */
};

/* ------------------------------------------------------------------ */
/* Teams (team.c). */

struct xg_team {
	struct xs_runtime *rt;      /* NULL for a serialized team */
	uint32_t nthreads;
	uint32_t level;             /* nesting level of the region, >= 1 */
	uint32_t active_level;      /* active regions enclosing and including it */
	struct xg_team *parent;     /* the enclosing team, NULL at level 1 */
	uint32_t parent_tid;        /* thread number in it of the encountering thread */
	struct xg_task *encountering; /* the task that started the region */
	struct xg_icv icv;          /* the implicit tasks' data environment */
	void (*fn)(void *);
	void *data;
	bool ws_preset;             /* construct 0 set up by a combined construct */
	uintptr_t *reductions;      /* GOMP_parallel_reductions' registration */
	struct xg_league league;    /* the encountering thread's teams league */
	uint32_t ws_dirty;          /* ring slots used since the last reset */
	/* Bound threads (places.c): each thread's place and partition, for
	 * the inputs in place_key (place_key[0] 0: none computed). Written
	 * by the encountering thread before the region's job is posted. */
	struct xg_place_slot *place_slots;
	bool place_on;              /* this region's threads are bound */
	uint32_t place_cap;
	uint32_t place_key[5];
	void *ompt;                 /* ompt.c's record of the current region */
	/* Plain singles taken so far (xg_single()): single k is run by the
	 * thread whose CAS takes it from k to k + 1. On a line of its own:
	 * every thread's CAS of every single lands here. */
	xs_cache_aligned _Atomic uint64_t singles;
	struct xg_ws ws[XG_WS_RING];
};

/* ------------------------------------------------------------------ */
/* Task contexts (task.c). */

struct xg_deps;

struct xg_task {
	struct xg_team *team;       /* the team the task binds to; NULL: initial */
	struct xg_task *parent;     /* generating task's context; NULL: initial */
	struct xg_task *implicit;   /* implicit task of the thread (worksharing) */
	const struct xg_icv *icv;   /* this data environment's ICVs */
	struct xg_icv own_icv;      /* storage once the task changes an ICV */
	struct xg_deps *deps;       /* dependences among its children, lazily */
	uint32_t tid;               /* implicit tasks: omp_get_thread_num() */
	bool final;                 /* final task: descendants are included */
	/* Every task it creates runs at once, included (task.c): a final
	 * task, an included task, or a task run past the depth bound. Its
	 * taskwait has nothing to wait for. */
	bool nodefer;
	/* It created a detached task: its later children are descriptors,
	 * which a thread waiting for the event runs (task.c). */
	bool queue_children;
	/* Thieves took its children: it queues past XG_QUEUED_MAX (task.c). */
	bool thieves;
	/* Implicit tasks: worksharing progress of this thread. */
	uint64_t singles;           /* plain singles met so far in the region */
	uint64_t ws_count;          /* constructs met so far in the region */
	struct xg_ws *ws;           /* the construct being worked on */
	uint64_t ws_gen;            /* its number */
	struct xs_loop_cursor cur;  /* this thread's progress in the loop */
	uint64_t chunk_lo, chunk_hi;/* the chunk being run (ordered) */
	bool ordered_done;          /* its ordered turn was passed on */
	struct xg_region *region;   /* GOMP_parallel_start's region, or NULL */
	uintptr_t *reductions;      /* innermost task reduction registration */
};

/* A region being run by its encountering thread (team.c). */
struct xg_region {
	struct xg_team serial_team; /* the team when it is serialized */
	struct xg_team *team;
	struct xg_pool_entry *entry;/* the runtime it runs on, or NULL */
	struct xg_task *encountering;
	struct xs_worker *outer;    /* the worker the thread stepped out of */
	uint32_t extra;             /* threads taken from OMP_THREAD_LIMIT's count */
	struct xg_place_save place_save; /* the thread's partition before */
	struct xg_task it;          /* the encountering thread's implicit task */
	struct xs_job_frame job;
};

extern __thread struct xg_task *xg_cur __attribute__((tls_model("initial-exec")));

/* The context of the calling thread's current task; outside any region,
 * the initial task of the thread (created on first use). */
struct xg_task *xg_task_self_slow(void);

static inline struct xg_task *xg_task_self(void)
{
	struct xg_task *t = xg_cur;

	return xs_likely(t) ? t : xg_task_self_slow();
}

/* Thread number and team size as seen by the current task. */
uint32_t xg_thread_num(void);
uint32_t xg_team_size(void);

/* A writable copy of the current task's ICVs (omp_set_*). */
struct xg_icv *xg_icv_writable(void);

/* Team barrier of the current task's team (a serialized team waits for
 * the tasks it created). */
void xg_barrier(void);

/* Worksharing construct entry/exit for the current implicit task. Returns
 * the slot; *first is true for the thread that must fill it in, which then
 * calls xg_ws_ready(). */
struct xg_ws *xg_ws_enter(bool *first);
void xg_ws_ready(struct xg_ws *ws);
void xg_ws_leave(void);
/* A plain single (no copyprivate): true for the one thread that runs it. */
bool xg_single(void);

/* Prepare the first construct of a combined parallel-loop or
 * parallel-sections region before the team starts (team.c). */
typedef void (*xg_ws_init_fn)(struct xg_ws *ws, const void *arg);
void xg_parallel_ws(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags,
		    xg_ws_init_fn init, const void *init_arg);
void xg_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags);
void xg_parallel_start(void (*fn)(void *), void *data, unsigned nthreads, xg_ws_init_fn init,
		       const void *init_arg);
void xg_parallel_end(void);

/* Loops (loop.c): set up @ws for a loop of @n iterations; take the next
 * chunk [*lo, *hi) of the current implicit task; false when none is left. */
void xg_loop_init(struct xg_ws *ws, uint64_t n, uint64_t start, uint64_t step, uint64_t end,
		  uint32_t sched, int64_t chunk, bool ordered);
const struct xg_loop *xg_loop_next(uint64_t *lo, uint64_t *hi);
void xg_loop_end(bool wait);

/* The value of iteration @i of @l (its end value past the last one). */
static inline uint64_t xg_loop_value(const struct xg_loop *l, uint64_t i)
{
	return i == l->n ? l->end : l->start + i * l->step;
}

/* Iterations from @start to @end (exclusive) by @stride, stepping up or
 * down; all three as 64-bit patterns (@stride positive, the magnitude of
 * the step); @is_signed: the bounds are `long`s, else unsigned. */
static inline uint64_t xg_trip_count(uint64_t start, uint64_t end, uint64_t stride, bool up,
				     bool is_signed)
{
	return xs_loop_trip_count(start, end, stride, up, is_signed);
}

/* What a loop construct is: its iterations and schedule, and for a doacross
 * loop the iteration counts of its @ncounts nested loops. */
struct xg_loop_spec {
	uint64_t n, start, step, end;
	uint32_t sched;
	int64_t chunk;
	bool ordered;
	unsigned ncounts;
	const uint64_t *counts;
};

/* Enter a loop construct (the first thread sets it up) with GOMP_loop_start
 * style @reductions (unsupported: @who names the entry point) and team
 * memory @mem (NULL: none). */
struct xg_ws *xg_loop_enter(const struct xg_loop_spec *spec, uintptr_t *reductions, void **mem,
			    const char *who);

/* GOMP_loop_start()'s team memory: allocated by the first thread. */
void xg_ws_mem(struct xg_ws *ws, bool first, void **mem);

/* The effective schedule of @sched (GFS_* with monotonic bit) and @chunk:
 * XG_SCHED_STATIC, DYNAMIC, GUIDED or HYBRID. */
uint32_t xg_sched_resolve(uint32_t sched, int64_t *chunk);

/* ordered.c: pass the ordered turn after the current chunk; doacross. */
void xg_ordered_pass(struct xg_task *it);
void xg_doacross_init(struct xg_ws *ws, unsigned ncounts, const uint64_t *counts);
void xg_doacross_free(struct xg_ws *ws);

/* omp_pause_resource (team.c): destroy the runtimes not in use. */
int xg_pool_pause(void);

/* Wake @team's parked workers after publishing something they may wait
 * for with xg_wait_until(). */
void xg_team_notify(const struct xg_team *team);

/* Wait until @done(@arg), running tasks meanwhile. */
void xg_wait_until(bool (*done)(void *), void *arg);

/* A fresh team of one for an initial task (a target region run on the
 * host): its ring ready, level 0 (team.c). Freed with xs_free_cache_aligned
 * semantics by xg_team_free(). */
struct xg_team *xg_team_new_initial(void);
void xg_team_free(struct xg_team *team);

/* teams.c: the league of the calling thread's teams region (thread-local;
 * the threads of a parallel region inherit the encountering thread's). */
extern __thread struct xg_league xg_league __attribute__((tls_model("initial-exec")));

/* task.c: the ABI entry point, for constructs that become tasks. */
void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
	       long arg_align, bool if_clause, unsigned flags, void **depend, int priority,
	       void *detach);

void GOMP_taskgroup_reduction_register(uintptr_t *data);

/* task_reduction.c: register gcc's reduction array @data (see there) for
 * @nthreads threads, inside registration @old; @orig: share its copies. */
void xg_reduction_register(uintptr_t *data, uintptr_t *old, const uintptr_t *orig,
			   uint32_t nthreads);
/* A worksharing construct's task reductions, once @ws was entered. */
void xg_ws_task_reduction(struct xg_ws *ws, bool first, uintptr_t *data);
/* team.c: GOMP_parallel_reductions' region; returns its thread count. */
unsigned xg_parallel_reductions(void (*fn)(void *), void *data, unsigned nthreads,
				unsigned flags, uintptr_t *reductions);

/* detach.c: the body of a task with a detach clause, which finds its event
 * first in its argument block; xg_detach_prepare() makes the event,
 * stores it at @detach and in @data, and returns xg_detach_main. */
void (*xg_detach_prepare(void (*fn)(void *), void *data, void *detach))(void *);
void xg_detach_main(void *data);

/* task.c: join the current task's children (a taskwait). */
void xg_task_join(void);

/* task.c: wait for the siblings that @depend names (GOMP_taskwait_depend). */
void xg_depend_wait_self(void **depend);

/* Print "libxsched-gomp: <what> is not supported" and abort. */
__attribute__((noreturn)) void xg_unsupported(const char *what);
__attribute__((format(printf, 1, 2))) void xg_warn(const char *fmt, ...);

#endif /* XSCHED_GOMP_H */
