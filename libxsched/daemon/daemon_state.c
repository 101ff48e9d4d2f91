// SPDX-License-Identifier: MIT
/*
 * daemon_state.c - reading xschedd's state file, and checking what was read.
 *
 * The rule: every byte that comes from the daemon is copied into private
 * memory with pread() first, then validated, and only the copy is looked
 * at afterwards; nothing is read twice from the file (a second read could
 * differ from what was checked). The state file is never mapped: whoever
 * runs the daemon can shrink it, and a load from a mapped page past its
 * new end is a SIGBUS, where pread() gives a short read (-EBADMSG). This
 * file calls no other of the client's files: every reader of the daemon
 * (the runtimes' poll, daemon_share.c, tests/fuzz) goes through it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon/daemon_parts.h"
#include "core/runtime.h"
#include "topo/topology.h"

/* Staleness: four ticks without a heartbeat, at least 100 ms (a daemon
 * delayed on a loaded machine is not dead), at most 2 s. */
#define XS_DAEMON_AGE_MIN_NS 100000000ull
#define XS_DAEMON_AGE_MAX_NS 2000000000ull

/* ---- the state under its seqlock ---- */

/*
 * The state file is read with pread() only (the rule above): a
 * file that shrank gives a short read, -EBADMSG, where a mapping would
 * give SIGBUS. The seqlock (abi.h) works the same over pread(): the
 * sequence, an acquire fence, the copy, an acquire fence, the sequence
 * again. pread()'s copy is not one 64-bit load, but every write section
 * moves the sequence's low byte by 2, so a copy of it that mixes bytes
 * of neighbouring values never matches an earlier one unless 128 write
 * sections pass during one 8-byte copy.
 */
int xs_daemon_pread(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EBADMSG; /* shorter than its layout: truncated */
		done += (size_t)n;
	}
	return 0;
}

int xs_daemon_state_begin(int fd, uint64_t *seq)
{
	int ret = xs_daemon_pread(fd, seq, sizeof(*seq), offsetof(struct xs_abi_header, seq));

	/* Acquire fence: pairs with the release in xs_abi_write_end(); the
	 * copy after it sees everything written before seq became even. */
	xs_fence_acquire();
	if (ret)
		return ret;
	return *seq & 1 ? -EAGAIN : 0;
}

bool xs_daemon_state_retry(int fd, uint64_t seq)
{
	uint64_t now;

	/* Acquire fence: orders the copy's loads (pread's) before the
	 * sequence's second load; pairs with the release fence in
	 * xs_abi_write_begin(). */
	xs_fence_acquire();
	return (seq & 1) ||
	       xs_daemon_pread(fd, &now, sizeof(now), offsetof(struct xs_abi_header, seq)) ||
	       now != seq;
}

bool xs_daemon_read_wait(uint64_t start_ns, int tries)
{
	if (xs_now_ns() - start_ns > XS_ABI_READ_WAIT_NS)
		return false; /* a writer that died mid-write, or one stopped */
	if (tries >= XS_ABI_READ_RETRIES) {
		/* Descheduled mid-write: give it a CPU, do not spin. */
		struct timespec ts = { 0, 50000 };

		nanosleep(&ts, NULL);
	}
	return true;
}

/* A consistent copy of the header, -EAGAIN when it stayed torn for
 * XS_ABI_READ_WAIT_NS (a writer that died mid-write leaves seq odd), or
 * -EBADMSG (shorter than a header), -errno. */
int xs_daemon_read_header(int fd, struct xs_abi_header *copy)
{
	uint64_t start = xs_now_ns(), seq;

	for (int tries = 0;; tries++) {
		int ret = xs_daemon_state_begin(fd, &seq);

		if (!ret)
			ret = xs_daemon_pread(fd, copy, sizeof(*copy), 0);
		if (ret && ret != -EAGAIN)
			return ret;
		if (!ret && !xs_daemon_state_retry(fd, seq)) {
			copy->seq = seq;
			return 0;
		}
		if (!xs_daemon_read_wait(start, tries))
			return -EAGAIN;
	}
}

uint64_t xs_daemon_max_age(uint64_t tick_ns)
{
	uint64_t age = tick_ns > XS_DAEMON_AGE_MAX_NS / 4 ? XS_DAEMON_AGE_MAX_NS : 4 * tick_ns;

	return age < XS_DAEMON_AGE_MIN_NS ? XS_DAEMON_AGE_MIN_NS : age;
}

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
	ret = xs_daemon_pread(c->state_fd, cpus, c->ncpus * sizeof(*cpus), hc->cpu_off);
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
	 * for, XS_ABI_READ_WAIT_NS at most (xs_daemon_read_header()). */
	ret = xs_daemon_read_header(c->state_fd, &hc);
	if (!ret)
		ret = xs_abi_check_layout(&hc, c->state_size);
	if (!ret && (hc.ncpus > XS_MAX_CPUS || hc.nslots != nslots))
		ret = -EBADMSG;
	if (ret)
		return ret;
	memcpy(c->layout, &hc, sizeof(c->layout));
	c->ncpus = hc.ncpus;
	c->nslots = hc.nslots;
	c->max_age_ns = xs_daemon_max_age(hc.tick_ns);
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
	 * copy @hc (pread: a file that shrank is -EBADMSG, not SIGBUS). */
	for (int tries = 0;; tries++) {
		int ret = 0;

		for (uint32_t r = 0; r < n && !ret; r++)
			ret = xs_daemon_pread(c->state_fd, dc->scratch + (size_t)r * dlen, row,
					      hc->victim_off + (uint64_t)c->daemon_of[r] * row);
		if (ret && ret != -EAGAIN) {
			*err = ret;
			return NULL;
		}
		if (!ret && !xs_daemon_state_retry(c->state_fd, seq))
			break;
		if (!xs_daemon_read_wait(start, tries)) {
			*err = -EAGAIN;
			return NULL;
		}
		ret = xs_daemon_state_begin(c->state_fd, &seq);
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
