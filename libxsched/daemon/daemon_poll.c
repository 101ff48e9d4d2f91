// SPDX-License-Identifier: MIT
/*
 * daemon_poll.c - one look at the daemon's state: what the runtime adopts.
 *
 * The rule: a poll runs on the client's tick thread (daemon_tick.c), never
 * on a worker, so that a thief's idle loop makes no system call and no
 * allocation for the daemon's sake; busy (taken with an exchange, never
 * waited for) keeps two polls from overlapping. A poll copies the header
 * (daemon_state.c), checks that its layout is the one checked at connect,
 * and that its heartbeat is fresh; a torn, stale, exited or invalid state
 * puts the runtime's own view back. A fresh state whose rows changed
 * (a new generation) becomes a new victim view, built here and swapped
 * in by daemon_retire.c. The verdicts go to the connection: fresh (the
 * thieves' advice) and alive (the job start's reason to reconnect).
 */
#include <errno.h>
#include <string.h>

#include "daemon/daemon_parts.h"
#include "core/runtime.h"
#include "topo/topology.h"

static void xs_daemon_reject(struct xs_daemon_client *dc, struct xs_runtime *rt,
			     struct xs_daemon_conn *c, int why)
{
	/* Relaxed: fresh is advice read by thieves (xs_daemon_idle()); the
	 * counters and last_reject are statistics read as they are. */
	xs_store_relaxed(&c->fresh, false);
	xs_fetch_add_relaxed(&dc->rejected, 1);
	xs_store_relaxed(&dc->last_reject, why);
	if (dc->daemon_view) {
		xs_daemon_publish(dc, rt, dc->own_view, false);
		xs_fetch_add_relaxed(&dc->fallbacks, 1);
		xs_daemon_log(rt, "state %s: back to our own victim table\n",
			      why == -ESTALE ? "stale" : why == -ESHUTDOWN ? "final (daemon exited)"
			      : why == -EAGAIN ? "torn" : "invalid");
	}
}

/*
 * Degraded mode: this poll's copy of the slots our workers hold (no other
 * slot is ever read). A slot the file no longer has (it shrank) reads as
 * free. Written field by field with relaxed stores, read by thieves with
 * relaxed loads (xs_daemon_worker_state()): a field may be one poll newer
 * than its neighbour, as the file's own fields may be one tick apart.
 */
static void xs_daemon_workers_refresh(struct xs_daemon_conn *c)
{
	for (uint32_t w = 0; w < c->nworkers; w++) {
		uint32_t s = c->slot[w];
		struct xs_abi_worker in, *out;

		if (s == UINT32_MAX)
			continue;
		if (xs_abi_pread(c->workers_fd, &in, sizeof(in), (uint64_t)s * sizeof(in)))
			memset(&in, 0, sizeof(in));
		out = &c->workers_copy[s];
		xs_plain_store_relaxed(&out->state, in.state);
		xs_plain_store_relaxed(&out->cpu, in.cpu);
		xs_plain_store_relaxed(&out->since_ns, in.since_ns);
		xs_plain_store_relaxed(&out->switches, in.switches);
		xs_plain_store_relaxed(&out->pid, in.pid);
		xs_plain_store_relaxed(&out->tid, in.tid);
	}
}

void xs_daemon_poll(struct xs_daemon_client *dc, struct xs_runtime *rt, bool force)
{
	struct xs_daemon_conn *c;
	struct xs_victim_table *vt;
	struct xs_victim_view *view;
	struct xs_abi_header hc;
	bool alive = false;
	uint64_t now;
	int ret;

	/* Acquire: pairs with the release that frees busy below, so the
	 * previous holder's writes to the guarded fields are visible. */
	if (xs_exchange_acquire(&dc->busy, true))
		return;
	now = xs_now_ns();
	/* Acquire: see xs_daemon_idle(). */
	c = xs_load_acquire(&dc->conn);
	if (!c || (!force && now < xs_load_relaxed(&dc->next_poll_ns)))
		goto unbusy;
	xs_fetch_add_relaxed(&dc->polls, 1);
	/* Relaxed: a poll time, read by the tick thread outside busy
	 * (daemon_tick.c): at worst one late or early poll. A torn or invalid
	 * state is looked at again soon, a good one after a tick (below). */
	xs_store_relaxed(&dc->next_poll_ns, now + XS_DAEMON_POLL_MIN_NS);
	ret = xs_abi_pread_header(c->state_fd, &hc);
	if (ret == -EAGAIN) {
		/* Torn for XS_ABI_READ_WAIT_NS: a writer that died mid-write.
		 * Relaxed: a poll time (above); looked at again
		 * in a while, not at once (each look waits that long). */
		xs_store_relaxed(&dc->next_poll_ns, now + XS_DAEMON_POLL_MAX_NS);
	}
	if (ret)
		goto reject;
	/* The layout lines must still be the ones checked at connect. */
	if (memcmp(&hc, c->layout, sizeof(c->layout)) ||
	    xs_abi_check_layout(&hc, c->state_size)) {
		ret = -EBADMSG;
		goto reject;
	}
	{
		uint64_t poll_ns = hc.tick_ns < XS_DAEMON_POLL_MIN_NS   ? XS_DAEMON_POLL_MIN_NS
				   : hc.tick_ns > XS_DAEMON_POLL_MAX_NS ? XS_DAEMON_POLL_MAX_NS
									: hc.tick_ns;

		/* Relaxed: a poll time (above). */
		xs_store_relaxed(&dc->next_poll_ns, now + poll_ns);
	}
	if (!xs_abi_fresh(hc.heartbeat_ns, hc.flags, now, xs_abi_max_age(hc.tick_ns))) {
		ret = hc.flags & XS_ABI_F_EXITED ? -ESHUTDOWN : -ESTALE;
		goto reject;
	}
	/* The daemon lives; what follows may still find its rows invalid,
	 * which is no reason to reconnect. */
	alive = true;
	if (c->workers_copy)
		xs_daemon_workers_refresh(c);
	/* Relaxed: advice for thieves' off-CPU checks. */
	xs_store_relaxed(&c->fresh, true);
	if (!c->daemon_of || (hc.generation == dc->seen_gen && dc->daemon_view))
		goto out;
	if (!xs_daemon_can_adopt(dc))
		goto out; /* retired list full until the next job boundary */
	vt = xs_daemon_rows(dc, rt, c, &hc, hc.seq, &ret);
	if (!vt) {
		if (ret == -ENOMEM)
			goto out;
		if (ret)
			goto reject;
		dc->seen_gen = hc.generation;
		goto out;
	}
	view = xs_victim_view_build(rt, vt);
	xs_victim_table_free(vt);
	if (!view)
		goto out;
	dc->seen_gen = hc.generation;
	{
		struct xs_abi_victim *tmp = dc->adopted;

		dc->adopted = dc->scratch;
		dc->scratch = tmp;
	}
	xs_daemon_publish(dc, rt, view, true);
	/* Relaxed: a statistic; its first value only decides the log line. */
	if (!xs_fetch_add_relaxed(&dc->adopted_tables, 1))
		xs_daemon_log(rt, "using the daemon's victim table\n");
	goto out;

reject:
	xs_daemon_reject(dc, rt, c, ret);
out:
	/* Relaxed: read by the job-start thread as a reason to reconnect
	 * (xs_daemon_client_job_start()); one poll old at worst. */
	xs_store_relaxed(&c->alive, alive);
unbusy:
	/* Release: pairs with the acquire of the next holder. */
	xs_store_release(&dc->busy, false);
}
