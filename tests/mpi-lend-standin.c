// SPDX-License-Identifier: MIT
/*
 * mpi-lend-standin - a stand-in for the lending half of xschedd that
 * docs/mpi.md proposes, for tests/mpi-lend-standin.sh: it listens on
 * DIR/socket, answers HELLO, LEND and RECLAIM (lend_proto.h) as the daemon
 * would, keeps each connection's lend as a lease, and logs one line per
 * event to LOG:
 *
 *   <CLOCK_MONOTONIC ns> <pid> HELLO
 *   <ns> <pid> LEND <cpus offered> <cpus on loan in all, after>
 *   <ns> <pid> RECLAIM <cpus returned> <cpus on loan in all, after>
 *   <ns> <pid> CLOSE <cpus the lease still held, returned now>
 *
 *   mpi-lend-standin DIR LOG SECONDS [abi3]
 *
 * With "abi3" it answers LEND as xschedd of ABI 3 does: XS_ABI_ERROR, and
 * the connection closed. It exits after SECONDS or on SIGTERM.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <xsched/abi.h>

#include "../libxsched/mpi/lend_proto.h"

#define MAX_CLIENTS 64

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

struct client {
	int fd;
	int pid;
	uint32_t lent;
};

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct client cl[MAX_CLIENTS];
	struct pollfd pfd[MAX_CLIENTS + 1];
	uint32_t on_loan = 0;
	uint64_t end;
	int lfd, abi3;
	FILE *log;

	if (argc < 4) {
		fprintf(stderr, "usage: mpi-lend-standin DIR LOG SECONDS [abi3]\n");
		return 2;
	}
	abi3 = argc > 4 && !strcmp(argv[4], "abi3");
	end = now_ns() + (uint64_t)atoi(argv[3]) * 1000000000u;
	signal(SIGTERM, on_term);
	signal(SIGPIPE, SIG_IGN);
	log = fopen(argv[2], "w");
	if (!log) {
		perror(argv[2]);
		return 1;
	}
	setvbuf(log, NULL, _IOLBF, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/" XS_ABI_SOCKET_FILE, argv[1]);
	unlink(sa.sun_path);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 16)) {
		perror(sa.sun_path);
		return 1;
	}
	for (int i = 0; i < MAX_CLIENTS; i++)
		cl[i].fd = -1;
	while (!stop && now_ns() < end) {
		int n = 0, map[MAX_CLIENTS + 1];

		pfd[n] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		map[n++] = -1;
		for (int i = 0; i < MAX_CLIENTS; i++) {
			if (cl[i].fd < 0)
				continue;
			pfd[n] = (struct pollfd){ .fd = cl[i].fd, .events = POLLIN };
			map[n++] = i;
		}
		if (poll(pfd, (nfds_t)n, 100) <= 0)
			continue;
		for (int k = 0; k < n; k++) {
			struct xs_abi_request q;
			struct xs_abi_reply r;
			struct client *c;
			ssize_t got;

			if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (map[k] < 0) {
				struct ucred cred;
				socklen_t len = sizeof(cred);
				int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), i;

				for (i = 0; i < MAX_CLIENTS && cl[i].fd >= 0; i++)
					;
				if (fd < 0 || i == MAX_CLIENTS) {
					if (fd >= 0)
						close(fd);
					continue;
				}
				getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len);
				cl[i] = (struct client){ .fd = fd, .pid = cred.pid };
				continue;
			}
			c = &cl[map[k]];
			got = recv(c->fd, &q, sizeof(q), 0);
			if (got <= 0) {
				/* The lease ends with the connection. */
				fprintf(log, "%llu %d CLOSE %u\n", (unsigned long long)now_ns(), c->pid,
					c->lent);
				on_loan -= c->lent;
				close(c->fd);
				c->fd = -1;
				continue;
			}
			memset(&r, 0, sizeof(r));
			r.magic = XS_ABI_MSG_MAGIC;
			r.version = XS_ABI_MSG_VERSION;
			r.size = sizeof(r);
			r.type = q.type;
			if (got != sizeof(q) || q.magic != XS_ABI_MSG_MAGIC) {
				r.type = XS_ABI_ERROR;
				r.status = -EBADMSG;
			} else if (q.type == XS_ABI_HELLO) {
				fprintf(log, "%llu %d HELLO\n", (unsigned long long)now_ns(), c->pid);
			} else if (q.type == XS_MPI_ABI_LEND && !abi3 && q.count == 1) {
				if (c->lent) {
					r.status = -EALREADY;
				} else {
					c->lent = q.tids[0];
					on_loan += c->lent;
					r.count = c->lent;
				}
				fprintf(log, "%llu %d LEND %u %u\n", (unsigned long long)now_ns(), c->pid,
					q.tids[0], on_loan);
			} else if (q.type == XS_MPI_ABI_RECLAIM && !abi3) {
				fprintf(log, "%llu %d RECLAIM %u %u\n", (unsigned long long)now_ns(),
					c->pid, c->lent, on_loan - c->lent);
				on_loan -= c->lent;
				c->lent = 0;
			} else {
				r.type = XS_ABI_ERROR;
				r.status = -EINVAL;
			}
			send(c->fd, &r, sizeof(r), MSG_NOSIGNAL);
			if (r.type == XS_ABI_ERROR) {
				fprintf(log, "%llu %d ERROR %u\n", (unsigned long long)now_ns(), c->pid,
					q.type);
				close(c->fd);
				c->fd = -1;
			}
		}
	}
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (cl[i].fd >= 0)
			close(cl[i].fd);
	close(lfd);
	unlink(sa.sun_path);
	fclose(log);
	return 0;
}
