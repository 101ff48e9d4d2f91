// SPDX-License-Identifier: MIT
/*
 * A process cannot lend CPUs it does not own, nor borrow by asking
 * (daemon/clients.c, daemon/share.c): what a lend can take is bounded by
 * the lender's own part of the division, and only the division gives
 * anyone CPUs.
 *
 *   - a process that holds no share (it said HELLO and uses no CPU) lends
 *     1000 CPUs: the daemon takes none (reply count 0), nobody's share
 *     moves;
 *   - a busy process with 4 of 8 CPUs lends UINT32_MAX on one connection
 *     and again on a second one: 3 taken in all (its part less one), never
 *     more, whatever it asks; the other's cpus never exceed what the
 *     division and the 3 lent give (7), the sum never exceeds share_cpus;
 *   - malformed lends (no count, two counts, 0 CPUs, RECLAIM with tids)
 *     are answered XS_ABI_ERROR and the connection closed, as every
 *     malformed request is; the daemon serves the others as before.
 */
#include "kselftest_harness.h"
#include "xschedd-lend-test.h"

/* A second connection of the calling process: LEND @offer, reply count. */
static int lend_on(const struct xsd_test *t, int *fd, uint32_t offer, uint32_t *count)
{
	struct xs_abi_reply r;
	int ret;

	*fd = xsd_test_connect(t);
	if (*fd < 0)
		return *fd;
	ret = xsd_test_call(*fd, XS_ABI_LEND, &offer, 1, &r, NULL);
	*count = r.count;
	return ret;
}

TEST(idle_process_lends_nothing)
{
	struct xsd_test_watch w;
	struct lend_child a = { 0 }, b = { 0 };
	char sys[PATH_MAX];
	uint32_t count = 99;
	int fd;

	ASSERT_EQ(0, lend_daemon_start(&w.t, sys, sizeof(sys)));
	xsd_test_watch_open(_metadata, &w, -1);
	ASSERT_EQ(0, lend_child_start(&w.t, &a)) xsd_test_dump_log(&w.t);
	ASSERT_EQ(0, lend_child_start(&w.t, &b)) xsd_test_dump_log(&w.t);
	ASSERT_TRUE(lend_await(&w, lend_split_even, a.pid, b.pid, 0, 5000))
		lend_show(_metadata, w.snap, "both busy");
	/* This process (idle: it sleeps between snapshots) lends. */
	EXPECT_EQ(0, lend_on(&w.t, &fd, 1000, &count));
	EXPECT_EQ(0, count);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	EXPECT_TRUE(lend_split_even(w.snap, a.pid, b.pid, 0))
		lend_show(_metadata, w.snap, "after an idle process's lend");
	xsd_test_wait_ticks(&w.c, 3);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	EXPECT_TRUE(lend_split_even(w.snap, a.pid, b.pid, 0))
		lend_show(_metadata, w.snap, "three ticks later");
	close(fd);
	lend_child_end(&a);
	lend_child_end(&b);
	lend_watch_end(_metadata, &w, sys);
}

/* The lender asks for everything twice, on its connection and on a
 * second one of its own (LEND_DO_LEND_AGAIN): its other connections'
 * loans count against the same part. */
TEST(lend_capped_at_own_part_less_one)
{
	struct xsd_test_watch w;
	struct lend_child a = { 0 }, b = { 0 };
	char sys[PATH_MAX];
	uint32_t count = 0, count2 = 0;

	ASSERT_EQ(0, lend_daemon_start(&w.t, sys, sizeof(sys)));
	xsd_test_watch_open(_metadata, &w, -1);
	ASSERT_EQ(0, lend_child_start(&w.t, &a)) xsd_test_dump_log(&w.t);
	ASSERT_EQ(0, lend_child_start(&w.t, &b)) xsd_test_dump_log(&w.t);
	ASSERT_TRUE(lend_await(&w, lend_split_even, a.pid, b.pid, 0, 5000))
		lend_show(_metadata, w.snap, "both busy");
	ASSERT_EQ(0, lend_command(&a, LEND_DO_LEND, UINT32_MAX, &count));
	EXPECT_EQ(3, count);
	ASSERT_EQ(0, lend_command(&a, LEND_DO_LEND_AGAIN, UINT32_MAX, &count2));
	EXPECT_EQ(0, count2);
	for (int tick = 0; tick < 5; tick++) {
		const struct xs_abi_share *sa, *sb;

		ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
		sa = lend_share_of(w.snap, a.pid);
		sb = lend_share_of(w.snap, b.pid);
		ASSERT_NE(NULL, sa);
		ASSERT_NE(NULL, sb);
		EXPECT_EQ(1, sa->cpus) lend_show(_metadata, w.snap, "lent twice");
		EXPECT_EQ(3, sa->lent);
		EXPECT_EQ(7, sb->cpus);
		EXPECT_LE(lend_cpus_sum(w.snap), w.snap->share_cpus);
		xsd_test_wait_ticks(&w.c, 1);
	}
	lend_child_end(&a);
	lend_child_end(&b);
	lend_watch_end(_metadata, &w, sys);
}

TEST(malformed_lends_refused)
{
	static const struct {
		uint16_t type;
		uint32_t count, cpus;
	} bad[] = {
		{ XS_ABI_LEND, 0, 0 },
		{ XS_ABI_LEND, 2, 1 },
		{ XS_ABI_LEND, 1, 0 },
		{ XS_ABI_RECLAIM, 1, 1 },
	};
	struct xsd_test t;
	char sys[PATH_MAX];

	ASSERT_EQ(0, lend_daemon_start(&t, sys, sizeof(sys)));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint32_t tids[2] = { bad[i].cpus, bad[i].cpus };
		struct xs_abi_reply r;
		char byte;
		int fd = xsd_test_connect(&t), ret;

		ASSERT_LE(0, fd);
		ret = xsd_test_call(fd, bad[i].type, tids, bad[i].count, &r, NULL);
		EXPECT_EQ(-EBADMSG, ret) TH_LOG("request %zu", i);
		EXPECT_EQ(XS_ABI_ERROR, r.type) TH_LOG("request %zu", i);
		EXPECT_EQ(0, recv(fd, &byte, 1, 0)) TH_LOG("request %zu: not closed", i);
		close(fd);
	}
	/* Still serving. */
	{
		struct xsd_test_client c;

		ASSERT_EQ(0, xsd_test_client_open(&t, &c));
		xsd_test_client_close(&c);
	}
	lend_daemon_stop(_metadata, &t, sys);
}

TEST_HARNESS_MAIN
