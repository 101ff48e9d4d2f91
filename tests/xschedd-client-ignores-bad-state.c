// SPDX-License-Identifier: MIT
/*
 * A fake xschedd (a thread of this test serving the real protocol on a
 * socket in a temporary runtime dir) hands the library a state file that
 * the test writes itself. A valid, fresh state is adopted; then the test
 * corrupts it while jobs run:
 *
 *   bad magic, wrong ABI version, an offset out of the file  -> -EBADMSG
 *   rows that are not permutations (a CPU index out of range) -> -EBADMSG
 *   the seqlock left odd (a writer that died mid-write)        -> -EAGAIN
 *   the heartbeat stops (a daemon that hangs or was killed)    -> -ESTALE
 *
 * Each is detected, the library goes back to its own victim table, and
 * nothing crashes or is lost (every job checks out). The same corruptions
 * present at connect time leave XSCHED_DAEMON=auto unconnected and make
 * XSCHED_DAEMON=required fail.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "xschedd-client-test.h"
#include "topology.h"

#define NSLOTS 64

struct fake {
	char dir[64];
	char sock[PATH_MAX];
	int listen_fd;
	int state_fd, workers_fd;       /* rw, ours */
	struct xs_abi_header *h;
	size_t size;
	pthread_t server, ticker;
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

/* The protocol, minimally: HELLO -> two read-only fds, REGISTER -> slots. */
static void *fake_server(void *p)
{
	struct fake *f = p;
	uint32_t next_slot = 0;

	while (!atomic_load(&f->stop)) {
		int c = accept(f->listen_fd, NULL, NULL);
		struct xs_abi_request q;

		if (c < 0)
			continue;
		while (recv(c, &q, sizeof(q), 0) == sizeof(q)) {
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

				snprintf(path, sizeof(path), "%s/state", f->dir);
				fds[0] = open(path, O_RDONLY | O_CLOEXEC);
				snprintf(path, sizeof(path), "%s/workers", f->dir);
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
				for (uint32_t i = 0; i < q.count && i < XS_ABI_MAX_TIDS; i++)
					r.slots[i] = next_slot++ % NSLOTS;
			}
			sendmsg(c, &mh, MSG_NOSIGNAL);
			if (fds[0] >= 0)
				close(fds[0]);
			if (fds[1] >= 0)
				close(fds[1]);
		}
		close(c);
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

enum corruption { BAD_MAGIC, BAD_VERSION, BAD_OFFSET, BAD_ROWS, SEQ_ODD, STALE };

static const char *const names[] = { "bad magic", "wrong ABI version", "offset out of range",
				     "rows not permutations", "seqlock left odd",
				     "heartbeat stopped" };

/* Apply @c to the live state the way a broken writer would. */
static int corrupt(struct fake *f, enum corruption c)
{
	struct xs_abi_header *h = f->h;
	struct xs_abi_victim *rows = (void *)((char *)h + h->victim_off);

	if (c == STALE) {
		atomic_store(&f->ticking, 0);
		return -ESTALE;
	}
	if (c == SEQ_ODD) {
		atomic_store(&f->ticking, 0);
		xsd_test_sleep_ms(5);
		xs_abi_write_begin(h); /* and never the end */
		return -EAGAIN;
	}
	xs_abi_write_begin(h);
	switch (c) {
	case BAD_MAGIC:
		h->magic ^= 1;
		break;
	case BAD_VERSION:
		h->abi_version = XS_ABI_VERSION + 1;
		break;
	case BAD_OFFSET:
		h->victim_off = (uint32_t)f->size;
		break;
	default: /* BAD_ROWS */
		for (uint32_t i = 0; i < h->ncpus * h->row_len; i++)
			rows[i].cpu_index = 0xffff;
		break;
	}
	xs_abi_write_end(h);
	return -EBADMSG;
}

static void after_connect(struct __test_metadata *_metadata, enum corruption c)
{
	struct xs_daemon_info info;
	struct xs_runtime *rt;
	struct fake f;
	int want;

	ASSERT_EQ(0, fake_start(&f));
	xsc_env(f.dir, "required");
	rt = xs_runtime_create(4);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(1, xsc_run_until(rt, 20, 3000, xsc_using_daemon));
	if (!f.h->row_len) {
		/* one CPU: there is no table to adopt, only the state */
		xs_runtime_destroy(rt);
		fake_stop(&f);
		SKIP(return, "one CPU: no victim rows");
	}
	want = corrupt(&f, c);
	ASSERT_EQ(1, xsc_run_until(rt, 20, 3000, xsc_not_using_daemon)) TH_LOG("%s", names[c]);
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(0, info.fresh);
	EXPECT_LE(1, info.rejected);
	EXPECT_LE(1, info.fallbacks);
	EXPECT_EQ(want, info.last_reject) TH_LOG("%s: %s", names[c], strerror(-info.last_reject));
	EXPECT_EQ((void *)rt->daemon->own_view, (void *)atomic_load(&rt->victims));
	/* and it stays that way: jobs go on checking out on our own table */
	for (int i = 0; i < 10; i++)
		ASSERT_EQ(0, xsc_run_fib(rt, 20));
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(0, info.using_daemon_table);
	xs_runtime_destroy(rt);
	fake_stop(&f);
}

TEST(after_connect_bad_magic) { after_connect(_metadata, BAD_MAGIC); }
TEST(after_connect_bad_version) { after_connect(_metadata, BAD_VERSION); }
TEST(after_connect_offset_out_of_range) { after_connect(_metadata, BAD_OFFSET); }
TEST(after_connect_rows_out_of_range) { after_connect(_metadata, BAD_ROWS); }
TEST(after_connect_seqlock_left_odd) { after_connect(_metadata, SEQ_ODD); }
TEST(after_connect_heartbeat_stale) { after_connect(_metadata, STALE); }

/* Corrupt before anyone connects: auto stays on its own tables, required
 * fails naming XSCHED_DAEMON. */
static void at_connect(struct __test_metadata *_metadata, enum corruption c)
{
	struct xs_daemon_info info;
	struct xs_runtime *rt;
	struct fake f;

	ASSERT_EQ(0, fake_start(&f));
	corrupt(&f, c);
	xsc_env(f.dir, "auto");
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(0, xsc_run_fib(rt, 20));
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(0, info.connected) TH_LOG("%s", names[c]);
	EXPECT_EQ(0, info.using_daemon_table);
	xs_runtime_destroy(rt);
	xsc_env(f.dir, "required");
	errno = 0;
	rt = xs_runtime_create(2);
	EXPECT_EQ(NULL, rt) TH_LOG("%s", names[c]);
	EXPECT_NE(0, errno);
	if (rt)
		xs_runtime_destroy(rt);
	fake_stop(&f);
}

TEST(at_connect_bad_magic) { at_connect(_metadata, BAD_MAGIC); }
TEST(at_connect_bad_version) { at_connect(_metadata, BAD_VERSION); }
TEST(at_connect_offset_out_of_range) { at_connect(_metadata, BAD_OFFSET); }
TEST(at_connect_seqlock_left_odd) { at_connect(_metadata, SEQ_ODD); }

TEST_HARNESS_MAIN
