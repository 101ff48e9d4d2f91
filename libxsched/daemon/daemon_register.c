// SPDX-License-Identifier: MIT
/*
 * daemon_register.c - which worker thread holds which slot of the daemon's
 * worker-state array.
 *
 * The rule: a worker's state is read only through the slot the daemon
 * gave its thread at REGISTER, and only while the slot still names that
 * thread (xs_daemon_worker_state() checks the tid). Every worker thread
 * records its tid before the runtime starts; the runtime registers them
 * all, in batches of XS_ABI_MAX_TIDS, once per connection; a tid the
 * daemon refuses simply has no slot. Worker 0 runs on whichever thread
 * calls the runtime, so its slot counts only while that is the thread
 * that registered (checked at every job start).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/daemon_parts.h"
#include "base/tid.h"
#include "core/runtime.h"

void xs_daemon_client_thread(struct xs_runtime *rt, uint32_t id)
{
	if (rt->daemon)
		rt->daemon->tids[id] = xs_tid();
}

void xs_daemon_worker0_check(struct xs_daemon_client *dc)
{
	/* Relaxed: read by the next job's thieves, published to them by the
	 * job's release. */
	xs_store_relaxed(&dc->w0_registered, xs_tid() == dc->tids[0]);
}

/* REGISTER every worker's tid; a refused one simply has no slot. */
int xs_daemon_register(struct xs_runtime *rt, struct xs_daemon_client *dc,
		       struct xs_daemon_conn *c)
{
	uint32_t n = dc->nworkers;

	c->nworkers = n;
	c->slot = malloc(n * sizeof(*c->slot));
	c->tid = malloc(n * sizeof(*c->tid));
	if (!c->slot || !c->tid)
		return -ENOMEM;
	memcpy(c->tid, dc->tids, n * sizeof(*c->tid));
	for (uint32_t w = 0; w < n; w++)
		c->slot[w] = UINT32_MAX;
	for (uint32_t w = 0; w < n; w += XS_ABI_MAX_TIDS) {
		uint32_t count = n - w < XS_ABI_MAX_TIDS ? n - w : XS_ABI_MAX_TIDS;
		struct xs_abi_reply r;
		int ret = xs_daemon_call(c->fd, XS_ABI_REGISTER, c->tid + w, count, &r, NULL);

		if (!ret && r.count != count)
			ret = -EBADMSG;
		if (ret) {
			xs_daemon_log(rt, "REGISTER: %s\n", strerror(-ret));
			return ret;
		}
		if (r.status)
			xs_daemon_log(rt, "REGISTER: some workers have no slot: %s\n",
				      r.status < 0 && r.status > -4096 ? strerror(-r.status)
								       : "bad status");
		for (uint32_t i = 0; i < count; i++) {
			if (r.slots[i] < c->nslots) {
				c->slot[w + i] = r.slots[i];
				c->registered++;
			}
		}
	}
	return 0;
}
