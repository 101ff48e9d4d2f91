// SPDX-License-Identifier: MIT
/*
 * On a synthetic machine with 2 sockets x 2 nodes x 4 CPUs
 * (tests/machines/2s2n4c), 8 compactly placed workers fill nodes 0 and 1.
 * With XSCHED_DLB_LOCAL=100 every steal stays on the thief's node; with 0
 * every steal crosses nodes; the counters prove it, for NA-WS and NA-RP.
 */
#include <stdio.h>
#include <stdlib.h>
#include "xsched.h"
#include "xs_test.h"
#include "topology-test.h"
#include "dlb-imbalance.h"

static void steals_with(struct __test_metadata *_metadata, const char *dlb,
			const char *local, struct xs_stats *st)
{
	/* Workers 1 (node 0) and 5 (node 1) are heavy. */
	struct imbalance im = { 400, 8, 1u << 1 | 1u << 5, 100 * 1000 };

	setenv("XSCHED_SYSFS_ROOT", xs_test_src("tests/machines/2s2n4c"), 1);
	setenv("XSCHED_DLB_LOCAL", local, 1);
	ASSERT_EQ(0, imbalance_measure(dlb, &im, st));
	TH_LOG("%s P=%s: %llu requests, stolen local %llu remote %llu", dlb, local,
	       (unsigned long long)st->requests_sent, (unsigned long long)st->stolen_local,
	       (unsigned long long)st->stolen_remote);
}

TEST(ws_local_only)
{
	struct xs_stats st;

	steals_with(_metadata, "ws", "100", &st);
	EXPECT_GT(st.stolen_local, 0);
	EXPECT_EQ(0, st.stolen_remote);
}

TEST(ws_remote_only)
{
	struct xs_stats st;

	steals_with(_metadata, "ws", "0", &st);
	EXPECT_GT(st.stolen_remote, 0);
	EXPECT_EQ(0, st.stolen_local);
}

TEST(rp_local_only)
{
	struct xs_stats st;

	steals_with(_metadata, "rp", "100", &st);
	EXPECT_GT(st.requests_handled, 0);
	EXPECT_EQ(0, st.stolen_remote);
}

TEST(rp_remote_only)
{
	struct xs_stats st;

	steals_with(_metadata, "rp", "0", &st);
	EXPECT_GT(st.requests_handled, 0);
	EXPECT_EQ(0, st.stolen_local);
}

TEST_HARNESS_MAIN
