// SPDX-License-Identifier: MIT
/*
 * Issue 31, item 3: one user cannot take every slot or every connection,
 * and connections that hold nothing are not kept forever.
 *
 *   - 16 slots, 4 per client: four processes of a scratch user register
 *     4 threads each; the user's quota (a quarter of the slots) stops it
 *     at 4 (-EDQUOT), and root still gets a slot.
 *   - 32 idle connections of the user: the per-user connection limit
 *     (XSCHEDD_USER_CLIENTS=8) refuses the rest, root still connects.
 *   - XSCHEDD_CLIENT_IDLE_MS=300: an idle connection without slots is
 *     closed; one with slots is kept.
 */
#include <pthread.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "xschedd-abuse.h"

#define NPROC 4
#define NTHR 4

static struct xsd_test t;
static int ready[2];

/* A process of the user: 4 threads, registered; writes how many got a
 * slot, then holds them. */
static int registrar(void *arg)
{
	uint32_t mine[NTHR];
	struct xs_abi_reply r;
	int fd, got = 0;
	char n;

	(void)arg;
	if (xsd_test_idle_threads(mine, NTHR))
		return 1;
	fd = xsd_test_connect(&t);
	if (fd >= 0)
		xsd_test_call(fd, XS_ABI_REGISTER, mine, NTHR, &r, NULL);
	for (int i = 0; fd >= 0 && i < NTHR; i++)
		got += r.slots[i] != UINT32_MAX;
	n = (char)got;
	if (write(ready[1], &n, 1) != 1)
		return 1;
	pause();
	return 0;
}

TEST(one_user_cannot_take_every_slot)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	struct xsd_test_client c;
	struct xs_abi_reply r;
	pid_t atk[NPROC];
	uint32_t self;
	int total = 0, ret;
	char n;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "quota"));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, xsd_test_start(&t, "--slots", "16", "--client-slots", "4"));
	for (int i = 0; i < NPROC; i++) {
		atk[i] = xsd_abuse_spawn(&u, 30, registrar, NULL);
		ASSERT_LT(0, atk[i]);
		ASSERT_EQ(1, read(ready[0], &n, 1));
		total += n;
	}
	xsd_say("# the user's %d processes hold %d slots of 16\n", NPROC, total);
	EXPECT_GE(4, total);

	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_test_dump_log(&t);
	self = xsd_test_gettid();
	ret = xsd_test_call(c.fd, XS_ABI_REGISTER, &self, 1, &r, NULL);
	EXPECT_EQ(0, ret) xsd_say("# root's REGISTER: %s\n", strerror(-ret));
	xsd_test_client_close(&c);
	for (int i = 0; i < NPROC; i++)
		xsd_abuse_kill(atk[i]);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

static int hoarder(void *arg)
{
	int n = 0;
	char b;

	(void)arg;
	for (int i = 0; i < 32; i++) {
		int fd = xsd_test_connect(&t);
		struct xs_abi_reply r;
		int fds[2] = { -1, -1 };

		/* a connection counts once the daemon answered on it */
		n += fd >= 0 && xsd_test_call(fd, XS_ABI_HELLO, NULL, 0, &r, fds) == 0;
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
	}
	b = (char)n;
	if (write(ready[1], &b, 1) != 1)
		return 1;
	pause();
	return 0;
}

/* Whether the daemon closed @fd (a receive sees the end, not EAGAIN). */
static int closed_by_daemon(int fd)
{
	char b[8];

	return recv(fd, b, sizeof(b), MSG_DONTWAIT) == 0;
}

TEST(user_connections_bounded_idle_ones_closed)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	struct xsd_test_client idle, busy;
	struct xs_abi_reply r;
	uint32_t self;
	pid_t atk;
	int ret;
	char b;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "quota"));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	setenv("XSCHEDD_USER_CLIENTS", "8", 1);
	setenv("XSCHEDD_CLIENT_IDLE_MS", "300", 1);
	ret = xsd_test_start(&t);
	unsetenv("XSCHEDD_USER_CLIENTS");
	unsetenv("XSCHEDD_CLIENT_IDLE_MS");
	ASSERT_EQ(0, ret) xsd_test_dump_log(&t);
	atk = xsd_abuse_spawn(&u, 30, hoarder, NULL);
	ASSERT_LT(0, atk);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &b, 1));
	xsd_say("# the user got %d of 32 connections answered\n", b);
	EXPECT_GE(8, b);

	ASSERT_EQ(0, xsd_test_client_open(&t, &idle)) xsd_test_dump_log(&t);
	ASSERT_EQ(0, xsd_test_client_open(&t, &busy));
	self = xsd_test_gettid();
	EXPECT_EQ(0, xsd_test_call(busy.fd, XS_ABI_REGISTER, &self, 1, &r, NULL));
	xsd_test_sleep_ms(1500);
	EXPECT_TRUE(closed_by_daemon(idle.fd));
	EXPECT_FALSE(closed_by_daemon(busy.fd));
	EXPECT_EQ(0, xsd_test_call(busy.fd, XS_ABI_UNREGISTER, &self, 1, &r, NULL));
	xsd_test_client_close(&idle);
	xsd_test_client_close(&busy);
	xsd_abuse_kill(atk);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

TEST_HARNESS_MAIN
