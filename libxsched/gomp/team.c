// SPDX-License-Identifier: MIT
/*
 * team.c - parallel regions: teams on xsched runtimes.
 *
 * A region of P > 1 threads (or any region met outside every region) runs
 * as one xs_runtime_parallel() job of a P-worker runtime taken from a pool.
 * The pool keeps every runtime it created, threads parked when idle, and
 * marks the one in use busy, so that concurrent regions (user threads, or
 * nested active regions) each get a runtime of their own. A nested active
 * region runs its runtime from inside a worker of the outer one: the
 * encountering thread steps out of its outer worker (xs_self) for the
 * duration, becoming worker 0 of the inner runtime. Its outer queues wait
 * meanwhile, which delays but cannot deadlock the outer team: nothing of
 * the inner region waits for the outer one.
 *
 * A region with one thread met inside another runs serialized on the
 * encountering thread, its tasks being children of the current xsched task.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "depend.h"
#include "gomp.h"
#include "ompt.h"

struct xg_pool_entry {
	struct xs_runtime *rt;
	struct xg_team *team;
	uint32_t nthreads;
	_Atomic bool busy;
	struct xg_pool_entry *next;
};

/* Entries are only ever added (at the head, with release), never removed
 * before exit; the mutex only serialises creation. */
static _Atomic(struct xg_pool_entry *) xg_pool;
static pthread_mutex_t xg_pool_lock = PTHREAD_MUTEX_INITIALIZER;

__thread struct xg_task *xg_cur __attribute__((tls_model("initial-exec")));

/* The initial task and team of a thread that is not in any region. */
static __thread struct xg_task *xg_initial __attribute__((tls_model("initial-exec")));

static void *xg_alloc_team(void)
{
	void *team = xs_alloc_cache_aligned(sizeof(struct xg_team));

	if (!team) {
		xg_warn("out of memory for a team");
		abort();
	}
	memset(team, 0, sizeof(struct xg_team));
	return team;
}

struct xg_team *xg_team_new_initial(void)
{
	struct xg_team *team = xg_alloc_team();

	team->nthreads = 1;
	/* Relaxed: the calling thread's own team of one, not shared. */
	for (uint32_t i = 0; i < XG_WS_RING; i++) {
		xs_store_relaxed(&team->ws[i].gen, i);
		team->ws[i].team = team;
	}
	return team;
}

void xg_team_free(struct xg_team *team)
{
	/* Its constructors' team memory, as xg_region_end() frees it. */
	for (uint32_t i = 0; i < XG_WS_RING; i++) {
		free(team->ws[i].mem);
		free(team->ws[i].hslots);
	}
	free(team->place_slots);
	free(team);
}

struct xg_task *xg_task_self_slow(void)
{
	struct xg_task *t;

	xg_env_init();
	t = xg_initial;
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t) {
			xg_warn("out of memory for the initial task");
			abort();
		}
		t->team = xg_team_new_initial();
		t->implicit = t;
		t->icv = &xg_env.icv;
		xg_initial = t;
		XG_OMPT(initial_thread());
	}
	xg_cur = t;
	return t;
}

struct xg_icv *xg_icv_writable(void)
{
	struct xg_task *t = xg_task_self();

	if (t->icv != &t->own_icv) {
		t->own_icv = *t->icv;
		t->icv = &t->own_icv;
	}
	return &t->own_icv;
}

uint32_t xg_thread_num(void)
{
	return xg_task_self()->tid;
}

uint32_t xg_team_size(void)
{
	return xg_task_self()->team->nthreads;
}

/* Set once creating a runtime failed (the reason was printed then): later
 * regions run with one thread without trying again. */
static _Atomic bool xg_pool_failed;

/*
 * A runtime of @n workers, created from outside any worker and with the
 * process's affinity mask (a bound thread would make it see one place's
 * CPUs). NULL (errno set, the reason printed) when it cannot be made;
 * under XSCHED_DAEMON=required that ends the program, as the runtime
 * refused to run without xschedd: running every region on one thread
 * would hide it (xs_runtime_create() fails a native program the same
 * way).
 */
static struct xs_runtime *xg_runtime_create(uint32_t n)
{
	void *saved = xs_self;
	struct xs_options opt;
	struct xs_runtime *rt;
	cpu_set_t mask;
	bool widened;

	xs_self = NULL;
	widened = xg_places_widen(&mask);
	rt = xs_runtime_create(n);
	xg_places_narrow(widened, &mask);
	xs_self = saved;
	if (!rt && xs_options_load(&opt) == 0 && opt.daemon == XS_DAEMON_REQUIRED) {
		xg_warn("XSCHED_DAEMON=required and the runtime of a parallel region of %u "
			"threads cannot run without xschedd (%s, above); exiting", n,
			strerror(errno));
		exit(EXIT_FAILURE);
	}
	return rt;
}

/* A runtime for entry @e (ours, busy) whose runtime omp_pause_resource()
 * destroyed; false (and @e released) if none can be made. */
static bool xg_pool_revive(struct xg_pool_entry *e)
{
	e->rt = xg_runtime_create(e->nthreads);
	if (e->rt)
		return true;
	xg_warn("cannot create an xsched runtime of %u workers (%s); "
		"parallel regions run with one thread", e->nthreads, strerror(errno));
	/* Release: as xg_pool_put(). */
	xs_store_release(&e->busy, false);
	return false;
}

/*
 * omp_pause_resource on the host: destroy the runtimes no region uses, so
 * that their threads end (and their threadprivate data with them); the
 * next region that needs one creates it again. Returns 0.
 */
int xg_pool_pause(void)
{
	struct xg_pool_entry *e = xs_load_acquire(&xg_pool);

	for (; e; e = e->next) {
		bool idle = false;

		/* Acquire, as in xg_pool_take(): the last region is done. */
		if (!xs_cas_strong_acquire_relaxed(&e->busy, &idle, true))
			continue;
		if (e->rt && !(xs_self && xs_self->rt == e->rt)) {
			xs_runtime_destroy(e->rt);
			e->rt = NULL;
		}
		/* Release: as xg_pool_put(). */
		xs_store_release(&e->busy, false);
	}
	return 0;
}

/* A runtime of @n workers not in use, marked busy; NULL if none can be
 * made (the region then runs with fewer threads). */
static struct xg_pool_entry *xg_pool_take(uint32_t n)
{
	struct xg_pool_entry *e;

	/* Acquire pairs with the release that published each entry. */
	for (e = xs_load_acquire(&xg_pool); e; e = e->next) {
		bool idle = false;

		/* Acquire: the previous user's writes to the team are done. */
		if (e->nthreads == n && !xs_load_relaxed(&e->busy) &&
		    xs_cas_strong_acquire_relaxed(&e->busy, &idle, true)) {
			if (!e->rt && !xg_pool_revive(e))
				return NULL;
			return e;
		}
	}
	/* Relaxed: a hint to stop retrying; a race only retries once more. */
	if (xs_load_relaxed(&xg_pool_failed))
		return NULL;
	pthread_mutex_lock(&xg_pool_lock);
	e = calloc(1, sizeof(*e));
	if (e) {
		e->rt = xg_runtime_create(n);
		if (!e->rt) {
			xg_warn("cannot create an xsched runtime of %u workers (%s); "
				"parallel regions run with one thread",
				n, strerror(errno));
			/* Relaxed: a hint (see xg_pool_take()'s load). */
		xs_store_relaxed(&xg_pool_failed, true);
			free(e);
			e = NULL;
		}
	}
	if (e) {
		e->team = xg_alloc_team();
		e->team->ws_dirty = XG_WS_RING;
		e->nthreads = n;
		/* Relaxed: e is ours until published; creation is serialised
		 * by the mutex, so the head cannot move under us. The release
		 * publishes e's fields to xg_pool_take()'s acquire. */
		xs_store_relaxed(&e->busy, true);
		e->next = xs_load_relaxed(&xg_pool);
		xs_store_release(&xg_pool, e);
	}
	pthread_mutex_unlock(&xg_pool_lock);
	return e;
}

/*
 * At exit (or unload): destroy the runtimes nobody is using, which prints
 * their statistics (XSCHED_SHOW_STATS) and writes their profiles
 * (XSCHED_PROFILE). One still running a region (exit() called inside it)
 * is left alone.
 */
__attribute__((destructor)) static void xg_pool_destroy(void)
{
	struct xg_pool_entry *e = xs_load_acquire(&xg_pool);

	for (; e; e = e->next) {
		bool idle = false;

		/* Acquire, as in xg_pool_take(): the last region is done. */
		if (xs_cas_strong_acquire_relaxed(&e->busy, &idle, true) &&
		    e->rt) {
			xs_runtime_destroy(e->rt);
			e->rt = NULL;
		}
	}
}

static void xg_pool_put(struct xg_pool_entry *e)
{
	/* Release: our use of the team happens-before the next user's. */
	xs_store_release(&e->busy, false);
}

/* Fill in implicit task context @it of thread @tid of @team. */
static void xg_implicit_init(struct xg_task *it, struct xg_team *team, uint32_t tid)
{
	memset(it, 0, sizeof(*it));
	it->team = team;
	it->implicit = it;
	it->tid = tid;
	xs_loop_cursor_init(&it->cur, tid);
	it->parent = team->encountering;
	it->icv = &team->icv;
	it->reductions = team->reductions;
	if (team->ws_preset) /* construct 0 was set up before the team started */
		it->ws_count = 1, it->ws = &team->ws[0], it->ws_gen = 0;
}

/*
 * OMP_DISPLAY_AFFINITY=true: each thread of a team shows its affinity
 * (affinity_fmt.c's format) when a region starts, the first time and
 * then when what it shows may have changed (OpenMP 5.2, 21.2.4): as
 * libgomp, at every nested region, else when the thread's team size,
 * number, level, league or place differ from what it last showed.
 */
static void xg_implicit_display(const struct xg_task *it)
{
	static __thread uint32_t shown[6] __attribute__((tls_model("initial-exec")));
	const struct xg_team *team = it->team;
	uint32_t now[6] = { 1 + team->nthreads, it->tid, team->level, xg_league.team_num,
			    xg_league.num_teams, (uint32_t)xg_places_current() };

	if (xs_likely(!xg_env.display_affinity))
		return;
	if (team->active_level <= 1 && !memcmp(shown, now, sizeof(now)))
		return;
	memcpy(shown, now, sizeof(now));
	omp_display_affinity(NULL);
}

/* The implicit task of threads 1..P-1 of @team (xsched workers). */
static void xg_implicit_main(void *arg)
{
	struct xg_team *team = arg;
	struct xg_task *saved = xg_cur;
	struct xg_league league = xg_league;
	struct xg_place_save place;
	struct xg_task it;

	xg_implicit_init(&it, team, (uint32_t)xs_worker_id());
	/* A worker keeps its place and partition after its implicit task:
	 * it may still run the team's tasks until the region's end. */
	if (team->place_on)
		xg_places_enter(team, it.tid, &place);
	xg_cur = &it;
	xg_league = team->league;
	XG_OMPT(implicit_begin(team, it.tid));
	xg_implicit_display(&it);
	team->fn(team->data);
	XG_OMPT(implicit_barrier());
	/* Join our tasks while `it` still exists (task.c). */
	xs_task_wait();
	XG_OMPT(implicit_end());
	xg_depend_free(&it);
	xg_league = league;
	xg_cur = saved;
}

/* Ready the ring for a new region: the slots the last one used. Relaxed
 * stores: no other thread looks at the team until the region's job is
 * posted (a release in xs_runtime_post(), acquired by every worker). */
static void xg_team_reset(struct xg_team *team)
{
	/* Relaxed: published with the job, as the ring below. */
	xs_store_relaxed(&team->singles, 0);
	for (uint32_t i = 0; i < team->ws_dirty; i++) {
		struct xg_ws *ws = &team->ws[i];

		xs_store_relaxed(&ws->gen, i);
		xs_store_relaxed(&ws->ready, 0);
		xs_store_relaxed(&ws->arrived, 0);
		xs_store_relaxed(&ws->left, 0);
		ws->doacross = NULL; /* a serialized team's ring is on a stack */
		ws->mem = NULL;
		ws->hslots = NULL;
		ws->team = team;
	}
}

/*
 * OMP_THREAD_LIMIT bounds the threads of the contention group: the initial
 * thread plus every thread of every active region, nested ones included.
 * xg_threads_extra counts the threads regions took beyond their
 * encountering threads. A region takes what it may with one CAS and gives
 * it back at its end. Relaxed: the count orders nothing else, and each
 * CAS reads the latest value (RMW atomicity), so the sum never passes the
 * limit. Target regions and teams run here on the host one after another,
 * so one count serves every contention group.
 */
static _Atomic uint32_t xg_threads_extra;

static uint32_t xg_threads_take(uint32_t want, uint32_t limit)
{
	uint32_t used = xs_load_relaxed(&xg_threads_extra), n;

	do {
		uint32_t room = used + 1 >= limit ? 0 : limit - 1 - used;

		n = want < room ? want : room;
	} while (n && !xs_cas_weak_relaxed(&xg_threads_extra, &used, used + n));
	return n;
}

static void xg_threads_give(uint32_t n)
{
	if (n)
		xs_fetch_sub_relaxed(&xg_threads_extra, n);
}

/*
 * More threads asked for than a runtime can have (num_threads(10000),
 * OMP_NUM_THREADS): the largest team allowed - OpenMP leaves the team
 * size to the implementation when it cannot give what was asked - rather
 * than a failed runtime and one thread (libgomp starts them all); said
 * once per process.
 */
static uint32_t xg_team_threads_max(uint32_t asked)
{
	static _Atomic bool said;
	uint32_t max = xs_runtime_workers_max();

	/* Relaxed: only which region prints the line is decided here. */
	if (!xs_exchange_relaxed(&said, true))
		xg_warn("a team of %u threads asked for; teams have at most %u here, "
			"regions that ask for more get %u", asked, max, max);
	return max;
}

/* The number of threads for a region requested with @req (0: the ICV);
 * *@extra: what it took from OMP_THREAD_LIMIT's count. */
static uint32_t xg_team_threads(const struct xg_task *cur, unsigned req, uint32_t *extra)
{
	const struct xg_icv *icv = cur->icv;
	uint32_t n = req ? req : icv->nthreads;

	*extra = 0;
	if (cur->team->active_level >= icv->max_active_levels || n <= 1)
		return 1;
	if (n > xs_runtime_workers_max())
		n = xg_team_threads_max(n);
	/* dyn-var: the implementation may give fewer threads than asked
	 * (OpenMP 5.2, Algorithm 2.1), never more: this process's share of
	 * the CPUs (xschedd's arbitration, or libgomp's load-average rule
	 * without it). With dyn-var false nothing changes. */
	if (icv->dynamic) {
		struct xs_cpu_share how;
		uint32_t share = xs_daemon_share(&how);
		double load[3];

		/* Without xschedd, libgomp's rule counts the process's CPUs,
		 * not those of the place a bound thread is on. */
		if (how.source == XS_SHARE_LOADAVG && xg_env.bind_threads)
			share = xs_share_loadavg_rule(xg_env.nprocs, getloadavg(load, 3) == 3
								     ? load[2] : 0.0);

		if (share < n)
			n = share;
		if (n <= 1)
			return 1;
	}
	if (icv->thread_limit == UINT32_MAX)
		return n;
	*extra = xg_threads_take(n - 1, icv->thread_limit);
	return *extra + 1;
}

/*
 * Start a region: the team, then the other threads, then the encountering
 * thread's own implicit task (r->it), which runs the caller's code until
 * xg_region_end(). @r must stay put in between (GOMP_parallel keeps it on
 * its stack, GOMP_parallel_start in the heap).
 */
static void xg_region_begin(struct xg_region *r, void (*fn)(void *), void *data, unsigned req,
			    unsigned flags, xg_ws_init_fn init, const void *init_arg,
			    uintptr_t *reductions)
{
	struct xg_task *cur = xg_task_self();
	uint32_t extra, n = xg_team_threads(cur, req, &extra);
	uint32_t bind = cur->icv->bind;
	struct xg_team *team;

	/* A proc_bind clause (gcc passes it in flags' low bits) overrides
	 * bind-var for this team and, as in libgomp, becomes the implicit
	 * tasks' bind-var unless OMP_PROC_BIND's list has a next element. */
	if (bind != XG_BIND_FALSE && (flags & 7) != XG_BIND_FALSE)
		bind = flags & 7;

	r->entry = NULL;
	r->encountering = cur;
	r->outer = xs_self;
	if (n > 1 || !r->outer)
		r->entry = xg_pool_take(n);
	if (!r->entry && n > 1) {
		n = 1;
		if (!r->outer)
			r->entry = xg_pool_take(1);
	}
	/* A region that got fewer threads than it counted gives the rest
	 * back at once (nothing is counted without a limit). */
	r->extra = extra < n - 1 ? extra : n - 1;
	xg_threads_give(extra - r->extra);
	/* One thread inside a worker: serialized, on this thread. */
	team = r->entry ? r->entry->team : &r->serial_team;
	if (!r->entry)
		team->ws_dirty = XG_WS_RING; /* fresh stack memory */
	team->rt = r->entry ? r->entry->rt : NULL;
	team->nthreads = n;
	team->parent = cur->team;
	team->parent_tid = cur->tid;
	team->level = cur->team->level + 1;
	team->active_level = cur->team->active_level + (n > 1);
	team->encountering = cur;
	team->icv = *cur->icv;
	team->icv.bind = bind;
	xg_env_nthreads_level(&team->icv);
	/* Bound threads: where each goes (thread 0 stays on its place). */
	team->place_on = xs_unlikely(xg_env.bind_threads) && n > 1;
	if (team->place_on)
		xg_places_team(team, bind);
	team->fn = fn;
	team->data = data;
	team->ws_preset = init != NULL;
	team->reductions = reductions;
	team->league = xg_league;
	if (reductions)
		xg_reduction_register(reductions, NULL, NULL, n);
	xg_team_reset(team);
	if (init) {
		init(&team->ws[0], init_arg);
		/* Relaxed: published with the job, as in xg_team_reset(). */
		xs_store_relaxed(&team->ws[0].arrived, 1);
		xs_store_relaxed(&team->ws[0].ready, 1);
	}
	r->team = team;
	XG_OMPT(parallel_begin(team, req, flags));
	if (team->rt) {
		/* Step out of the outer worker (nested active region). */
		xs_self = NULL;
		xs_runtime_parallel_begin(team->rt, xg_implicit_main, team, &r->job);
	}
	xg_implicit_init(&r->it, team, 0);
	if (team->place_on)
		xg_places_enter(team, 0, &r->place_save);
	xg_cur = &r->it;
	XG_OMPT(implicit_begin(team, 0));
	xg_implicit_display(&r->it);
}

static void xg_region_end(struct xg_region *r)
{
	XG_OMPT(implicit_barrier());
	/* The encountering thread's tasks: joined while r->it exists. */
	xs_task_wait();
	xg_depend_free(&r->it);
	if (r->team->rt)
		xs_runtime_parallel_end(r->team->rt, &r->job);
	XG_OMPT(parallel_end(r->team));
	/* Every thread has left every construct (each met it.ws_count of
	 * them): free their team memory; those slots need a reset. */
	r->team->ws_dirty = r->it.ws_count < XG_WS_RING ? (uint32_t)r->it.ws_count : XG_WS_RING;
	for (uint32_t i = 0; i < r->team->ws_dirty; i++) {
		free(r->team->ws[i].mem);
		r->team->ws[i].mem = NULL;
		free(r->team->ws[i].hslots);
		r->team->ws[i].hslots = NULL;
	}
	if (r->team->place_on)
		xg_places_leave(&r->place_save);
	if (r->team->rt) {
		xs_self = r->outer;
		xg_pool_put(r->entry);
	}
	xg_threads_give(r->extra);
	xg_cur = r->encountering;
}

void xg_parallel_ws(void (*fn)(void *), void *data, unsigned req, unsigned flags,
		    xg_ws_init_fn init, const void *init_arg)
{
	struct xg_region r;

	xg_region_begin(&r, fn, data, req, flags, init, init_arg, NULL);
	fn(data);
	xg_region_end(&r);
}

/* The task modifier of reduction on parallel: the region's implicit tasks
 * share one registration, made before they start. */
unsigned xg_parallel_reductions(void (*fn)(void *), void *data, unsigned req, unsigned flags,
				uintptr_t *reductions)
{
	struct xg_region r;
	unsigned n;

	xg_region_begin(&r, fn, data, req, flags, NULL, NULL, reductions);
	n = r.team->nthreads;
	fn(data);
	xg_region_end(&r);
	return n;
}

void xg_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags)
{
	xg_parallel_ws(fn, data, nthreads, flags, NULL, NULL);
}

/*
 * The GOMP_1.0 form (gcc before 4.9): GOMP_parallel_start() starts the
 * team, the caller runs the body itself, GOMP_parallel_end() ends it. The
 * region lives in the heap, found again through the implicit task.
 */
void xg_parallel_start(void (*fn)(void *), void *data, unsigned req, xg_ws_init_fn init,
		       const void *init_arg)
{
	struct xg_region *r = xs_alloc_cache_aligned(sizeof(*r));

	if (!r) {
		xg_warn("out of memory for a parallel region");
		abort();
	}
	xg_region_begin(r, fn, data, req, 0, init, init_arg, NULL);
	r->it.region = r;
}

void xg_parallel_end(void)
{
	struct xg_region *r = xg_task_self()->region;

	if (!r)
		xg_unsupported("GOMP_parallel_end without GOMP_parallel_start (non-conforming)");
	xg_region_end(r);
	free(r);
}
