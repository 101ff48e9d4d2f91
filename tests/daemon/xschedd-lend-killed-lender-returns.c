// SPDX-License-Identifier: MIT
/*
 * A lend is a lease held by the connection and by the process that made
 * it (daemon/clients.c): a rank killed mid-lend gives its CPUs back
 * within one daemon tick, and the daemon and the other processes go on.
 *
 *   - killed: the lender (4 of 8 CPUs, 3 lent to the other busy process)
 *     gets SIGKILL; its connection closes and the daemon republishes at
 *     once: within two publications of its death (one whole tick), nothing
 *     is lent or borrowed any more, and the daemon still answers.
 *   - connection kept: this test takes a copy of the lender's connection
 *     (pidfd_getfd) before the kill, so the socket outlives the lender (as
 *     it would in a child that inherited it); the daemon holds a pidfd of
 *     the process that connected, and the lease still ends within two
 *     publications of the lender's death.
 *
 * A daemon that ended leases only at RECLAIM would keep the survivor's 3
 * borrowed CPUs (and a dead lender's lent ones) for good; one that ended
 * them only at the connection's close fails the second case.
 */
#include "kselftest_harness.h"
#include "xschedd-lend-test.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

static int lent_three(const struct xs_abi_header *h, pid_t a, pid_t b, uint32_t x)
{
	const struct xs_abi_share *sa = lend_share_of(h, a), *sb = lend_share_of(h, b);

	(void)x;
	return sa && sb && sa->lent == 3 && sb->borrowed == 3;
}

/* Nothing lent or borrowed by anyone, and @b listed. */
static int nothing_lent(const struct xs_abi_header *h, pid_t a, pid_t b, uint32_t x)
{
	const struct xs_abi_share *s = xs_abi_at(h, h->share_off);

	(void)a;
	(void)x;
	for (uint32_t i = 0; i < h->share_count && i < h->nshares; i++)
		if (s[i].lent || s[i].borrowed)
			return 0;
	return lend_share_of(h, b) != NULL;
}

/* The generation at which nothing is lent any more, waiting at most 5 s;
 * 0 if it never came. */
static uint64_t await_returned(struct xsd_test_watch *w, pid_t survivor)
{
	if (!lend_await(w, nothing_lent, 0, survivor, 0, 5000))
		return 0;
	return w->snap->generation;
}

static void lender_killed(struct __test_metadata *_metadata, bool keep_connection)
{
	struct xsd_test_watch w;
	struct lend_child a = { 0 }, b = { 0 };
	char sys[PATH_MAX];
	uint32_t count = 0;
	uint64_t gen_dead, gen_back;
	int kept = -1;

	ASSERT_EQ(0, lend_daemon_start(&w.t, sys, sizeof(sys)));
	xsd_test_watch_open(_metadata, &w, -1);
	ASSERT_EQ(0, lend_child_start(&w.t, &a)) xsd_test_dump_log(&w.t);
	ASSERT_EQ(0, lend_child_start(&w.t, &b)) xsd_test_dump_log(&w.t);
	ASSERT_TRUE(lend_await(&w, lend_split_even, a.pid, b.pid, 0, 5000))
		lend_show(_metadata, w.snap, "both busy");
	ASSERT_EQ(0, lend_command(&a, LEND_DO_LEND, 3, &count));
	ASSERT_EQ(3, count);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	ASSERT_TRUE(lent_three(w.snap, a.pid, b.pid, 0)) lend_show(_metadata, w.snap, "lent");

	if (keep_connection) {
		/* The lender's socket (its lowest socket descriptor) copied
		 * into this process with pidfd_getfd(): a process that is
		 * not the lender now holds its connection open. */
		int pidfd = (int)syscall(SYS_pidfd_open, a.pid, 0);

		ASSERT_LE(0, pidfd);
		for (int cand = 3; cand < 64 && kept < 0; cand++) {
			char link[64], target[64];
			ssize_t n;

			snprintf(link, sizeof(link), "/proc/%d/fd/%d", a.pid, cand);
			n = readlink(link, target, sizeof(target) - 1);
			if (n > 0 && !strncmp(target, "socket:", 7))
				kept = (int)syscall(SYS_pidfd_getfd, pidfd, cand, 0);
		}
		close(pidfd);
		if (kept < 0)
			SKIP(goto out, "pidfd_getfd: %s (Linux 5.6 and ptrace access needed)",
			     strerror(errno));
	}
	kill(a.pid, SIGKILL);
	waitpid(a.pid, NULL, 0);
	a.pid = 0;
	gen_dead = xsd_test_generation(&w.c);
	gen_back = await_returned(&w, b.pid);
	EXPECT_NE(0, gen_back) lend_show(_metadata, w.snap, "after the kill");
	/* At most one whole tick after the death: the generation then, at
	 * most two later (the tick under way and the next). */
	EXPECT_LE(gen_back, gen_dead + 2) lend_show(_metadata, w.snap, "returned");
	/* The daemon still serves. */
	EXPECT_TRUE(xsd_test_publishes(&w.c, 2, 5000));
	EXPECT_EQ(-ENOENT, lend_command(&b, LEND_DO_RECLAIM, 0, NULL));
out:
	if (kept >= 0)
		close(kept);
	lend_child_end(&a);
	lend_child_end(&b);
	lend_watch_end(_metadata, &w, sys);
}

TEST(lender_killed_lease_ends_with_its_connection)
{
	lender_killed(_metadata, false);
}

TEST(lender_killed_lease_ends_though_its_connection_lives)
{
	lender_killed(_metadata, true);
}

TEST_HARNESS_MAIN
