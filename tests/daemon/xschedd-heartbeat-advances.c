// SPDX-License-Identifier: MIT
/*
 * xschedd starts in a temporary runtime directory with its BPF programs
 * attached and publishes: the state file is mode 0444 with a valid layout,
 * the heartbeat and generation advance tick by tick, the descriptors a
 * client gets cannot be mapped writable, and SIGTERM ends the daemon
 * cleanly, marking the state exited and removing what it published.
 */
#include "kselftest_harness.h"
#include "xschedd-test.h"

TEST(heartbeat_advances_and_exit_cleans_up)
{
	struct xsd_test t;
	struct xsd_test_client c;
	char path[PATH_MAX + 16];
	uint64_t gen0, hb0, gen1, hb1, tick;
	struct stat st;
	const char *why = xsd_test_no_bpf_why();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_test_start(&t, "--tick-ms", "10"));
	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_test_dump_log(&t);
	EXPECT_EQ(XS_ABI_MODE_BPF, c.mode) xsd_test_dump_log(&t);
	EXPECT_TRUE(xsd_test_log_has(&t, "capabilities: kept cap_bpf"));

	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, t.rt);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0444, st.st_mode & 07777);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.state_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				   c.state_fd, 0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.workers_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				   c.workers_fd, 0));
	EXPECT_EQ((uint32_t)t.pid, c.state->daemon_pid);
	tick = c.state->tick_ns;
	EXPECT_EQ(10000000u, tick);

	for (int i = 0; i < 5; i++) {
		gen0 = __atomic_load_n(&c.state->generation, __ATOMIC_ACQUIRE);
		hb0 = __atomic_load_n(&c.state->heartbeat_ns, __ATOMIC_ACQUIRE);
		EXPECT_TRUE(xsd_test_publishes(&c, 1, 1000));
		gen1 = __atomic_load_n(&c.state->generation, __ATOMIC_ACQUIRE);
		hb1 = __atomic_load_n(&c.state->heartbeat_ns, __ATOMIC_ACQUIRE);
		EXPECT_LT(gen0, gen1);
		EXPECT_LT(hb0, hb1);
		/* just published: fresh, unless this machine is emulated and
		 * this thread waited that long for a CPU (xs_test.h) */
		EXPECT_TRUE(xs_abi_fresh(hb1, c.state->flags, xsd_test_now_ns(),
					 10 * tick * xs_test_timeout_scale()));
	}
	EXPECT_FALSE(c.state->flags & XS_ABI_F_EXITED);

	kill(t.pid, SIGTERM);
	{
		int status;

		ASSERT_EQ(0, xsd_test_reap(&t, &status, 30)) xsd_test_dump_log(&t);
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) xsd_test_dump_log(&t);
	}
	EXPECT_TRUE(c.state->flags & XS_ABI_F_EXITED);
	EXPECT_FALSE(xs_abi_fresh(c.state->heartbeat_ns, c.state->flags, xsd_test_now_ns(),
				  10 * tick));
	EXPECT_NE(0, access(path, F_OK));
	EXPECT_NE(0, access(t.rt, F_OK)); /* it created the directory: removed */
	xsd_test_client_close(&c);
	xsd_test_stop(&t);
}

TEST_HARNESS_MAIN
