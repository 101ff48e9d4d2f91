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
 *   2. The processes: the pids of the clients holding slots, and of those
 *      that said HELLO within XSCHEDD_SHARE_HOLD_MS (SO_PEERCRED at
 *      connect, held by a pidfd: a process cannot speak for another). One
 *      is active while it uses a CPU: one of its workers is on a CPU or
 *      waiting for one at the tick, or its threads' CPU time
 *      (/proc/PID/stat, sampled every XSD_CPU_SAMPLE_NS) grew by at least
 *      XSD_CPU_BUSY_TICKS clock ticks in the last sample (a tenth of a CPU
 *      and more), and for XSCHEDD_SHARE_HOLD_MS after. A HELLO alone, or a
 *      worker woken now and then, counts for nothing: a process cannot
 *      take a share without using it. A program asks for its share before
 *      its first team (the drop-in under OMP_DYNAMIC); it is counted once
 *      its start-up has used a CPU for a sample, and reads a newcomer's
 *      part until then. An idle process keeps its entry with cpus 0: its
 *      part goes to the others. A process that unregisters or exits
 *      leaves the table; a process that has lent stays while its lending
 *      connection does.
 *   3. The division, as the kernel's fair scheduling does with a group per
 *      user: equal parts per user with an active process (the remainder
 *      one CPU each to the lowest uids), then each user's part in equal
 *      parts among its active processes (the remainder to the lowest
 *      pids). The parts add up to the usable CPUs, never more: with more
 *      active users or processes than CPUs, the last get none.
 *   4. Lending (XS_ABI_LEND): a process whose connections have CPUs on
 *      loan gives up to its part less one (it keeps the CPU it waits on);
 *      each lent CPU goes to the active process that does not lend and has
 *      borrowed least so far (the lowest pid on a tie), one of the
 *      lender's user if there is one, else anyone's: a user's lends serve
 *      its own other ranks first, as its part was its own. The sum stays
 *      what the division gave. The cap is applied again every tick, so a
 *      lend taken when the lender's part was larger cannot outgrow a
 *      part that shrank since; a lease whose process is gone counts for
 *      nothing (xsd_client_lent()).
 *   5. The sets: CPUs taken node by node (every CPU of a node before the
 *      next node's), the ones other work keeps busiest left out, handed out
 *      in pid order; a process gets as many as its share.
 *
 * Only the event loop's thread runs this; the result reaches readers in
 * the tick's seqlock write section (xsd_state_publish()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xschedd.h"

/* How often a listed process's CPU time is read, and how much it must
 * have grown (clock ticks, USER_HZ) for the process to count as busy:
 * 2 ticks in 100 ms is 10 ms of CPU at least, a tenth of a CPU. */
#define XSD_CPU_SAMPLE_NS 100000000ull
#define XSD_CPU_BUSY_TICKS 2

/* A process this tick: its entry, its user, whether it uses a CPU, the
 * CPUs its connections have on loan (before the cap). */
struct xsd_proc {
	struct xs_abi_share s;
	uint32_t uid;
	uint32_t lend;
	bool busy;
};

int xsd_shares_init(struct xsd *d)
{
	uint32_t n = d->topo->ncpus;

	d->procs = calloc(d->nslots, sizeof(*d->procs));
	d->procs_next = calloc(d->nslots, sizeof(*d->procs_next));
	d->proc_tmp = calloc(d->nslots, sizeof(*d->proc_tmp));
	d->slot_switches = calloc(d->nslots, sizeof(*d->slot_switches));
	d->cpu_owner = calloc(n, sizeof(*d->cpu_owner));
	d->cpu_order = calloc(n, sizeof(*d->cpu_order));
	d->share_cpus = n;
	return d->procs && d->procs_next && d->proc_tmp && d->slot_switches && d->cpu_owner &&
		       d->cpu_order
		       ? 0
		       : -ENOMEM;
}

void xsd_shares_free(struct xsd *d)
{
	free(d->procs);
	free(d->procs_next);
	free(d->proc_tmp);
	free(d->slot_switches);
	free(d->cpu_owner);
	free(d->cpu_order);
}

static int xsd_proc_cmp(const void *a, const void *b)
{
	const struct xsd_proc *x = a, *y = b;

	return x->s.pid < y->s.pid ? -1 : x->s.pid > y->s.pid;
}

/* @t (CLOCK_MONOTONIC, 0: never) lies within the hold time before @now. */
static bool xsd_share_recent(const struct xsd *d, uint64_t t, uint64_t now)
{
	return t && now - t <= (uint64_t)d->opt.share_hold_ms * 1000000u;
}

/* CPU time (utime + stime, clock ticks) of process @pid's threads. */
static int xsd_proc_ticks(uint32_t pid, uint64_t *ticks)
{
	char path[64], buf[512], *p;
	unsigned long long ut, st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name may hold anything but its end */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			 &st) != 2)
		return -EBADMSG;
	*ticks = ut + st;
	return 0;
}

/* Sample @c's process CPU time when due; whether it is busy now. */
static bool xsd_client_busy(struct xsd *d, struct xsd_client *c, uint64_t now)
{
	struct xsd_client_share *sh = xsd_client_share(c);
	uint64_t ticks;

	if ((!sh->cpu_ns || now - sh->cpu_ns >= XSD_CPU_SAMPLE_NS) &&
	    !xsd_proc_ticks(xsd_client_pid(c), &ticks)) {
		if (sh->cpu_ns && ticks >= sh->cpu_ticks + XSD_CPU_BUSY_TICKS)
			sh->busy_ns = now;
		sh->cpu_ticks = ticks;
		sh->cpu_ns = now;
	}
	return sh->running || xsd_share_recent(d, sh->busy_ns, now);
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

/* @pid's entry in the last tick's table (sorted by pid), or NULL. */
static const struct xs_abi_share *xsd_share_last(const struct xsd *d, uint32_t pid)
{
	uint32_t lo = 0, hi = d->nprocs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nprocs && d->procs[lo].pid == pid ? &d->procs[lo] : NULL;
}

/* active_ns of @pid in the last tick's table, or 0. */
static uint64_t xsd_share_last_active(const struct xsd *d, uint32_t pid)
{
	const struct xs_abi_share *e = xsd_share_last(d, pid);

	return e ? e->active_ns : 0;
}

/* Equal parts of @cpus among the @n entries of @p that are busy, the
 * remainder to the first: each gets s.cpus. */
static void xsd_share_split(struct xsd_proc **p, uint32_t n, uint32_t cpus)
{
	for (uint32_t i = 0, a = 0; i < n; i++)
		p[i]->s.cpus = n ? cpus / n + (a++ < cpus % n) : 0;
}

static int xsd_proc_uid_cmp(const void *a, const void *b)
{
	const struct xsd_proc *x = *(struct xsd_proc *const *)a;
	const struct xsd_proc *y = *(struct xsd_proc *const *)b;

	if (x->uid != y->uid)
		return x->uid < y->uid ? -1 : 1;
	return x->s.pid < y->s.pid ? -1 : x->s.pid > y->s.pid;
}

/* The borrower of the next CPU that a lender of @uid lends: an active
 * process that does not lend, of @uid if one is, the one that has borrowed
 * least (lowest pid on a tie: @p is in pid order); NULL: nobody. */
static struct xsd_proc *xsd_share_borrower(struct xsd_proc *p, uint32_t n, uint32_t uid)
{
	struct xsd_proc *best = NULL;

	for (int same = 1; same >= 0 && !best; same--)
		for (uint32_t i = 0; i < n; i++) {
			if (!p[i].busy || p[i].lend || (same && p[i].uid != uid))
				continue;
			if (!best || p[i].s.borrowed < best->s.borrowed)
				best = &p[i];
		}
	return best;
}

/* 4. Lending: each lender's CPUs, but one of its part, to the borrowers. */
static void xsd_share_lend(struct xsd_proc *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t give;

		if (!p[i].lend || !p[i].busy || p[i].s.cpus < 2)
			continue;
		give = p[i].lend < p[i].s.cpus - 1 ? p[i].lend : p[i].s.cpus - 1;
		for (; give; give--) {
			struct xsd_proc *b = xsd_share_borrower(p, n, p[i].uid);

			if (!b)
				break;
			b->s.cpus++;
			b->s.borrowed++;
			p[i].s.cpus--;
			p[i].s.lent++;
		}
	}
}

/* The CPUs of process @pid's own part in the last division (its share
 * less what it borrowed, with what it lent), 0 if it has none. */
uint32_t xsd_shares_own(const struct xsd *d, uint32_t pid)
{
	const struct xs_abi_share *e = xsd_share_last(d, pid);

	return e ? e->cpus + e->lent - e->borrowed : 0;
}

/* The division again now, published at once: a lend or its end is seen
 * by the borrowers before the lender hears back. */
void xsd_shares_republish(struct xsd *d)
{
	uint64_t now = xsd_now_ns();

	xsd_shares_tick(d, now);
	xsd_state_publish(d, now);
}

/* The entry of @pid in @p (@n, sorted by pid), or NULL. */
static struct xsd_proc *xsd_proc_find(struct xsd_proc *p, uint32_t n, uint32_t pid)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p[mid].s.pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && p[lo].s.pid == pid ? &p[lo] : NULL;
}

void xsd_shares_tick(struct xsd *d, uint64_t now)
{
	struct xsd_proc *tmp = d->proc_tmp, **act;
	struct xs_abi_share *next = d->procs_next;
	uint32_t n = 0, m = 0, nact = 0, nusers = 0, active = 0, usable, k, j;

	/* 2. the slots of each client this tick */
	for (struct xsd_client *c = xsd_client_first(d); c; c = xsd_client_next_mut(c)) {
		struct xsd_client_share *sh = xsd_client_share(c);

		sh->workers = 0;
		sh->running = 0;
	}
	for (uint32_t s = 0; s < d->nslots; s++) {
		struct xsd_client_share *sh;
		uint32_t state;

		if (!d->owner[s])
			continue;
		sh = xsd_client_share(d->owner[s]);
		/* Relaxed: BPF rewrites the slot at every switch (degraded
		 * mode: this thread at the tick); a value one switch old is
		 * what any reader of the array gets. Only counted, never
		 * used as an index. */
		state = __atomic_load_n(&d->workers[s].state, __ATOMIC_RELAXED);
		sh->workers++;
		/* degraded mode: CPU ticks that moved are CPU used */
		if (xsd_slot_running(state) ||
		    (d->mode != XS_ABI_MODE_BPF && d->wticks_moved && d->wticks_moved[s]))
			sh->running++;
	}
	/* the processes: clients with slots or a recent HELLO, one entry
	 * each, then merged by pid */
	for (struct xsd_client *c = xsd_client_first(d); c && n < d->nslots;
	     c = xsd_client_next_mut(c)) {
		struct xsd_client_share *sh = xsd_client_share(c);

		/* A lender's connection keeps its process listed: a rank
		 * with no workers of its own holds a part to lend (if it
		 * uses a CPU, as any process) */
		if (!sh->workers && !xsd_share_recent(d, xsd_client_hello_ns(c), now) &&
		    !xsd_client_lender(c))
			continue;
		memset(&tmp[n], 0, sizeof(tmp[n]));
		tmp[n].s.pid = xsd_client_pid(c);
		tmp[n].s.workers = sh->workers;
		tmp[n].s.running = sh->running;
		tmp[n].uid = xsd_client_uid(c);
		tmp[n].busy = xsd_client_busy(d, c, now);
		n++;
	}
	qsort(tmp, n, sizeof(*tmp), xsd_proc_cmp);
	for (uint32_t i = 0; i < n; i++) {
		if (m && tmp[m - 1].s.pid == tmp[i].s.pid) {
			tmp[m - 1].s.workers += tmp[i].s.workers;
			tmp[m - 1].s.running += tmp[i].s.running;
			tmp[m - 1].busy |= tmp[i].busy;
			continue;
		}
		tmp[m++] = tmp[i];
	}
	n = m;
	act = malloc((n ? n : 1) * sizeof(*act));
	for (uint32_t i = 0; i < n; i++) {
		tmp[i].s.active_ns = tmp[i].busy ? now : xsd_share_last_active(d, tmp[i].s.pid);
		if (tmp[i].busy && act)
			act[nact++] = &tmp[i];
	}

	/* 1. the CPUs, 3. the division: per user, then per process */
	usable = xsd_share_cpus(d);
	if (act) {
		qsort(act, nact, sizeof(*act), xsd_proc_uid_cmp);
		for (uint32_t i = 0; i < nact; i++)
			nusers += !i || act[i]->uid != act[i - 1]->uid;
		for (uint32_t i = 0, u = 0; i < nact; u++) {
			uint32_t e = i, part = usable / nusers + (u < usable % nusers);

			while (e < nact && act[e]->uid == act[i]->uid)
				e++;
			xsd_share_split(act + i, e - i, part);
			i = e;
		}
		free(act);
	}
	/* 4. lending: what each process's connections have on loan */
	for (struct xsd_client *c = xsd_client_first(d); c; c = xsd_client_next_mut(c)) {
		uint32_t lent = xsd_client_lent(c);
		struct xsd_proc *p = lent ? xsd_proc_find(tmp, n, xsd_client_pid(c)) : NULL;

		if (p)
			p->lend = p->lend + lent < p->lend ? UINT32_MAX : p->lend + lent;
	}
	xsd_share_lend(tmp, n);
	/* share_active: the processes counted in the division, those left
	 * without a CPU (more of them than CPUs) included */
	for (uint32_t i = 0; i < n; i++) {
		next[i] = tmp[i].s;
		active += tmp[i].busy;
	}

	/* 5. the sets */
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
