// SPDX-License-Identifier: MIT
/*
 * runtime.c - creating, running and destroying a runtime.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon_client.h"
#include "core/runtime.h"
#include "queue/xqueue.h"
#include "base/thread_name.h"
#include "topo/topology.h"

uint32_t xs_affinity_cpus(void)
{
	cpu_set_t set;
	int n;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	n = CPU_COUNT(&set);
	return n > 0 ? (uint32_t)n : 1;
}

/* Build worker @w's view of the queue matrix (xqueue.h), place by place. */
static void xs_worker_wire(struct xs_runtime *rt, struct xs_worker *w)
{
	uint32_t n = rt->nworkers;

	for (uint32_t k = 0; k < n; k++) {
		uint32_t other = xs_xqueue_peer(w->id, k, n);

		w->out[k] = xs_xqueue_at(rt->queue_rows, rt->queue_size, other, w->id);
		w->out_worker[k] = rt->workers[other];
		w->in[k] = xs_xqueue_at(rt->queue_rows, rt->queue_size, w->id, other);
	}
}

/* Descriptors a pool is given up front, at most: 4 slabs (112 KiB). */
#define XS_POOL_RESERVE_MAX 1024u

/* Initialise the queues into @w, and @w's task pool, on @w's own thread
 * (first touch). The pool gets the descriptors @w can have outstanding
 * at once, up to XS_POOL_RESERVE_MAX: queued in the N queues it produces
 * into (N x Q), running on each worker, or on their way back; so in
 * runtimes that small a pool never grows once jobs run. */
static void xs_worker_init_row(struct xs_runtime *rt, struct xs_worker *w)
{
	uint64_t outstanding = (uint64_t)rt->nworkers * (rt->queue_size + 2);

	for (uint32_t p = 0; p < rt->nworkers; p++)
		xs_spsc_init(xs_xqueue_at(rt->queue_rows, rt->queue_size, w->id, p), rt->queue_size);
	/* A failure only leaves the pool to grow on demand. */
	xs_task_pool_reserve(&w->pool, outstanding < XS_POOL_RESERVE_MAX
					       ? (uint32_t)outstanding : XS_POOL_RESERVE_MAX);
}

static struct xs_worker *xs_worker_create(struct xs_runtime *rt, uint32_t id)
{
	struct xs_worker *w = xs_alloc_cache_aligned(sizeof(*w));

	if (!w)
		return NULL;
	memset(w, 0, sizeof(*w));
	w->rt = rt;
	w->id = id;
	w->nworkers = rt->nworkers;
	w->own.aux_next = 1;
	/* Before the worker's thread exists, so before any notifier. */
	w->park.symmetric = rt->oversubscribed;
	/* Relaxed: published with the worker (thread creation). */
	xs_store_relaxed(&w->spread.cpu, -1);
	w->out = calloc(rt->nworkers, sizeof(*w->out));
	w->out_worker = calloc(rt->nworkers, sizeof(*w->out_worker));
	w->in = calloc(rt->nworkers, sizeof(*w->in));
	xs_task_pool_init(&w->pool, id);
	if (xs_deque_init(w) < 0) {
		free(w->out);
		free(w->out_worker);
		free(w->in);
		free(w);
		return NULL;
	}
	if (rt->opt.profile[0])
		w->log = xs_profile_log_create((uint64_t)rt->opt.profile_events);
	if (!w->out || !w->out_worker || !w->in || (rt->opt.profile[0] && !w->log)) {
		free(w->out);
		free(w->out_worker);
		free(w->in);
		xs_profile_log_destroy(w->log);
		xs_deque_destroy(w);
		free(w);
		return NULL;
	}
	return w;
}

static void xs_worker_destroy(struct xs_worker *w)
{
	if (!w)
		return;
	xs_task_pool_destroy(&w->pool);
	xs_deque_destroy(w);
	xs_profile_log_destroy(w->log);
	free(w->out);
	free(w->out_worker);
	free(w->in);
	free(w);
}

/* Publish a job: fields first, then the sequence number with release
 * (pairs with the acquire in xs_job_posted()), then wake every worker. */
static void xs_runtime_post(struct xs_runtime *rt, enum xs_job_kind kind, xs_task_fn fn,
			    void *arg)
{
	rt->job_kind = kind;
	rt->job_fn = fn;
	rt->job_arg = arg;
	/* Relaxed load: only this thread writes job_seq. */
	xs_store_release(&rt->job_seq, xs_load_relaxed(&rt->job_seq) + 1);
	for (uint32_t i = 1; i < rt->nworkers; i++)
		xs_park_notify(&rt->workers[i]->park);
}

static bool xs_job_posted(void *arg)
{
	struct xs_worker *w = arg;

	/* Relaxed loop_state: only a hint to look; xs_loop_help() orders
	 * what it reads itself. Acquire pairs with the release in
	 * xs_runtime_post(): the job's fields are visible once its number
	 * is. The loop first: a loop is posted every few microseconds. */
	return XS_LOOP_SEQ(xs_load_relaxed(&w->rt->loop_state)) != w->own.loop_seen ||
	       xs_load_acquire(&w->rt->job_seq) != w->own.job_seen;
}

/*
 * Start-up handshake. Each worker initialises the queues into it (first
 * touch on its own thread), counts itself in rows_ready, and waits for the
 * creator's verdict in `go`: wire up and run, or exit because another
 * thread could not be created. Wiring needs every row, hence the two steps.
 */
enum { XS_GO_WAIT, XS_GO_RUN, XS_GO_ABORT };

static void xs_startup_wait(_Atomic uint32_t *word, uint32_t until)
{
	/* Acquire pairs with the release store or increment that satisfies
	 * the wait: rows written before are initialised when we go on. */
	while (xs_load_acquire(word) < until)
		sched_yield();
}

/* Pin the calling thread to worker @w's CPU (XSCHED_BIND). */
static void xs_worker_pin(struct xs_runtime *rt, struct xs_worker *w)
{
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(rt->topo->cpus[w->cpu_index].cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (err)
		fprintf(stderr, "xsched: XSCHED_BIND=%s: cannot pin worker %u to CPU %u: %s\n",
			xs_option_choice("XSCHED_BIND", rt->opt.bind), w->id,
			rt->topo->cpus[w->cpu_index].cpu, strerror(err));
}

void *xs_worker_main(void *arg)
{
	struct xs_worker *w = arg;
	struct xs_runtime *rt = w->rt;

	xs_self = w;
	xs_thread_name_self(w->id);
	w->own.stack_mark = xs_thread_stack_mark();
	if (rt->pinned)
		xs_worker_pin(rt, w);
	xs_worker_init_row(rt, w);
	xs_daemon_client_thread(rt, w->id);
	xs_stats_page_thread(rt, w->id);
	xs_profile_thread(w->log);
	/* Release publishes the initialised row (and the tid) to the
	 * creator's acquire. */
	xs_fetch_add_release(&rt->rows_ready, 1);
	xs_startup_wait(&rt->go, XS_GO_RUN);
	if (xs_load_relaxed(&rt->go) == XS_GO_ABORT)
		goto out;
	xs_worker_wire(rt, w);
	for (;;) {
		/* Worker 0 posts the next job (worker.c: a switched-out
		 * worker 0 is not spun for). */
		xs_worker_wait_on(w, xs_job_posted, w, 0);
		/* Relaxed: a loop posted since we last looked; whether it is
		 * still open is xs_loop_help()'s question. Loops are not
		 * waited for: one we miss has been run without us. The next
		 * loop is likely microseconds away: look for it alone for a
		 * while before the full wait (xs_worker_linger()). */
		if (XS_LOOP_SEQ(xs_load_relaxed(&rt->loop_state)) != w->own.loop_seen) {
			xs_loop_help(w);
			xs_worker_linger(w, xs_job_posted, w);
		}
		/* Acquire pairs with the release in xs_runtime_post(). No
		 * new job is posted before this one's barrier, so the fields
		 * read below are this job's. */
		if (xs_load_acquire(&rt->job_seq) == w->own.job_seen)
			continue;
		w->own.job_seen = xs_load_relaxed(&rt->job_seq);
		if (rt->job_kind == XS_JOB_EXIT)
			break;
		xs_worker_run_job(w, rt->job_kind, rt->job_fn, rt->job_arg);
	}
out:
	xs_self = NULL;
	return NULL;
}

static int xs_runtime_start_threads(struct xs_runtime *rt)
{
	pthread_attr_t attr;
	uint32_t started = 1;
	int err = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, (size_t)rt->opt.stack_kib << 10);
	for (; started < rt->nworkers; started++) {
		err = pthread_create(&rt->threads[started], &attr, xs_worker_main,
				     rt->workers[started]);
		if (err)
			break;
	}
	pthread_attr_destroy(&attr);
	xs_worker_init_row(rt, rt->workers[0]);
	xs_startup_wait(&rt->rows_ready, started - 1);
	if (err) {
		fprintf(stderr, "xsched: cannot create worker thread %u of %u: %s\n", started,
			rt->nworkers, strerror(err));
		/* Release pairs with the workers' acquire in xs_startup_wait(). */
		xs_store_release(&rt->go, XS_GO_ABORT);
		for (uint32_t i = 1; i < started; i++)
			pthread_join(rt->threads[i], NULL);
		return -err;
	}
	/* Release: every row is initialised (we acquired rows_ready) before
	 * any worker wires itself to the others' rows. */
	xs_store_release(&rt->go, XS_GO_RUN);
	xs_worker_wire(rt, rt->workers[0]);
	return 0;
}

/* Free what xs_runtime_create() built, whatever stage it reached. */
static void xs_runtime_free(struct xs_runtime *rt)
{
	xs_stats_page_destroy(rt); /* before the workers it reads go */
	for (uint32_t i = 0; rt->workers && i < rt->nworkers; i++) {
		xs_worker_destroy(rt->workers[i]);
		if (rt->queue_rows)
			free(rt->queue_rows[i]);
	}
	xs_daemon_client_destroy(rt);
	/* Relaxed: every worker has been joined (or never started). */
	xs_victim_view_free(xs_load_relaxed(&rt->victims));
	xs_victim_table_free(rt->victim_table);
	xs_topology_free(rt->topo);
	free(rt->loop_slots);
	free(rt->workers);
	free(rt->queue_rows);
	free(rt->threads);
	free(rt);
}

/*
 * Learn the machine (XSCHED_SYSFS_ROOT or the real one), place the workers
 * on its CPUs by XSCHED_BIND, and derive the victim table. Pinning happens
 * only on the real machine, and never for worker 0: that is the thread
 * calling xs_runtime_run(), whose affinity belongs to the application.
 */
static int xs_runtime_place(struct xs_runtime *rt, uint32_t *placement)
{
	const char *root = rt->opt.sysfs_root[0] ? rt->opt.sysfs_root : NULL;
	enum xs_bind_policy policy = (enum xs_bind_policy)rt->opt.bind;

	rt->topo = xs_topology_load(root);
	if (!rt->topo)
		return -errno;
	/* Placement also positions unpinned workers in the victim tables. */
	if (xs_topology_place(rt->topo, policy == XS_BIND_NONE ? XS_BIND_COMPACT : policy,
			      rt->nworkers, placement) < 0) {
		errno = EINVAL;
		return -EINVAL;
	}
	rt->victim_table = xs_victim_table_build(rt->topo);
	if (!rt->victim_table)
		return -errno;
	rt->pinned = policy != XS_BIND_NONE && !root;
	return 0;
}

unsigned int xs_runtime_workers_max(void)
{
	return XS_RUNTIME_WORKERS_MAX;
}

struct xs_runtime *xs_runtime_create(unsigned int nworkers)
{
	struct xs_victim_view *view;
	uint32_t *placement = NULL;
	struct xs_runtime *rt;
	int err = ENOMEM;

	rt = xs_alloc_cache_aligned(sizeof(*rt));
	if (!rt)
		goto fail;
	memset(rt, 0, sizeof(*rt));
	if (xs_options_load(&rt->opt) < 0) {
		err = EINVAL;
		goto fail;
	}
	if (nworkers > XS_RUNTIME_WORKERS_MAX) {
		fprintf(stderr, "xsched: xs_runtime_create(%u): expected 0..%u workers\n",
			nworkers, XS_RUNTIME_WORKERS_MAX);
		err = EINVAL;
		goto fail;
	}
	if (!nworkers)
		nworkers = rt->opt.workers ? (uint32_t)rt->opt.workers : xs_affinity_cpus();
	rt->nworkers = nworkers;
	rt->queue_size = rt->opt.queue_size ? (uint32_t)rt->opt.queue_size
					    : xs_xqueue_default_size(nworkers);
	if (xs_xqueue_memory_check(nworkers, rt->queue_size, rt->opt.queue_size != 0)) {
		err = ENOMEM;
		goto fail;
	}
	rt->spin_ns = (uint64_t)rt->opt.spin_us * 1000;
	rt->await_offcpu_ns = (uint64_t)rt->opt.await_offcpu_us * 1000;
	rt->oversubscribed = nworkers > xs_affinity_cpus();
	rt->dlb = (struct xs_dlb_config){
		.strategy = (unsigned int)rt->opt.dlb,
		.push = (unsigned int)rt->opt.push,
		.victims = (unsigned int)rt->opt.dlb_victims,
		.steal = (unsigned int)rt->opt.dlb_steal,
		.timeout = (unsigned int)rt->opt.dlb_timeout,
		.local_percent = (unsigned int)rt->opt.dlb_local,
	};
	if (xs_dlb_config_check(&rt->dlb) < 0) {
		err = EINVAL;
		goto fail;
	}
	xs_park_global_init();
	if (rt->opt.verbose) {
		xs_options_dump(&rt->opt);
		fprintf(stderr, "xsched: %u workers, %u-slot queues (%zu KiB of XQueue)\n",
			nworkers, rt->queue_size,
			(size_t)nworkers * nworkers * xs_spsc_bytes(rt->queue_size) >> 10);
	}

	rt->workers = calloc(nworkers, sizeof(*rt->workers));
	rt->queue_rows = calloc(nworkers, sizeof(*rt->queue_rows));
	rt->threads = calloc(nworkers, sizeof(*rt->threads));
	placement = calloc(nworkers, sizeof(*placement));
	if (!rt->workers || !rt->queue_rows || !rt->threads || !placement)
		goto fail;
	if (xs_runtime_place(rt, placement) < 0) {
		err = errno;
		goto fail;
	}
	for (uint32_t i = 0; i < nworkers; i++) {
		/* Not touched here: each worker initialises its own row. */
		rt->queue_rows[i] =
			xs_alloc_cache_aligned(xs_xqueue_row_bytes(rt->queue_size, nworkers));
		rt->workers[i] = xs_worker_create(rt, i);
		if (!rt->queue_rows[i] || !rt->workers[i])
			goto fail;
		rt->workers[i]->cpu_index = placement[i];
		rt->workers[i]->node = rt->topo->cpus[placement[i]].node;
		xs_dlb_init(rt->workers[i], &rt->dlb);
	}
	view = xs_victim_view_build(rt, rt->victim_table);
	if (!view)
		goto fail;
	/* Release: the view's contents before its pointer; pairs with the
	 * thieves' acquire in xs_dlb_idle(). */
	xs_store_release(&rt->victims, view);
	free(placement);
	placement = NULL;
	err = -xs_daemon_client_create(rt);
	if (err)
		goto fail;
	xs_stats_page_create(rt);
	if (xs_runtime_start_threads(rt) < 0) {
		err = EAGAIN;
		goto fail;
	}
	xs_daemon_client_start(rt);
	xs_stats_page_start(rt);
	return rt;

fail:
	free(placement);
	if (rt)
		xs_runtime_free(rt);
	errno = err;
	return NULL;
}

/* Its address tells the threads apart (xs_runtime_claim()). */
static __thread char xs_claim_token;

int xs_runtime_claim(struct xs_runtime *rt)
{
	const void *me = &xs_claim_token, *held = NULL;

	/* Acquire: pairs with the release in xs_runtime_unclaim(), so this
	 * caller sees what the previous one left in the runtime (worker 0's
	 * state, the job fields) as it left it. */
	if (xs_cas_strong_acquire_relaxed(&rt->claimed, &held, me))
		return 0;
	if (held != me)
		return -EBUSY;
	rt->claim_depth++; /* ours already: only we write it */
	return 0;
}

void xs_runtime_unclaim(struct xs_runtime *rt)
{
	if (rt->claim_depth) {
		rt->claim_depth--;
		return;
	}
	/* Release: publishes this caller's writes to the next claimer's
	 * acquire in xs_runtime_claim(). */
	xs_store_release(&rt->claimed, NULL);
}

/* Post a job and make the calling thread worker 0 of @rt for it; NULL
 * (with *err) when the arguments are bad, the caller is a worker, or
 * another thread is running a job on @rt (-EBUSY). */
static struct xs_worker *xs_runtime_enter(struct xs_runtime *rt, enum xs_job_kind kind,
					  xs_task_fn fn, void *arg, int *err)
{
	struct xs_worker *w0;
	uint64_t now;

	*err = !rt || !fn ? -EINVAL : xs_self ? -EBUSY : xs_runtime_claim(rt);
	if (*err)
		return NULL;
	w0 = rt->workers[0];
	xs_self = w0;
	w0->own.stack_mark = xs_thread_stack_mark(); /* whichever thread calls */
	now = xs_now_ns();
	xs_daemon_client_job_start(rt, now);
	xs_stats_page_job(rt, true, now);
	/* Worker 0 is whichever thread runs the job. */
	xs_profile_thread(w0->log);
	xs_runtime_post(rt, kind, fn, arg);
	w0->own.job_seen = xs_load_relaxed(&rt->job_seq);
	return w0;
}

/* Run one job with the calling thread as worker 0. */
static int xs_runtime_job(struct xs_runtime *rt, enum xs_job_kind kind, xs_task_fn fn,
			  void *arg)
{
	int err;
	struct xs_worker *w0 = xs_runtime_enter(rt, kind, fn, arg, &err);

	if (!w0)
		return err;
	xs_worker_run_job(w0, kind, fn, arg);
	xs_stats_page_job(rt, false, xs_now_ns());
	xs_self = NULL;
	xs_runtime_unclaim(rt);
	return 0;
}

int xs_runtime_run(struct xs_runtime *rt, xs_task_fn fn, void *arg)
{
	return xs_runtime_job(rt, XS_JOB_RUN, fn, arg);
}

int xs_runtime_parallel(struct xs_runtime *rt, xs_task_fn fn, void *arg)
{
	return xs_runtime_job(rt, XS_JOB_PARALLEL, fn, arg);
}

/*
 * A parallel job whose worker-0 part is the caller's own code between
 * xs_runtime_parallel_begin() and xs_runtime_parallel_end() (the libgomp
 * drop-in's GOMP_parallel_start/end): workers 1..N-1 run @fn(@arg), the
 * calling thread runs as worker 0 with @frame as its implicit task.
 */
int xs_runtime_parallel_begin(struct xs_runtime *rt, xs_task_fn fn, void *arg,
			      struct xs_job_frame *job)
{
	int err;
	struct xs_worker *w0 = xs_runtime_enter(rt, XS_JOB_PARALLEL, fn, arg, &err);

	if (!w0)
		return err;
	job->t0 = xs_prof_begin(w0->log);
	xs_worker_job_begin(w0);
	xs_worker_implicit_begin(w0, &job->frame);
	return 0;
}

void xs_runtime_parallel_end(struct xs_runtime *rt, struct xs_job_frame *job)
{
	struct xs_worker *w0 = rt->workers[0];

	xs_worker_implicit_end(w0, &job->frame);
	xs_worker_job_end(w0, job->t0);
	xs_stats_page_job(rt, false, xs_now_ns());
	xs_self = NULL;
	xs_runtime_unclaim(rt);
}

unsigned int xs_runtime_workers(const struct xs_runtime *rt)
{
	return rt ? rt->nworkers : 0;
}

void xs_runtime_destroy(struct xs_runtime *rt)
{
	if (!rt)
		return;
	xs_runtime_post(rt, XS_JOB_EXIT, NULL, NULL);
	for (uint32_t i = 1; i < rt->nworkers; i++)
		pthread_join(rt->threads[i], NULL);
	if (rt->opt.show_stats)
		xs_stats_print(rt, stderr);
	if (rt->opt.profile[0]) {
		char path[sizeof(rt->opt.profile) + 32];
		int ret = xs_profile_write(rt, rt->opt.profile, path, sizeof(path));

		if (ret < 0)
			fprintf(stderr, "xsched: XSCHED_PROFILE=%s: cannot write the profile %s: %s\n",
				rt->opt.profile, path, strerror(-ret));
	}
	xs_runtime_free(rt);
}
