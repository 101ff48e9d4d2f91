// SPDX-License-Identifier: MIT
/*
 * clients.c - the client protocol on <runtime-dir>/socket (SOCK_SEQPACKET).
 *
 * A request is exactly one struct xs_abi_request (xsched/abi.h), answered
 * by exactly one struct xs_abi_reply:
 *
 *   HELLO        status 0, nslots, mode; SCM_RIGHTS: the state file and the
 *                worker-state array, both read-only
 *   REGISTER     tids[0..count) -> slots[0..count); each tid must be a
 *                thread of the peer's process (SO_PEERCRED pid, checked in
 *                /proc/PID/task/TID) and not registered yet; the client's
 *                quota (XSCHEDD_CLIENT_SLOTS) and the global one (the slot
 *                count) hold. status is the first failure: -EPERM (not the
 *                caller's thread), -EEXIST, -EDQUOT (client quota), -ENOSPC
 *   UNREGISTER   tids[0..count) the client holds -> freed
 *
 * A message that is not exactly that (empty, short, long, bad magic,
 * version, size, type, count) is malformed: an XS_ABI_ERROR reply with -EBADMSG,
 * -EMSGSIZE, -EPROTO or -EOPNOTSUPP, then the connection is closed. The
 * daemon serves everyone else as before.
 *
 * Slots are reclaimed when the client disconnects (its process died or
 * closed the socket) and, every second, when a registered thread is gone.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "xschedd.h"

/* Large enough that an oversized request is seen as one (SEQPACKET
 * truncates a record to the buffer, so a buffer of exactly one request
 * could not tell an oversized one). */
#define XSD_RECV_BUF 512

struct xsd_client {
	int fd;
	uint32_t pid, uid;
	uint32_t nslots;
	uint64_t id;
	uint64_t hello_ns;  /* CLOCK_MONOTONIC of its last HELLO, 0: none */
	struct xsd_client *next, **pprev; /* d->clients list */
	unsigned char buf[XSD_RECV_BUF];
};

/* The socket is bound and listening under a temporary name, then renamed
 * into place: whoever sees <runtime-dir>/socket can connect to it (a
 * client polling for the file never gets ECONNREFUSED from the moment
 * between bind and listen). */
int xsd_socket_open(struct xsd *d)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[PATH_MAX + sizeof(XS_ABI_SOCKET_FILE) + 1];
	int fd, ret;

	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s.new", d->opt.runtime_dir,
			     XS_ABI_SOCKET_FILE) >= sizeof(sa.sun_path)) {
		xsd_log("XSCHEDD_RUNTIME_DIR=\"%s\" is too long for a socket path (max %zu)\n",
			d->opt.runtime_dir,
			sizeof(sa.sun_path) - sizeof(XS_ABI_SOCKET_FILE ".new") - 1);
		return -ENAMETOOLONG;
	}
	snprintf(path, sizeof(path), "%s/%s", d->opt.runtime_dir, XS_ABI_SOCKET_FILE);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(sa.sun_path); /* a previous instance's; we hold the runtime dir */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(sa.sun_path, (mode_t)d->opt.socket_mode) || listen(fd, 128) ||
	    rename(sa.sun_path, path)) {
		ret = -errno;
		xsd_log("%s: %s\n", sa.sun_path, strerror(errno));
		unlink(sa.sun_path);
		close(fd);
		return ret;
	}
	d->listen_fd = fd;
	return 0;
}

struct xsd_client *xsd_client_new(struct xsd *d, int fd)
{
	static uint64_t next_id;
	struct xsd_client *c;
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (d->nclients >= (uint64_t)d->opt.max_clients) {
		xsd_log("client refused: XSCHEDD_MAX_CLIENTS=%lld reached\n",
			(long long)d->opt.max_clients);
		close(fd);
		return NULL;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.pid <= 0) {
		close(fd);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return NULL;
	}
	c->fd = fd;
	c->pid = (uint32_t)cred.pid;
	c->uid = (uint32_t)cred.uid;
	c->id = ++next_id;
	c->next = d->clients;
	if (c->next)
		c->next->pprev = &c->next;
	c->pprev = &d->clients;
	d->clients = c;
	d->nclients++;
	if (d->opt.verbose)
		xsd_log("client %llu: pid %u uid %u connected\n", (unsigned long long)c->id,
			c->pid, c->uid);
	return c;
}

void *xsd_client_buf(struct xsd_client *c, size_t *len)
{
	*len = sizeof(c->buf);
	return c->buf;
}

int xsd_client_fd(const struct xsd_client *c)
{
	return c->fd;
}

uint32_t xsd_client_pid(const struct xsd_client *c)
{
	return c->pid;
}

uint64_t xsd_client_hello_ns(const struct xsd_client *c)
{
	return c->hello_ns;
}

const struct xsd_client *xsd_client_next(const struct xsd_client *c)
{
	return c->next;
}

/* Write slot @s: through the program in BPF mode (the map is frozen),
 * directly into the degraded-mode file otherwise. The state word goes
 * last: readers test it first. */
static int xsd_slot_write(struct xsd *d, uint32_t s, uint32_t tid, uint32_t pid,
			  uint32_t state, uint32_t cpu, bool if_unknown)
{
	struct xs_abi_worker w = { .tid = tid, .pid = pid, .state = state, .cpu = cpu };

	if (d->bpf)
		return xsd_bpf_slot_set(d, s, &w, if_unknown);
	if (if_unknown && d->workers[s].state != XS_ABI_WORKER_UNKNOWN)
		return 0;
	if (!if_unknown) {
		d->workers[s].tid = tid;
		d->workers[s].pid = pid;
		d->workers[s].since_ns = xsd_now_ns();
		d->workers[s].switches = 0;
	}
	d->workers[s].cpu = cpu;
	/* Relaxed: readers take the slot as advice, one tick old at worst. */
	__atomic_store_n(&d->workers[s].state, state, __ATOMIC_RELAXED);
	return 0;
}

static void xsd_slot_free(struct xsd *d, uint32_t s)
{
	/* Unregistered first: the programs no longer write the slot, then
	 * readers see tid 0 = free. */
	if (d->bpf)
		xsd_bpf_unregister(d, d->workers[s].tid, s);
	xsd_slot_write(d, s, 0, 0, XS_ABI_WORKER_FREE, 0, false);
	d->owner[s]->nslots--;
	d->owner[s] = NULL;
	d->used_slots--;
}

static void xsd_client_free(struct xsd *d, struct xsd_client *c)
{
	uint32_t freed = c->nslots;

	for (uint32_t s = 0; s < d->nslots && c->nslots; s++)
		if (d->owner[s] == c)
			xsd_slot_free(d, s);
	if (d->opt.verbose)
		xsd_log("client %llu: pid %u gone, %u slot(s) reclaimed\n",
			(unsigned long long)c->id, c->pid, freed);
	close(c->fd);
	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	d->nclients--;
	free(c);
}

/* At exit, after the ring is gone (no receive in flight into a buffer). */
void xsd_client_close_all(struct xsd *d)
{
	while (d->clients)
		xsd_client_free(d, d->clients);
}

static int xsd_send(struct xsd_client *c, struct xs_abi_reply *r, const int *fds, int nfds)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	r->magic = XS_ABI_MSG_MAGIC;
	r->version = XS_ABI_MSG_VERSION;
	r->size = sizeof(*r);
	if (nfds) {
		struct cmsghdr *cm;

		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	/* Never block the loop on a client that does not read its replies. */
	if (sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof(*r))
		return -EIO;
	return 0;
}

static bool xsd_tid_of(uint32_t pid, uint32_t tid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/task/%u", pid, tid);
	return tid && !stat(path, &st);
}

static int32_t xsd_register(struct xsd *d, struct xsd_client *c, uint32_t tid,
			    uint32_t *slot)
{
	uint32_t s;
	int ret;

	*slot = UINT32_MAX;
	if (!xsd_tid_of(c->pid, tid))
		return -EPERM;
	for (s = 0; s < d->nslots; s++)
		if (d->owner[s] && d->workers[s].tid == tid)
			return -EEXIST;
	if (c->nslots >= (uint64_t)d->opt.client_slots)
		return -EDQUOT;
	if (d->used_slots >= d->nslots)
		return -ENOSPC;
	for (s = 0; d->owner[s]; s++)
		;
	/* The slot's identity first, then the registration (the thread's
	 * task storage) that lets the programs write it. */
	ret = xsd_slot_write(d, s, tid, c->pid, XS_ABI_WORKER_UNKNOWN, 0, false);
	if (!ret && d->bpf) {
		ret = xsd_bpf_register(d, c->pid, tid, s);
		if (ret)
			xsd_slot_write(d, s, 0, 0, XS_ABI_WORKER_FREE, 0, false);
	}
	if (ret)
		return ret;
	if (d->bpf) {
		/* A thread already asleep is not switched again until it wakes:
		 * start from what /proc says, unless the program got there
		 * first (it owns the slot from the registration on). */
		uint64_t ticks;
		uint32_t cpu;
		char st;

		if (!xsd_task_stat(c->pid, tid, &ticks, &st, &cpu))
			xsd_slot_write(d, s, tid, c->pid,
				       xsd_worker_state(st),
				       cpu, true);
	}
	d->owner[s] = c;
	c->nslots++;
	d->used_slots++;
	*slot = s;
	return 0;
}

static int xsd_malformed(struct xsd *d, struct xsd_client *c, int32_t err, const char *why)
{
	struct xs_abi_reply r = { .type = XS_ABI_ERROR, .status = err };

	if (d->opt.verbose)
		xsd_log("client %llu (pid %u): %s: closing\n", (unsigned long long)c->id, c->pid,
			why);
	xsd_send(c, &r, NULL, 0);
	xsd_client_free(d, c);
	return -1;
}

/* A receive of 0 bytes is an empty SEQPACKET record or the end of the
 * connection; the socket tells them apart (the peer's close shuts down
 * our receive side). */
static bool xsd_hung_up(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLRDHUP };

	if (poll(&p, 1, 0) < 0)
		return true;
	return p.revents & (POLLRDHUP | POLLHUP | POLLERR);
}

int xsd_client_input(struct xsd *d, struct xsd_client *c, int n)
{
	const struct xs_abi_request *q = (const void *)c->buf;
	struct xs_abi_reply r;
	const char *why;
	int fds[2], ret;

	if (n < 0 || (n == 0 && xsd_hung_up(c->fd))) {
		xsd_client_free(d, c);
		return -1;
	}
	ret = xsd_request_check(c->buf, (size_t)n, &why);
	if (ret)
		return xsd_malformed(d, c, ret, why);
	memset(&r, 0, sizeof(r));
	r.type = q->type;
	r.mode = d->mode;
	switch (q->type) {
	case XS_ABI_HELLO:
		c->hello_ns = xsd_now_ns();
		r.nslots = d->nslots;
		fds[0] = d->state_ro_fd;
		fds[1] = d->workers_ro_fd;
		if (xsd_send(c, &r, fds, 2))
			goto gone;
		return 0;
	case XS_ABI_REGISTER:
		r.count = q->count;
		for (uint32_t i = 0; i < q->count; i++) {
			int32_t err = xsd_register(d, c, q->tids[i], &r.slots[i]);

			if (err && !r.status)
				r.status = err;
		}
		break;
	case XS_ABI_UNREGISTER:
		r.count = q->count;
		for (uint32_t i = 0; i < q->count; i++) {
			uint32_t s;

			r.slots[i] = UINT32_MAX;
			for (s = 0; s < d->nslots; s++)
				if (d->owner[s] == c && d->workers[s].tid == q->tids[i])
					break;
			if (s == d->nslots) {
				if (!r.status)
					r.status = -ENOENT;
				continue;
			}
			xsd_slot_free(d, s);
			r.slots[i] = s;
		}
		break;
	}
	r.nslots = c->nslots;
	if (d->opt.verbose && r.status)
		xsd_log("client %llu (pid %u): request %u: %s\n", (unsigned long long)c->id,
			c->pid, q->type, strerror(-r.status));
	if (xsd_send(c, &r, NULL, 0))
		goto gone;
	return 0;
gone:
	xsd_client_free(d, c);
	return -1;
}

void xsd_clients_reap_dead_tids(struct xsd *d)
{
	for (uint32_t s = 0; s < d->nslots; s++)
		if (d->owner[s] && !xsd_tid_of(d->workers[s].pid, d->workers[s].tid))
			xsd_slot_free(d, s);
}
