// SPDX-License-Identifier: MIT
/*
 * Issue 31, item 4: requests cost the daemon a bounded amount.
 *
 *   - Four processes of a scratch user, 32 threads each, send back-to-back
 *     REGISTER and UNREGISTER of their 32 tids: the daemon (4096 slots)
 *     stays under 15% of a CPU while they do, and root's HELLO and
 *     REGISTER are still answered.
 *   - 3000 connection attempts past XSCHEDD_MAX_CLIENTS: the refusals are
 *     logged a bounded number of times (under 20 lines), not once each.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "xschedd-abuse.h"

#define NPROC 4
#define NTHR 32

static struct xsd_test t;
static int ready[2];

static int flooder(void *arg)
{
	uint32_t mine[NTHR];
	struct xs_abi_reply r;
	int fd;

	(void)arg;
	if (xsd_test_idle_threads(mine, NTHR))
		return 1;
	fd = xsd_test_connect(&t);
	if (write(ready[1], "r", 1) != 1 || fd < 0)
		return 1;
	for (;;) {
		for (int k = 0; k < 2; k++) {
			int ret = xsd_test_call(fd, k ? XS_ABI_UNREGISTER : XS_ABI_REGISTER, mine,
						NTHR, &r, NULL);

			/* closed by the daemon: the flood is over for this one */
			if (ret == -EPIPE || ret == -ECONNRESET || ret == -EBADMSG)
				return 0;
		}
	}
}

TEST(register_flood_costs_little)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	struct xsd_test_client c;
	struct xs_abi_reply r;
	pid_t atk[NPROC];
	unsigned int cpu;
	uint32_t self;
	int ret;
	char b;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "flood"));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, xsd_test_start(&t));
	for (int i = 0; i < NPROC; i++) {
		atk[i] = xsd_abuse_spawn(&u, 30, flooder, NULL);
		ASSERT_LT(0, atk[i]);
		ASSERT_EQ(1, read(ready[0], &b, 1));
	}
	xsd_test_sleep_ms(300);
	cpu = xsd_abuse_cpu_percent(t.pid, 2000);
	xsd_say("# daemon: %u%% of a CPU under the REGISTER/UNREGISTER flood\n", cpu);
	EXPECT_GT(15u, cpu);

	ret = xsd_test_client_open(&t, &c);
	EXPECT_EQ(0, ret) xsd_say("# root's HELLO: %s\n", strerror(-ret));
	self = xsd_test_gettid();
	if (!ret)
		EXPECT_EQ(0, xsd_test_call(c.fd, XS_ABI_REGISTER, &self, 1, &r, NULL));
	xsd_test_client_close(&c);
	for (int i = 0; i < NPROC; i++)
		xsd_abuse_kill(atk[i]);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

static int knocker(void *arg)
{
	int fds[4];

	(void)arg;
	for (int i = 0; i < 4; i++)
		fds[i] = xsd_test_connect(&t);
	xsd_test_sleep_ms(200);
	for (int i = 0; i < 3000; i++) {
		int fd = xsd_test_connect(&t);

		if (fd >= 0)
			close(fd);
	}
	if (write(ready[1], "r", 1) != 1)
		return 1;
	pause();
	return fds[0] < 0;
}

TEST(refusals_logged_rarely)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	unsigned long lines;
	pid_t atk;
	char b;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "flood"));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	ASSERT_EQ(0, xsd_test_start(&t, "--max-clients", "4"));
	atk = xsd_abuse_spawn(&u, 60, knocker, NULL);
	ASSERT_LT(0, atk);
	close(ready[1]);
	EXPECT_EQ(1, read(ready[0], &b, 1));
	xsd_test_sleep_ms(300);
	lines = xsd_abuse_log_count(&t, "refused");
	xsd_say("# %lu log lines about refused clients for 3000 attempts\n", lines);
	EXPECT_GT(20ul, lines);
	xsd_abuse_kill(atk);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

TEST_HARNESS_MAIN
