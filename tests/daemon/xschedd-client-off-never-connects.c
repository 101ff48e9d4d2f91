// SPDX-License-Identifier: MIT
/*
 * XSCHED_DAEMON=off with the real xschedd running in XSCHED_RUNTIME_DIR:
 * the runtime never connects (the daemon logs no client, holds no slot for
 * this process) and has no client state at all; auto in the same place
 * does connect, which shows the daemon was there to be found.
 */
#include "xschedd-client-test.h"

static int held_by_us(const struct xsd_test_client *peek)
{
	int held = 0;

	for (uint32_t s = 0; s < peek->state->nslots; s++)
		held += __atomic_load_n(&peek->workers[s].pid, __ATOMIC_RELAXED) ==
			(uint32_t)getpid();
	return held;
}

TEST(off_never_connects)
{
	struct xsd_test_client peek;
	struct xs_daemon_info info;
	struct xs_runtime *rt;
	struct xsd_test t;
	const char *why = xsc_test_skip_why();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_test_start(&t, "--verbose", "1"));
	ASSERT_EQ(0, xsd_test_client_open(&t, &peek)); /* the one client we expect */
	xsc_env(t.rt, "off");
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	EXPECT_EQ(NULL, rt->daemon);
	for (int i = 0; i < 20; i++)
		ASSERT_EQ(0, xsc_run_fib(rt, 20));
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(0, info.connected);
	EXPECT_EQ(0, info.connects);
	EXPECT_EQ(0, held_by_us(&peek));
	xs_runtime_destroy(rt);
	xsd_test_sleep_ms(30);
	EXPECT_TRUE(xsd_test_log_has(&t, "client 1:"));
	EXPECT_FALSE(xsd_test_log_has(&t, "client 2:")) xsd_test_dump_log(&t);

	xsc_env(t.rt, "auto");
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(1, info.connected);
	EXPECT_EQ(2, held_by_us(&peek));
	xs_runtime_destroy(rt);
	xsd_test_sleep_ms(30);
	EXPECT_TRUE(xsd_test_log_has(&t, "client 2:"));
	xsd_test_client_close(&peek);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
