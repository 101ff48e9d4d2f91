// SPDX-License-Identifier: MIT
/*
 * daemon_client.c - the client's lifecycle as the runtime drives it:
 * create (connect), start (register, publish, start the tick), job start
 * (reclaim, reconnect), destroy; and xs_daemon_info().
 *
 * The rule: the connection pointer is replaced only here, on the thread
 * that creates the runtime or starts its jobs, with busy held; a job
 * start reads nothing from the daemon (the tick thread's last poll says
 * whether it lives) and only reconnects, at most every
 * XS_DAEMON_RETRY_NS. daemon_parts.h lists the files each job went to;
 * daemon_client.h says what the library takes from the daemon.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/daemon_parts.h"
#include "base/tid.h"
#include "core/runtime.h"


/* Publish @c as the connection (busy held; the old one is retired). */
static void xs_daemon_conn_publish(struct xs_daemon_client *dc, struct xs_runtime *rt,
				   struct xs_daemon_conn *c)
{
	/* Relaxed: only the job-start thread replaces it. */
	struct xs_daemon_conn *old = xs_load_relaxed(&dc->conn);

	/* Relaxed: nobody has seen @c yet; the release below publishes it. */
	xs_store_relaxed(&c->alive, true);
	/* Release: the connection's mappings and arrays before its pointer;
	 * pairs with the acquire in xs_daemon_idle() and xs_daemon_poll(). */
	xs_store_release(&dc->conn, c);
	if (old) {
		/* The socket is ours alone: closing it now tells the old daemon
		 * (if it lives) to reclaim our slots. */
		close(old->fd);
		old->fd = -1;
		xs_daemon_retire(dc, old, true);
	}
	dc->seen_gen = 0;
	/* Relaxed: a poll time (daemon_poll.c) and a statistic: the new
	 * connection is polled at the tick's next look. */
	xs_store_relaxed(&dc->next_poll_ns, 0);
	xs_fetch_add_relaxed(&dc->connects, 1);
	xs_daemon_log(rt, "connected to %s (%s mode, %u CPUs), %u of %u workers registered%s\n",
		      xs_daemon_dir(rt), c->mode == XS_ABI_MODE_BPF ? "BPF" : "degraded",
		      c->ncpus, c->registered, c->nworkers,
		      c->daemon_of ? "" : "; its CPUs are not ours: worker state only");
}

int xs_daemon_client_create(struct xs_runtime *rt)
{
	struct xs_daemon_client *dc;
	struct xs_daemon_conn *c;
	const char *why;
	int err;

	if (rt->opt.daemon == XS_DAEMON_OFF)
		return 0;
	dc = xs_alloc_cache_aligned(sizeof(*dc));
	if (!dc)
		return -ENOMEM;
	memset(dc, 0, sizeof(*dc));
	dc->mode = (enum xs_daemon_mode)rt->opt.daemon;
	dc->nworkers = rt->nworkers;
	dc->tids = calloc(rt->nworkers, sizeof(*dc->tids));
	dc->wctr = xs_alloc_cache_aligned((size_t)rt->nworkers * sizeof(*dc->wctr));
	dc->rescue_ns = (uint64_t)rt->opt.rescue_us * 1000u;
	/* Relaxed: no thread but this one has seen the runtime yet. */
	dc->own_view = xs_load_relaxed(&rt->victims);
	rt->daemon = dc;
	if (!dc->tids || !dc->wctr)
		return -ENOMEM;
	memset(dc->wctr, 0, (size_t)rt->nworkers * sizeof(*dc->wctr));
	dc->last_attempt_ns = xs_now_ns();

	c = xs_daemon_connect(rt, &err, &why);
	if (!c) {
		char path[sizeof(rt->opt.runtime_dir) + 16];

		snprintf(path, sizeof(path), "%s/" XS_ABI_SOCKET_FILE, xs_daemon_dir(rt));
		if (dc->mode == XS_DAEMON_REQUIRED) {
			fprintf(stderr,
				"xsched: XSCHED_DAEMON=required but %s %s (XSCHED_RUNTIME_DIR=%s): "
				"%s: %s\n",
				strcmp(why, "socket") ? "the xschedd answering at"
						      : "no xschedd answers at",
				path, xs_daemon_dir(rt), why, strerror(-err));
			if (strcmp(why, "socket"))
				fprintf(stderr, "xsched: its %s is not usable; XSCHED_DAEMON=auto "
						"would go on without it\n", why);
			return err;
		}
		if (err != -ENOENT)
			xs_daemon_log(rt, "%s: %s: %s; using our own tables\n", path, why,
				      strerror(-err));
		return 0;
	}
	if (xs_daemon_rows_alloc(dc, rt, c)) {
		xs_daemon_conn_free(c);
		return -ENOMEM;
	}
	/* Registered and published once the threads run and have tids. */
	dc->pending = c;
	return 0;
}

/* Give connection @c the workers' threads, publish it to the thieves and
 * start (or keep) the tick that polls it; a registration the daemon
 * refuses drops @c, and the runtime goes on with its own tables. */
static void xs_daemon_client_adopt(struct xs_runtime *rt, struct xs_daemon_client *dc,
				   struct xs_daemon_conn *c)
{
	if (xs_daemon_register(rt, dc, c)) {
		xs_daemon_conn_free(c);
		return;
	}
	xs_daemon_busy_take(dc);
	xs_daemon_conn_publish(dc, rt, c);
	xs_daemon_busy_drop(dc);
	xs_daemon_tick_start(rt);
}

void xs_daemon_client_start(struct xs_runtime *rt)
{
	struct xs_daemon_client *dc = rt->daemon;
	struct xs_daemon_conn *c;

	if (!dc)
		return;
	dc->tids[0] = xs_tid();
	c = dc->pending;
	dc->pending = NULL;
	if (!c)
		return;
	xs_daemon_client_adopt(rt, dc, c);
}

void xs_daemon_client_job_start(struct xs_runtime *rt, uint64_t now)
{
	struct xs_daemon_client *dc = rt->daemon;
	struct xs_daemon_conn *c, *old;
	const char *why;
	int err;

	if (!dc)
		return;
	xs_daemon_worker0_check(dc);
	xs_daemon_busy_take(dc);
	/* Relaxed: this thread is the only writer of job_seq; every job up
	 * to it has been posted (daemon_retire.c says why that is the
	 * stamp and the bound). */
	xs_daemon_reclaim(dc, xs_load_relaxed(&rt->job_seq));
	xs_daemon_busy_drop(dc);

	/* Relaxed: this thread is the only writer of conn. */
	old = xs_load_relaxed(&dc->conn);
	/* Relaxed: the tick's last poll's verdict (daemon_poll.c), one poll
	 * old at worst. A job start reads nothing from the daemon, so a
	 * stream of short jobs or parallel loops makes no system call for
	 * its sake; it only wakes a tick that sleeps because every worker
	 * was parked. A daemon that died is seen by the tick's next poll,
	 * which puts the own view back, and the job start after that
	 * reconnects. */
	if (old && xs_load_relaxed(&old->alive)) {
		xs_daemon_tick_kick(dc);
		return;
	}
	if (now - dc->last_attempt_ns < XS_DAEMON_RETRY_NS) {
		if (old)
			xs_daemon_tick_kick(dc);
		return;
	}
	dc->last_attempt_ns = now;
	c = xs_daemon_connect(rt, &err, &why);
	if (!c)
		return;
	xs_daemon_busy_take(dc);
	if (dc->nretired + (dc->daemon_view ? 1 : 0) + (old ? 1 : 0) > XS_DAEMON_MAX_RETIRED ||
	    xs_daemon_rows_alloc(dc, rt, c)) {
		xs_daemon_busy_drop(dc);
		xs_daemon_conn_free(c);
		return;
	}
	xs_daemon_busy_drop(dc);
	/* The old daemon (if it lives on) releases our tids when its socket
	 * closes; close it before registering them with the new one. */
	if (old && old->fd >= 0) {
		close(old->fd);
		old->fd = -1;
	}
	xs_daemon_client_adopt(rt, dc, c);
}

void xs_daemon_client_destroy(struct xs_runtime *rt)
{
	struct xs_daemon_client *dc = rt->daemon;

	if (!dc)
		return;
	xs_daemon_tick_stop(dc);
	/* Relaxed: every worker has been joined, the tick stopped. */
	if (dc->daemon_view) {
		xs_victim_view_free(xs_load_relaxed(&rt->victims));
		xs_store_relaxed(&rt->victims, dc->own_view);
	}
	xs_daemon_retired_free_all(dc);
	xs_daemon_conn_free(dc->pending); /* created, never started */
	xs_daemon_conn_free(xs_load_relaxed(&dc->conn));
	free(dc->scratch);
	free(dc->adopted);
	free(dc->tids);
	free(dc->wctr);
	free(dc);
	rt->daemon = NULL;
}

int xs_daemon_info(struct xs_runtime *rt, struct xs_daemon_info *info)
{
	struct xs_daemon_client *dc;
	struct xs_daemon_conn *c;

	if (!rt || !info)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	dc = rt->daemon;
	if (!dc)
		return 0;
	xs_daemon_busy_take(dc);
	/* Acquire: see xs_daemon_idle(). */
	c = xs_load_acquire(&dc->conn);
	if (c) {
		info->connected = 1;
		info->fresh = xs_load_relaxed(&c->fresh);
		info->registered = c->registered;
		info->mode = c->mode;
	}
	info->using_daemon_table = dc->daemon_view;
	xs_daemon_busy_drop(dc);
	/* Relaxed: statistics. */
	info->connects = xs_load_relaxed(&dc->connects);
	info->polls = xs_load_relaxed(&dc->polls);
	info->adopted = xs_load_relaxed(&dc->adopted_tables);
	info->rejected = xs_load_relaxed(&dc->rejected);
	info->last_reject = xs_load_relaxed(&dc->last_reject);
	info->fallbacks = xs_load_relaxed(&dc->fallbacks);
	for (uint32_t w = 0; w < dc->nworkers; w++) {
		info->off_cpu_skips += xs_load_relaxed(&dc->wctr[w].off_cpu_skips);
		info->stranded += xs_load_relaxed(&dc->wctr[w].stranded);
		info->early_parks += xs_load_relaxed(&dc->wctr[w].early_parks);
	}
	return 0;
}
