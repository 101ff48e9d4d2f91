// SPDX-License-Identifier: MIT
/*
 * Where a waiting worker moves (spread.h): nowhere unless an awake
 * teammate was last seen on its CPU; then to the lowest CPU of its mask
 * that no teammate holds; nowhere when every allowed CPU holds one (a team
 * larger than its CPUs) or the mask has no other CPU.
 */
#include "core/spread.h"
#include "xs_test.h"

static cpu_set_t cpus(int n)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int i = 0; i < n; i++)
		CPU_SET(i, &set);
	return set;
}

TEST(stays_when_no_teammate_shares_its_cpu)
{
	cpu_set_t all = cpus(4);
	int team[] = { 1, 2, -1 };

	EXPECT_EQ(-1, xs_spread_target(0, team, 3, &all));
	EXPECT_EQ(-1, xs_spread_target(0, team, 0, &all));
}

TEST(moves_to_the_lowest_free_allowed_cpu)
{
	cpu_set_t all = cpus(4), some = cpus(4);
	int pair[] = { 0 }, three[] = { 2, 0 };

	EXPECT_EQ(1, xs_spread_target(0, pair, 1, &all));
	EXPECT_EQ(1, xs_spread_target(2, three, 2, &all));
	CPU_CLR(1, &some);
	EXPECT_EQ(3, xs_spread_target(2, three, 2, &some));
}

TEST(stays_when_every_allowed_cpu_is_taken)
{
	cpu_set_t two = cpus(2), one = cpus(1);
	int team[] = { 0, 1, 1 }, pair[] = { 0 };

	EXPECT_EQ(-1, xs_spread_target(0, team, 3, &two));
	EXPECT_EQ(-1, xs_spread_target(0, pair, 1, &one));
}

TEST_HARNESS_MAIN
