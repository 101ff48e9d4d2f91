// SPDX-License-Identifier: MIT
/*
 * Issue 31, item 1: every HELLO reply carries two descriptors
 * (SCM_RIGHTS), which the kernel charges to the daemon's user until the
 * client reads them; past the daemon's RLIMIT_NOFILE its sendmsg() fails
 * with ETOOMANYREFS for everyone. A scratch user opens 80 connections and
 * sends 16 HELLOs on each without reading a reply; root's HELLO must still
 * be answered, with both descriptors, and the daemon must keep running.
 * The daemon runs with LimitNOFILE=1024, the soft limit of a unit that
 * sets none.
 *
 * And closing a connection does not let a user pile up more: with a 300 ms
 * idle time, the user opens 400 connections over 2 s, each with one
 * unread HELLO reply, and keeps every one; the replies it holds unread
 * (each two descriptors charged to the daemon) stay within its
 * connection limit (XSCHEDD_USER_CLIENTS, 64).
 */
#include <sys/ioctl.h>

#include "kselftest_harness.h"
#include "xschedd-abuse.h"

#define NCONN 80
#define NHELLO 16

static struct xsd_test t;
static int ready[2];

static int attacker(void *arg)
{
	int sent = 0;

	(void)arg;
	for (int i = 0; i < NCONN; i++) {
		int fd = xsd_abuse_connect(&t);

		if (fd < 0)
			continue;
		for (int k = 0; k < NHELLO; k++)
			sent += !xsd_abuse_send(fd, XS_ABI_HELLO, NULL, 0);
	}
	xsd_say("# attacker: %d HELLOs sent, none read\n", sent);
	if (write(ready[1], "r", 1) != 1)
		return 1;
	pause(); /* holds every connection and its unread replies */
	return 0;
}

TEST(unread_replies_do_not_starve_others)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	struct xsd_test_client c;
	pid_t atk;
	int status, ret;
	char b;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "unread"));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	xsd_abuse_nofile = 1024;
	ASSERT_EQ(0, xsd_test_start_with(&t, xsd_abuse_limit_nofile, NULL));
	atk = xsd_abuse_spawn(&u, 30, attacker, NULL);
	ASSERT_LT(0, atk);
	close(ready[1]);
	EXPECT_EQ(1, read(ready[0], &b, 1));
	/* let the daemon answer everything it will answer */
	xsd_test_sleep_ms(1000);

	for (int i = 0; i < 3; i++) {
		ret = xsd_test_client_open(&t, &c);
		EXPECT_EQ(0, ret) {
			xsd_say("# root's HELLO %d: %s\n", i, strerror(-ret));
		}
		xsd_test_client_close(&c);
	}
	EXPECT_TRUE(xsd_abuse_alive(&t, &status));
	if (_metadata->passed == 0)
		xsd_abuse_log_tail(&t, 10);
	xsd_abuse_kill(atk);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

static int hoarder(void *arg)
{
	int fds[400], n = 0, unread = 0;

	(void)arg;
	for (int i = 0; i < 400; i++) {
		fds[n] = xsd_abuse_connect(&t);
		if (fds[n] < 0)
			continue;
		xsd_abuse_send(fds[n], XS_ABI_HELLO, NULL, 0);
		n++;
		xsd_test_sleep_ms(5);
	}
	xsd_test_sleep_ms(500);
	for (int i = 0; i < n; i++) {
		int q = 0;

		unread += !ioctl(fds[i], FIONREAD, &q) && q > 0;
	}
	xsd_say("# hoarder: %d connections made, %d hold an unread reply\n", n, unread);
	return unread > 64 ? 1 : 0;
}

TEST(closed_connections_do_not_pile_up)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	int status = -1, ret;
	pid_t atk;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "unread"));
	setenv("XSCHEDD_CLIENT_IDLE_MS", "300", 1);
	ret = xsd_test_start(&t);
	unsetenv("XSCHEDD_CLIENT_IDLE_MS");
	ASSERT_EQ(0, ret) xsd_test_dump_log(&t);
	atk = xsd_abuse_spawn(&u, 30, hoarder, NULL);
	ASSERT_LT(0, atk);
	ASSERT_EQ(atk, waitpid(atk, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

TEST_HARNESS_MAIN
