// SPDX-License-Identifier: MIT
/*
 * daemon_client.c - libxsched as a client of xschedd (daemon_client.h has
 * the what and when; include/xsched/abi.h the protocol and the layout).
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "daemon/daemon_client.h"
#include "base/tid.h"
#include "core/runtime.h"
#include "topo/topology.h"

/* The largest state file we map: far above any real machine's (1024 CPUs,
 * 1M slots are ~40 MiB); a bigger one is not xschedd's. */
#define XS_DAEMON_MAX_STATE (256ull << 20)
/* Poll interval bounds (the daemon's tick, clamped). */
#define XS_DAEMON_POLL_MIN_NS 1000000ull
#define XS_DAEMON_POLL_MAX_NS 100000000ull
/* Staleness: four ticks without a heartbeat, at least 100 ms (a daemon
 * delayed on a loaded machine is not dead), at most 2 s. */
#define XS_DAEMON_AGE_MIN_NS 100000000ull
#define XS_DAEMON_AGE_MAX_NS 2000000000ull

static const char *xs_daemon_dir(const struct xs_runtime *rt)
{
	return rt->opt.runtime_dir[0] ? rt->opt.runtime_dir : XS_ABI_DEFAULT_RUNTIME_DIR;
}

static void xs_daemon_log(const struct xs_runtime *rt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void xs_daemon_log(const struct xs_runtime *rt, const char *fmt, ...)
{
	va_list ap;

	if (!rt->opt.verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "xsched: xschedd: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* ---- the state under its seqlock ---- */

/*
 * The state file is read with pread() only (daemon_client.h says why): a
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

/* ---- connections ---- */

static void xs_daemon_conn_free(struct xs_daemon_conn *c)
{
	if (!c)
		return;
	if (c->state_fd >= 0)
		close(c->state_fd);
	if (c->workers && !c->workers_copy)
		munmap((void *)c->workers, c->workers_size);
	free(c->workers_copy);
	if (c->workers_fd >= 0)
		close(c->workers_fd);
	if (c->fd >= 0)
		close(c->fd);
	free(c->slot);
	free(c->tid);
	free(c->lib_of);
	free(c->daemon_of);
	free(c);
}

/* Receive one reply into @r and up to two descriptors into @fds (extra
 * ones are closed). Returns 0 or -errno; -EBADMSG for a malformed reply. */
static int xs_daemon_recv(int fd, uint16_t type, struct xs_abi_reply *r, int fds[2])
{
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int nfds = 0;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		int got[4];
		size_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		if (k > 4)
			k = 4;
		memcpy(got, CMSG_DATA(cm), k * sizeof(int));
		for (size_t i = 0; i < k; i++) {
			if (fds && nfds < 2)
				fds[nfds++] = got[i];
			else
				close(got[i]);
		}
	}
	if (n == 0)
		return -ECONNRESET;
	if ((size_t)n != sizeof(*r) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    r->magic != XS_ABI_MSG_MAGIC || r->version != XS_ABI_MSG_VERSION ||
	    r->size != sizeof(*r) || r->type != type)
		return -EBADMSG;
	return 0;
}

static int xs_daemon_call(int fd, uint16_t type, const uint32_t *tids, uint32_t count,
			  struct xs_abi_reply *r, int fds[2])
{
	struct xs_abi_request q;

	memset(&q, 0, sizeof(q));
	q.magic = XS_ABI_MSG_MAGIC;
	q.version = XS_ABI_MSG_VERSION;
	q.type = type;
	q.size = sizeof(q);
	q.count = count;
	if (count)
		memcpy(q.tids, tids, count * sizeof(*tids));
	if (send(fd, &q, sizeof(q), MSG_NOSIGNAL) != (ssize_t)sizeof(q))
		return -errno;
	return xs_daemon_recv(fd, type, r, fds);
}

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

/* HELLO and the state's mapping, for every reader of the daemon (the
 * runtimes' connections below, daemon_share.c): daemon_client.h. */
int xs_daemon_hello(const char *dir, long timeout_us, struct xs_daemon_hello *h,
		    const char **why)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = timeout_us / 1000000, .tv_usec = timeout_us % 1000000 };
	int fds[2] = { -1, -1 }, ret;
	struct stat st;

	memset(h, 0, sizeof(*h));
	h->fd = h->workers_fd = h->state_fd = -1;
	*why = "socket";
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/" XS_ABI_SOCKET_FILE,
			     dir) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	h->fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	/* A daemon that accepts but never answers must not hang us. */
	if (h->fd < 0 || setsockopt(h->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(h->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    connect(h->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = -errno;
		goto fail;
	}
	*why = "HELLO";
	ret = xs_daemon_call(h->fd, XS_ABI_HELLO, NULL, 0, &h->reply, fds);
	if (!ret && h->reply.status)
		ret = h->reply.status < 0 && h->reply.status > -4096 ? h->reply.status : -EBADMSG;
	if (!ret && (fds[0] < 0 || fds[1] < 0))
		ret = -EBADMSG;
	if (ret)
		goto fail;
	*why = "state file";
	if (fstat(fds[0], &st)) {
		ret = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < sizeof(struct xs_abi_header) ||
	    (uint64_t)st.st_size > XS_DAEMON_MAX_STATE) {
		ret = -EBADMSG;
		goto fail;
	}
	h->state_fd = fds[0];
	h->state_size = (size_t)st.st_size;
	h->workers_fd = fds[1];
	return 0;

fail:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	xs_daemon_hello_close(h);
	return ret;
}

void xs_daemon_hello_close(struct xs_daemon_hello *h)
{
	if (h->state_fd >= 0)
		close(h->state_fd);
	if (h->workers_fd >= 0)
		close(h->workers_fd);
	if (h->fd >= 0)
		close(h->fd);
	h->fd = h->workers_fd = h->state_fd = -1;
}

/*
 * Connect to the daemon (xs_daemon_hello()), check the state's layout, map
 * the worker-state array. Returns the connection (not registered, not
 * published) or NULL with *@err = -errno and *@why naming the step.
 */
static struct xs_daemon_conn *xs_daemon_connect(struct xs_runtime *rt, int *err,
						const char **why)
{
	struct xs_daemon_hello h;
	struct xs_daemon_conn *c;
	struct stat st;
	int ret;
	void *p;

	/* Connect before allocating anything: with no daemon, the retries
	 * at job starts cost a failed connect() and no malloc (the task
	 * pool's no-malloc guarantee holds with XSCHED_DAEMON=auto). */
	ret = xs_daemon_hello(xs_daemon_dir(rt), 2000000, &h, why);
	if (ret) {
		*err = ret;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		xs_daemon_hello_close(&h);
		*err = -ENOMEM;
		*why = "out of memory";
		return NULL;
	}
	/* The connection owns the socket and the descriptors from here. */
	c->fd = h.fd;
	c->mode = h.reply.mode;
	c->state_fd = h.state_fd;
	c->state_size = h.state_size;
	c->workers_fd = -1;
	ret = xs_daemon_conn_state(c, rt, h.reply.nslots);
	if (ret)
		goto fail;

	/* The worker-state array: without it, tables only. A BPF map (not a
	 * regular file, cannot shrink) is mapped; a file (degraded mode) is
	 * copied at every poll: whoever writes it could truncate it under a
	 * mapping. */
	c->workers_size = (size_t)c->nslots * sizeof(struct xs_abi_worker);
	if (c->nslots && !fstat(h.workers_fd, &st) && S_ISREG(st.st_mode)) {
		c->workers_copy = calloc(c->nslots, sizeof(*c->workers_copy));
		if (c->workers_copy) {
			c->workers = c->workers_copy;
			c->workers_fd = h.workers_fd;
			h.workers_fd = -1;
		}
	} else if (c->nslots && !fstat(h.workers_fd, &st)) {
		p = mmap(NULL, c->workers_size, PROT_READ, MAP_SHARED, h.workers_fd, 0);
		if (p != MAP_FAILED)
			c->workers = p;
		else
			xs_daemon_log(rt, "worker state not mapped (%s): tables only\n",
				      strerror(errno));
	}
	if (h.workers_fd >= 0)
		close(h.workers_fd);
	return c;

fail:
	close(h.workers_fd);
	xs_daemon_conn_free(c);
	*err = ret;
	return NULL;
}

/* REGISTER every worker's tid; a refused one simply has no slot. */
static int xs_daemon_register(struct xs_runtime *rt, struct xs_daemon_client *dc,
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

/* ---- retiring what thieves may still read ---- */

static void xs_daemon_retire(struct xs_daemon_client *dc, struct xs_runtime *rt, void *p,
			     bool is_conn)
{
	/* Callers made room (see the invariant in xs_daemon_can_adopt()). */
	dc->retired[dc->nretired++] = (struct xs_daemon_retired){
		/* Relaxed: the retiring thread has seen at least its own job's
		 * number; see daemon_client.h for why that tag is enough. */
		.p = p, .is_conn = is_conn, .tag = xs_load_relaxed(&rt->job_seq),
	};
}

static void xs_daemon_retired_free(struct xs_daemon_retired *r)
{
	if (r->is_conn)
		xs_daemon_conn_free(r->p);
	else
		xs_victim_view_free(r->p);
}

/* Job start, busy held: free what no worker can still be reading. */
static void xs_daemon_reclaim(struct xs_daemon_client *dc, uint64_t done)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < dc->nretired; i++) {
		if (dc->retired[i].tag + 2 <= done)
			xs_daemon_retired_free(&dc->retired[i]);
		else
			dc->retired[k++] = dc->retired[i];
	}
	dc->nretired = k;
}

/* Every published daemon view will need one retired entry when replaced:
 * nretired + daemon_view <= XS_DAEMON_MAX_RETIRED always holds, so a
 * fallback to the own view never lacks room. */
static bool xs_daemon_can_adopt(const struct xs_daemon_client *dc)
{
	return dc->nretired + (dc->daemon_view ? 1 : 0) + 1 <= XS_DAEMON_MAX_RETIRED;
}

static void xs_daemon_publish(struct xs_daemon_client *dc, struct xs_runtime *rt,
			      struct xs_victim_view *view, bool daemon_view)
{
	/* Relaxed: only the busy holder replaces the pointer. */
	struct xs_victim_view *old = xs_load_relaxed(&rt->victims);

	/* Release: the view's contents before its pointer; pairs with the
	 * thieves' acquire in xs_dlb_idle(). */
	xs_store_release(&rt->victims, view);
	if (dc->daemon_view)
		xs_daemon_retire(dc, rt, old, false);
	dc->daemon_view = daemon_view;
}

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
		if (xs_daemon_pread(c->workers_fd, &in, sizeof(in), (uint64_t)s * sizeof(in)))
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
		goto out;
	xs_fetch_add_relaxed(&dc->polls, 1);
	/* Relaxed: a poll time, see xs_daemon_idle(); a torn or invalid
	 * state is looked at again soon, a good one after a tick (below). */
	xs_store_relaxed(&dc->next_poll_ns, now + XS_DAEMON_POLL_MIN_NS);
	ret = xs_daemon_read_header(c->state_fd, &hc);
	if (ret == -EAGAIN) {
		/* Torn for XS_ABI_READ_WAIT_NS: a writer that died mid-write.
		 * Relaxed: a poll time, see xs_daemon_idle(); looked at again
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

		/* Relaxed: a poll time, see xs_daemon_idle(). */
		xs_store_relaxed(&dc->next_poll_ns, now + poll_ns);
	}
	if (!xs_abi_fresh(hc.heartbeat_ns, hc.flags, now, xs_daemon_max_age(hc.tick_ns))) {
		ret = hc.flags & XS_ABI_F_EXITED ? -ESHUTDOWN : -ESTALE;
		goto reject;
	}
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
	/* Release: pairs with the acquire of the next holder. */
	xs_store_release(&dc->busy, false);
}

/* Take busy on the job-start thread; waits only for a poll in progress,
 * which is bounded work. */
static void xs_daemon_busy_take(struct xs_daemon_client *dc)
{
	/* Acquire: as in xs_daemon_poll(). */
	while (xs_exchange_acquire(&dc->busy, true))
		sched_yield();
}

static void xs_daemon_busy_drop(struct xs_daemon_client *dc)
{
	/* Release: pairs with the acquire of the next holder. */
	xs_store_release(&dc->busy, false);
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

/* Publish @c as the connection (busy held; the old one is retired). */
static void xs_daemon_conn_publish(struct xs_daemon_client *dc, struct xs_runtime *rt,
				   struct xs_daemon_conn *c)
{
	/* Relaxed: only the job-start thread replaces it. */
	struct xs_daemon_conn *old = xs_load_relaxed(&dc->conn);

	/* Release: the connection's mappings and arrays before its pointer;
	 * pairs with the acquire in xs_daemon_idle(). */
	xs_store_release(&dc->conn, c);
	if (old) {
		/* The socket is ours alone: closing it now tells the old daemon
		 * (if it lives) to reclaim our slots. */
		close(old->fd);
		old->fd = -1;
		xs_daemon_retire(dc, rt, old, true);
	}
	dc->seen_gen = 0;
	/* Relaxed: a poll time and a statistic (see xs_daemon_idle()). */
	xs_store_relaxed(&dc->next_poll_ns, 0);
	xs_fetch_add_relaxed(&dc->connects, 1);
	xs_daemon_log(rt, "connected to %s (%s mode, %u CPUs), %u of %u workers registered%s\n",
		      xs_daemon_dir(rt), c->mode == XS_ABI_MODE_BPF ? "BPF" : "degraded",
		      c->ncpus, c->registered, c->nworkers,
		      c->daemon_of ? "" : "; its CPUs are not ours: worker state only");
}

int xs_daemon_client_create(struct xs_runtime *rt)
{
	struct xs_daemon_client *dc;
	struct xs_daemon_conn *c;
	const char *why;
	int err;

	if (rt->opt.daemon == XS_DAEMON_OFF)
		return 0;
	dc = xs_alloc_cache_aligned(sizeof(*dc));
	if (!dc)
		return -ENOMEM;
	memset(dc, 0, sizeof(*dc));
	dc->mode = (enum xs_daemon_mode)rt->opt.daemon;
	dc->nworkers = rt->nworkers;
	dc->tids = calloc(rt->nworkers, sizeof(*dc->tids));
	dc->wctr = xs_alloc_cache_aligned((size_t)rt->nworkers * sizeof(*dc->wctr));
	dc->rescue_ns = (uint64_t)rt->opt.rescue_us * 1000u;
	/* Relaxed: no thread but this one has seen the runtime yet. */
	dc->own_view = xs_load_relaxed(&rt->victims);
	rt->daemon = dc;
	if (!dc->tids || !dc->wctr)
		return -ENOMEM;
	memset(dc->wctr, 0, (size_t)rt->nworkers * sizeof(*dc->wctr));
	dc->last_attempt_ns = xs_now_ns();

	c = xs_daemon_connect(rt, &err, &why);
	if (!c) {
		char path[sizeof(rt->opt.runtime_dir) + 16];

		snprintf(path, sizeof(path), "%s/" XS_ABI_SOCKET_FILE, xs_daemon_dir(rt));
		if (dc->mode == XS_DAEMON_REQUIRED) {
			fprintf(stderr,
				"xsched: XSCHED_DAEMON=required but %s %s (XSCHED_RUNTIME_DIR=%s): "
				"%s: %s\n",
				strcmp(why, "socket") ? "the xschedd answering at"
						      : "no xschedd answers at",
				path, xs_daemon_dir(rt), why, strerror(-err));
			if (strcmp(why, "socket"))
				fprintf(stderr, "xsched: its %s is not usable; XSCHED_DAEMON=auto "
						"would go on without it\n", why);
			return err;
		}
		if (err != -ENOENT)
			xs_daemon_log(rt, "%s: %s: %s; using our own tables\n", path, why,
				      strerror(-err));
		return 0;
	}
	if (xs_daemon_rows_alloc(dc, rt, c)) {
		xs_daemon_conn_free(c);
		return -ENOMEM;
	}
	/* Registered and published once the threads run and have tids. */
	dc->pending = c;
	return 0;
}

void xs_daemon_client_thread(struct xs_runtime *rt, uint32_t id)
{
	if (rt->daemon)
		rt->daemon->tids[id] = xs_tid();
}

void xs_daemon_client_start(struct xs_runtime *rt)
{
	struct xs_daemon_client *dc = rt->daemon;
	struct xs_daemon_conn *c;

	if (!dc)
		return;
	dc->tids[0] = xs_tid();
	c = dc->pending;
	dc->pending = NULL;
	if (!c)
		return;
	if (xs_daemon_register(rt, dc, c)) {
		xs_daemon_conn_free(c);
		return;
	}
	xs_daemon_conn_publish(dc, rt, c);
}

/* Whether @c has published within its staleness bound. */
static bool xs_daemon_conn_alive(const struct xs_daemon_conn *c, uint64_t now)
{
	struct xs_abi_header hc;

	return !xs_daemon_read_header(c->state_fd, &hc) &&
	       !memcmp(&hc, c->layout, sizeof(c->layout)) &&
	       xs_abi_fresh(hc.heartbeat_ns, hc.flags, now, xs_daemon_max_age(hc.tick_ns));
}

void xs_daemon_client_job_start(struct xs_runtime *rt, uint64_t now)
{
	struct xs_daemon_client *dc = rt->daemon;
	struct xs_daemon_conn *c, *old;
	const char *why;
	int err;

	if (!dc)
		return;
	/* Relaxed: read at the next job's thieves' polls, published to
	 * them by the job's release. */
	xs_store_relaxed(&dc->w0_registered, xs_tid() == dc->tids[0]);
	xs_daemon_busy_take(dc);
	/* Relaxed: this thread is the only writer of job_seq; every job up
	 * to it has passed its barrier. */
	xs_daemon_reclaim(dc, xs_load_relaxed(&rt->job_seq));
	xs_daemon_busy_drop(dc);

	/* Relaxed: this thread is the only writer of conn. */
	old = xs_load_relaxed(&dc->conn);
	/* Relaxed: a poll time (xs_daemon_idle()). The last poll looked at
	 * the state and set when to look again, a daemon tick later: until
	 * then nothing can be learnt, so a job start reads nothing, and a
	 * stream of short jobs or parallel loops makes no system call for
	 * the daemon's sake. A daemon that dies meanwhile is seen at the
	 * first job start after that time, as the thieves' polls see it. */
	if (old && now < xs_load_relaxed(&dc->next_poll_ns))
		return;
	if (old && xs_daemon_conn_alive(old, now)) {
		xs_daemon_poll(dc, rt, false);
		return;
	}
	if (old)
		xs_daemon_poll(dc, rt, false); /* stale: own table back */
	if (now - dc->last_attempt_ns < XS_DAEMON_RETRY_NS)
		return;
	dc->last_attempt_ns = now;
	c = xs_daemon_connect(rt, &err, &why);
	if (!c)
		return;
	xs_daemon_busy_take(dc);
	if (dc->nretired + (dc->daemon_view ? 1 : 0) + (old ? 1 : 0) > XS_DAEMON_MAX_RETIRED ||
	    xs_daemon_rows_alloc(dc, rt, c)) {
		xs_daemon_busy_drop(dc);
		xs_daemon_conn_free(c);
		return;
	}
	xs_daemon_busy_drop(dc);
	/* The old daemon (if it lives on) releases our tids when its socket
	 * closes; close it before registering them with the new one. */
	if (old && old->fd >= 0) {
		close(old->fd);
		old->fd = -1;
	}
	if (xs_daemon_register(rt, dc, c)) {
		xs_daemon_conn_free(c);
		return;
	}
	xs_daemon_busy_take(dc);
	xs_daemon_conn_publish(dc, rt, c);
	xs_daemon_busy_drop(dc);
	xs_daemon_poll(dc, rt, true);
}

void xs_daemon_client_destroy(struct xs_runtime *rt)
{
	struct xs_daemon_client *dc = rt->daemon;

	if (!dc)
		return;
	/* Relaxed: every worker has been joined. */
	if (dc->daemon_view) {
		xs_victim_view_free(xs_load_relaxed(&rt->victims));
		xs_store_relaxed(&rt->victims, dc->own_view);
	}
	for (uint32_t i = 0; i < dc->nretired; i++)
		xs_daemon_retired_free(&dc->retired[i]);
	xs_daemon_conn_free(dc->pending); /* created, never started */
	xs_daemon_conn_free(xs_load_relaxed(&dc->conn));
	free(dc->scratch);
	free(dc->adopted);
	free(dc->tids);
	free(dc->wctr);
	free(dc);
	rt->daemon = NULL;
}

int xs_daemon_info(struct xs_runtime *rt, struct xs_daemon_info *info)
{
	struct xs_daemon_client *dc;
	struct xs_daemon_conn *c;

	if (!rt || !info)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	dc = rt->daemon;
	if (!dc)
		return 0;
	xs_daemon_busy_take(dc);
	/* Acquire: see xs_daemon_idle(). */
	c = xs_load_acquire(&dc->conn);
	if (c) {
		info->connected = 1;
		info->fresh = xs_load_relaxed(&c->fresh);
		info->registered = c->registered;
		info->mode = c->mode;
	}
	info->using_daemon_table = dc->daemon_view;
	xs_daemon_busy_drop(dc);
	/* Relaxed: statistics. */
	info->connects = xs_load_relaxed(&dc->connects);
	info->polls = xs_load_relaxed(&dc->polls);
	info->adopted = xs_load_relaxed(&dc->adopted_tables);
	info->rejected = xs_load_relaxed(&dc->rejected);
	info->last_reject = xs_load_relaxed(&dc->last_reject);
	info->fallbacks = xs_load_relaxed(&dc->fallbacks);
	for (uint32_t w = 0; w < dc->nworkers; w++) {
		info->off_cpu_skips += xs_load_relaxed(&dc->wctr[w].off_cpu_skips);
		info->stranded += xs_load_relaxed(&dc->wctr[w].stranded);
		info->early_parks += xs_load_relaxed(&dc->wctr[w].early_parks);
	}
	return 0;
}
