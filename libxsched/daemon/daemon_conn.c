// SPDX-License-Identifier: MIT
/*
 * daemon_conn.c - one connection to xschedd: HELLO, the two read-only
 * descriptors it hands over, and the worker state's mapping or copy.
 *
 * The rule: a connection is built whole before anyone sees it (the
 * caller publishes it, daemon_client.c) and is immutable afterwards but
 * for its freshness flags; its descriptors are closed only when it is
 * freed, which daemon_retire.c does once no thief can hold it. Only a
 * BPF map's worker state, which cannot shrink, is mapped; a regular file
 * is copied by every poll (daemon_poll.c), and the state file is read
 * with pread() only (daemon_state.c). Connecting allocates nothing until
 * a daemon has answered, so that with no daemon the runtime keeps its
 * no-malloc guarantee under XSCHED_DAEMON=auto.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "daemon/daemon_parts.h"
#include "core/runtime.h"

/* The largest state file we accept: far above any real machine's (1024
 * CPUs, 1M slots are ~40 MiB); a bigger one is not xschedd's. */
#define XS_DAEMON_MAX_STATE (256ull << 20)

const char *xs_daemon_dir(const struct xs_runtime *rt)
{
	return rt->opt.runtime_dir[0] ? rt->opt.runtime_dir : XS_ABI_DEFAULT_RUNTIME_DIR;
}

void xs_daemon_log(const struct xs_runtime *rt, const char *fmt, ...)
{
	va_list ap;

	if (!rt->opt.verbose)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "xsched: xschedd: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

void xs_daemon_conn_free(struct xs_daemon_conn *c)
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

int xs_daemon_call(int fd, uint16_t type, const uint32_t *tids, uint32_t count,
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

/* HELLO and the state's descriptor, for every reader of the daemon (the
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
struct xs_daemon_conn *xs_daemon_connect(struct xs_runtime *rt, int *err, const char **why)
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
