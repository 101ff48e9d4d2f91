// SPDX-License-Identifier: MIT
/*
 * dlb.c - NA-WS and NA-RP on the lock-less messaging protocol (dlb.h),
 * and the auto strategy that picks parameters from measured task sizes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/daemon_client.h"
#include "core/runtime.h"
#include "topo/topology.h"

void xs_dlb_init(struct xs_worker *w, const struct xs_dlb_config *cfg)
{
	struct xs_dlb_state *d = &w->dlb;

	d->p = *cfg;
	if (d->p.push == XS_PUSH_AUTO)
		d->p.push = cfg->strategy == XS_DLB_SLB ? XS_PUSH_RR : XS_PUSH_LOCAL;
	d->automatic = cfg->strategy == XS_DLB_AUTO;
	if (d->automatic)
		d->p.strategy = XS_DLB_WS; /* until tasks have been measured */
	d->redirect_left = 0;
	d->idle_visits = 0;
	d->task_cycles = 0;
	if (!d->round) {
		/* Rounds start at 1 and only grow, across reconfigurations too. */
		d->round = 1;
		d->rng = 0x9e3779b97f4a7c15ull * (w->id + 1);
		/* Single writer; readers only compare it with request cells. */
		xs_store_relaxed(&w->cells.round, 1);
		xs_store_relaxed(&w->cells.request, 0);
	}
}

/* Each field of the API struct has the range of its XSCHED_* option: one
 * table (options.c) decides what is valid, whichever way it is set. */
static const struct {
	const char *name;
	const char *option;
	size_t offset;
} xs_dlb_fields[] = {
	{ "strategy", "XSCHED_DLB", offsetof(struct xs_dlb_config, strategy) },
	{ "push", "XSCHED_PUSH", offsetof(struct xs_dlb_config, push) },
	{ "victims", "XSCHED_DLB_VICTIMS", offsetof(struct xs_dlb_config, victims) },
	{ "steal", "XSCHED_DLB_STEAL", offsetof(struct xs_dlb_config, steal) },
	{ "timeout", "XSCHED_DLB_TIMEOUT", offsetof(struct xs_dlb_config, timeout) },
	{ "local_percent", "XSCHED_DLB_LOCAL", offsetof(struct xs_dlb_config, local_percent) },
};

int xs_dlb_config_check(const struct xs_dlb_config *cfg)
{
	for (size_t i = 0; i < sizeof(xs_dlb_fields) / sizeof(xs_dlb_fields[0]); i++) {
		unsigned int v = *(const unsigned int *)((const char *)cfg +
							 xs_dlb_fields[i].offset);
		int64_t min, max;

		if (xs_option_range(xs_dlb_fields[i].option, &min, &max) < 0)
			return -EINVAL;
		if (v < min || v > max) {
			fprintf(stderr, "xsched: xs_dlb_config.%s = %u: expected %lld..%lld (as %s)\n",
				xs_dlb_fields[i].name, v, (long long)min, (long long)max,
				xs_dlb_fields[i].option);
			return -EINVAL;
		}
	}
	if (cfg->push == XS_PUSH_LOCAL && cfg->strategy == XS_DLB_SLB) {
		fprintf(stderr, "xsched: push = local (XSCHED_PUSH) needs a dynamic strategy "
				"(XSCHED_DLB=ws, rp or auto): with slb no task would ever "
				"leave its worker\n");
		return -EINVAL;
	}
	return 0;
}

int xs_runtime_get_dlb(const struct xs_runtime *rt, struct xs_dlb_config *cfg)
{
	if (!rt || !cfg)
		return -EINVAL;
	*cfg = rt->dlb;
	return 0;
}

int xs_runtime_set_dlb(struct xs_runtime *rt, const struct xs_dlb_config *cfg)
{
	if (!rt || !cfg)
		return -EINVAL;
	if (xs_self)
		return -EBUSY;
	if (xs_dlb_config_check(cfg) < 0)
		return -EINVAL;
	/* Each worker owns its balancing state and adopts the new settings
	 * itself when it starts the next job (xs_worker_run_job()): the
	 * release of that job's sequence number publishes these stores. */
	rt->dlb = *cfg;
	rt->dlb_gen++;
	return 0;
}

/* The victim's round moves on: the request just handled is now stale. */
static void xs_dlb_round_bump(struct xs_worker *w)
{
	w->dlb.round = (w->dlb.round + 1) & XS_DLB_ROUND_MASK;
	/* Relaxed: thieves use it only to build requests, and a request built
	 * from a stale round is ignored; coherence keeps it monotonic. */
	xs_store_relaxed(&w->cells.round, w->dlb.round);
}

void xs_dlb_redirect_end(struct xs_worker *w)
{
	w->dlb.redirect_left = 0;
	xs_dlb_round_bump(w);
}

/* Oldest queued task of ours (master first, then auxiliaries): the one a
 * thief should get, as in work stealing. */
static struct xs_task *xs_worker_pop_oldest(struct xs_worker *w)
{
	for (uint32_t k = 0; k < w->nworkers; k++) {
		struct xs_task *t = xs_spsc_pop(w->in[k]);

		if (t)
			return t;
	}
	return NULL;
}

/* NA-WS: move up to S queued tasks into our queue towards the thief. */
static void xs_dlb_serve_ws(struct xs_worker *w, uint32_t thief)
{
	struct xs_spsc *to = xs_worker_queue_to(w, thief);
	uint32_t moved = 0;

	while (moved < w->dlb.p.steal) {
		struct xs_task *t;

		if (!xs_spsc_reserve(to)) {
			xs_counter_inc(&w->ctr.requests_target_full);
			break;
		}
		t = xs_worker_pop_oldest(w);
		if (!t) {
			if (!moved)
				xs_counter_inc(&w->ctr.requests_source_empty);
			break;
		}
		xs_spsc_push(to, t);
		moved++;
	}
	if (moved) {
		xs_counter_inc(&w->ctr.requests_with_steal);
		xs_counter_add(xs_dlb_thief_local(w, thief) ? &w->ctr.stolen_local
							       : &w->ctr.stolen_remote,
			       moved);
		xs_park_notify(&w->rt->workers[thief]->park);
	}
	xs_dlb_round_bump(w);
}

void xs_dlb_serve(struct xs_worker *w, uint64_t req)
{
	uint32_t thief = xs_dlb_request_thief(req);

	xs_counter_inc(&w->ctr.requests_handled);
	if (thief >= w->nworkers || thief == w->id ||
	    xs_worker_saturated(w->rt->workers[thief])) {
		xs_dlb_round_bump(w); /* unknown, or may take no more work */
		return;
	}
	if (w->dlb.p.strategy == XS_DLB_RP) {
		/* NA-RP: the spawn path sends the next S tasks to the thief
		 * and ends the round (xs_dlb_redirect_end). */
		w->dlb.redirect_to = thief;
		w->dlb.redirect_left = w->dlb.p.steal;
		w->dlb.redirect_sent = 0;
		return;
	}
	xs_dlb_serve_ws(w, thief);
}

static uint64_t xs_dlb_random(struct xs_dlb_state *d)
{
	/* xorshift64: victim choice needs speed, not quality. */
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	return d->rng;
}

/* Pick a victim: from the thief's node with probability P, else from the
 * other nodes; within the chosen group at random, weighted. -1 if none. */
static int xs_dlb_pick_victim(struct xs_worker *w, const struct xs_victim_view *view)
{
	struct xs_dlb_state *d = &w->dlb;
	uint32_t first = view->first[w->id];
	uint32_t nlocal = view->nlocal[w->id], nremote = view->nremote[w->id];
	uint32_t begin, count;
	uint64_t total = 0, pick;

	if (!nlocal && !nremote)
		return -1;
	if ((nlocal && xs_dlb_random(d) % 100 < d->p.local_percent) || !nremote) {
		begin = first;
		count = nlocal;
	} else {
		begin = first + nlocal;
		count = nremote;
	}
	for (uint32_t i = 0; i < count; i++)
		total += view->weight[begin + i];
	pick = xs_dlb_random(d) % total;
	for (uint32_t i = 0; i < count; i++) {
		if (pick < view->weight[begin + i])
			return (int)view->ids[begin + i];
		pick -= view->weight[begin + i];
	}
	return (int)view->ids[begin + count - 1];
}

void xs_dlb_idle(struct xs_worker *w)
{
	struct xs_dlb_state *d = &w->dlb;
	const struct xs_victim_view *view;
	const struct xs_daemon_conn *daemon;

	if (d->p.strategy == XS_DLB_SLB || d->idle_visits++ % d->p.timeout ||
	    xs_worker_saturated(w))
		return;
	/* xschedd: may publish a fresher view first; non-NULL while its
	 * worker state is fresh. */
	daemon = xs_daemon_idle(w->rt->daemon);
	/* Acquire pairs with the release that published the view. */
	view = xs_load_acquire(&w->rt->victims);
	for (uint32_t n = 0; n < d->p.victims; n++) {
		int v = xs_dlb_pick_victim(w, view);
		struct xs_dlb_cells *cells;
		uint64_t round, req;

		if (v < 0)
			return;
		if (daemon && xs_daemon_off_cpu(w->rt->daemon, daemon, (uint32_t)v)) {
			/* Preempted or blocked: it would not see a request
			 * before it runs again. */
			xs_daemon_count_skip(w->rt->daemon, daemon, w->id, (uint32_t)v);
			continue;
		}
		cells = &w->rt->workers[v]->cells;
		/* Relaxed: see xs_dlb_round_bump(); a stale round only makes
		 * a request the victim will ignore. */
		round = xs_load_relaxed(&cells->round);
		req = xs_load_relaxed(&cells->request);
		if (xs_dlb_request_round(req) == round)
			continue; /* somebody asked this victim this round */
		/* Relaxed: the request carries only our id; the tasks come
		 * back through a queue, whose stores publish them. */
		xs_store_relaxed(&cells->request, xs_dlb_request(round, w->id));
		xs_counter_inc(&w->ctr.requests_sent);
	}
}

/*
 * auto: the guidance of the paper's Table IV, by measured task size in TSC
 * ticks: fine tasks want work stealing of few tasks, NUMA-local; coarser
 * tasks want bigger steals and some remote ones; the coarsest redirect
 * push. Steal size N x S x log10(T) grows with task size as in Fig. 9/10.
 */
static const struct {
	uint64_t below;  /* task size upper bound, TSC ticks */
	struct xs_dlb_config p;
} xs_dlb_guidance[] = {
	{ 100, { XS_DLB_WS, 0, 1, 1, 10000, 100 } },
	{ 1000, { XS_DLB_WS, 0, 1, 4, 10000, 100 } },
	{ 10000, { XS_DLB_WS, 0, 2, 8, 1000, 100 } },
	{ 100000, { XS_DLB_WS, 0, 2, 32, 1000, 50 } },
	{ UINT64_MAX, { XS_DLB_RP, 0, 4, 32, 1000, 12 } },
};

void xs_dlb_auto_sample(struct xs_worker *w, uint64_t cycles)
{
	struct xs_dlb_state *d = &w->dlb;
	unsigned int push;
	size_t i = 0;

	/* Exponential moving average, weight 1/8 for the new sample. */
	d->task_cycles = d->task_cycles ? d->task_cycles - d->task_cycles / 8 + cycles / 8
					: cycles;
	while (d->task_cycles >= xs_dlb_guidance[i].below)
		i++;
	/* Never switch strategy in the middle of a redirect. */
	if (d->redirect_left && xs_dlb_guidance[i].p.strategy != XS_DLB_RP)
		return;
	push = d->p.push; /* the push policy is the user's, not the table's */
	d->p = xs_dlb_guidance[i].p;
	d->p.push = push;
}
