// SPDX-License-Identifier: MIT
/*
 * The replay's trial (affinity_trial.c): the first loops take turns between
 * the schedule, hybrid and static, starting with the schedule, in blocks of
 * two loops of one kind (a warm-up loop, not timed, then a timed one);
 * after `trials` blocks of each, the kind whose timed loops were fastest
 * against static's of the same round (median of the ratios) is kept for
 * good, for an identity schedule (the static split) as for any; trials = 0
 * always replays. Times are
 * handed in, not measured: the test asserts the choices.
 */
#include <stdlib.h>
#include "affinity/affinity.h"
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

/* Run @trials rounds: the schedule's timed loops take @t_sched s, hybrid's
 * @t_hyb s, static's @t_stat s; every warm-up loop takes @t_warm s. */
static void run_trial_warm(struct __test_metadata *_metadata, const struct xs_affinity_map *m,
			   uint32_t trials, double t_sched, double t_hyb, double t_stat,
			   double t_warm)
{
	static const int turn[3] = { SCHED, HYB, STAT };

	for (uint32_t i = 0; i < 6 * trials; i++) {
		int pick = xs_affinity_trial_pick(m, N, trials, NULL);

		ASSERT_EQ(turn[i / 2 % 3], pick) TH_LOG("loop %u", i);
		ASSERT_EQ(-1, xs_affinity_trial_verdict(m, N));
		xs_affinity_trial_done(m, N, trials, pick,
				       i % 2 == 0 ? t_warm : pick == SCHED ? t_sched :
				       pick == HYB ? t_hyb : t_stat, false);
	}
}

static void run_trial(struct __test_metadata *_metadata, const struct xs_affinity_map *m,
		      uint32_t trials, double t_sched, double t_hyb, double t_stat)
{
	run_trial_warm(_metadata, m, trials, t_sched, t_hyb, t_stat, 5.0);
}

TEST(slower_schedule_gives_way_to_hybrid)
{
	struct xs_affinity_map m = map_of(order_perm, false);

	xs_affinity_trial_reset();
	run_trial(_metadata, &m, 3, 2.0, 1.0, 1.5);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(HYB, xs_affinity_trial_pick(&m, N, 3, NULL));
	/* Another trip count is another trial. */
	EXPECT_EQ(SCHED, xs_affinity_trial_pick(&m, N + 1, 3, NULL));
}

TEST(static_kept_where_fastest)
{
	struct xs_affinity_map m = map_of(order_perm, false);

	xs_affinity_trial_reset();
	run_trial(_metadata, &m, 2, 2.0, 3.0, 1.0);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(STAT, xs_affinity_trial_pick(&m, N, 2, NULL));
}

TEST(faster_schedule_is_kept)
{
	struct xs_affinity_map m = map_of(order_perm, false);

	xs_affinity_trial_reset();
	run_trial(_metadata, &m, 2, 1.0, 2.0, 2.0);
	for (int i = 0; i < 10; i++)
		EXPECT_EQ(SCHED, xs_affinity_trial_pick(&m, N, 2, NULL));
}

/* Round by round: static had one lucky round (0.5 s against the
 * schedule's 1 s), but in the other two the schedule ran in half static's
 * time: the schedule is kept. The best time alone would keep static. */
TEST(median_ratio_decides_not_one_lucky_round)
{
	struct xs_affinity_map m = map_of(order_perm, false);
	double sched[3] = { 1.0, 1.0, 1.0 }, hyb[3] = { 1.0, 2.5, 2.5 }, stat[3] = { 0.5, 2.0, 2.0 };
	static const int kinds[3] = { SCHED, HYB, STAT };

	xs_affinity_trial_reset();
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++) {
			ASSERT_EQ(kinds[k], xs_affinity_trial_pick(&m, N, 3, NULL));
			xs_affinity_trial_done(&m, N, 3, kinds[k], 9.0, false);
			ASSERT_EQ(kinds[k], xs_affinity_trial_pick(&m, N, 3, NULL));
			xs_affinity_trial_done(&m, N, 3, kinds[k],
					       k == 0 ? sched[i] : k == 1 ? hyb[i] : stat[i], false);
		}
	EXPECT_EQ(SCHED, xs_affinity_trial_pick(&m, N, 3, NULL));
	EXPECT_EQ(SCHED, xs_affinity_trial_verdict(&m, N));
}

/* And the other way: one lucky round of the schedule (0.1 s) does not
 * outweigh two where it was slower than static. */
TEST(one_lucky_round_of_the_schedule_is_not_enough)
{
	struct xs_affinity_map m = map_of(order_perm, false);
	double sched[3] = { 3.0, 0.1, 3.0 }, stat[3] = { 2.0, 2.0, 2.0 };
	static const int kinds[3] = { SCHED, HYB, STAT };

	xs_affinity_trial_reset();
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++) {
			xs_affinity_trial_done(&m, N, 3, xs_affinity_trial_pick(&m, N, 3, NULL), 9.0,
					       false);
			ASSERT_EQ(kinds[k], xs_affinity_trial_pick(&m, N, 3, NULL));
			xs_affinity_trial_done(&m, N, 3, kinds[k],
					       k == 0 ? sched[i] : k == 1 ? 2.5 : stat[i], false);
		}
	EXPECT_EQ(STAT, xs_affinity_trial_verdict(&m, N));
}

/* The loop after a switch of kind pays for the switch (the data sits where
 * the other kind left it): a schedule whose warm-up loops are slow but
 * whose timed loops are fast is kept, and one whose warm-up loops are fast
 * but timed loops slow is not. */
TEST(warm_up_loops_are_not_timed)
{
	struct xs_affinity_map m = map_of(order_perm, false);

	xs_affinity_trial_reset();
	run_trial_warm(_metadata, &m, 3, 1.0, 2.0, 2.0, 9.0);
	EXPECT_EQ(SCHED, xs_affinity_trial_verdict(&m, N));
	xs_affinity_trial_reset();
	run_trial_warm(_metadata, &m, 3, 3.0, 2.0, 2.5, 0.1);
	EXPECT_EQ(HYB, xs_affinity_trial_verdict(&m, N));
}

/* A loop of another kind than the block's (two loops picked at once)
 * neither counts nor moves the turns on. */
TEST(loop_of_another_kind_counts_for_nothing)
{
	struct xs_affinity_map m = map_of(order_perm, false);

	xs_affinity_trial_reset();
	ASSERT_EQ(SCHED, xs_affinity_trial_pick(&m, N, 1, NULL));
	xs_affinity_trial_done(&m, N, 1, STAT, 0.001, false);
	ASSERT_EQ(SCHED, xs_affinity_trial_pick(&m, N, 1, NULL));
	run_trial(_metadata, &m, 1, 1.0, 2.0, 2.0);
	EXPECT_EQ(SCHED, xs_affinity_trial_verdict(&m, N));
}

TEST(no_trial_always_replays)
{
	struct xs_affinity_map p = map_of(order_perm, false);

	xs_affinity_trial_reset();
	for (int i = 0; i < 8; i++) {
		EXPECT_EQ(SCHED, xs_affinity_trial_pick(&p, N, 0, NULL));
		xs_affinity_trial_done(&p, N, 0, SCHED, 9.0, false);
	}
	EXPECT_EQ(-1, xs_affinity_trial_verdict(&p, N));
}

/* The static split replayed through the hybrid dispenser can lose to the
 * static schedule on tiny loops: it is tried like any schedule. */
TEST(identity_schedule_is_tried_too)
{
	struct xs_affinity_map id = map_of(order_id, true);

	xs_affinity_trial_reset();
	run_trial(_metadata, &id, 2, 2.0, 2.0, 1.0);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(STAT, xs_affinity_trial_pick(&id, N, 2, NULL));
}

TEST_HARNESS_MAIN
