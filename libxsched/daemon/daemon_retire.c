// SPDX-License-Identifier: MIT
/*
 * daemon_retire.c - swapping the thieves' victim view, and freeing what
 * thieves may still read.
 *
 * The rule (an RCU-like swap over the runtime's job epochs): a view or a
 * connection is immutable once published; a new one replaces it with a
 * release store of the pointer, and the old one goes on the retired list.
 * Thieves load the pointers only inside a job and drop them at its
 * barrier, so what was replaced while job J ran can be loaded by no
 * worker once every worker has arrived at the barrier of job J + 1.
 *
 * Retirement happens on the tick thread (daemon_tick.c) or the job-start
 * thread, with busy held; neither reads job_seq to date it. The job-start
 * thread, the only writer of job_seq, stamps every entry it finds
 * unstamped with the number of the last job posted (@done below) when it
 * takes busy: the retirement happened before it took busy, so during
 * that job or an earlier one, and the stamp is never too small. An entry
 * stamped S is freed at the first job start that finds
 * S + 2 <= done (job S + 1, the last one that could have been running
 * when the entry was stamped late, is then over too), or at destroy.
 *
 * The list is bounded (XS_DAEMON_MAX_RETIRED): a poll that would overflow
 * it keeps the current view until the next job boundary frees room, and
 * nretired + daemon_view <= XS_DAEMON_MAX_RETIRED always holds, so that
 * going back to the own view never lacks room.
 */
#include "daemon/daemon_parts.h"
#include "core/runtime.h"

/* The tag of an entry that the job-start thread has not yet stamped. */
#define XS_DAEMON_UNSTAMPED UINT64_MAX

void xs_daemon_retire(struct xs_daemon_client *dc, void *p, bool is_conn)
{
	/* Callers made room (xs_daemon_can_adopt()). */
	dc->retired[dc->nretired++] = (struct xs_daemon_retired){
		.p = p, .is_conn = is_conn, .tag = XS_DAEMON_UNSTAMPED,
	};
}

static void xs_daemon_retired_free(struct xs_daemon_retired *r)
{
	if (r->is_conn)
		xs_daemon_conn_free(r->p);
	else
		xs_victim_view_free(r->p);
}

/* Job start, busy held, @done the last job posted: stamp, then free what
 * no worker can still be reading. */
void xs_daemon_reclaim(struct xs_daemon_client *dc, uint64_t done)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < dc->nretired; i++) {
		struct xs_daemon_retired *r = &dc->retired[i];

		if (r->tag == XS_DAEMON_UNSTAMPED)
			r->tag = done;
		if (r->tag + 2 <= done)
			xs_daemon_retired_free(r);
		else
			dc->retired[k++] = *r;
	}
	dc->nretired = k;
}

bool xs_daemon_can_adopt(const struct xs_daemon_client *dc)
{
	return dc->nretired + (dc->daemon_view ? 1 : 0) + 1 <= XS_DAEMON_MAX_RETIRED;
}

void xs_daemon_publish(struct xs_daemon_client *dc, struct xs_runtime *rt,
		       struct xs_victim_view *view, bool daemon_view)
{
	/* Relaxed: only the busy holder replaces the pointer. */
	struct xs_victim_view *old = xs_load_relaxed(&rt->victims);

	/* Release: the view's contents before its pointer; pairs with the
	 * thieves' acquire in xs_dlb_idle(). */
	xs_store_release(&rt->victims, view);
	if (dc->daemon_view)
		xs_daemon_retire(dc, old, false);
	dc->daemon_view = daemon_view;
}

/* Destroy: every worker joined, the tick thread stopped. */
void xs_daemon_retired_free_all(struct xs_daemon_client *dc)
{
	for (uint32_t i = 0; i < dc->nretired; i++)
		xs_daemon_retired_free(&dc->retired[i]);
	dc->nretired = 0;
}
