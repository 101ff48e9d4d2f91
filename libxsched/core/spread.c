// SPDX-License-Identifier: MIT
/*
 * spread.c - an unpinned team keeps its workers on distinct CPUs (spread.h).
 *
 * Why: a waiter that spins or yields on the CPU its teammate was placed on
 * keeps the teammate it waits for from running. With two co-running
 * drop-in programs of 2 threads each on 2 CPUs, 50 000 barriers each, in
 * the slow runs nearly every yield of a waiting worker was made with its
 * teammate last seen on the same CPU (docs/perf/corun.md).
 */
#include <errno.h>

#include "core/runtime.h"
#include "core/spread.h"

/* At most one move per worker this often: a move costs a migration, and
 * the load balancer may answer one by moving another thread. */
#define XS_SPREAD_GAP_NS 1000000u

int xs_spread_target(int me, const int *team, uint32_t n, const cpu_set_t *allowed)
{
	bool shared = false;

	for (uint32_t i = 0; i < n; i++)
		shared |= team[i] == me;
	if (!shared)
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		bool taken = cpu == me || !CPU_ISSET(cpu, allowed);

		for (uint32_t i = 0; i < n && !taken; i++)
			taken = team[i] == cpu;
		if (!taken)
			return cpu;
	}
	return -1;
}

void xs_spread_note(struct xs_worker *w)
{
	int cpu;

	if (!w->rt->opt.spread || w->rt->pinned || w->rt->oversubscribed)
		return;
	cpu = sched_getcpu();
	/* Relaxed: a hint for teammates' xs_spread(); a stale CPU costs at
	 * most one needless or missed move. Stored only when it changed:
	 * every wait begins here, and teammates read the line. */
	if (xs_load_relaxed(&w->spread.cpu) != cpu)
		xs_store_relaxed(&w->spread.cpu, cpu);
}

bool xs_spread(struct xs_worker *w, uint64_t now)
{
	struct xs_runtime *rt = w->rt;
	int team[64], me, target;
	uint32_t n = 0;
	bool shared = false;
	cpu_set_t allowed, one;

	/* More workers than CPUs: some must share, and moving only trades
	 * which ones (a migration and two syscalls each time). */
	if (!rt->opt.spread || rt->pinned || rt->oversubscribed || w->nworkers < 2 ||
	    now < w->spread.after)
		return false;
	xs_spread_note(w);
	/* Relaxed: our own word, just written. */
	me = xs_load_relaxed(&w->spread.cpu);
	for (uint32_t i = 0; i < w->nworkers && n < 64; i++) {
		struct xs_worker *t = rt->workers[i];

		/* Relaxed: hints. A parked teammate needs no CPU, so sharing
		 * one with it costs nothing. */
		if (t != w && xs_load_relaxed(&t->park.state) != XS_PARK_SLEEPING) {
			team[n] = xs_load_relaxed(&t->spread.cpu);
			shared |= team[n++] == me;
		}
	}
	if (!shared || me < 0)
		return false;
	w->spread.after = now + XS_SPREAD_GAP_NS;
	/* The mask is read here and restored below: a mask another thread
	 * sets for this one in between is lost (a race we accept). */
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return false;
	target = xs_spread_target(me, team, n, &allowed);
	if (target < 0)
		return false;
	CPU_ZERO(&one);
	CPU_SET(target, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return false;
	/* The kernel moved us; give the whole mask back (we stay here). */
	sched_setaffinity(0, sizeof(allowed), &allowed);
	xs_counter_inc(&w->spread.moves);
	xs_spread_note(w);
	return true;
}
