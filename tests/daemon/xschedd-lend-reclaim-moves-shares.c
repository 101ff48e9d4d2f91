// SPDX-License-Identifier: MIT
/*
 * Lending through the real xschedd (XS_ABI_LEND, XS_ABI_RECLAIM): two busy
 * processes of one user split the 8 CPUs 4 and 4. One lends 100 CPUs: the
 * daemon takes 3 (its part less the one it keeps), and the state it
 * published before its reply already shows the lender at 1 CPU (lent 3)
 * and the other at 7 (borrowed 3), the sum still share_cpus. A second
 * LEND before RECLAIM is refused (-EALREADY) and changes nothing. RECLAIM:
 * before its reply, 4 and 4 again, nothing lent or borrowed; a RECLAIM
 * with no lend running is refused (-ENOENT). The lend stays applied across
 * ticks while it runs (the division of every tick keeps it). A RECLAIM
 * sent right after its LEND, before the LEND's reply is read (as a rank
 * back from MPI does), is served: both replies come, status 0, and the
 * shares are even again (the one exception to "read the last reply
 * first", which closes the connection otherwise).
 *
 * Without the daemon's half (an xschedd of ABI 3) the LEND is answered
 * XS_ABI_ERROR and the shares never move: every check below fails.
 */
#include "kselftest_harness.h"
#include "xschedd-lend-test.h"

static int lent_three(const struct xs_abi_header *h, pid_t a, pid_t b, uint32_t x)
{
	const struct xs_abi_share *sa = lend_share_of(h, a), *sb = lend_share_of(h, b);

	(void)x;
	return sa && sb && sa->cpus == 1 && sa->lent == 3 && !sa->borrowed && sb->cpus == 7 &&
	       sb->borrowed == 3 && !sb->lent && lend_cpus_sum(h) == h->share_cpus;
}

TEST(lend_moves_shares_reclaim_moves_them_back)
{
	struct xsd_test_watch w;
	struct lend_child a = { 0 }, b = { 0 };
	char sys[PATH_MAX];
	uint32_t count = 99;

	ASSERT_EQ(0, lend_daemon_start(&w.t, sys, sizeof(sys)));
	xsd_test_watch_open(_metadata, &w, -1);
	ASSERT_EQ(0, lend_child_start(&w.t, &a)) xsd_test_dump_log(&w.t);
	ASSERT_EQ(0, lend_child_start(&w.t, &b)) xsd_test_dump_log(&w.t);

	/* Both busy: 4 and 4. */
	ASSERT_TRUE(lend_await(&w, lend_split_even, a.pid, b.pid, 0, 5000))
		lend_show(_metadata, w.snap, "both busy");

	/* a lends more than it has: 3 taken, published before the reply. */
	ASSERT_EQ(0, lend_command(&a, LEND_DO_LEND, 100, &count)) xsd_test_dump_log(&w.t);
	EXPECT_EQ(3, count);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	EXPECT_TRUE(lent_three(w.snap, a.pid, b.pid, 0))
		lend_show(_metadata, w.snap, "at the LEND's reply");

	/* A second LEND while one runs: refused, nothing moves. */
	EXPECT_EQ(-EALREADY, lend_command(&a, LEND_DO_LEND, 1, &count));
	EXPECT_EQ(0, count);

	/* The lend holds across ticks. */
	xsd_test_wait_ticks(&w.c, 3);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	EXPECT_TRUE(lent_three(w.snap, a.pid, b.pid, 0))
		lend_show(_metadata, w.snap, "three ticks later");

	/* RECLAIM: back before the reply. */
	ASSERT_EQ(0, lend_command(&a, LEND_DO_RECLAIM, 0, NULL));
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	EXPECT_TRUE(lend_split_even(w.snap, a.pid, b.pid, 0))
		lend_show(_metadata, w.snap, "at the RECLAIM's reply");

	/* A RECLAIM without a lend: refused. */
	EXPECT_EQ(-ENOENT, lend_command(&a, LEND_DO_RECLAIM, 0, NULL));
	/* The other lends now: the roles swap. */
	ASSERT_EQ(0, lend_command(&b, LEND_DO_LEND, 2, &count));
	EXPECT_EQ(2, count);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	{
		const struct xs_abi_share *sa = lend_share_of(w.snap, a.pid);
		const struct xs_abi_share *sb = lend_share_of(w.snap, b.pid);

		ASSERT_NE(NULL, sa);
		ASSERT_NE(NULL, sb);
		EXPECT_EQ(6, sa->cpus);
		EXPECT_EQ(2, sa->borrowed);
		EXPECT_EQ(2, sb->cpus);
		EXPECT_EQ(2, sb->lent);
	}
	ASSERT_EQ(0, lend_command(&b, LEND_DO_RECLAIM, 0, NULL));
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	EXPECT_TRUE(lend_split_even(w.snap, a.pid, b.pid, 0))
		lend_show(_metadata, w.snap, "after the second RECLAIM");

	/* Pipelined: RECLAIM before the LEND's reply is read. */
	ASSERT_EQ(0, lend_command(&a, LEND_DO_PIPELINED, 3, &count)) xsd_test_dump_log(&w.t);
	EXPECT_EQ(3, count);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	EXPECT_TRUE(lend_split_even(w.snap, a.pid, b.pid, 0))
		lend_show(_metadata, w.snap, "after a pipelined LEND and RECLAIM");
	/* and the connection still serves */
	ASSERT_EQ(0, lend_command(&a, LEND_DO_LEND, 1, &count));
	EXPECT_EQ(1, count);
	ASSERT_EQ(0, lend_command(&a, LEND_DO_RECLAIM, 0, NULL));

	lend_child_end(&a);
	lend_child_end(&b);
	lend_watch_end(_metadata, &w, sys);
}

TEST_HARNESS_MAIN
