// SPDX-License-Identifier: MIT
/*
 * mpi-lend-standin - a stand-in for the lending half of xschedd that
 * docs/mpi.md proposes, for tests/mpi-lend-standin.sh: it listens on
 * DIR/socket, answers HELLO, LEND and RECLAIM (xsched/abi.h) as the daemon
 * would, keeps each connection's lend as a lease, and logs one line per
 * event to LOG:
 *
 *   <CLOCK_MONOTONIC ns> <pid> HELLO
 *   <ns> <pid> LEND <cpus offered> <cpus on loan in all, after>
 *   <ns> <pid> RECLAIM <cpus returned> <cpus on loan in all, after>
 *   <ns> <pid> CLOSE <cpus the lease still held, returned now>
 *
 *   mpi-lend-standin DIR LOG SECONDS [abi3 | shares=N]
 *
 * With "abi3" it answers LEND as xschedd of ABI 3 does: XS_ABI_ERROR, and
 * the connection closed. With "shares=N" it is also the rest of the daemon
 * that a borrower needs, as docs/mpi.md proposes it: a state file of ABI 3
 * for N CPUs (N may exceed this machine's: only shares are read from it)
 * handed out on HELLO, REGISTER answered (no slots), and every 2 ms, and at
 * once on LEND and RECLAIM, the shares republished: the N CPUs split
 * equally among the connected processes, a lender's share less what it
 * lent (at most its share less one), the lent CPUs given to the others.
 * Then it also logs "<ns> <pid> SHARE <cpus>" when a process's share
 * changes. It exits after SECONDS or on SIGTERM.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* ---- shares=N: the state file and the division ---- */

#define NSLOTS 64
#define TICK_NS 2000000u

static struct xs_abi_header *state;
static uint32_t ncpus;
static int published[NSLOTS][2]; /* pid, cpus last logged */

static int shares_init(const char *dir, uint32_t n)
{
	struct xs_abi_header layout = { 0 };
	struct xs_abi_cpu *cpus;
	struct xs_abi_victim *v;
	struct xs_abi_node *node;
	char path[4096];
	uint64_t size;
	int fd;

	ncpus = n;
	size = xs_abi_layout(&layout, n, 1, NSLOTS, 4096);
	snprintf(path, sizeof(path), "%s/state", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)size))
		return -1;
	state = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (state == MAP_FAILED)
		return -1;
	*state = layout;
	state->tick_ns = TICK_NS;
	state->mode = XS_ABI_MODE_DEGRADED;
	state->daemon_pid = (uint32_t)getpid();
	state->share_cpus = n;
	cpus = (struct xs_abi_cpu *)((char *)state + state->cpu_off);
	v = (struct xs_abi_victim *)((char *)state + state->victim_off);
	node = (struct xs_abi_node *)((char *)state + state->node_off);
	node->node = 0;
	for (uint32_t i = 0; i < n; i++) {
		cpus[i] = (struct xs_abi_cpu){ .cpu = i, .node = 0, .idle_permille = 1000 };
		for (uint32_t j = 0, k = 0; j < n; j++)
			if (j != i)
				v[i * (n - 1) + k++] = (struct xs_abi_victim){ j, 2, 1 };
	}
	snprintf(path, sizeof(path), "%s/workers", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, 4096))
		return -1;
	close(fd);
	return 0;
}

/* A process's equal part of the CPUs: the first ncpus % P get one more. */
static uint32_t base_share(int idx, int nproc)
{
	uint32_t b = ncpus / (uint32_t)nproc;

	return (b ? b : 1) + ((uint32_t)idx < ncpus % (uint32_t)nproc);
}

/* The processes (distinct pids) of the connected clients, their lends. */
static int processes(const struct client *cl, int *pid, uint32_t *lent)
{
	int np = 0;

	for (int i = 0; i < MAX_CLIENTS; i++) {
		int k;

		if (cl[i].fd < 0)
			continue;
		for (k = 0; k < np && pid[k] != cl[i].pid; k++)
			;
		if (k == np) {
			if (np == NSLOTS)
				continue;
			pid[np] = cl[i].pid;
			lent[np++] = 0;
		}
		lent[k] += cl[i].lent;
	}
	return np;
}

/* How much of its share @pid may lend now: its share less one. */
static uint32_t lend_cap(const struct client *cl, int who)
{
	int pid[NSLOTS], np, k;
	uint32_t lent[NSLOTS];

	np = processes(cl, pid, lent);
	for (k = 0; k < np && pid[k] != who; k++)
		;
	return k < np ? base_share(k, np) - 1 : 0;
}

static void publish(const struct client *cl, FILE *log)
{
	struct xs_abi_share *sh = (struct xs_abi_share *)((char *)state + state->share_off);
	struct xs_abi_cpu *cpus = (struct xs_abi_cpu *)((char *)state + state->cpu_off);
	int pid[NSLOTS], np, borrowers = 0;
	uint32_t lent[NSLOTS], cpus_of[NSLOTS], pool = 0, next = 0;
	uint64_t now = now_ns();

	np = processes(cl, pid, lent);
	for (int k = 0; k < np; k++) {
		uint32_t b = base_share(k, np), l = lent[k] < b ? lent[k] : b - 1;

		cpus_of[k] = b - l;
		pool += l;
		borrowers += !lent[k];
	}
	/* The lent CPUs to the processes that do not lend, the first
	 * pool % borrowers of them one more. */
	for (int k = 0, b = 0; pool && borrowers && k < np; k++)
		if (!lent[k])
			cpus_of[k] += pool / (uint32_t)borrowers +
				      ((uint32_t)b++ < pool % (uint32_t)borrowers);
	xs_abi_write_begin(state);
	memset(sh, 0, NSLOTS * sizeof(*sh));
	for (int k = 0; k < np; k++) {
		sh[k] = (struct xs_abi_share){ .pid = (uint32_t)pid[k],
					       .cpus = cpus_of[k] > ncpus ? ncpus : cpus_of[k],
					       .active_ns = now };
		for (uint32_t c = 0; c < sh[k].cpus && next < ncpus; c++)
			cpus[next++].share_pid = (uint32_t)pid[k];
	}
	for (; next < ncpus; next++)
		cpus[next].share_pid = 0;
	state->share_count = (uint32_t)np;
	state->share_active = (uint32_t)np;
	state->share_cpus = ncpus;
	state->generation++;
	state->heartbeat_ns = now;
	xs_abi_write_end(state);
	for (int k = 0; k < np; k++) {
		int i;

		for (i = 0; i < NSLOTS && published[i][0] && published[i][0] != pid[k]; i++)
			;
		if (i < NSLOTS && (published[i][0] != pid[k] || published[i][1] != (int)sh[k].cpus)) {
			published[i][0] = pid[k];
			published[i][1] = (int)sh[k].cpus;
			fprintf(log, "%llu %d SHARE %u\n", (unsigned long long)now, pid[k], sh[k].cpus);
		}
	}
}

/* HELLO's reply with the state and workers descriptors, read-only. */
static int hello_fds(int fd, const char *dir, struct xs_abi_reply *r)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))] = { 0 }, path[4096];
	struct iovec iov = { r, sizeof(*r) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	int fds[2];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/state", dir);
	fds[0] = open(path, O_RDONLY | O_CLOEXEC);
	snprintf(path, sizeof(path), "%s/workers", dir);
	fds[1] = open(path, O_RDONLY | O_CLOEXEC);
	if (fds[0] < 0 || fds[1] < 0) {
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
		return -1;
	}
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(fds));
	memcpy(CMSG_DATA(cm), fds, sizeof(fds));
	n = sendmsg(fd, &mh, MSG_NOSIGNAL);
	close(fds[0]);
	close(fds[1]);
	return n == (ssize_t)sizeof(*r) ? 0 : -1;
}

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
	if (argc > 4 && !strncmp(argv[4], "shares=", 7) &&
	    shares_init(argv[1], (uint32_t)atoi(argv[4] + 7))) {
		perror("mpi-lend-standin: the state file");
		return 1;
	}
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
		if (state && now_ns() - state->heartbeat_ns >= TICK_NS)
			publish(cl, log);
		if (poll(pfd, (nfds_t)n, state ? 1 : 100) <= 0)
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
				r.nslots = NSLOTS;
				r.mode = XS_ABI_MODE_DEGRADED;
				if (state && hello_fds(c->fd, argv[1], &r) == 0)
					continue;
			} else if (q.type == XS_ABI_REGISTER && state && q.count <= XS_ABI_MAX_TIDS) {
				/* No slots: a refused worker just has none. */
				r.count = q.count;
				r.status = -ENOSPC;
				for (uint32_t i = 0; i < q.count; i++)
					r.slots[i] = UINT32_MAX;
			} else if (q.type == XS_ABI_LEND && !abi3 && q.count == 1) {
				if (c->lent) {
					r.status = -EALREADY;
				} else {
					uint32_t cap = state ? lend_cap(cl, c->pid) : q.tids[0];

					c->lent = q.tids[0] < cap ? q.tids[0] : cap;
					on_loan += c->lent;
					r.count = c->lent;
				}
				fprintf(log, "%llu %d LEND %u %u\n", (unsigned long long)now_ns(), c->pid,
					q.tids[0], on_loan);
			} else if (q.type == XS_ABI_RECLAIM && !abi3) {
				fprintf(log, "%llu %d RECLAIM %u %u\n", (unsigned long long)now_ns(),
					c->pid, c->lent, on_loan - c->lent);
				on_loan -= c->lent;
				c->lent = 0;
			} else {
				r.type = XS_ABI_ERROR;
				r.status = -EINVAL;
			}
			/* The daemon republishes before it answers LEND and
			 * RECLAIM: the reply is the proof the shares moved. */
			if (state && (q.type == XS_ABI_LEND || q.type == XS_ABI_RECLAIM))
				publish(cl, log);
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
