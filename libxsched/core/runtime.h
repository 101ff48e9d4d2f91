/* SPDX-License-Identifier: MIT */
/*
 * runtime.h - the runtime and its workers (internal).
 */
#ifndef XSCHED_RUNTIME_H
#define XSCHED_RUNTIME_H

#include <pthread.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "xsched.h"
#include "affinity/affinity.h"
#include "base/atomics.h"
#include "core/barrier.h"
#include "queue/deque.h"
#include "core/dlb.h"
#include "base/options.h"
#include "queue/park.h"
#include "core/rescue.h"
#include "core/spread.h"
#include "obs/profile.h"
#include "queue/spsc.h"
#include "queue/xqueue.h"
#include "obs/stats.h"
#include "obs/stats_page.h"
#include "queue/task.h"
#include "queue/task_pool.h"

enum xs_job_kind { XS_JOB_RUN, XS_JOB_PARALLEL, XS_JOB_EXIT };

struct xs_daemon_client;
struct xs_loop_slot;
struct xs_stats_page;

/*
 * The worker loop's own state (worker.c, runtime.c, loop.c): read and
 * written by the worker's thread only - worker 0's by the thread that
 * holds the runtime's claim (xs_runtime_claim()) - and by nobody else,
 * ever. On lines of its own, which no other thread reads or writes.
 */
struct xs_worker_private {
	/* Implicit task of a parallel region (worker.c). */
	xs_cache_aligned struct xs_task *implicit;
	uint32_t rr;                    /* next out[] index for round-robin spawn */
	uint32_t aux_next;              /* next auxiliary queue to scan */
	uint32_t nest;                  /* queued tasks running nested on this stack */
	uint32_t saturated_at;          /* nest level that raised park.saturated, or 0 */
	uintptr_t stack_mark;           /* xs_thread_stack_mark() of the running thread */
	uint64_t job_seen;              /* last job sequence number run (runtime.c) */
	uint32_t loop_seen;             /* last loop number looked at (loop.c) */
	bool in_job;                    /* between job start and barrier release */
	/* xs_worker_yield(): parks left whose waits do not yield, since a
	 * recent yield lost a whole slice. */
	uint32_t yield_costly;
	uint32_t steal_next;            /* deque.c: where frame steals start */
	/* How this job queues a descriptor child (worker.c: with or without
	 * profile events, chosen at the job's start). */
	int (*queue)(struct xs_worker *w, xs_task_fn fn, const void *arg, size_t size);
};

/*
 * A worker, laid out by who touches what, as Lace splits Worker/WorkerP
 * and oneTBB arena_slot_shared_state/private_state (the asserts below
 * hold it so):
 *
 *  1. dq: the deque's owner line, then splitreq, which thieves set
 *     (task_inline.h). First: xs_self is also the deque's pointer.
 *  2. Wiring, written before the worker's thread starts and only read
 *     afterwards, by anyone: one line that nobody writes.
 *  3. The owner's lines: read and written by its thread only.
 *  4. Counters: written by the owner only, read (relaxed) by the
 *     statistics, the stats page and the profile, and fctr.publishes by
 *     a thief's rescue watch (deque_rescue.c).
 *  5. The shared lines, each a struct of its module's header that starts
 *     a line and fills whole lines, so that no owner-private field sits
 *     on a line another thread writes: the pool's remote stack (pushed by
 *     workers that free our descriptors), the parker (notifiers, wakers),
 *     the barrier node (read by the parent), the DLB cells (requests from
 *     thieves), the deque's ts word (thieves' CAS), the spreading CPU
 *     (read by teammates).
 */
struct xs_worker {
	/* 1. The running task's context is dq.ctx (NULL when idle). */
	struct xs_deque dq;

	/* 2. Wiring: set by runtime.c before the worker's thread starts. */
	struct xs_runtime *rt;
	uint32_t id;
	uint32_t nworkers;
	uint32_t cpu_index;             /* placement: index into rt->topo->cpus */
	uint32_t node;                  /* NUMA node index of that CPU (read by
					 * victims and thieves: dlb.c, deque.c) */
	/* out[k]: my queue inside worker (id + k) % N; out[0] is my master
	 * queue. in[k]: the queue worker (id + k) % N pushes into me. */
	struct xs_spsc **out;
	struct xs_worker **out_worker;  /* consumer of out[k] */
	struct xs_spsc **in;
	struct xs_profile_log *log;     /* NULL unless XSCHED_PROFILE; written
					 * by the owner, read after it stopped */

	/* 3. The owner's. */
	struct xs_worker_private own;
	struct xs_dlb_state dlb;        /* dlb.h */
	struct xs_barrier_state bar;    /* barrier.h */
	struct xs_rescue_watch rescue;  /* deque_rescue.c, as a thief */

	/* 4. Owner-written counters, summed by readers. */
	xs_cache_aligned struct xs_barrier_counts bcnt; /* barrier.h: not statistics */
	struct xs_frame_counters fctr;
	struct xs_counters ctr;
	struct xs_idle_clock idle;      /* stats_page.h */

	/* 5. The lines other threads write or read while the owner runs. */
	struct xs_task_pool pool;       /* local and slabs owner's, remote
					 * other workers' (task_pool.h) */
	struct xs_parker park;          /* park.h */
	struct xs_barrier_node bnode;   /* barrier.h */
	struct xs_dlb_cells cells;      /* dlb.h */
	struct xs_deque_shared dqs;     /* deque.h */
	struct xs_spread_state spread;  /* spread.h */
};

/* Whether member @m of struct xs_worker starts a line and fills whole
 * lines: no other member shares them. */
#define XS_WORKER_LINES(m)                                                       \
	(offsetof(struct xs_worker, m) % XS_CACHE_LINE == 0 &&                   \
	 sizeof(((struct xs_worker *)0)->m) % XS_CACHE_LINE == 0)

_Static_assert(offsetof(struct xs_worker, dq) == 0, "xs_self points at the deque");
_Static_assert(offsetof(struct xs_worker, rt) == sizeof(struct xs_deque) &&
		       offsetof(struct xs_worker, log) + sizeof(void *) <=
			       sizeof(struct xs_deque) + XS_CACHE_LINE,
	       "the wiring is the one line after the deque's");
_Static_assert(XS_WORKER_LINES(own), "the owner's state starts a line of its own");
_Static_assert(offsetof(struct xs_worker, bcnt) % XS_CACHE_LINE == 0,
	       "the counters start a line: statistics readers stay off the owner's");
_Static_assert(offsetof(struct xs_task_pool, remote) % XS_CACHE_LINE == 0 &&
		       offsetof(struct xs_worker, pool) % XS_CACHE_LINE == 0,
	       "the pool's remote stack starts a line");
_Static_assert(XS_WORKER_LINES(park) && XS_WORKER_LINES(bnode) && XS_WORKER_LINES(cells) &&
		       XS_WORKER_LINES(dqs) && XS_WORKER_LINES(spread),
	       "each shared part has lines of its own");

/* The most workers a runtime may have (xs_runtime_create()). */
#define XS_RUNTIME_WORKERS_MAX 1024u

struct xs_runtime {
	struct xs_options opt;
	uint32_t nworkers;
	uint32_t queue_size;
	uint64_t spin_ns;
	/* XSCHED_AWAIT_OFFCPU_US in ns; 0: waiters never park early. */
	uint64_t await_offcpu_ns;
	struct xs_worker **workers;
	struct xs_topology *topo;
	struct xs_victim_table *victim_table;
	/* Read by thieves with acquire; replaced (by a daemon-fed table) with
	 * a release store. Views are immutable; a replaced one is freed two
	 * job boundaries later (daemon_client.h), the rest at destroy. */
	_Atomic(struct xs_victim_view *) victims;
	struct xs_daemon_client *daemon; /* NULL under XSCHED_DAEMON=off */
	struct xs_stats_page *stats_page; /* NULL under XSCHED_STATS_PAGE=0 */
	bool pinned;                    /* worker threads are pinned to their CPU */
	/* More workers than CPUs in the creator's affinity mask: waiters
	 * park without spinning (worker.c), parkers are symmetric (park.h),
	 * workers do not spread (spread.c). */
	bool oversubscribed;
	struct xs_dlb_config dlb;       /* as configured; workers hold copies */
	uint64_t dlb_gen;               /* bumped by xs_runtime_set_dlb() */
	/* Continuations made ready by any thread: a Treiber stack that
	 * workers empty with one exchange (continuation.c). */
	xs_cache_aligned _Atomic(struct xs_task *) inject;
	/* Idle workers asleep, and whether a spawner is already waking one
	 * (worker.c, xs_wake_a_thief()): with XSCHED_PUSH=local no push
	 * reaches a sleeping thief, so spawners with surplus wake one. */
	xs_cache_aligned _Atomic uint32_t nparked;
	_Atomic uint32_t waking;
	void **queue_rows;              /* rows[c]: the N queues into worker c (xqueue.h) */
	pthread_t *threads;             /* threads[i] runs worker i (i >= 1) */
	_Atomic uint32_t rows_ready;    /* start-up: workers whose row is ready */
	_Atomic uint32_t go;            /* start-up verdict, see runtime.c */
	/* The barrier's decision for the current wave, (wave << 1) |
	 * release-bit, written by worker 0 alone and read by every other
	 * worker (barrier.c, "Shape"). On a line of its own: every waiter
	 * polls it. */
	xs_cache_aligned _Atomic uint64_t barrier_down;
	/* The job being run. Fields are written before job_seq is released
	 * and read after it is acquired; see xs_runtime_post(). */
	xs_cache_aligned _Atomic uint64_t job_seq;
	enum xs_job_kind job_kind;
	xs_task_fn job_fn;
	void *job_arg;
	/* The thread running a job or a loop on this runtime (as worker 0),
	 * by the address of its claim token, NULL when none: another that
	 * calls gets -EBUSY (xs_runtime_claim()). claim_depth: the claims
	 * it holds beyond the first (a loop that records its affinity runs
	 * a job), written by that thread only. Off job_seq's line, which
	 * idle workers poll: a claim per loop would pull it away from them. */
	xs_cache_aligned _Atomic(const void *) claimed;
	uint32_t claim_depth;
	/* The coarse clock (clock.h) at the last loop on a runtime of one
	 * worker that started the daemon client's job (loop.c): written and
	 * read by the claim's holder only, on the line its claim writes. */
	uint64_t loop_advised;
	/* Elastic loops (loop.c, xs_loop_help()): a loop that workers join
	 * if they can and nobody waits for. loop_state is one word, so that
	 * joining, leaving and closing are single read-modify-writes on one
	 * line: the loop's number (XS_LOOP_SEQ), whether loop_job takes
	 * helpers (XS_LOOP_OPEN), whether its chunks are all in loop_slots
	 * (XS_LOOP_CLAIMS) and the helpers inside it (XS_LOOP_INSIDE). */
	xs_cache_aligned _Atomic uint64_t loop_state;
	void *loop_job;
	struct xs_loop_slot *loop_slots; /* nworkers claim words, lazily */
	/* Settled answers of affinity loops (affinity_choice.c): read and
	 * written only by the thread running a loop on this runtime; off
	 * loop_state's line, which every helper writes. */
	xs_cache_aligned struct xs_aff_memo aff_memo[XS_AFF_MEMO_SLOTS];
	uint32_t aff_memo_next;
};

/* xs_self (declared in xsched/task_inline.h, exported for the inline
 * fast path) is the calling thread's worker. */

/* The queue @w produces into for worker @to (its out[] entry). */
static inline struct xs_spsc *xs_worker_queue_to(struct xs_worker *w, uint32_t to)
{
	return w->out[xs_xqueue_place(w->id, to, w->nworkers)];
}

/* Whether @w may be given more work (see xs_nest_enter() in worker.c). */
static inline bool xs_worker_saturated(struct xs_worker *w)
{
	/* Relaxed: a hint; a task given just before the flag rose is run all
	 * the same, so the flag only has to stop the flow eventually. */
	return xs_load_relaxed(&w->park.saturated);
}

static inline bool xs_dlb_thief_local(const struct xs_worker *w, uint32_t thief)
{
	return w->rt->workers[thief]->node == w->node;
}

/*
 * Victim side of the protocol, at every scheduling point: one load of our
 * own request cell. Not while a redirect (NA-RP) is still being served.
 */
static inline void xs_dlb_poll(struct xs_worker *w)
{
	uint64_t req;

	if (w->dlb.p.strategy == XS_DLB_SLB || w->dlb.redirect_left)
		return;
	/* Relaxed: a request carries only the thief's id; the tasks we hand
	 * over are published by the queue's release stores. */
	req = xs_load_relaxed(&w->cells.request);
	if (xs_unlikely(xs_dlb_request_round(req) == w->dlb.round))
		xs_dlb_serve(w, req);
}

/* dlb.c */
int xs_dlb_config_check(const struct xs_dlb_config *cfg);

/* Whether some continuation waits on the inject stack (continuation.c). */
static inline bool xs_inject_pending(const struct xs_runtime *rt)
{
	/* Relaxed: a hint; xs_inject_take() acquires what it takes. */
	return xs_load_relaxed(&((struct xs_runtime *)rt)->inject) != NULL;
}

/* worker.c */
bool xs_inject_take(struct xs_worker *w);
uintptr_t xs_thread_stack_mark(void);
struct xs_task *xs_worker_pop(struct xs_worker *w);
void xs_task_run_queued(struct xs_worker *w, struct xs_task *t);
void xs_task_run_frame(struct xs_worker *w, struct xs_task *frame, void *arg);
void xs_task_run_stolen(struct xs_worker *w, xs_task_fn fn, void *arg, struct xs_worker *victim);
void xs_deque_woken(struct xs_worker *w);
void xs_worker_wait_until(struct xs_worker *w, bool (*done)(void *), void *arg);
/* No worker in particular (xs_worker_wait_on()). */
#define XS_AWAIT_NOBODY UINT32_MAX
void xs_worker_wait_on(struct xs_worker *w, bool (*done)(void *), void *arg, uint32_t awaited);
bool xs_worker_linger(struct xs_worker *w, bool (*done)(void *), void *arg);
void xs_worker_drain(struct xs_worker *w);
void xs_worker_pause(struct xs_worker *w, uint64_t ns);
void xs_worker_spawn_begin(struct xs_worker *w);
void xs_worker_implicit_begin(struct xs_worker *w, struct xs_task *frame);
void xs_worker_implicit_end(struct xs_worker *w, struct xs_task *frame);

/* runtime.c: a worker thread's life. */
void *xs_worker_main(void *arg);

/* job.c */
void xs_worker_run_job(struct xs_worker *w, enum xs_job_kind kind, xs_task_fn fn, void *arg);
void xs_worker_job_begin(struct xs_worker *w);
void xs_worker_job_end(struct xs_worker *w, uint64_t t0);

/* rt->loop_state: the loop's number in the high half, then the open bit,
 * the claims bit, the blocks bit, the blocks taken (XS_LOOP_TAKEN(b) for
 * helper b's static block, b = 1 .. XS_LOOP_BLOCKS_MAX) and the count of
 * helpers inside (loop.c). */
#define XS_LOOP_OPEN (1ull << 31)
#define XS_LOOP_CLAIMS (1ull << 30)
#define XS_LOOP_BLOCKS (1ull << 29)
#define XS_LOOP_BLOCKS_MAX 16u
#define XS_LOOP_TAKEN(b) (1ull << (12 + (b)))
#define XS_LOOP_TAKEN_ALL(helpers) (((1ull << (helpers)) - 1) << 13)
#define XS_LOOP_INSIDE(s) ((uint32_t)((s) & ((1ull << 13) - 1)))
#define XS_LOOP_SEQ(s) ((uint32_t)((s) >> 32))

/* loop.c: join the elastic loop just posted, if it is still open. */
void xs_loop_help(struct xs_worker *w);

/* runtime.c: CPUs in the calling thread's affinity mask (at least 1). */
uint32_t xs_affinity_cpus(void);

/* runtime.c: make the calling thread the one that runs jobs and loops on
 * @rt until xs_runtime_unclaim(); -EBUSY while another thread does. The
 * thread that holds the claim may claim again (and unclaims as often). */
int xs_runtime_claim(struct xs_runtime *rt);
void xs_runtime_unclaim(struct xs_runtime *rt);

/* runtime.c: a parallel job split around the caller's worker-0 part. */
struct xs_job_frame {
	struct xs_task frame;
	uint64_t t0;
};
int xs_runtime_parallel_begin(struct xs_runtime *rt, xs_task_fn fn, void *arg,
			      struct xs_job_frame *job);
void xs_runtime_parallel_end(struct xs_runtime *rt, struct xs_job_frame *job);

/* worker.c, for layers built on the runtime (libxsched/gomp): */
struct xs_task *xs_task_current(void);
void xs_task_count_child(struct xs_task *parent);
void xs_task_push_counted(struct xs_task *parent, xs_task_fn fn, const void *arg, size_t size);
void xs_task_run_undeferred(xs_task_fn fn, void *arg);
int xs_task_try_spawn(xs_task_fn fn, const void *arg, size_t size);
void xs_task_run_own_children(void);

/* Tasks waiting in the calling worker's master queue. It is both the
 * queue's producer and its consumer, so the count is exact and private. */
static inline uint32_t xs_worker_queued_self(const struct xs_worker *w)
{
	return w->in[0]->head - w->in[0]->tail;
}

#endif /* XSCHED_RUNTIME_H */
