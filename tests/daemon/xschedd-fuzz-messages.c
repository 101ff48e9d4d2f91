// SPDX-License-Identifier: MIT
/*
 * 10^5 random, truncated and oversized messages: each malformed one gets an
 * XS_ABI_ERROR reply and a closed connection; the daemon stays up and keeps
 * serving a well-behaved client that connected before the storm (HELLO,
 * REGISTER, UNREGISTER between batches and after).
 *
 * Then many clients at once, each on connections it keeps: valid requests
 * (HELLO, REGISTER and UNREGISTER of its own threads or of tids that are
 * not its own) mixed with bad ones, messages split across writes,
 * connections dropped mid-message. The daemon stays up, keeps serving the
 * well-behaved client, and when the clients are gone every slot is free.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

#define NMSGS 100000
#define INFLIGHT 32

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* One bad message into @buf; returns its length. Kinds: truncated valid
 * prefix (empty included), oversized, right size with random bytes, right size with a
 * valid header but a bad field. */
static size_t make_bad(unsigned char *buf, size_t cap)
{
	struct xs_abi_request q;
	size_t len;

	memset(&q, 0, sizeof(q));
	q.magic = XS_ABI_MSG_MAGIC;
	q.version = XS_ABI_MSG_VERSION;
	q.type = XS_ABI_REGISTER;
	q.size = sizeof(q);
	switch (next() % 4) {
	case 0:
		/* 0..143 bytes: an empty record too, which the daemon must
		 * tell from a hang-up */
		len = next() % sizeof(q);
		memcpy(buf, &q, len);
		return len;
	case 1:
		len = sizeof(q) + 1 + next() % (cap - sizeof(q) - 1);
		for (size_t i = 0; i < len; i++)
			buf[i] = (unsigned char)next();
		memcpy(buf, &q, sizeof(q));
		return len;
	case 2:
		for (size_t i = 0; i < sizeof(q); i++)
			buf[i] = (unsigned char)next();
		return sizeof(q);
	default:
		switch (next() % 5) {
		case 0: q.magic ^= 1u << (next() % 32); break;
		case 1: q.version = (uint16_t)(2 + next() % 100); break;
		case 2: q.size = (uint32_t)next(); if (q.size == sizeof(q)) q.size++; break;
		case 3: q.count = XS_ABI_MAX_TIDS + 1 + (uint32_t)(next() % 1000); break;
		default: q.type = (uint16_t)(XS_ABI_RECLAIM + 1 + next() % 1000); break;
		}
		memcpy(buf, &q, sizeof(q));
		return sizeof(q);
	}
}

static int well_behaved(int fd, uint32_t tid)
{
	struct xs_abi_reply r;
	int fds[2] = { -1, -1 };

	if (xsd_test_call(fd, XS_ABI_HELLO, NULL, 0, &r, fds))
		return -1;
	close(fds[0]);
	close(fds[1]);
	if (xsd_test_call(fd, XS_ABI_REGISTER, &tid, 1, &r, NULL) || r.slots[0] == UINT32_MAX)
		return -2;
	if (xsd_test_call(fd, XS_ABI_UNREGISTER, &tid, 1, &r, NULL))
		return -3;
	return 0;
}

/* 10^5 connections take seconds on an idle machine and more than the
 * harness's default 30 s under ASan on a loaded one: the limit only has
 * to catch a daemon that stops answering (each reply has 5 s besides). */
FIXTURE(storm) {};
FIXTURE_SETUP(storm) {}
FIXTURE_TEARDOWN(storm) {}

TEST_F_TIMEOUT(storm, random_truncated_oversized_messages, 600)
{
	const char *why = xsd_test_no_bpf_why();
	unsigned char buf[1024];
	struct xs_abi_reply r;
	struct xsd_test t;
	uint64_t errors = 0, closed = 0, t0;
	int good, status;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_test_start(&t, "--max-clients", "256"));
	good = xsd_test_connect(&t);
	ASSERT_LE(0, good);
	ASSERT_EQ(0, well_behaved(good, xsd_test_gettid()));

	t0 = xsd_test_now_ns();
	for (int sent = 0; sent < NMSGS;) {
		int fds[INFLIGHT], n = 0;

		for (; n < INFLIGHT && sent < NMSGS; n++, sent++) {
			size_t len = make_bad(buf, sizeof(buf));

			fds[n] = xsd_test_connect(&t);
			ASSERT_LE(0, fds[n]);
			ASSERT_EQ((ssize_t)len, send(fds[n], buf, len, MSG_NOSIGNAL));
		}
		for (int i = 0; i < n; i++) {
			struct pollfd p = { fds[i], POLLIN, 0 };
			int got;

			/* the error reply, then end of file */
			ASSERT_EQ(1, poll(&p, 1, 5000));
			got = xsd_test_recv(fds[i], &r, NULL);
			if (got == sizeof(r) && r.type == XS_ABI_ERROR && r.status < 0)
				errors++;
			if (recv(fds[i], buf, sizeof(buf), 0) == 0)
				closed++;
			close(fds[i]);
		}
		if (sent % 10000 == 0)
			ASSERT_EQ(0, well_behaved(good, xsd_test_gettid()));
	}
	printf("# %d bad messages in %.2f s: %llu error replies, %llu closed\n", NMSGS,
	       (double)(xsd_test_now_ns() - t0) / 1e9, (unsigned long long)errors,
	       (unsigned long long)closed);
	fflush(stdout);
	EXPECT_EQ(NMSGS, errors);
	EXPECT_EQ(NMSGS, closed);
	EXPECT_EQ(0, waitpid(t.pid, &status, WNOHANG));
	EXPECT_EQ(0, well_behaved(good, xsd_test_gettid()));
	close(good);
	EXPECT_EQ(0, xsd_test_stop(&t)) xsd_test_dump_log(&t);
}

#define NCLIENTS 8
#define STORM_MS 3000

/* One client of the concurrent storm, in its own process: for STORM_MS,
 * a random request at a time on a connection it keeps until the daemon
 * closes it (or it drops it itself, mid-message at times). */
static int storm_client(const struct xsd_test *t, uint64_t seed)
{
	uint32_t own[4];
	unsigned char buf[1024];
	uint64_t end = xsd_test_now_ns() + (uint64_t)STORM_MS * 1000000;
	int fd = -1;

	rng = seed;
	if (xsd_test_idle_threads(own, 4))
		return 1;
	while (xsd_test_now_ns() < end) {
		struct xs_abi_reply r;
		int fds[2] = { -1, -1 };
		uint32_t tids[4];
		size_t len;

		if (fd < 0 && (fd = xsd_test_connect(t)) < 0)
			continue;
		switch (next() % 6) {
		case 0:
			if (!xsd_test_call(fd, XS_ABI_HELLO, NULL, 0, &r, fds)) {
				close(fds[0]);
				close(fds[1]);
			}
			break;
		case 1:
		case 2:
			/* our own threads, or tids that are not ours */
			for (int i = 0; i < 4; i++)
				tids[i] = next() % 2 ? own[i] : (uint32_t)(1 + next() % 4194304);
			(void)xsd_test_call(fd, next() % 2 ? XS_ABI_REGISTER : XS_ABI_UNREGISTER,
					    tids, 1 + (uint32_t)(next() % 4), &r, NULL);
			break;
		case 3:
			/* a bad message: the daemon answers and closes */
			len = make_bad(buf, sizeof(buf));
			(void)send(fd, buf, len, MSG_NOSIGNAL);
			(void)xsd_test_recv(fd, &r, NULL);
			close(fd);
			fd = -1;
			break;
		case 4: {
			/* a valid HELLO in two writes */
			struct xs_abi_request q = { .magic = XS_ABI_MSG_MAGIC,
						    .version = XS_ABI_MSG_VERSION,
						    .type = XS_ABI_HELLO, .size = sizeof(q) };
			size_t cut = 1 + next() % (sizeof(q) - 1);

			(void)send(fd, &q, cut, MSG_NOSIGNAL);
			usleep((useconds_t)(next() % 2000));
			(void)send(fd, (char *)&q + cut, sizeof(q) - cut, MSG_NOSIGNAL);
			if (xsd_test_recv(fd, &r, fds) >= 0) {
				close(fds[0]);
				close(fds[1]);
			} else {
				close(fd);
				fd = -1;
			}
			break;
		}
		default:
			/* hang up mid-message */
			len = make_bad(buf, sizeof(buf));
			(void)send(fd, buf, len / 2, MSG_NOSIGNAL);
			close(fd);
			fd = -1;
			break;
		}
	}
	return 0;
}

/* Slots held now, in the state's worker array. */
static uint32_t slots_held(const struct xsd_test_client *c)
{
	uint32_t n = 0;

	for (size_t i = 0; i < c->workers_size / sizeof(*c->workers); i++)
		n += __atomic_load_n(&c->workers[i].tid, __ATOMIC_RELAXED) != 0;
	return n;
}

TEST_F_TIMEOUT(storm, many_clients_at_once, 120)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test_client peek;
	pid_t kids[NCLIENTS];
	struct xsd_test t;
	int good, status, ok = 0, held = -1;

	if (why)
		SKIP(return, "%s", why);
	/* one user (root) runs every client: its rate and connection
	 * limits high, so that the storm reaches the request path */
	ASSERT_EQ(0, xsd_test_start(&t, "--max-clients", "256", "--user-clients", "256",
				    "--user-rate", "1000000"));
	good = xsd_test_connect(&t);
	ASSERT_LE(0, good);
	ASSERT_EQ(0, xsd_test_client_open(&t, &peek));
	for (int i = 0; i < NCLIENTS; i++) {
		kids[i] = fork();
		ASSERT_LE(0, kids[i]);
		if (!kids[i]) {
			alarm(STORM_MS / 1000 + 20);
			_exit(storm_client(&t, 0x2545f4914f6cdd1dull * (uint64_t)(i + 1)));
		}
	}
	for (int k = 0; k < STORM_MS / 250; k++) {
		usleep(250000);
		ok += well_behaved(good, xsd_test_gettid()) == 0;
	}
	for (int i = 0; i < NCLIENTS; i++) {
		ASSERT_EQ(kids[i], waitpid(kids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("client %d: status %#x", i, status);
	}
	EXPECT_EQ(STORM_MS / 250, ok) TH_LOG("the well-behaved client was served %d times", ok);
	EXPECT_EQ(0, waitpid(t.pid, &status, WNOHANG));
	EXPECT_EQ(0, well_behaved(good, xsd_test_gettid()));
	/* Every client is gone: their slots come back within a few ticks. */
	for (int k = 0; k < 100 && held; k++) {
		held = (int)slots_held(&peek);
		if (held)
			usleep(20000);
	}
	printf("# %d clients for %d ms: the well-behaved client served %d of %d times, "
	       "%d slots held after\n", NCLIENTS, STORM_MS, ok, STORM_MS / 250, held);
	fflush(stdout);
	EXPECT_EQ(0, held);
	xsd_test_client_close(&peek);
	close(good);
	EXPECT_EQ(0, xsd_test_stop(&t)) xsd_test_dump_log(&t);
}

TEST_HARNESS_MAIN
