// SPDX-License-Identifier: MIT
/*
 * daemon_tick.c - the client's tick: the one thread that polls the daemon.
 *
 * The rule: the daemon's state is polled here and nowhere else, at most
 * once per daemon tick (its tick_ns, clamped to 1..100 ms) and never more
 * often than every XS_DAEMON_POLL_MIN_NS, so that thieves only load two
 * pointers and a flag (xs_daemon_idle()): an idle loop makes no system
 * call and no allocation for the daemon's sake, and the victim view is
 * built here, off every worker. The thread exists while a connection
 * does (it starts with the first one and stops at destroy).
 *
 * It polls only while its advice can be used: while some worker other
 * than the caller's is awake (rt->nparked), or once after a job start
 * kicks it. When every worker is parked it looks again every
 * XS_DAEMON_IDLE_NS without reading anything, so an idle process costs
 * ten timed waits a second and no read; a worker woken in the middle of
 * a job gets fresh advice by then at the latest, and until then acts on
 * the last poll's, as it would between two ticks.
 *
 * Why a thread of its own and not the statistics page's publisher
 * (obs/stats_page.c): that one is optional (XSCHED_STATS_PAGE=0), ticks
 * at a fixed 100 ms where the daemon's tick is 10 ms by default, and
 * lives in a layer above this one, which may call down into the client
 * but must not be called from it.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "daemon/daemon_parts.h"
#include "core/runtime.h"

/* Whether a worker other than one is awake to use the advice. */
static bool xs_daemon_tick_wanted(const struct xs_runtime *rt)
{
	/* Relaxed: nparked is a hint (worker.c); a worker that wakes unseen
	 * is served at the next idle look, XS_DAEMON_IDLE_NS later. */
	return xs_load_relaxed(&rt->nparked) + 1 < rt->nworkers;
}

static void *xs_daemon_tick_main(void *arg)
{
	struct xs_runtime *rt = arg;
	struct xs_daemon_client *dc = rt->daemon;
	uint64_t last = 0;

	pthread_setname_np(pthread_self(), "xsched-daemon");
	pthread_mutex_lock(&dc->tick_lock);
	while (!dc->tick_stop) {
		uint64_t now = xs_now_ns(), until;
		/* Relaxed: a poll time written by the last poll (under busy,
		 * which this thread does not hold): at worst a poll late. */
		uint64_t due = xs_load_relaxed(&dc->next_poll_ns);
		bool wanted = dc->tick_kicked || xs_daemon_tick_wanted(rt);
		struct timespec ts;

		if (due < last + XS_DAEMON_POLL_MIN_NS)
			due = last + XS_DAEMON_POLL_MIN_NS;
		if (wanted && now >= due) {
			dc->tick_kicked = false;
			last = now;
			pthread_mutex_unlock(&dc->tick_lock);
			xs_daemon_poll(dc, rt, false);
			pthread_mutex_lock(&dc->tick_lock);
			continue;
		}
		until = wanted ? due : now + XS_DAEMON_IDLE_NS;
		ts.tv_sec = (time_t)(until / 1000000000u);
		ts.tv_nsec = (long)(until % 1000000000u);
		/* Relaxed: a hint for xs_daemon_tick_kick(), see there. */
		xs_store_relaxed(&dc->tick_idle, !wanted);
		pthread_cond_timedwait(&dc->tick_cond, &dc->tick_lock, &ts);
		xs_store_relaxed(&dc->tick_idle, false);
	}
	pthread_mutex_unlock(&dc->tick_lock);
	return NULL;
}

/* With a connection published (job-start thread, or creation): start the
 * thread once, with a first poll due at once. */
int xs_daemon_tick_start(struct xs_runtime *rt)
{
	struct xs_daemon_client *dc = rt->daemon;
	pthread_condattr_t ca;
	sigset_t all, old;
	int err;

	if (dc->tick_started) {
		xs_daemon_tick_kick(dc);
		return 0;
	}
	pthread_mutex_init(&dc->tick_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* xs_now_ns()'s clock */
	pthread_cond_init(&dc->tick_cond, &ca);
	pthread_condattr_destroy(&ca);
	dc->tick_stop = false;
	dc->tick_kicked = true;
	/* The tick takes none of the application's signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&dc->tick_thread, NULL, xs_daemon_tick_main, rt);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		pthread_cond_destroy(&dc->tick_cond);
		pthread_mutex_destroy(&dc->tick_lock);
		xs_daemon_log(rt, "no tick thread (%s): the daemon's state is not polled\n",
			      strerror(err));
		return -err;
	}
	dc->tick_started = true;
	return 0;
}

/* Job start: a tick asleep for lack of awake workers polls now (when a
 * poll is due). Cheap when it is awake: one relaxed load. */
void xs_daemon_tick_kick(struct xs_daemon_client *dc)
{
	/* Relaxed: a hint. A job start that reads false just as the thread
	 * goes idle leaves it asleep XS_DAEMON_IDLE_NS at most; the lock
	 * below orders the kick itself. */
	if (!dc->tick_started || !xs_load_relaxed(&dc->tick_idle))
		return;
	pthread_mutex_lock(&dc->tick_lock);
	dc->tick_kicked = true;
	pthread_cond_signal(&dc->tick_cond);
	pthread_mutex_unlock(&dc->tick_lock);
}

/* Destroy, before anything the tick reads is freed. */
void xs_daemon_tick_stop(struct xs_daemon_client *dc)
{
	if (!dc->tick_started)
		return;
	pthread_mutex_lock(&dc->tick_lock);
	dc->tick_stop = true;
	pthread_cond_signal(&dc->tick_cond);
	pthread_mutex_unlock(&dc->tick_lock);
	pthread_join(dc->tick_thread, NULL);
	pthread_cond_destroy(&dc->tick_cond);
	pthread_mutex_destroy(&dc->tick_lock);
	dc->tick_started = false;
}
