// SPDX-License-Identifier: MIT
/*
 * lend.c - a rank that waits in MPI lends its CPUs but XSCHED_MPI_KEEP to
 * xschedd, which gives them to the node's other xsched processes until the
 * rank reclaims them on the call's return (XSCHED_MPI_LEND=1; off by
 * default). The messages are XS_ABI_LEND and XS_ABI_RECLAIM on the daemon's
 * client socket (include/xsched/abi.h); the lease is the connection and
 * the process, so a rank that dies gives its CPUs back.
 *
 * Who lends: only the thread that called MPI_Init (the thread MPI_Finalize
 * runs on). In a hybrid rank that thread makes the MPI calls between
 * parallel regions, when the rank's other threads are parked, so its wait
 * is the rank's wait. Another thread waiting in MPI (MPI_THREAD_MULTIPLE)
 * may have siblings computing: lending then would give away CPUs in use,
 * so it does not lend. All lend state is therefore owned by that one
 * thread and needs no synchronization.
 *
 * A daemon without lending (ABI 3 and older: it answers XS_ABI_ERROR), no daemon, or
 * a daemon that stops answering within XS_MPI_LEND_TIMEOUT_US turns
 * lending off for the rest of the run, with one line on stderr.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <xsched/abi.h>

#include "mpi_int.h"

#define XS_MPI_LEND_TIMEOUT_US 200000 /* a reply later than this: the daemon is stuck */
#define RECLAIM_BUCKETS 2048            /* 1 us each; the last one holds the rest */
#define MAX_PENDING 2                   /* a LEND and its RECLAIM */

/*
 * Requests are pipelined: LEND is sent and the rank goes on into its
 * blocking call without waiting; RECLAIM is sent and the rank waits for
 * the replies at most XSCHED_MPI_RECLAIM_WAIT_US (the daemon republishes
 * before it answers, so a reply in time means the borrowers can see the
 * CPUs go), then goes on. Replies come in request order (SOCK_SEQPACKET)
 * and are read when they are there: at the reclaim's wait, before the
 * next lend, at MPI_Finalize. A new lend is not made while a reply is
 * still due (the daemon is behind). A LEND's reply says how many CPUs the
 * daemon took; a lend is counted, and its CPU-time, when it arrives.
 */
static struct {
	int fd;                /* connection to xschedd, -1: not lending */
	int rank;
	pthread_t owner;       /* the MPI_Init thread */
	uint32_t cpus;         /* CPUs offered per lend */
	bool lent;             /* between a LEND sent and its RECLAIM sent */
	uint16_t pend[MAX_PENDING]; /* request types whose replies are due, oldest first */
	int npend;
	/* The last lend: when, when reclaimed (0: not yet), what was taken. */
	uint64_t lent_at, reclaimed_at;
	uint32_t taken;
	bool acked;            /* its reply arrived */
	/* Written by the owner only, with relaxed stores; read by the page's
	 * sampler (xs_mpi_lend_live()) with relaxed loads: single-writer
	 * counters, whole values, no order needed between them (a sample
	 * may mix two neighbouring states). lent_now is the CPUs the daemon
	 * took for the lend in progress (0: none), lent_since its start. */
	_Atomic uint64_t lent_cpu_ns;
	_Atomic uint64_t lends;
	_Atomic uint64_t lent_since;
	_Atomic uint32_t lent_now;
	uint64_t reclaims, reclaim_max_ns, reclaims_late;
	uint32_t reclaim_us[RECLAIM_BUCKETS]; /* the owner's time in a reclaim, by microsecond */
} st = { .fd = -1 };

static void lend_off(const char *what, int err)
{
	if (st.rank == 0 || xs_mpi_opt(XS_MPI_OPT_VERBOSE))
		fprintf(stderr, "xsched-mpi: rank %d: XSCHED_MPI_LEND=1 but %s%s%s: not lending\n",
			st.rank, what, err ? ": " : "", err ? strerror(err) : "");
	if (st.fd >= 0)
		close(st.fd);
	st.fd = -1;
	st.lent = false;
	st.npend = 0;
	/* Relaxed: single writer (the struct's comment); the lease ended
	 * with the connection. */
	xs_store_relaxed(&st.lent_now, 0);
}

static int send_request(uint16_t type, uint32_t count, uint32_t arg)
{
	struct xs_abi_request q = { .magic = XS_ABI_MSG_MAGIC, .version = XS_ABI_MSG_VERSION,
				    .type = type, .size = sizeof(q), .count = count };

	if (count)
		q.tids[0] = arg;
	if (send(st.fd, &q, sizeof(q), MSG_NOSIGNAL) != (ssize_t)sizeof(q))
		return -errno;
	return 0;
}

/* One reply into @r, waiting at most @timeout_us (0: only if it is there);
 * descriptors that come with it (HELLO's) are closed. Returns 0, -EAGAIN
 * when none came in time, -errno, or -EPROTONOSUPPORT for XS_ABI_ERROR. */
static int recv_reply(struct xs_abi_reply *r, long timeout_us)
{
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct pollfd pfd = { .fd = st.fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, timeout_us > 0 ? (int)((timeout_us + 999) / 1000) : 0) <= 0)
		return -EAGAIN;
	memset(r, 0, sizeof(*r));
	n = recvmsg(st.fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			close(fd);
		}
	}
	if (n == 0)
		return -ECONNRESET;
	if ((size_t)n != sizeof(*r) || r->magic != XS_ABI_MSG_MAGIC ||
	    r->version != XS_ABI_MSG_VERSION || r->size != sizeof(*r))
		return -EBADMSG;
	if (r->type == XS_ABI_ERROR)
		return -EPROTONOSUPPORT;
	return 0;
}

/* One request, one reply (HELLO). */
static int call(uint16_t type, struct xs_abi_reply *r)
{
	int ret = send_request(type, 0, 0);

	if (!ret)
		ret = recv_reply(r, XS_MPI_LEND_TIMEOUT_US);
	if (!ret && r->type != type)
		ret = -EBADMSG;
	if (!ret && r->status)
		ret = r->status < 0 && r->status > -4096 ? r->status : -EBADMSG;
	return ret == -EAGAIN ? -ETIMEDOUT : ret;
}

/* Count @ns CPU-ns lent (the owner only). */
static void lent_add(uint64_t ns)
{
	/* Relaxed: single writer, see the struct. */
	xs_store_relaxed(&st.lent_cpu_ns, xs_load_relaxed(&st.lent_cpu_ns) + ns);
}

/* Read the replies that are due, waiting at most @timeout_us in all for
 * them. A refusal of lending turns it off. Returns the replies still due. */
static int drain(long timeout_us)
{
	uint64_t end = xs_now_ns() + (uint64_t)timeout_us * 1000u;

	while (st.npend > 0 && st.fd >= 0) {
		uint64_t now = xs_now_ns();
		struct xs_abi_reply r;
		int ret = recv_reply(&r, now < end ? (long)((end - now) / 1000) : 0);

		if (ret == -EAGAIN)
			break;
		if (ret == -EPROTONOSUPPORT) {
			lend_off("this xschedd does not take lends (ABI 3; docs/mpi.md)", 0);
			break;
		}
		/* Closed before a LEND's reply could be read (its error
		 * reply is lost when the close resets the connection). */
		if ((ret == -ECONNRESET || ret == -EPIPE) && st.pend[0] == XS_ABI_LEND) {
			lend_off("xschedd closed the connection at a lend: it does not take lends "
				 "(ABI 3; docs/mpi.md)", 0);
			break;
		}
		if (ret || r.type != st.pend[0]) {
			lend_off("xschedd's reply to a lend was not understood", ret ? -ret : EBADMSG);
			break;
		}
		if (r.type == XS_ABI_LEND && r.status == 0) {
			st.taken = r.count < st.cpus ? r.count : st.cpus;
			st.acked = true;
			/* Relaxed: single writer (the struct's comment). */
			xs_store_relaxed(&st.lends, xs_load_relaxed(&st.lends) + 1);
			if (st.reclaimed_at) {
				lent_add((uint64_t)st.taken * (st.reclaimed_at - st.lent_at));
			} else {
				/* Relaxed: as above; a sampler pairs since and
				 * now at worst from two neighbouring lends. */
				xs_store_relaxed(&st.lent_since, st.lent_at);
				xs_store_relaxed(&st.lent_now, st.taken);
			}
		}
		st.pend[0] = st.pend[1];
		st.npend--;
	}
	return st.npend;
}

/* Send a LEND or RECLAIM and queue its reply. A refused send is usually
 * the daemon having closed after an error: read why. */
static int request(uint16_t type, uint32_t count, uint32_t arg)
{
	int ret = st.npend < MAX_PENDING ? send_request(type, count, arg) : -ENOBUFS;

	if (ret) {
		drain(0);
		if (st.fd >= 0)
			lend_off("xschedd did not take a lend request", -ret);
		return ret;
	}
	st.pend[st.npend++] = type;
	return 0;
}

int xs_mpi_lend_init(int rank)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = 0, .tv_usec = XS_MPI_LEND_TIMEOUT_US };
	const char *dir = getenv("XSCHED_RUNTIME_DIR");
	struct xs_abi_reply r;
	cpu_set_t set;
	int ret;

	st.rank = rank;
	st.owner = pthread_self();
	if (!xs_mpi_opt(XS_MPI_OPT_LEND))
		return 0;
	if (!dir || !*dir)
		dir = XS_ABI_DEFAULT_RUNTIME_DIR;
	if (sched_getaffinity(0, sizeof(set), &set)) {
		lend_off("its CPUs are unknown", errno);
		return -errno;
	}
	if (CPU_COUNT(&set) <= xs_mpi_opt(XS_MPI_OPT_KEEP)) {
		if (xs_mpi_opt(XS_MPI_OPT_VERBOSE))
			fprintf(stderr, "xsched-mpi: rank %d: %d CPUs, XSCHED_MPI_KEEP=%lld: nothing "
					"to lend\n", rank, CPU_COUNT(&set),
				(long long)xs_mpi_opt(XS_MPI_OPT_KEEP));
		return 0;
	}
	st.cpus = (uint32_t)(CPU_COUNT(&set) - xs_mpi_opt(XS_MPI_OPT_KEEP));
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/" XS_ABI_SOCKET_FILE, dir) >=
	    sizeof(sa.sun_path)) {
		lend_off("XSCHED_RUNTIME_DIR is too long for a socket path", 0);
		return -ENAMETOOLONG;
	}
	st.fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	/* A daemon that accepts but never answers must not hang MPI calls. */
	if (st.fd < 0 || setsockopt(st.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(st.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) ||
	    connect(st.fd, (struct sockaddr *)&sa, sizeof(sa))) {
		char what[sizeof(sa.sun_path) + 32];

		ret = -errno;
		snprintf(what, sizeof(what), "no xschedd at %s", sa.sun_path);
		lend_off(what, -ret);
		return ret;
	}
	ret = call(XS_ABI_HELLO, &r);
	if (ret) {
		lend_off("xschedd's HELLO failed", -ret);
		return ret;
	}
	if (xs_mpi_opt(XS_MPI_OPT_VERBOSE))
		fprintf(stderr, "xsched-mpi: rank %d: lending %u CPUs to xschedd at %s while "
				"waiting\n", rank, st.cpus, sa.sun_path);
	return 0;
}

bool xs_mpi_lend_thread(void)
{
	/* The owner test first: only the owner reads st.fd, which lend_off()
	 * changes on the owner (st.owner itself is written in MPI_Init,
	 * before xs_mpi_account_start()'s release publishes it). */
	return pthread_equal(pthread_self(), st.owner) && st.fd >= 0;
}

void xs_mpi_lend(void)
{
	if (!xs_mpi_lend_thread() || st.lent)
		return;
	/* The daemon is behind (a reply still due): no new lend now. */
	if (drain(0) || st.fd < 0)
		return;
	st.lent_at = xs_now_ns();
	st.reclaimed_at = 0;
	st.taken = 0;
	st.acked = false;
	if (!request(XS_ABI_LEND, 1, st.cpus))
		st.lent = true;
}

void xs_mpi_reclaim(void)
{
	uint64_t now, took;

	/* The owner test first: st.lent is the owner's, and any thread of
	 * an MPI_THREAD_MULTIPLE program returns from MPI through here. */
	if (!pthread_equal(pthread_self(), st.owner) || !st.lent)
		return;
	now = xs_now_ns();
	st.lent = false;
	/* The LEND's reply first, if it is there: a refusal is read before
	 * anything else is sent (a daemon that refused closes the
	 * connection, and a request it never reads would reset it). */
	drain(0);
	if (st.fd < 0 || request(XS_ABI_RECLAIM, 0, 0))
		return; /* lending is off; the lease ends with the connection */
	st.reclaimed_at = now;
	/* Relaxed: single writer (see xs_mpi_lend_live()). */
	xs_store_relaxed(&st.lent_now, 0);
	if (st.acked)
		lent_add((uint64_t)st.taken * (now - st.lent_at));
	/* Wait for the replies, the daemon's word that the shares moved, at
	 * most XSCHED_MPI_RECLAIM_WAIT_US; a later one is read later. */
	if (drain(xs_mpi_opt(XS_MPI_OPT_RECLAIM_WAIT_US)))
		st.reclaims_late++;
	took = xs_now_ns() - now;
	st.reclaim_us[took / 1000 < RECLAIM_BUCKETS ? took / 1000 : RECLAIM_BUCKETS - 1]++;
	st.reclaims++;
	st.reclaim_max_ns = took > st.reclaim_max_ns ? took : st.reclaim_max_ns;
}

/* The @permille-th per-mille of the time in a reclaim: the upper edge of
 * its microsecond bucket, at most the longest. */
static uint64_t reclaim_quantile(uint64_t permille)
{
	uint64_t want = (st.reclaims * permille + 999) / 1000, seen = 0;

	for (int b = 0; st.reclaims && b < RECLAIM_BUCKETS; b++) {
		seen += st.reclaim_us[b];
		if (seen >= want) {
			uint64_t ns = (uint64_t)(b + 1) * 1000;

			return b + 1 == RECLAIM_BUCKETS || ns > st.reclaim_max_ns ? st.reclaim_max_ns
										 : ns;
		}
	}
	return 0;
}

void xs_mpi_lend_totals(struct xs_mpi_totals *tot)
{
	/* Relaxed: the owner's own counters. */
	tot->lent_cpu_ns = xs_load_relaxed(&st.lent_cpu_ns);
	tot->lends = xs_load_relaxed(&st.lends);
	tot->reclaim_max_ns = st.reclaim_max_ns;
	tot->reclaims_late = st.reclaims_late;
	tot->reclaim_p50_ns = reclaim_quantile(500);
	tot->reclaim_p99_ns = reclaim_quantile(990);
}

void xs_mpi_lend_live(uint64_t now, uint64_t *lent_cpu_ns, uint64_t *lends, uint32_t *lent_now)
{
	/* Relaxed: single-writer values (the struct's comment), with no
	 * order between them: a sample taken while a lend ends may miss it
	 * or count it twice for that instant (a live view; the page keeps
	 * its figures monotonic). xs_mpi_lend_totals() is exact. */
	uint32_t cpus = xs_load_relaxed(&st.lent_now);
	uint64_t since = xs_load_relaxed(&st.lent_since);

	*lent_cpu_ns = xs_load_relaxed(&st.lent_cpu_ns);
	*lends = xs_load_relaxed(&st.lends);
	*lent_now = cpus;
	if (cpus && since && now > since)
		*lent_cpu_ns += (uint64_t)cpus * (now - since);
}

void xs_mpi_lend_fini(void)
{
	xs_mpi_reclaim();
	/* The replies still due, so that every lend is counted. */
	drain(XS_MPI_LEND_TIMEOUT_US);
	if (st.fd >= 0)
		close(st.fd);
	st.fd = -1;
}
