// SPDX-License-Identifier: MIT
/*
 * The branch and bound of xsched-bench's knapsack
 * (tools/bench/programs/knapsack/knapsack.h) never prunes the optimum,
 * whatever order the search runs in: for every n from 1 to 30 the serial
 * search (take first) and a leave-first search (the order of a runtime that
 * runs the newest child first) both find the best value of a dynamic
 * programme over the capacity, and the serial search counts the nodes it
 * visited.
 */
#include "xs_test.h"
#include "../../tools/bench/programs/knapsack/knapsack.h"

/* Leave before take: the order a LIFO runtime runs the two children in. */
static uint64_t leave_first(struct knapsack_state *st, int i, long w, long v)
{
	uint64_t nodes = 1;

	if (ks_visit(st, i, w, v) == KS_DONE)
		return nodes;
	nodes += leave_first(st, i + 1, w, v);
	if (ks_fits(st, i, w))
		nodes += leave_first(st, i + 1, w + st->wt[i], v + st->val[i]);
	return nodes;
}

TEST(both_orders_find_the_dynamic_programmes_value)
{
	char why[256];

	for (int n = 1; n <= 30; n++) {
		struct knapsack_state *st = ks_setup(n);
		long serial_best;

		ASSERT_NE(NULL, st);
		ks_reset(st);
		ks_serial(st);
		EXPECT_EQ(0, ks_verify(st, why, sizeof(why)))
			TH_LOG("n = %d, take first: %s", n, why);
		EXPECT_LT(0, st->nodes);
		EXPECT_EQ(st->nodes, ks_tasks(st));
		serial_best = st->best;
		ks_reset(st);
		st->nodes = leave_first(st, 0, 0, 0);
		EXPECT_EQ(serial_best, st->best)
			TH_LOG("n = %d: leave first found %ld", n, st->best);
		EXPECT_EQ(0, ks_verify(st, why, sizeof(why)))
			TH_LOG("n = %d, leave first: %s", n, why);
		ks_teardown(st);
	}
}

TEST_HARNESS_MAIN
