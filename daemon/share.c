// SPDX-License-Identifier: MIT
/*
 * share.c - machine-wide arbitration: every tick, how many CPUs each
 * process with registered workers may use (struct xs_abi_share in
 * include/xsched/abi.h), and which ones.
 *
 *   1. The CPUs xsched processes may use: ours less the whole CPUs that
 *      other work keeps busy (the decayed foreign loads summed, rounded
 *      down after adding a tenth of a CPU, as libgomp biases its load
 *      average), at least 1; all of ours with XSCHEDD_SHARE_FOREIGN=0.
 *   2. The processes: the pids of the clients holding slots (SO_PEERCRED,
 *      so a process cannot speak for another). One is active while one of
 *      its workers is on a CPU, waiting for one, or was switched in since
 *      the last tick (BPF: its switch count moved; degraded mode: /proc
 *      shows CPU time or state R), and for XSCHEDD_SHARE_HOLD_MS after.
 *      A HELLO counts too, for the same time, slots or not: a program
 *      asks for its share before it starts its first team (the drop-in
 *      under OMP_DYNAMIC), and two programs started together must each
 *      see the other then, not once their teams run.
 *      An idle process keeps its entry with cpus 0: its part goes to the
 *      others. A process that unregisters or exits leaves the table.
 *   3. The division: equal parts in pid order, the remainder one CPU each
 *      to the first ones, at least 1 each.
 *   4. The sets: CPUs taken node by node (every CPU of a node before the
 *      next node's), the ones other work keeps busiest left out, handed out
 *      in the same pid order; a process gets as many as its share while
 *      they last (more active processes than CPUs: the last get none).
 *
 * Only the event loop's thread runs this; the result reaches readers in
 * the tick's seqlock write section (xsd_state_publish()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xschedd.h"

int xsd_shares_init(struct xsd *d)
{
	uint32_t n = d->topo->ncpus;

	d->procs = calloc(d->nslots, sizeof(*d->procs));
	d->procs_next = calloc(d->nslots, sizeof(*d->procs_next));
	d->slot_switches = calloc(d->nslots, sizeof(*d->slot_switches));
	d->cpu_owner = calloc(n, sizeof(*d->cpu_owner));
	d->cpu_order = calloc(n, sizeof(*d->cpu_order));
	d->share_cpus = n;
	return d->procs && d->procs_next && d->slot_switches && d->cpu_owner && d->cpu_order
		       ? 0
		       : -ENOMEM;
}

void xsd_shares_free(struct xsd *d)
{
	free(d->procs);
	free(d->procs_next);
	free(d->slot_switches);
	free(d->cpu_owner);
	free(d->cpu_order);
}

static int xsd_proc_cmp(const void *a, const void *b)
{
	const struct xs_abi_share *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* @t (CLOCK_MONOTONIC, 0: never) lies within the hold time before @now. */
static bool xsd_share_recent(const struct xsd *d, uint64_t t, uint64_t now)
{
	return t && now - t <= (uint64_t)d->opt.share_hold_ms * 1000000u;
}

static bool xsd_share_active(const struct xsd *d, const struct xs_abi_share *p, uint64_t now)
{
	return xsd_share_recent(d, p->active_ns, now);
}

/* The CPU indexes node by node into cpu_order (xsd_share_drop_busy() then
 * leaves out the busiest); returns how many of them xsched may use. */
static uint32_t xsd_share_cpus(struct xsd *d)
{
	const struct xs_topology *t = d->topo;
	uint32_t n = t->ncpus, k = 0, busy;
	uint64_t foreign = 0;

	for (uint32_t i = 0; i < n; i++)
		foreign += d->cpu && d->cpu[i].primed ? d->cpu[i].foreign : 0;
	busy = d->opt.share_foreign ? (uint32_t)((foreign + 100) / 1000) : 0;
	for (uint32_t node = 0; node < t->nnodes; node++)
		for (uint32_t i = 0; i < n; i++)
			if (t->cpus[i].node == node)
				d->cpu_order[k++] = i;
	for (uint32_t i = 0; i < n; i++) /* a node index out of range: last */
		if (t->cpus[i].node >= t->nnodes)
			d->cpu_order[k++] = i;
	return busy >= n ? 1 : n - busy;
}

/* Leave out the @drop CPUs that other work keeps busiest: their order
 * entries become UINT32_MAX. */
static void xsd_share_drop_busy(struct xsd *d, uint32_t drop)
{
	uint32_t n = d->topo->ncpus;

	for (uint32_t k = 0; k < drop; k++) {
		uint32_t best = UINT32_MAX, load = 0;

		for (uint32_t j = 0; j < n; j++) {
			uint32_t i = d->cpu_order[j];

			if (i != UINT32_MAX && (best == UINT32_MAX || d->cpu[i].foreign > load)) {
				best = j;
				load = d->cpu[i].foreign;
			}
		}
		if (best != UINT32_MAX)
			d->cpu_order[best] = UINT32_MAX;
	}
}

static bool xsd_slot_running(uint32_t state)
{
	/* UNKNOWN: registered since the last switch, by itself, so running. */
	return state == XS_ABI_WORKER_ON_CPU || state == XS_ABI_WORKER_RUNNABLE ||
	       state == XS_ABI_WORKER_PREEMPTED || state == XS_ABI_WORKER_UNKNOWN;
}

/* @pid's entry in next[0..*@n): found, or added with the activity it had
 * at the last tick while fewer than nslots are listed. Returns its index,
 * or *@n when the table is full. */
static uint32_t xsd_share_entry(const struct xsd *d, struct xs_abi_share *next, uint32_t *n,
				uint32_t pid)
{
	uint32_t i;

	for (i = 0; i < *n && next[i].pid != pid; i++)
		;
	if (i < *n || *n == d->nslots)
		return i;
	memset(&next[i], 0, sizeof(next[i]));
	next[i].pid = pid;
	for (uint32_t o = 0; o < d->nprocs; o++)
		if (d->procs[o].pid == pid)
			next[i].active_ns = d->procs[o].active_ns;
	++*n;
	return i;
}

void xsd_shares_tick(struct xsd *d, uint64_t now)
{
	struct xs_abi_share *next = d->procs_next;
	uint32_t n = 0, active = 0, usable, base, rem, k, j;

	/* 2. the processes and their activity */
	for (uint32_t s = 0; s < d->nslots; s++) {
		const struct xs_abi_worker *w = &d->workers[s];
		uint32_t pid, state, i;
		uint64_t sw;
		bool ran;

		if (!d->owner[s])
			continue;
		pid = xsd_client_pid(d->owner[s]);
		/* Relaxed: BPF rewrites the slot at every switch (degraded
		 * mode: this thread at the tick); a value one switch old is
		 * what any reader of the array gets. */
		state = __atomic_load_n(&w->state, __ATOMIC_RELAXED);
		sw = __atomic_load_n(&w->switches, __ATOMIC_RELAXED);
		ran = d->mode == XS_ABI_MODE_BPF ? sw != d->slot_switches[s]
						 : d->wticks_moved && d->wticks_moved[s];
		d->slot_switches[s] = sw;
		/* Never full here: at most one new entry per slot. */
		i = xsd_share_entry(d, next, &n, pid);
		next[i].workers++;
		if (xsd_slot_running(state))
			next[i].running++;
		if (ran || xsd_slot_running(state))
			next[i].active_ns = now;
	}
	for (const struct xsd_client *c = d->clients; c; c = xsd_client_next(c)) {
		uint64_t hello = xsd_client_hello_ns(c);
		uint32_t pid = xsd_client_pid(c), i;

		if (!xsd_share_recent(d, hello, now))
			continue;
		i = xsd_share_entry(d, next, &n, pid);
		if (i == n)
			continue; /* more processes than slots: the registered first */
		if (hello > next[i].active_ns)
			next[i].active_ns = hello;
	}
	qsort(next, n, sizeof(*next), xsd_proc_cmp);

	/* 1. the CPUs, 3. the division */
	usable = xsd_share_cpus(d);
	for (uint32_t i = 0; i < n; i++)
		active += xsd_share_active(d, &next[i], now);
	base = active ? usable / active : 0;
	rem = active ? usable % active : 0;
	for (uint32_t i = 0, a = 0; i < n; i++) {
		if (!xsd_share_active(d, &next[i], now))
			continue;
		next[i].cpus = base + (a++ < rem);
		if (!next[i].cpus)
			next[i].cpus = 1;
	}

	/* 4. the sets */
	xsd_share_drop_busy(d, d->topo->ncpus - usable);
	memset(d->cpu_owner, 0, d->topo->ncpus * sizeof(*d->cpu_owner));
	for (k = 0, j = 0; k < n; k++)
		for (uint32_t c = 0; c < next[k].cpus && j < d->topo->ncpus; j++) {
			if (d->cpu_order[j] == UINT32_MAX)
				continue;
			d->cpu_owner[d->cpu_order[j]] = next[k].pid;
			c++;
		}

	d->procs_next = d->procs;
	d->procs = next;
	d->nprocs = n;
	d->share_cpus = usable;
	d->share_active = active;
}
