/* SPDX-License-Identifier: MIT */
/*
 * daemon_client.h - libxsched as a client of xschedd (internal).
 *
 * XSCHED_DAEMON=auto (default) connects at xs_runtime_create() when
 * <XSCHED_RUNTIME_DIR>/socket exists, =required fails creation without it,
 * =off never connects. A connection (struct xs_daemon_conn) is: HELLO, the
 * two read-only descriptors it returns (the state file, read with pread();
 * the worker-state array, mapped read-only when it is a BPF map, copied
 * when it is a file: see below), and REGISTER of every worker's tid.
 *
 * What the library takes from it, and where:
 *
 *   victim table   the client's tick thread (daemon_tick.c) polls the state
 *                  at most once per daemon tick while workers are awake: a
 *                  consistent seqlock copy with a fresh heartbeat whose
 *                  rows changed becomes a new victim view, built on that
 *                  thread and published in rt->victims; a torn, stale,
 *                  exited or invalid state puts the runtime's own view
 *                  back. Thieves only load the pointers (xs_daemon_idle):
 *                  no system call, no allocation.
 *   worker state   a thief does not send a request to a victim whose slot
 *                  says it is off its CPU (runnable or blocked), while the
 *                  state is fresh.
 *   reconnection   at job start (xs_runtime_run/parallel), at most every
 *                  XS_DAEMON_RETRY_NS, when there is no connection or the
 *                  tick's last poll found its daemon dead (alive).
 *
 * Nothing read from shared memory is trusted: the layout is checked at
 * connect and again at every poll (a layout that changed is rejected), CPU
 * and slot indexes are range-checked, rows must be permutations
 * (xs_victim_table_check) before they are adopted. The state file is never
 * mapped: whoever runs the daemon can shrink it, and a load from a mapped
 * page past its new end is a SIGBUS. It is copied with pread() under the
 * seqlock (xsched/abi_pread.h), and only the copy is looked at. A
 * worker-state array that is a regular file (degraded mode) is copied the
 * same way at every poll into private memory that thieves read; only a
 * BPF map's, which cannot shrink, is mapped.
 *
 * Lifetimes. Views and connections are immutable once published and are
 * read by thieves without a lock, so one that is replaced is retired, and
 * freed two job boundaries later (daemon_retire.c has the rule), or at
 * destroy. The retired list is bounded: a poll that would overflow it
 * keeps the current view instead.
 *
 * The code is split by job; daemon_parts.h lists the files.
 */
#ifndef XSCHED_DAEMON_CLIENT_H
#define XSCHED_DAEMON_CLIENT_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xsched/abi.h"
#include "xsched/abi_pread.h"
#include "base/atomics.h"
#include "base/clock.h"
#include "core/rescue.h"

enum xs_daemon_mode { XS_DAEMON_AUTO, XS_DAEMON_OFF, XS_DAEMON_REQUIRED };

/* Reconnection attempts at job start: at most one per this interval. */
#define XS_DAEMON_RETRY_NS 200000000ull
/* Retired views and connections awaiting two job boundaries. */
#define XS_DAEMON_MAX_RETIRED 16

struct xs_runtime;
struct xs_worker;
struct xs_victim_view;

/*
 * One connection to one daemon instance. Everything is written before the
 * connection is published (release store of xs_daemon_client.conn) and
 * only read afterwards, except `fresh`.
 */
struct xs_daemon_conn {
	int fd;                             /* the client socket */
	uint32_t mode;                      /* XS_ABI_MODE_* from HELLO */
	int state_fd;                       /* the state file, read with pread() */
	size_t state_size;                  /* its size at connect */
	/* The BPF map's read-only mapping, or workers_copy, or NULL. */
	const struct xs_abi_worker *workers;
	size_t workers_size;
	/* A regular file's copy (degraded mode): nslots entries, refreshed
	 * from workers_fd at every poll, field by field with relaxed stores
	 * (thieves read them with relaxed loads; one poll old at worst). */
	struct xs_abi_worker *workers_copy;
	int workers_fd;
	uint32_t nslots;
	uint32_t ncpus;                     /* the daemon's CPUs */
	uint32_t nworkers;
	uint32_t registered;                /* workers with a slot */
	uint32_t *slot;                     /* slot[w], or UINT32_MAX */
	uint32_t *tid;                      /* tid[w] as registered */
	uint32_t *lib_of;                   /* daemon CPU index -> ours, or UINT32_MAX */
	uint32_t *daemon_of;                /* our CPU index -> the daemon's */
	uint64_t max_age_ns;                /* heartbeat older than this: stale */
	unsigned char layout[128];          /* header lines 0-1 at connect */
	/* Written by the poller (relaxed): the last poll found the state
	 * fresh and consistent. Read by thieves as advice. */
	_Atomic bool fresh;
	/* Written by the poller (relaxed): the last poll found a daemon that
	 * publishes (a consistent header, the same layout, a fresh
	 * heartbeat), whatever its rows. Read at job start: false is the
	 * reason to reconnect. True when published. */
	_Atomic bool alive;
};

/* One worker's line of counters (it alone writes them). */
struct xs_daemon_wctr {
	xs_cache_aligned xs_counter_t off_cpu_skips;
	xs_counter_t stranded;
	/* Waits that stopped spinning and parked because the teammate they
	 * waited for was switched out (worker.c). */
	xs_counter_t early_parks;
};

struct xs_daemon_retired {
	void *p;
	uint32_t is_conn;
	uint64_t tag;                       /* rt->job_seq when retired */
};

struct xs_daemon_client {
	enum xs_daemon_mode mode;
	uint32_t nworkers;
	uint32_t *tids;                     /* tids[w], recorded at start-up */
	struct xs_victim_view *own_view;    /* the runtime's own, never retired */
	struct xs_daemon_conn *pending;     /* connected at create, until start */
	/* The current connection, NULL when there is none. Release-stored
	 * at job start, acquired by thieves in xs_daemon_idle(). */
	_Atomic(struct xs_daemon_conn *) conn;
	/* Worker 0 runs on whichever thread calls the runtime: its slot is
	 * used only while that is the thread that registered (job start). */
	_Atomic bool w0_registered;
	/* Next poll time, written by the poll, read by the tick thread
	 * (relaxed: a race only polls late). */
	xs_cache_aligned _Atomic uint64_t next_poll_ns;
	/* The tick thread (daemon_tick.c), off the line thieves read.
	 * tick_started: the job-start thread's only.
	 * The lock guards tick_stop and tick_kicked. */
	pthread_t tick_thread;
	bool tick_started;
	pthread_mutex_t tick_lock;
	pthread_cond_t tick_cond;
	bool tick_stop, tick_kicked;
	/* The tick sleeps for lack of awake workers (relaxed: a hint). */
	_Atomic bool tick_idle;
	/* Taken with an exchange, never waited for: whoever finds it taken
	 * skips its poll or reclamation. Guards everything below. */
	xs_cache_aligned _Atomic bool busy;
	bool daemon_view;                   /* rt->victims is a daemon view */
	uint64_t seen_gen;                  /* generation of the last poll */
	struct xs_abi_victim *adopted;      /* rows behind the daemon view */
	struct xs_abi_victim *scratch;      /* rows being copied */
	size_t rows_len;                    /* entries in each of the two */
	struct xs_daemon_retired retired[XS_DAEMON_MAX_RETIRED];
	uint32_t nretired;
	uint64_t last_attempt_ns;           /* job-start thread only */
	/* Statistics for xs_daemon_info (relaxed, single writer at a time). */
	_Atomic uint64_t connects, polls, adopted_tables, rejected, fallbacks;
	_Atomic int last_reject;            /* -errno of the last rejection */
	/* Per worker, XS_CACHE_LINE apart, owner-written: requests not sent
	 * to an off-CPU victim, and of those the victims that were stranded
	 * (rescue.h: preempted or stopped for rescue_ns or more). */
	struct xs_daemon_wctr *wctr;
	uint64_t rescue_ns;                 /* XSCHED_RESCUE_US */
};

/* What tests and tools can ask (xs_daemon_info()). */
struct xs_daemon_info {
	int connected;          /* a connection is published */
	int fresh;              /* its last poll found a fresh, consistent state */
	int using_daemon_table; /* rt->victims is a view of the daemon's rows */
	uint32_t registered;    /* workers that hold a slot */
	uint32_t mode;          /* XS_ABI_MODE_* of the connection */
	uint64_t connects;      /* successful connections */
	uint64_t polls;         /* state polls by the tick thread */
	uint64_t adopted;       /* daemon tables published as victim views */
	uint64_t rejected;      /* polls that found the state torn, stale or invalid */
	int last_reject;        /* -errno of the last one (-EPROTO, -EBADMSG, ...) */
	uint64_t fallbacks;     /* times the own view was put back */
	uint64_t off_cpu_skips; /* requests not sent: the victim was off its CPU */
	uint64_t stranded;      /* of those, victims preempted or stopped for
				 * XSCHED_RESCUE_US or more (rescue.h) */
	uint64_t early_parks;   /* waits that parked before XSCHED_SPIN_US was
				 * out: the teammate awaited was switched out */
};

/* xs_runtime_create(), after the own view is published and before the
 * threads start: nothing under off; under required, a connection (HELLO,
 * the state checked) or -errno with a message naming XSCHED_DAEMON. */
int xs_daemon_client_create(struct xs_runtime *rt);
/* A worker thread records its tid (xs_worker_main, before rows_ready). */
void xs_daemon_client_thread(struct xs_runtime *rt, uint32_t id);
/* After the threads started: REGISTER every worker (the caller is 0). */
void xs_daemon_client_start(struct xs_runtime *rt);
/* Job start, on the calling thread, before the job is posted; @now is
 * xs_now_ns(), read once by the caller for this and the stats page. */
void xs_daemon_client_job_start(struct xs_runtime *rt, uint64_t now);
/* xs_runtime_free(), workers joined: the own view back in rt->victims,
 * everything else freed, the socket closed. */
void xs_daemon_client_destroy(struct xs_runtime *rt);

int xs_daemon_info(struct xs_runtime *rt, struct xs_daemon_info *info);

/* Poll the state now (rate-limited unless @force): the tick thread's
 * work (daemon_poll.c); tools call it to measure one poll. */
void xs_daemon_poll(struct xs_daemon_client *dc, struct xs_runtime *rt, bool force);

/*
 * Reading the state file (connect, then every poll): with pread() under
 * its seqlock, by xsched/abi_pread.h, the one reader that libxsched,
 * libxsched-mpi and xsched-top share; tests/fuzz/daemon-state.c calls it
 * as the real code does.
 */
struct xs_victim_table;

/*
 * A HELLO to the daemon serving runtime directory @dir: connect (send and
 * receive time out after @timeout_us), send HELLO, receive the reply and
 * its two descriptors, check that the state is a regular file of a sane
 * size. On success 0, and @h holds the socket, the state's descriptor
 * (not yet checked beyond its type and size) and the worker-state
 * descriptor, which the caller maps, copies or closes. On failure
 * -errno (-EBADMSG: a malformed reply or state file), nothing left open,
 * and *@why names the step: "socket", "HELLO" or "state file". Allocates
 * nothing (the runtime's no-malloc guarantee with XSCHED_DAEMON=auto).
 */
struct xs_daemon_hello {
	int fd;                 /* the connected socket */
	int workers_fd;         /* the worker-state file's descriptor */
	int state_fd;           /* the state file's */
	size_t state_size;      /* its size then */
	struct xs_abi_reply reply;
};
int xs_daemon_hello(const char *dir, long timeout_us, struct xs_daemon_hello *h,
		    const char **why);
void xs_daemon_hello_close(struct xs_daemon_hello *h);

/*
 * This process's CPU share (daemon_share.c; xschedd's arbitration, struct
 * xs_abi_share in xsched/abi.h), for the drop-in's team size under dyn-var.
 */
enum xs_share_source {
	XS_SHARE_LOADAVG = 1, /* no usable daemon: libgomp's load-average rule */
	XS_SHARE_DAEMON,      /* this process's entry in the published state */
	XS_SHARE_NEWCOMER,    /* not counted now: share_cpus / (others listed + 1) */
};

struct xs_cpu_share {
	uint32_t cpus;        /* what the caller may use now, >= 1 */
	uint32_t source;      /* enum xs_share_source */
	uint32_t share_cpus;  /* the daemon's: CPUs xsched may use (0: no daemon) */
	uint32_t active;      /* the daemon's: processes dividing them */
	int err;              /* XS_SHARE_LOADAVG: why (-ENOTCONN, -ENOENT, -ESTALE,
			       * -EBADMSG, ...) */
};

/*
 * This process's share in the state file @fd (@size bytes at connect,
 * header lines 0-1 then as in @layout), copied with the header under the
 * seqlock and checked: the share reader's step that tests/fuzz reaches
 * without a daemon. Returns 0 and fills @out, or -EAGAIN (torn for
 * XS_ABI_READ_WAIT_NS), -EBADMSG (corrupt or shrunk: *@what says how),
 * -ESTALE, -ESHUTDOWN, -errno.
 */
int xs_share_read(int fd, size_t size, const void *layout, struct xs_cpu_share *out,
		  const char **what);
/* The share now, >= 1; @out (may be NULL) says where it comes from. Reads
 * XSCHED_DAEMON and XSCHED_RUNTIME_DIR at the first call. Thread-safe. */
uint32_t xs_daemon_share(struct xs_cpu_share *out);
/* Forget the connection and the options read (tests that change them). */
void xs_daemon_share_reset(void);
/* libgomp's dyn-var rule: @ncpus less @loadavg + 0.1, at least 1. */
uint32_t xs_share_loadavg_rule(uint32_t ncpus, double loadavg);
/* daemon_state.c: the checks of a new connection's state; the row buffers
 * for it; its victim rows as a table of ours (or NULL, *@err = 0
 * unchanged, -EAGAIN, -EBADMSG, -ENOMEM). */
int xs_daemon_conn_state(struct xs_daemon_conn *c, const struct xs_runtime *rt,
			 uint32_t nslots);
int xs_daemon_rows_alloc(struct xs_daemon_client *dc, const struct xs_runtime *rt,
			 const struct xs_daemon_conn *c);
struct xs_victim_table *xs_daemon_rows(struct xs_daemon_client *dc, const struct xs_runtime *rt,
				       const struct xs_daemon_conn *c,
				       const struct xs_abi_header *hc, uint64_t seq, int *err);

/*
 * Thief side, once per request attempt (xs_dlb_idle): the connection whose
 * worker state may be consulted, or NULL. Loads only: the tick thread
 * polls (daemon_tick.c), so an idle thief makes no system call here.
 */
static inline const struct xs_daemon_conn *xs_daemon_idle(struct xs_daemon_client *dc)
{
	struct xs_daemon_conn *c;

	if (!dc)
		return NULL;
	/* Acquire pairs with the release store that published the
	 * connection: its mappings and arrays are visible. */
	c = xs_load_acquire(&dc->conn);
	if (!c)
		return NULL;
	/* Relaxed: freshness is advice, one poll old at worst. */
	return c->workers && xs_load_relaxed(&c->fresh) ? c : NULL;
}

/*
 * Worker @v's state as the daemon's worker state says, with its since_ns
 * in *@since, or XS_ABI_WORKER_FREE when it has no usable slot (none, a
 * slot reclaimed and given to another thread, or worker 0 while a thread
 * other than the one that registered runs it).
 */
static inline uint32_t xs_daemon_worker_state(const struct xs_daemon_client *dc,
					      const struct xs_daemon_conn *c, uint32_t v,
					      uint64_t *since)
{
	const struct xs_abi_worker *ws;
	uint32_t s = c->slot[v], st;

	if (s == UINT32_MAX || (v == 0 && !xs_load_relaxed(&dc->w0_registered)))
		return XS_ABI_WORKER_FREE;
	ws = &c->workers[s];
	/* Relaxed loads of memory the BPF programs (or the daemon, degraded)
	 * write at every context switch: one switch old at worst, and the tid
	 * check drops a slot that was reclaimed and given to another thread.
	 * since_ns may be one switch newer or older than state: advice. */
	st = xs_plain_load_relaxed(&ws->state);
	*since = xs_plain_load_relaxed(&ws->since_ns);
	return xs_plain_load_relaxed(&ws->tid) == c->tid[v] ? st : XS_ABI_WORKER_FREE;
}

/* Whether worker @v is, as far as the daemon's worker state says, off its
 * CPU (preempted, stopped, woken and waiting to run, or blocked): a
 * request to it would wait for it to be scheduled again. */
static inline bool xs_daemon_off_cpu(const struct xs_daemon_client *dc,
				     const struct xs_daemon_conn *c, uint32_t v)
{
	uint64_t since;
	uint32_t st = xs_daemon_worker_state(dc, c, v, &since);

	return st == XS_ABI_WORKER_RUNNABLE || st == XS_ABI_WORKER_BLOCKED ||
	       st == XS_ABI_WORKER_PREEMPTED || st == XS_ABI_WORKER_STOPPED;
}

/*
 * Whether worker @v, which a waiter waits for, has been switched out while
 * it could run for @min_ns or more (worker.c, "Waiting for a switched-out
 * teammate"): PREEMPTED or STOPPED since @min_ns before @now, or woken
 * (RUNNABLE) and still without a CPU @min_ns after its wake-up. BLOCKED
 * is not: a parked teammate waits for someone else, and the waiter's CPU
 * is not what it lacks. @now: CLOCK_MONOTONIC, as since_ns.
 */
static inline bool xs_daemon_switched_out(const struct xs_daemon_client *dc,
					  const struct xs_daemon_conn *c, uint32_t v,
					  uint64_t now, uint64_t min_ns)
{
	uint64_t since;
	uint32_t st = xs_daemon_worker_state(dc, c, v, &since);

	if (st != XS_ABI_WORKER_PREEMPTED && st != XS_ABI_WORKER_STOPPED &&
	    st != XS_ABI_WORKER_RUNNABLE)
		return false;
	return now >= since && now - since >= min_ns;
}

/* Worker @w did not send a request to off-CPU victim @v: count it, and
 * count @v as stranded when it has been preempted or stopped for
 * XSCHED_RESCUE_US or more (owner-written counters). */
static inline void xs_daemon_count_skip(struct xs_daemon_client *dc,
					const struct xs_daemon_conn *c, uint32_t w, uint32_t v)
{
	struct xs_daemon_wctr *k = &dc->wctr[w];

	xs_counter_inc(&k->off_cpu_skips);
	if (xs_rescue_worker_stranded(&c->workers[c->slot[v]], c->tid[v], xs_now_ns(),
				      dc->rescue_ns))
		xs_counter_inc(&k->stranded);
}

#endif /* XSCHED_DAEMON_CLIENT_H */
