// SPDX-License-Identifier: MIT
/*
 * Lent CPUs go to the lender's own user first (daemon/share.c, step 4):
 * the division gave each user its part, and a lend must not move one
 * user's part to another while the lender's user has a process to use it.
 *
 * On 8 CPUs, root runs two busy processes (a, b: 2 CPUs each, root's 4)
 * and a scratch user one (c: its user's 4). a lends: the CPU it can give
 * (its 2 less the one it keeps) goes to b, root's other process, and c
 * keeps exactly its 4. Then c, alone in its user, lends: its 3 go to
 * root's processes (nobody of its own user can use them), the one that
 * has borrowed least first. A division that handed lent CPUs out by pid
 * alone, or to everyone equally, fails the first check.
 */
#include "kselftest_harness.h"
#include "xschedd-abuse.h"
#include "xschedd-lend-test.h"

static void become(const void *u)
{
	xsd_abuse_become(u);
}

/* a, b of root at 2 each, c of the scratch user at 4. */
static int divided(const struct xs_abi_header *h, pid_t a, pid_t b, uint32_t c)
{
	const struct xs_abi_share *sa = lend_share_of(h, a), *sb = lend_share_of(h, b);
	const struct xs_abi_share *sc = lend_share_of(h, (pid_t)c);

	return sa && sb && sc && h->share_cpus == XSD_LEND_CPUS && sa->cpus == 2 &&
	       sb->cpus == 2 && sc->cpus == 4;
}

TEST(lent_cpus_stay_with_the_lenders_user_first)
{
	struct scratch_user u = { 0 };
	struct xsd_test_watch w;
	struct lend_child a = { 0 }, b = { 0 }, c = { 0 };
	const struct xs_abi_share *sa, *sb, *sc;
	char sys[PATH_MAX];
	uint32_t count = 0;

	if (access("/usr/sbin/useradd", X_OK) || access("/usr/sbin/userdel", X_OK))
		SKIP(return, "no useradd/userdel: the second user is a scratch user");
	if (geteuid())
		SKIP(return, "not root: the test runs a second user's process");
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "lend-same-user-first"));
	ASSERT_EQ(0, lend_daemon_start(&w.t, sys, sizeof(sys)));
	xsd_test_watch_open(_metadata, &w, -1);
	ASSERT_EQ(0, lend_child_start(&w.t, &a)) xsd_test_dump_log(&w.t);
	ASSERT_EQ(0, lend_child_start(&w.t, &b)) xsd_test_dump_log(&w.t);
	ASSERT_EQ(0, lend_child_start_as(&w.t, &c, become, &u)) xsd_test_dump_log(&w.t);
	ASSERT_TRUE(lend_await(&w, divided, a.pid, b.pid, (uint32_t)c.pid, 5000))
		lend_show(_metadata, w.snap, "three busy");

	/* a lends: to b, root's other process, not to c. */
	ASSERT_EQ(0, lend_command(&a, LEND_DO_LEND, 100, &count));
	EXPECT_EQ(1, count);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	sa = lend_share_of(w.snap, a.pid);
	sb = lend_share_of(w.snap, b.pid);
	sc = lend_share_of(w.snap, c.pid);
	ASSERT_TRUE(sa && sb && sc);
	EXPECT_EQ(1, sa->cpus) lend_show(_metadata, w.snap, "a lent");
	EXPECT_EQ(3, sb->cpus);
	EXPECT_EQ(1, sb->borrowed);
	EXPECT_EQ(4, sc->cpus);
	EXPECT_EQ(0, sc->borrowed);
	ASSERT_EQ(0, lend_command(&a, LEND_DO_RECLAIM, 0, NULL));

	/* c lends, alone in its user: its 3 go to root's processes. */
	ASSERT_TRUE(lend_await(&w, divided, a.pid, b.pid, (uint32_t)c.pid, 5000))
		lend_show(_metadata, w.snap, "a reclaimed");
	ASSERT_EQ(0, lend_command(&c, LEND_DO_LEND, 100, &count));
	EXPECT_EQ(3, count);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	sa = lend_share_of(w.snap, a.pid);
	sb = lend_share_of(w.snap, b.pid);
	sc = lend_share_of(w.snap, c.pid);
	ASSERT_TRUE(sa && sb && sc);
	EXPECT_EQ(1, sc->cpus) lend_show(_metadata, w.snap, "c lent");
	EXPECT_EQ(3, sa->borrowed + sb->borrowed);
	EXPECT_LE(1, sa->borrowed);
	EXPECT_LE(1, sb->borrowed);
	EXPECT_EQ(XSD_LEND_CPUS, lend_cpus_sum(w.snap));
	ASSERT_EQ(0, lend_command(&c, LEND_DO_RECLAIM, 0, NULL));

	lend_child_end(&a);
	lend_child_end(&b);
	lend_child_end(&c);
	lend_watch_end(_metadata, &w, sys);
	xsd_abuse_user_remove(&u);
}

TEST_HARNESS_MAIN
