// SPDX-License-Identifier: MIT
/*
 * stats_page.c - the statistics page of a runtime (stats_page.h has the
 * why, include/xsched/stats_page.h the layout and the reader's rules).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "xsched/abi.h"
#include "xsched/stats_page.h"
#include "xsched/stats_page_file.h"
#include "daemon/daemon_client.h"
#include "core/runtime.h"
#include "obs/stats_page.h"
#include "queue/xqueue.h"
#include "base/tid.h"
#include "topo/topology.h"

/* Slots the publisher may scan per period for queue depths; above it only
 * the master queues are counted (see xs_stats_queue_depth()). */
#define XS_STATS_SCAN_BUDGET (1u << 20)

_Static_assert(sizeof(struct xs_counters) == 15 * sizeof(xs_counter_t),
	       "a new counter needs a field in struct xs_stats_worker and a line in "
	       "xs_stats_page_publish()");

struct xs_stats_page {
	struct xs_stats_page_file file; /* the shared mapping, its name */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;           /* guards stop, with cond */
	pthread_cond_t cond;
	bool stop;
	struct xs_stats_page *next;     /* live pages of this process */
};

/* Pages not yet destroyed, for the exit path (xs_stats_page_atexit()). */
static pthread_mutex_t xs_stats_live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xs_stats_page *xs_stats_live;
static _Atomic uint32_t xs_stats_runtimes;

/* Publisher-side store of a page field (single writer, relaxed). */
#define xs_stats_store(p, v) xs_plain_store_relaxed((p), (v))

static void xs_stats_warn(const char *path, int err)
{
	static _Atomic int warned;

	if (xs_exchange_relaxed(&warned, 1))
		return;
	fprintf(stderr,
		"xsched: warning: cannot publish statistics for xsched-top in %s: %s "
		"(XSCHED_STATS_PAGE=0 turns this off)\n",
		path, strerror(err));
}

/* The runtime's part of its page, before the page is renamed into place
 * (xs_stats_page_file_create()). */
static void xs_stats_page_fill(struct xs_stats_header *h, void *arg)
{
	const struct xs_runtime *rt = arg;

	h->created_ns = xs_now_ns();
	h->nnodes = rt->topo->nnodes;
	h->queue_size = rt->queue_size;
	h->dlb = (__u32)rt->dlb.strategy;
	h->push = (__u32)rt->dlb.push;
	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct xs_stats_worker *sw = (struct xs_stats_worker *)xs_stats_worker_at(h, i);
		const struct xs_worker *w = rt->workers[i];

		sw->cpu = rt->topo->cpus[w->cpu_index].cpu;
		sw->node = rt->topo->node_ids[w->node];
	}
}

/*
 * Tasks queued into worker @i: the full slots of the N queues into it. The
 * slots are atomics the queue's two ends publish with release stores; a
 * relaxed load here orders nothing and may be one push or pop old, which
 * is what a depth sampled ten times a second is. Beyond
 * XS_STATS_SCAN_BUDGET slots a period (N^2 x queue size) only the master
 * queue is counted, so the publisher stays well under a millisecond.
 */
static uint64_t xs_stats_queue_depth(const struct xs_runtime *rt, uint32_t i, bool all)
{
	uint64_t depth = 0;

	for (uint32_t p = 0; p < rt->nworkers; p++) {
		const struct xs_spsc *q;

		if (!all && p != i)
			continue;
		q = xs_xqueue_at(rt->queue_rows, rt->queue_size, i, p);
		for (uint32_t s = 0; s < rt->queue_size; s++)
			depth += xs_load_relaxed(&((struct xs_spsc *)q)->slot[s]) != NULL;
	}
	return depth;
}

/* One publication: every worker's counters, then the generation. */
static void xs_stats_page_publish(struct xs_runtime *rt, struct xs_stats_page *p)
{
	struct xs_stats_header *h = p->file.h;
	uint64_t now = xs_now_ns();
	bool all = (uint64_t)rt->nworkers * rt->nworkers * rt->queue_size <= XS_STATS_SCAN_BUDGET;

	for (uint32_t i = 0; i < rt->nworkers; i++) {
		struct xs_stats_worker *sw = (struct xs_stats_worker *)xs_stats_worker_at(h, i);
		struct xs_worker *w = rt->workers[i];
		struct xs_counters snap;
		const struct xs_counters *c = &snap;
		uint64_t idle, since;

		xs_worker_counters(w, &snap); /* frames folded in */
		/* Relaxed snapshots of owner-written counters (atomics.h). */
#define XS_STATS_COPY(name, doc) xs_stats_store(&sw->name, xs_load_relaxed(&c->name));
		XS_COUNTERS(XS_STATS_COPY)
#undef XS_STATS_COPY
		xs_stats_store(&sw->tasks_executed, xs_counters_executed(c));
		xs_stats_store(&sw->tasks_created,
			       xs_load_relaxed(&c->static_pushes) + xs_load_relaxed(&c->immediate));
		/* Acquire pairs with the release in xs_idle_end(): since is then
		 * 0 or a stretch that ns does not hold yet. */
		idle = xs_load_acquire(&w->idle.ns);
		since = xs_load_relaxed(&w->idle.since);
		if (since && since < now)
			idle += now - since;
		xs_stats_store(&sw->idle_ns, idle);
		xs_stats_store(&sw->flags, since ? XS_STATS_W_IDLE : 0u);
		xs_stats_store(&sw->queue_depth, xs_stats_queue_depth(rt, i, all));
	}
	xs_stats_store(&h->published_ns, now);
	xs_stats_page_published(h);
}

static void *xs_stats_page_main(void *arg)
{
	struct xs_runtime *rt = arg;
	struct xs_stats_page *p = rt->stats_page;
	struct timespec ts;

	pthread_setname_np(pthread_self(), "xsched-stats");
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		xs_stats_page_publish(rt, p);
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += (long)XS_STATS_PERIOD_NS;
		ts.tv_sec += ts.tv_nsec / 1000000000;
		ts.tv_nsec %= 1000000000;
		while (!p->stop && pthread_cond_timedwait(&p->cond, &p->lock, &ts) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Exit path: remove the pages of runtimes that were never destroyed (the
 * process returns from main() or calls exit() with them alive). The
 * publishers may still run; they write to mappings that outlive the names.
 * A forked child inherits the list but not the pages: it removes nothing. */
__attribute__((destructor)) static void xs_stats_page_atexit(void)
{
	pthread_mutex_lock(&xs_stats_live_lock);
	for (struct xs_stats_page *p = xs_stats_live; p; p = p->next)
		xs_stats_page_file_unlink(&p->file);
	pthread_mutex_unlock(&xs_stats_live_lock);
}

void xs_stats_page_create(struct xs_runtime *rt)
{
	/* Relaxed: only a unique number for the page's name. */
	uint32_t id = xs_fetch_add_relaxed(&xs_stats_runtimes, 1);
	struct xs_stats_page *p;
	int err;

	if (!rt->opt.stats_page)
		return;
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	err = xs_stats_page_file_create(&p->file,
					rt->opt.runtime_dir[0] ? rt->opt.runtime_dir
							       : XS_ABI_DEFAULT_RUNTIME_DIR,
					id, rt->nworkers, XS_STATS_PERIOD_NS, xs_stats_page_fill, rt);
	if (err) {
		xs_stats_warn(p->file.path, -err);
		free(p);
		return;
	}
	pthread_mutex_init(&p->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&p->cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	xs_stats_store(&((struct xs_stats_worker *)xs_stats_worker_at(p->file.h, 0))->tid,
		       (__u32)xs_tid());
	pthread_mutex_lock(&xs_stats_live_lock);
	p->next = xs_stats_live;
	xs_stats_live = p;
	pthread_mutex_unlock(&xs_stats_live_lock);
	rt->stats_page = p;
	/* Worker 0's thread is the application's until the first job. */
	xs_idle_begin(&rt->workers[0]->idle, xs_now_ns());
}

void xs_stats_page_thread(struct xs_runtime *rt, uint32_t id)
{
	if (rt->stats_page)
		xs_stats_store(&((struct xs_stats_worker *)xs_stats_worker_at(rt->stats_page->file.h,
									     id))->tid,
			       (__u32)xs_tid());
}

void xs_stats_page_start(struct xs_runtime *rt)
{
	struct xs_stats_page *p = rt->stats_page;
	sigset_t all, old;

	if (!p)
		return;
	/* The publisher takes none of the application's signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	p->thread_started = !pthread_create(&p->thread, NULL, xs_stats_page_main, rt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!p->thread_started)
		xs_stats_warn(p->file.path, EAGAIN);
}

void xs_stats_page_job(struct xs_runtime *rt, bool begin, uint64_t now)
{
	struct xs_stats_page *p = rt->stats_page;
	struct xs_worker *w0 = rt->workers[0];
	struct xs_stats_header *h;
	uint32_t flags;

	if (!p)
		return;
	h = p->file.h;
	if (!begin) {
		xs_idle_begin(&w0->idle, now);
		/* Relaxed: these header fields have this one writer, the
		 * thread that runs jobs; readers take them as they are. */
		xs_stats_store(&h->flags, xs_stats_load(&h->flags) & ~XS_STATS_F_IN_JOB);
		return;
	}
	xs_idle_end(&w0->idle, now);
	flags = (xs_stats_load(&h->flags) & XS_STATS_F_RUNTIME_DIR) | XS_STATS_F_IN_JOB;
	/* Relaxed: conn is read as a fact for display, nothing is
	 * dereferenced through it. */
	if (rt->daemon && xs_load_relaxed(&rt->daemon->conn))
		flags |= XS_STATS_F_DAEMON;
	xs_stats_store(&h->flags, flags);
	xs_stats_store(&h->jobs, xs_stats_load(&h->jobs) + 1);
	xs_stats_store(&h->dlb, (__u32)rt->dlb.strategy);
	xs_stats_store(&h->push, (__u32)rt->dlb.push);
	xs_stats_store(&((struct xs_stats_worker *)xs_stats_worker_at(h, 0))->tid,
		       (__u32)xs_tid());
}

void xs_stats_page_destroy(struct xs_runtime *rt)
{
	struct xs_stats_page *p = rt->stats_page, **pp;

	if (!p)
		return;
	if (p->thread_started) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
		/* The final numbers, for a reader that has the page mapped. */
		xs_stats_page_publish(rt, p);
	}
	pthread_mutex_lock(&xs_stats_live_lock);
	for (pp = &xs_stats_live; *pp && *pp != p; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = p->next;
	pthread_mutex_unlock(&xs_stats_live_lock);
	xs_stats_page_file_close(&p->file);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
	rt->stats_page = NULL;
}
