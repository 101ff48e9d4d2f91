/* SPDX-License-Identifier: MIT */
/*
 * daemon_parts.h - what the files of the daemon client call of each other
 * (internal to libxsched/daemon/). The client is split by job, and the
 * calls go one way only, left to right:
 *
 *   daemon_state.c     the state file: copied with pread() under the
 *                      seqlock, then validated; never mapped, never re-read
 *   daemon_conn.c      a connection: HELLO, its descriptors, the worker
 *                      state's mapping or copy, and its end
 *   daemon_register.c  which worker thread holds which slot (REGISTER)
 *   daemon_retire.c    the victim-view swap, and freeing what thieves may
 *                      still read once every worker has left its jobs
 *   daemon_poll.c      one poll: a fresh state's rows become a view
 *   daemon_tick.c      the one thread that polls, once per daemon tick
 *   daemon_client.c    the lifecycle the runtime drives (create, start,
 *                      job start, destroy) and xs_daemon_info()
 *
 * daemon_client.h is what the rest of libxsched sees.
 */
#ifndef XSCHED_DAEMON_PARTS_H
#define XSCHED_DAEMON_PARTS_H

#include <sched.h>

#include "daemon/daemon_client.h"

/* Poll interval bounds (the daemon's tick, clamped). */
#define XS_DAEMON_POLL_MIN_NS 1000000ull
#define XS_DAEMON_POLL_MAX_NS 100000000ull
/* The tick thread's period while no worker is awake to use its advice. */
#define XS_DAEMON_IDLE_NS XS_DAEMON_POLL_MAX_NS

/* daemon_conn.c */
const char *xs_daemon_dir(const struct xs_runtime *rt);
void xs_daemon_log(const struct xs_runtime *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int xs_daemon_call(int fd, uint16_t type, const uint32_t *tids, uint32_t count,
		   struct xs_abi_reply *r, int fds[2]);
struct xs_daemon_conn *xs_daemon_connect(struct xs_runtime *rt, int *err, const char **why);
void xs_daemon_conn_free(struct xs_daemon_conn *c);

/* daemon_register.c */
void xs_daemon_worker0_check(struct xs_daemon_client *dc);
int xs_daemon_register(struct xs_runtime *rt, struct xs_daemon_client *dc,
		       struct xs_daemon_conn *c);

/* daemon_retire.c (busy held for all but xs_daemon_retired_free_all) */
void xs_daemon_retire(struct xs_daemon_client *dc, void *p, bool is_conn);
void xs_daemon_reclaim(struct xs_daemon_client *dc, uint64_t done);
bool xs_daemon_can_adopt(const struct xs_daemon_client *dc);
void xs_daemon_publish(struct xs_daemon_client *dc, struct xs_runtime *rt,
		       struct xs_victim_view *view, bool daemon_view);
void xs_daemon_retired_free_all(struct xs_daemon_client *dc);

/* daemon_tick.c */
int xs_daemon_tick_start(struct xs_runtime *rt);
void xs_daemon_tick_kick(struct xs_daemon_client *dc);
void xs_daemon_tick_stop(struct xs_daemon_client *dc);

/* Take busy (daemon_client.h) on a thread that must not skip its work;
 * waits only for a poll in progress, which is bounded work. */
static inline void xs_daemon_busy_take(struct xs_daemon_client *dc)
{
	/* Acquire: pairs with the release in xs_daemon_busy_drop() (and in
	 * xs_daemon_poll()), so the previous holder's writes to the guarded
	 * fields are visible. */
	while (xs_exchange_acquire(&dc->busy, true))
		sched_yield();
}

static inline void xs_daemon_busy_drop(struct xs_daemon_client *dc)
{
	/* Release: pairs with the acquire of the next holder. */
	xs_store_release(&dc->busy, false);
}

#endif /* XSCHED_DAEMON_PARTS_H */
