// SPDX-License-Identifier: MIT
/*
 * Issue 31, item 2: a daemon at its open-file limit must not spin on
 * accept() failing with EMFILE, nor log each failure. The daemon runs with
 * RLIMIT_NOFILE 64; a scratch user opens 300 idle connections (far more
 * than fit). Over the next two seconds the daemon uses under 20% of a CPU
 * and writes under 16 KiB of log; once the user is gone, root connects and
 * gets its HELLO answered.
 */
#include "kselftest_harness.h"
#include "xschedd-abuse.h"

#define NCONN 300

static struct xsd_test t;
static int ready[2];

static int attacker(void *arg)
{
	int n = 0;

	(void)arg;
	for (int i = 0; i < NCONN; i++)
		n += xsd_abuse_connect(&t) >= 0;
	xsd_say("# attacker: %d of %d connections made\n", n, NCONN);
	if (write(ready[1], "r", 1) != 1)
		return 1;
	pause();
	return 0;
}

TEST(emfile_neither_spins_nor_floods_the_log)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	struct xsd_test_client c;
	unsigned int cpu;
	long log0, log1;
	int status, ret;
	pid_t atk;
	char b;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "emfile"));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	xsd_abuse_nofile = 64;
	ASSERT_EQ(0, xsd_test_start_with(&t, xsd_abuse_limit_nofile, NULL));
	atk = xsd_abuse_spawn(&u, 30, attacker, NULL);
	ASSERT_LT(0, atk);
	close(ready[1]);
	EXPECT_EQ(1, read(ready[0], &b, 1));
	xsd_test_sleep_ms(200);

	log0 = xsd_abuse_log_size(&t);
	cpu = xsd_abuse_cpu_percent(t.pid, 2000);
	log1 = xsd_abuse_log_size(&t);
	xsd_say("# daemon: %u%% of a CPU, %ld bytes of log in 2 s under the attack\n", cpu,
	       log1 - log0);
	EXPECT_GT(20u, cpu);
	EXPECT_GT(16384, log1 - log0);
	EXPECT_TRUE(xsd_abuse_alive(&t, &status));

	xsd_abuse_kill(atk);
	xsd_test_sleep_ms(300);
	ret = xsd_test_client_open(&t, &c);
	EXPECT_EQ(0, ret) xsd_say("# root's HELLO after the attack: %s\n", strerror(-ret));
	xsd_test_client_close(&c);
	if (!_metadata->passed)
		xsd_abuse_log_tail(&t, 5);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

TEST_HARNESS_MAIN
