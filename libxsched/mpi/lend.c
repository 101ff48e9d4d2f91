// SPDX-License-Identifier: MIT
/*
 * lend.c - a rank that waits in MPI lends its CPUs but XSCHED_MPI_KEEP to
 * xschedd, which gives them to the node's other xsched processes until the
 * rank reclaims them on the call's return (XSCHED_MPI_LEND=1; off by
 * default). The messages are lend_proto.h's on the daemon's client socket;
 * the lease is the connection, so a rank that dies gives its CPUs back.
 *
 * Who lends: only the thread that called MPI_Init (the thread MPI_Finalize
 * runs on). In a hybrid rank that thread makes the MPI calls between
 * parallel regions, when the rank's other threads are parked, so its wait
 * is the rank's wait. Another thread waiting in MPI (MPI_THREAD_MULTIPLE)
 * may have siblings computing: lending then would give away CPUs in use,
 * so it does not lend. All lend state is therefore owned by that one
 * thread and needs no synchronization.
 *
 * A daemon without lending (ABI 3: it answers XS_ABI_ERROR), no daemon, or
 * a daemon that stops answering within XS_MPI_LEND_TIMEOUT_US turns
 * lending off for the rest of the run, with one line on stderr.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <xsched/abi.h>

#include "lend_proto.h"
#include "mpi_int.h"

#define XS_MPI_LEND_TIMEOUT_US 200000 /* a reply later than this: the daemon is stuck */
#define RECLAIM_BUCKETS 2048            /* 1 us each; the last one holds the rest */

static struct {
	int fd;                /* connection to xschedd, -1: not lending */
	int rank;
	pthread_t owner;       /* the MPI_Init thread */
	uint32_t cpus;         /* CPUs offered per lend */
	bool lent;
	uint32_t taken;        /* CPUs the daemon took for the current lend */
	uint64_t lent_at;
	uint64_t lent_cpu_ns;
	uint64_t lends;
	uint64_t reclaims, reclaim_max_ns;
	uint32_t reclaim_us[RECLAIM_BUCKETS]; /* RECLAIM round trips, by microsecond */
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
}

/* One request, one reply; descriptors that come with it (HELLO's) closed.
 * Returns 0, -errno, or -EPROTONOSUPPORT for an XS_ABI_ERROR reply. */
static int call(uint16_t type, uint32_t count, uint32_t arg, struct xs_abi_reply *r)
{
	struct xs_abi_request q = { .magic = XS_ABI_MSG_MAGIC, .version = XS_ABI_MSG_VERSION,
				    .type = type, .size = sizeof(q), .count = count };
	char cbuf[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	ssize_t n;

	if (count)
		q.tids[0] = arg;
	if (send(st.fd, &q, sizeof(q), MSG_NOSIGNAL) != (ssize_t)sizeof(q))
		return -errno;
	memset(r, 0, sizeof(*r));
	n = recvmsg(st.fd, &mh, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
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
	if (r->type != type)
		return -EBADMSG;
	return r->status < 0 && r->status > -4096 ? r->status : r->status ? -EBADMSG : 0;
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
	ret = call(XS_ABI_HELLO, 0, 0, &r);
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
	struct xs_abi_reply r;
	int ret;

	if (!xs_mpi_lend_thread() || st.lent)
		return;
	st.lent_at = xs_mpi_now_ns();
	ret = call(XS_MPI_ABI_LEND, 1, st.cpus, &r);
	if (ret) {
		lend_off(ret == -EPROTONOSUPPORT ? "this xschedd does not take lends (ABI 3; "
						   "docs/mpi.md)" : "xschedd refused a lend",
			 ret == -EPROTONOSUPPORT ? 0 : -ret);
		return;
	}
	st.lent = true;
	st.taken = r.count < st.cpus ? r.count : st.cpus;
	st.lends++;
}

void xs_mpi_reclaim(void)
{
	struct xs_abi_reply r;
	uint64_t now, rtt;
	int ret;

	if (!st.lent || !pthread_equal(pthread_self(), st.owner))
		return;
	now = xs_mpi_now_ns();
	ret = call(XS_MPI_ABI_RECLAIM, 0, 0, &r);
	/* The round trip: the daemon republishes before it answers, so this
	 * bounds how long after the MPI call's return the CPUs are back. */
	rtt = xs_mpi_now_ns() - now;
	st.reclaim_us[rtt / 1000 < RECLAIM_BUCKETS ? rtt / 1000 : RECLAIM_BUCKETS - 1]++;
	st.reclaims++;
	st.reclaim_max_ns = rtt > st.reclaim_max_ns ? rtt : st.reclaim_max_ns;
	st.lent_cpu_ns += (uint64_t)st.taken * (now - st.lent_at);
	st.lent = false;
	if (ret)
		lend_off("xschedd did not answer a reclaim (the lease ends with the connection)",
			 -ret);
}

void xs_mpi_lend_totals(struct xs_mpi_totals *tot)
{
	uint64_t want = st.reclaims - st.reclaims / 100, seen = 0; /* the 99th percentile */

	tot->lent_cpu_ns = st.lent_cpu_ns;
	tot->lends = st.lends;
	tot->reclaim_max_ns = st.reclaim_max_ns;
	tot->reclaim_p99_ns = 0;
	for (int b = 0; st.reclaims && b < RECLAIM_BUCKETS; b++) {
		seen += st.reclaim_us[b];
		if (seen >= want) {
			/* The bucket's upper edge, at most the max. */
			tot->reclaim_p99_ns = (uint64_t)(b + 1) * 1000;
			if (b + 1 == RECLAIM_BUCKETS || tot->reclaim_p99_ns > st.reclaim_max_ns)
				tot->reclaim_p99_ns = st.reclaim_max_ns;
			break;
		}
	}
}

void xs_mpi_lend_fini(void)
{
	xs_mpi_reclaim();
	if (st.fd >= 0)
		close(st.fd);
	st.fd = -1;
}
