// SPDX-License-Identifier: MIT
/*
 * The replay's trial (affinity_trial.c): the first loops take turns between
 * the schedule, hybrid and static, starting with the schedule; after
 * `trials` of each, the kind with the lowest best time is kept for good; an
 * identity schedule, or trials = 0, always replays. Times are handed in,
 * not measured: the test asserts the choices.
 */
#include <stdlib.h>
#include "affinity.h"
#include "xs_test.h"

#define N 1000

static uint32_t order_id[4] = { 0, 1, 2, 3 }, order_perm[4] = { 2, 0, 3, 1 };
static uint32_t start2[3] = { 0, 2, 4 };

static struct xs_affinity_map map_of(uint32_t *order, bool identity)
{
	return (struct xs_affinity_map){ .n = N, .granule = N / 4, .nthreads = 4,
					 .nworkers = 2, .start = start2, .order = order,
					 .identity = identity };
}

#define SCHED XS_AFF_RUN_SCHEDULE
#define HYB XS_AFF_RUN_HYBRID
#define STAT XS_AFF_RUN_STATIC

/* Run @trials rounds: the schedule takes @t_sched s, hybrid @t_hyb s,
 * static @t_stat s. */
static void run_trial(struct __test_metadata *_metadata, const struct xs_affinity_map *m,
		      uint32_t trials, double t_sched, double t_hyb, double t_stat)
{
	static const int turn[3] = { SCHED, HYB, STAT };

	for (uint32_t i = 0; i < 3 * trials; i++) {
		int pick = xs_affinity_trial_pick(m, N, trials);

		ASSERT_EQ(turn[i % 3], pick) TH_LOG("loop %u", i);
		xs_affinity_trial_done(m, N, trials, pick,
				       pick == SCHED ? t_sched : pick == HYB ? t_hyb : t_stat,
				       false);
	}
}

TEST(slower_schedule_gives_way_to_hybrid)
{
	struct xs_affinity_map m = map_of(order_perm, false);

	xs_affinity_trial_reset();
	run_trial(_metadata, &m, 3, 2.0, 1.0, 1.5);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(HYB, xs_affinity_trial_pick(&m, N, 3));
	/* Another trip count is another trial. */
	EXPECT_EQ(SCHED, xs_affinity_trial_pick(&m, N + 1, 3));
}

TEST(static_kept_where_fastest)
{
	struct xs_affinity_map m = map_of(order_perm, false);

	xs_affinity_trial_reset();
	run_trial(_metadata, &m, 2, 2.0, 3.0, 1.0);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(STAT, xs_affinity_trial_pick(&m, N, 2));
}

TEST(faster_schedule_is_kept)
{
	struct xs_affinity_map m = map_of(order_perm, false);

	xs_affinity_trial_reset();
	run_trial(_metadata, &m, 2, 1.0, 2.0, 2.0);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(SCHED, xs_affinity_trial_pick(&m, N, 2));
}

TEST(best_time_decides_not_the_last)
{
	struct xs_affinity_map m = map_of(order_perm, false);
	double sched[3] = { 5.0, 1.0, 5.0 }, other[3] = { 2.0, 2.0, 2.0 };

	xs_affinity_trial_reset();
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(SCHED, xs_affinity_trial_pick(&m, N, 3));
		xs_affinity_trial_done(&m, N, 3, SCHED, sched[i], false);
		ASSERT_EQ(HYB, xs_affinity_trial_pick(&m, N, 3));
		xs_affinity_trial_done(&m, N, 3, HYB, other[i], false);
		ASSERT_EQ(STAT, xs_affinity_trial_pick(&m, N, 3));
		xs_affinity_trial_done(&m, N, 3, STAT, other[i], false);
	}
	EXPECT_EQ(SCHED, xs_affinity_trial_pick(&m, N, 3));
}

TEST(identity_or_no_trial_always_replays)
{
	struct xs_affinity_map id = map_of(order_id, true), p = map_of(order_perm, false);

	xs_affinity_trial_reset();
	for (int i = 0; i < 8; i++) {
		EXPECT_EQ(SCHED, xs_affinity_trial_pick(&id, N, 3));
		xs_affinity_trial_done(&id, N, 3, SCHED, 9.0, false);
		EXPECT_EQ(SCHED, xs_affinity_trial_pick(&p, N, 0));
		xs_affinity_trial_done(&p, N, 0, SCHED, 9.0, false);
	}
}

TEST_HARNESS_MAIN
