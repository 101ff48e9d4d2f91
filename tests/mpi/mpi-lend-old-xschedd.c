// SPDX-License-Identifier: MIT
/*
 * mpi-lend-old-xschedd - what libxsched-mpi meets on a node whose xschedd
 * predates lending (ABI 3), for tests/mpi/mpi-lend-xschedd.sh: it listens on
 * DIR/socket, answers HELLO (status 0, no descriptors), and answers any
 * other request as such a daemon answers a type it does not know:
 * XS_ABI_ERROR with -EOPNOTSUPP, then the connection closed. It logs
 * "<pid> HELLO" and "<pid> REFUSED <type>" lines to LOG and exits after
 * SECONDS or on SIGTERM.
 *
 *   mpi-lend-old-xschedd DIR LOG SECONDS
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

#define MAX_CLIENTS 64

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pollfd pfd[MAX_CLIENTS + 1];
	int nfd = 1, lfd;
	time_t end;
	FILE *log;

	if (argc != 4) {
		fprintf(stderr, "usage: mpi-lend-old-xschedd DIR LOG SECONDS\n");
		return 2;
	}
	end = time(NULL) + atoi(argv[3]);
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
	pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
	while (!stop && time(NULL) < end) {
		if (poll(pfd, (nfds_t)nfd, 100) <= 0)
			continue;
		if ((pfd[0].revents & POLLIN) && nfd <= MAX_CLIENTS) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0)
				pfd[nfd++] = (struct pollfd){ .fd = fd, .events = POLLIN };
		}
		for (int k = 1; k < nfd; k++) {
			struct xs_abi_request q;
			struct xs_abi_reply r = { .magic = XS_ABI_MSG_MAGIC,
						  .version = XS_ABI_MSG_VERSION, .size = sizeof(r) };
			struct ucred cred = { 0 };
			socklen_t len = sizeof(cred);
			ssize_t got;

			if (!pfd[k].revents)
				continue;
			got = recv(pfd[k].fd, &q, sizeof(q), 0);
			getsockopt(pfd[k].fd, SOL_SOCKET, SO_PEERCRED, &cred, &len);
			if (got == (ssize_t)sizeof(q) && q.type == XS_ABI_HELLO) {
				r.type = XS_ABI_HELLO;
				r.mode = XS_ABI_MODE_DEGRADED;
				fprintf(log, "%d HELLO\n", (int)cred.pid);
				send(pfd[k].fd, &r, sizeof(r), MSG_NOSIGNAL);
				continue;
			}
			if (got > 0) {
				r.type = XS_ABI_ERROR;
				r.status = -EOPNOTSUPP;
				fprintf(log, "%d REFUSED %u\n", (int)cred.pid,
					got == (ssize_t)sizeof(q) ? q.type : 0u);
				send(pfd[k].fd, &r, sizeof(r), MSG_NOSIGNAL);
			}
			close(pfd[k].fd);
			pfd[k--] = pfd[--nfd];
		}
	}
	for (int k = 1; k < nfd; k++)
		close(pfd[k].fd);
	close(lfd);
	unlink(sa.sun_path);
	fclose(log);
	return 0;
}
