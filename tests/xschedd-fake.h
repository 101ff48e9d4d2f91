/* SPDX-License-Identifier: MIT */
/*
 * xschedd-fake.h - a fake xschedd for the tests that forge its state: a
 * thread of the test serves the real protocol (HELLO: the two read-only
 * descriptors; REGISTER: slots) on a socket in a temporary runtime dir,
 * and hands over a state file that the test writes itself, laid out by
 * xs_abi_layout() for this machine as libxsched sees it, with a heartbeat
 * that a second thread advances every 2 ms while ticking is set.
 */
#ifndef XSCHED_XSCHEDD_FAKE_H
#define XSCHED_XSCHEDD_FAKE_H

#include <pthread.h>
#include <stdatomic.h>

#include "xschedd-client-test.h"
#include "topo/topology.h"

#define NSLOTS 64

struct fake {
	char dir[64];
	char sock[PATH_MAX];
	int listen_fd;
	int state_fd, workers_fd;       /* rw, ours */
	struct xs_abi_header *h;
	size_t size;
	pthread_t server, ticker;
	/* Commands from the test's thread to the server and the ticker,
	 * polled in their loops; seq_cst for simplicity (a test, not a hot
	 * path). stop pairs with nothing else: pthread_join() orders the
	 * teardown. ticking publishes no data: the ticker writes the state
	 * under its own seqlock. */
	_Atomic int stop, ticking;
};

/* A valid state for this machine as libxsched sees it. */
static int fake_layout(struct fake *f)
{
	struct xs_topology *t = xs_topology_load(NULL);
	struct xs_victim_table *vt = t ? xs_victim_table_build(t) : NULL;
	struct xs_abi_header layout;
	uint32_t n, len;
	size_t off;
	char path[PATH_MAX];

	if (!vt)
		return -1;
	n = t->ncpus;
	len = n - 1;
	memset(&layout, 0, sizeof(layout));
	off = xs_abi_layout(&layout, n, t->nnodes, NSLOTS, 4096);
	f->size = off;
	snprintf(path, sizeof(path), "%s/state", f->dir);
	f->state_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (f->state_fd < 0 || ftruncate(f->state_fd, (off_t)off))
		return -1;
	f->h = mmap(NULL, off, PROT_READ | PROT_WRITE, MAP_SHARED, f->state_fd, 0);
	if (f->h == MAP_FAILED)
		return -1;
	struct xs_abi_header *h = f->h;

	*h = layout;
	h->tick_ns = 5000000;
	h->mode = XS_ABI_MODE_DEGRADED;
	h->share_cpus = n; /* no process counted: all of them are free */
	struct xs_abi_cpu *cpus = (struct xs_abi_cpu *)((char *)h + h->cpu_off);

	for (uint32_t i = 0; i < n; i++) {
		cpus[i].cpu = t->cpus[i].cpu;
		cpus[i].node = t->cpus[i].node;
	}
	if (len)
		memcpy((char *)h + h->victim_off, vt->victims, (size_t)n * len * 8);
	h->heartbeat_ns = xsd_test_now_ns();
	h->generation = 1;
	snprintf(path, sizeof(path), "%s/workers", f->dir);
	f->workers_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (f->workers_fd < 0 || ftruncate(f->workers_fd, 4096))
		return -1;
	xs_victim_table_free(vt);
	xs_topology_free(t);
	return 0;
}

/* The protocol, minimally: HELLO -> two read-only fds, REGISTER -> slots.
 * One thread per connection (a runtime keeps its own open while another
 * client connects), holding a copy of the directory, not the fake: it may
 * outlive fake_stop() blocked in recv() on a connection nobody closes. */
struct fake_conn {
	int fd;
	char dir[64];
};

static _Atomic uint32_t fake_next_slot;

static void *fake_conn_serve(void *p)
{
	struct fake_conn *fc = p;
	struct xs_abi_request q;

	while (recv(fc->fd, &q, sizeof(q), 0) == sizeof(q)) {
		struct xs_abi_reply r = { .magic = XS_ABI_MSG_MAGIC,
					  .version = XS_ABI_MSG_VERSION,
					  .type = q.type, .size = sizeof(r),
					  .nslots = NSLOTS, .mode = XS_ABI_MODE_DEGRADED };
		char cbuf[CMSG_SPACE(2 * sizeof(int))];
		struct iovec iov = { &r, sizeof(r) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		int fds[2] = { -1, -1 };
		char path[PATH_MAX];

		if (q.type == XS_ABI_HELLO) {
			struct cmsghdr *cm;

			snprintf(path, sizeof(path), "%s/state", fc->dir);
			fds[0] = open(path, O_RDONLY | O_CLOEXEC);
			snprintf(path, sizeof(path), "%s/workers", fc->dir);
			fds[1] = open(path, O_RDONLY | O_CLOEXEC);
			memset(cbuf, 0, sizeof(cbuf));
			mh.msg_control = cbuf;
			mh.msg_controllen = sizeof(cbuf);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(fds));
			memcpy(CMSG_DATA(cm), fds, sizeof(fds));
		} else {
			r.count = q.count;
			/* Seq-cst add: connection threads take distinct numbers;
			 * nothing else is published through it. */
			for (uint32_t i = 0; i < q.count && i < XS_ABI_MAX_TIDS; i++)
				r.slots[i] = atomic_fetch_add(&fake_next_slot, 1) % NSLOTS;
		}
		sendmsg(fc->fd, &mh, MSG_NOSIGNAL);
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
	}
	close(fc->fd);
	free(fc);
	return NULL;
}

static void *fake_server(void *p)
{
	struct fake *f = p;

	while (!atomic_load(&f->stop)) {
		int c = accept(f->listen_fd, NULL, NULL);
		struct fake_conn *fc;
		pthread_t th;

		if (c < 0)
			continue;
		fc = calloc(1, sizeof(*fc));
		if (!fc) {
			close(c);
			continue;
		}
		fc->fd = c;
		snprintf(fc->dir, sizeof(fc->dir), "%s", f->dir);
		if (pthread_create(&th, NULL, fake_conn_serve, fc)) {
			close(c);
			free(fc);
			continue;
		}
		pthread_detach(th);
	}
	return NULL;
}

/* The heartbeat, every 2 ms while ticking is set. */
static void *fake_ticker(void *p)
{
	struct fake *f = p;

	while (!atomic_load(&f->stop)) {
		if (atomic_load(&f->ticking)) {
			xs_abi_write_begin(f->h);
			f->h->heartbeat_ns = xsd_test_now_ns();
			f->h->generation++;
			xs_abi_write_end(f->h);
		}
		xsd_test_sleep_ms(2);
	}
	return NULL;
}

static int fake_start(struct fake *f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	memset(f, 0, sizeof(*f));
	strcpy(f->dir, "/tmp/xschedd-fake-XXXXXX");
	if (!mkdtemp(f->dir) || fake_layout(f))
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/socket", f->dir);
	f->listen_fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (f->listen_fd < 0 || bind(f->listen_fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(f->listen_fd, 8))
		return -1;
	atomic_store(&f->ticking, 1);
	if (pthread_create(&f->server, NULL, fake_server, f) ||
	    pthread_create(&f->ticker, NULL, fake_ticker, f))
		return -1;
	return 0;
}

static void fake_stop(struct fake *f)
{
	atomic_store(&f->stop, 1);
	shutdown(f->listen_fd, SHUT_RDWR);
	pthread_join(f->server, NULL);
	pthread_join(f->ticker, NULL);
	close(f->listen_fd);
	munmap(f->h, f->size);
	close(f->state_fd);
	close(f->workers_fd);
	nftw(f->dir, xsd_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}
#endif /* XSCHED_XSCHEDD_FAKE_H */
