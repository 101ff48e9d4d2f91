// SPDX-License-Identifier: MIT
/*
 * A victim never moves (NA-WS) or redirects (NA-RP) more than S tasks for
 * one request: with S = 1 every request that moved tasks moved exactly
 * one, and with S = 3 at most three on average - and never more in total
 * than S times the requests that moved anything.
 */
#include <stdlib.h>
#include "xsched.h"
#include "xs_test.h"
#include "dlb-imbalance.h"

static void run(struct __test_metadata *_metadata, const char *dlb, const char *s,
		struct xs_stats *st)
{
	struct imbalance im = { 600, 6, 1u << 1 | 1u << 4, 50 * 1000 };

	setenv("XSCHED_DLB_STEAL", s, 1);
	ASSERT_EQ(0, imbalance_measure(dlb, &im, st));
	TH_LOG("%s S=%s: %llu requests moved %llu tasks", dlb, s,
	       (unsigned long long)st->requests_with_steal,
	       (unsigned long long)(st->stolen_local + st->stolen_remote));
}

TEST(ws_one_per_request)
{
	struct xs_stats st;

	run(_metadata, "ws", "1", &st);
	EXPECT_GT(st.requests_with_steal, 0);
	EXPECT_EQ(st.requests_with_steal, st.stolen_local + st.stolen_remote);
}

TEST(ws_at_most_three)
{
	struct xs_stats st;

	run(_metadata, "ws", "3", &st);
	EXPECT_GT(st.requests_with_steal, 0);
	EXPECT_LE(st.stolen_local + st.stolen_remote, 3 * st.requests_with_steal);
}

TEST(rp_one_per_request)
{
	struct xs_stats st;

	run(_metadata, "rp", "1", &st);
	EXPECT_GT(st.requests_with_steal, 0);
	EXPECT_EQ(st.requests_with_steal, st.stolen_local + st.stolen_remote);
}

TEST(rp_at_most_three)
{
	struct xs_stats st;

	run(_metadata, "rp", "3", &st);
	EXPECT_GT(st.requests_with_steal, 0);
	EXPECT_LE(st.stolen_local + st.stolen_remote, 3 * st.requests_with_steal);
}

TEST_HARNESS_MAIN
