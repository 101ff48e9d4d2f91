// SPDX-License-Identifier: MIT
/*
 * daemon_state.c - reading xschedd's state file, and checking what was read.
 *
 * The rule: every byte that comes from the daemon is copied into private
 * memory with pread() first, then validated, and only the copy is looked
 * at afterwards; nothing is read twice from the file (a second read could
 * differ from what was checked). The state file is never mapped: whoever
 * runs the daemon can shrink it, and a load from a mapped page past its
 * new end is a SIGBUS, where pread() gives a short read (-EBADMSG). The
 * seqlock's read side over pread() is xsched/abi_pread.h, shared with
 * libxsched-mpi and xsched-top; this file holds the client's checks of
 * what it copied, and calls no other of the client's files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/daemon_parts.h"
#include "core/runtime.h"
#include "topo/topology.h"


/* ---- a new connection's state: its layout and CPUs ---- */

/* CPU maps between the daemon's CPU indexes and ours, by CPU number. A
 * daemon that does not list one of our CPUs (XSCHED_SYSFS_ROOT, another
 * machine model) gives worker state only: daemon_of stays NULL. */
static int xs_daemon_conn_map_cpus(struct xs_daemon_conn *c, const struct xs_runtime *rt,
				   const struct xs_abi_header *hc)
{
	const struct xs_topology *t = rt->topo;
	struct xs_abi_cpu *cpus;
	uint32_t *daemon_of;
	int ret;

	c->lib_of = malloc(c->ncpus * sizeof(*c->lib_of));
	daemon_of = malloc(t->ncpus * sizeof(*daemon_of));
	cpus = malloc(c->ncpus * sizeof(*cpus));
	if (!c->lib_of || !daemon_of || !cpus) {
		free(daemon_of);
		free(cpus);
		return -ENOMEM;
	}
	/* Written once before the file was published: a copy, no seqlock; a
	 * value that is out of range or repeated is rejected below. */
	ret = xs_abi_pread(c->state_fd, cpus, c->ncpus * sizeof(*cpus), hc->cpu_off);
	if (ret) {
		free(daemon_of);
		free(cpus);
		return ret;
	}
	for (uint32_t i = 0; i < t->ncpus; i++)
		daemon_of[i] = UINT32_MAX;
	for (uint32_t d = 0; d < c->ncpus; d++) {
		int l = xs_topology_cpu_index(t, cpus[d].cpu);

		c->lib_of[d] = UINT32_MAX;
		if (l < 0)
			continue;
		if (daemon_of[l] != UINT32_MAX) {
			free(daemon_of);
			free(cpus);
			return -EBADMSG; /* a CPU listed twice */
		}
		daemon_of[l] = d;
		c->lib_of[d] = (uint32_t)l;
	}
	free(cpus);
	for (uint32_t i = 0; i < t->ncpus; i++) {
		if (daemon_of[i] == UINT32_MAX) {
			free(daemon_of);
			return 0;
		}
	}
	c->daemon_of = daemon_of;
	return 0;
}

/*
 * Check the state file c->state_fd (c->state_size bytes at connect) that
 * a daemon announcing @nslots slots handed over: a consistent header, its
 * layout, and the CPU maps between its CPUs and ours. Fills the layout
 * fields of @c. Returns 0, -EAGAIN (torn), -EPROTO, -EBADMSG, -ENOMEM.
 */
int xs_daemon_conn_state(struct xs_daemon_conn *c, const struct xs_runtime *rt,
			 uint32_t nslots)
{
	struct xs_abi_header hc;
	int ret;

	/* A daemon preempted inside a publication (seqlock odd) is waited
	 * for, XS_ABI_READ_WAIT_NS at most (xs_abi_pread_header()). */
	ret = xs_abi_pread_header(c->state_fd, &hc);
	if (!ret)
		ret = xs_abi_check_layout(&hc, c->state_size);
	if (!ret && (hc.ncpus > XS_MAX_CPUS || hc.nslots != nslots))
		ret = -EBADMSG;
	if (ret)
		return ret;
	memcpy(c->layout, &hc, sizeof(c->layout));
	c->ncpus = hc.ncpus;
	c->nslots = hc.nslots;
	c->max_age_ns = xs_abi_max_age(hc.tick_ns);
	return xs_daemon_conn_map_cpus(c, rt, &hc);
}

/* ---- the victim rows, copied then checked ---- */

/*
 * Copy the rows of our CPUs into dc->scratch under the seqlock, then turn
 * them into a table of ours: entries mapped to our CPU indexes (CPUs we do
 * not use dropped), same-node victims first (the view splits local from
 * remote there), each part in the daemon's order. Returns the table, or
 * NULL with *@err = -EAGAIN (torn), -EBADMSG (invalid rows), -ENOMEM.
 */
struct xs_victim_table *xs_daemon_rows(struct xs_daemon_client *dc, const struct xs_runtime *rt,
				       const struct xs_daemon_conn *c,
				       const struct xs_abi_header *hc, uint64_t seq, int *err)
{
	const struct xs_topology *t = rt->topo;
	uint32_t n = t->ncpus, dlen = hc->row_len;
	const size_t row = dlen * sizeof(struct xs_abi_victim);
	struct xs_victim_table *vt;
	uint64_t start = xs_now_ns();

	/* The rows of our CPUs, copied under the sequence @seq of the header
	 * copy @hc (pread: a file that shrank is -EBADMSG, not SIGBUS): the
	 * read section of xs_abi_pread_copy(), begun by the header's. */
	for (int tries = 0;; tries++) {
		int ret = 0;

		for (uint32_t r = 0; r < n && !ret; r++)
			ret = xs_abi_pread(c->state_fd, dc->scratch + (size_t)r * dlen, row,
					   hc->victim_off + (uint64_t)c->daemon_of[r] * row);
		if (ret && ret != -EAGAIN) {
			*err = ret;
			return NULL;
		}
		if (!ret && !xs_abi_pread_retry(c->state_fd, seq))
			break;
		if (!xs_abi_pread_wait(start, tries)) {
			*err = -EAGAIN;
			return NULL;
		}
		ret = xs_abi_pread_begin(c->state_fd, &seq);
		if (ret && ret != -EAGAIN) {
			*err = ret;
			return NULL;
		}
	}
	if (dc->daemon_view && !memcmp(dc->scratch, dc->adopted, (size_t)n * row)) {
		*err = 0; /* the rows we use already */
		return NULL;
	}
	vt = calloc(1, sizeof(*vt));
	if (vt && n > 1)
		vt->victims = calloc((size_t)n * (n - 1), sizeof(*vt->victims));
	if (!vt || (n > 1 && !vt->victims)) {
		xs_victim_table_free(vt);
		*err = -ENOMEM;
		return NULL;
	}
	vt->ncpus = n;
	vt->row_len = n - 1;
	for (uint32_t r = 0; r < n; r++) {
		const struct xs_abi_victim *in = dc->scratch + (size_t)r * dlen;
		struct xs_victim *out = vt->victims + (size_t)r * vt->row_len;
		uint32_t k = 0;

		for (int pass = 0; pass < 2; pass++) {
			for (uint32_t i = 0; i < dlen; i++) {
				uint32_t l;

				if (in[i].cpu_index >= c->ncpus)
					goto bad;
				l = c->lib_of[in[i].cpu_index];
				if (l == UINT32_MAX ||
				    (t->cpus[l].node == t->cpus[r].node) != (pass == 0))
					continue;
				if (k == vt->row_len)
					goto bad;
				out[k].cpu_index = l;
				out[k].class = in[i].locality;
				out[k].weight = in[i].weight;
				k++;
			}
		}
		if (k != vt->row_len)
			goto bad;
	}
	if (!xs_victim_table_check(vt))
		return vt;
bad:
	xs_victim_table_free(vt);
	*err = -EBADMSG;
	return NULL;
}


/* Size the row buffers for connection @c. */
int xs_daemon_rows_alloc(struct xs_daemon_client *dc, const struct xs_runtime *rt,
			 const struct xs_daemon_conn *c)
{
	size_t len = (size_t)rt->topo->ncpus * (c->ncpus ? c->ncpus - 1 : 0);

	if (len <= dc->rows_len && dc->scratch)
		return 0;
	free(dc->scratch);
	free(dc->adopted);
	dc->rows_len = 0;
	dc->scratch = calloc(len ? len : 1, sizeof(*dc->scratch));
	dc->adopted = calloc(len ? len : 1, sizeof(*dc->adopted));
	if (!dc->scratch || !dc->adopted)
		return -ENOMEM;
	dc->rows_len = len;
	return 0;
}
