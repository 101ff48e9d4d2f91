// SPDX-License-Identifier: MIT
/*
 * With the real xschedd running (real BPF), a runtime created with
 * XSCHED_DAEMON=auto connects, registers every worker's thread (the
 * daemon's worker-state array, read by a second client, holds exactly
 * those tids for this process) and, once idle thieves poll, steals through
 * a victim view built from the daemon's table. Every job checks out; after
 * destroy the daemon has reclaimed the slots.
 */
#include "xschedd-client-test.h"

#define NWORKERS 4

TEST(registers_workers_and_uses_the_daemon_table)
{
	struct xsd_test_client peek;
	struct xs_daemon_info info;
	struct xs_runtime *rt;
	struct xsd_test t;
	const char *why = xsc_test_skip_why();
	int left;

	if (why)
		SKIP(return, "%s", why);
	rt = xsc_start(_metadata, &t, NWORKERS);
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(1, info.connected);
	EXPECT_EQ(1, info.connects);
	EXPECT_EQ(NWORKERS, info.registered);
	EXPECT_EQ(XS_ABI_MODE_BPF, info.mode);

	/* What the daemon publishes: one slot per worker thread of ours. */
	ASSERT_EQ(0, xsd_test_client_open(&t, &peek));
	for (uint32_t w = 0; w < NWORKERS; w++) {
		EXPECT_NE(0, rt->daemon->tids[w]);
	}
	xsc_expect_registered(_metadata, &peek, rt, NWORKERS);

	/* Idle thieves poll the fresh state and adopt the daemon's table. */
	ASSERT_EQ(1, xsc_run_until(rt, 22, 3000, xsc_using_daemon));
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(1, info.fresh);
	EXPECT_LE(1, info.adopted);
	EXPECT_LE(1, info.polls);
	EXPECT_NE((void *)rt->daemon->own_view, (void *)atomic_load(&rt->victims));
	TH_LOG("%llu polls, %llu tables adopted, %llu rejected, %llu requests skipped "
	       "(victim off-CPU)", (unsigned long long)info.polls,
	       (unsigned long long)info.adopted, (unsigned long long)info.rejected,
	       (unsigned long long)info.off_cpu_skips);
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(0, xsc_run_fib(rt, 22));
	xs_runtime_destroy(rt);

	/* Our socket closed: every slot of ours is free again. */
	for (left = 100; left > 0; left--) {
		int held = 0;

		for (uint32_t s = 0; s < peek.state->nslots; s++)
			held += __atomic_load_n(&peek.workers[s].pid, __ATOMIC_RELAXED) ==
				(uint32_t)getpid();
		if (!held)
			break;
		xsd_test_sleep_ms(10);
	}
	EXPECT_LT(0, left);
	xsd_test_client_close(&peek);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
