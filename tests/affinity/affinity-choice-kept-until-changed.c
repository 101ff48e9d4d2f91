// SPDX-License-Identifier: MIT
/*
 * What an affinity loop runs (affinity_choice.c): while the trial lasts
 * every loop is handed the schedule to time; once the trial keeps a kind
 * the runtime remembers it for the trip count and hands out no schedule to
 * time; replacing the schedule or forgetting the verdicts makes the next
 * loop ask again. A loop of another length, which no schedule fits, runs
 * hybrid. Times are handed in, not measured: the test asserts the choices.
 */
#include <stdlib.h>
#include "core/runtime.h"
#include "xs_test.h"

#define N 1000
#define G 250

static uint32_t order[4] = { 0, 1, 2, 3 }, start[3] = { 0, 2, 4 };

static struct xs_affinity_map map_for(struct __test_metadata *_metadata,
				      struct xs_runtime *rt)
{
	struct xs_affinity_map m = { .n = N, .granule = G, .nthreads = 4, .nworkers = 2,
				     .start = start, .order = order };
	struct xs_aff_machine mach;

	ASSERT_EQ(0, xs_aff_machine_from_runtime(rt, &mach));
	m.machine = mach.hash;
	xs_aff_machine_free(&mach);
	return m;
}

/* Run the trial of 1 round to its end, static fastest. */
static void settle_static(struct __test_metadata *_metadata, struct xs_runtime *rt,
			  const struct xs_affinity_map *m)
{
	for (int i = 0; i < 6; i++) {
		struct xs_aff_choice c;

		xs_affinity_choose(rt, N, &c);
		ASSERT_EQ(m, c.tried) TH_LOG("trial loop %d", i);
		xs_affinity_trial_done(c.tried, N, 1, c.kind,
				       c.kind == XS_AFF_RUN_STATIC ? 1.0 : 2.0, false);
	}
}

static int kept_slots(const struct xs_runtime *rt)
{
	int k = 0;

	for (int i = 0; i < XS_AFF_MEMO_SLOTS; i++)
		k += rt->aff_memo[i].epoch && rt->aff_memo[i].n == N;
	return k;
}

TEST(kept_kind_remembered_until_changed)
{
	struct xs_runtime *rt = xs_runtime_create(2);
	struct xs_affinity_map m, other;
	struct xs_aff_choice c;

	ASSERT_NE(NULL, rt);
	rt->opt.affinity_trial = 1;
	m = map_for(_metadata, rt);
	other = m;
	xs_affinity_trial_reset();
	xs_affinity_override(&m);
	settle_static(_metadata, rt, &m);
	EXPECT_EQ(0, kept_slots(rt));
	for (int i = 0; i < 3; i++) {
		xs_affinity_choose(rt, N, &c);
		EXPECT_EQ(NULL, c.tried);
		EXPECT_EQ(NULL, c.map);
		EXPECT_EQ(XS_AFF_RUN_STATIC, c.kind);
	}
	EXPECT_EQ(1, kept_slots(rt));

	/* Another schedule: its own trial, from the schedule. */
	xs_affinity_override(&other);
	xs_affinity_choose(rt, N, &c);
	EXPECT_EQ(&other, c.tried);
	EXPECT_EQ(&other, c.map);
	EXPECT_EQ(XS_AFF_RUN_SCHEDULE, c.kind);

	/* Back to the first schedule: its verdict stands. */
	xs_affinity_override(&m);
	xs_affinity_choose(rt, N, &c);
	EXPECT_EQ(NULL, c.tried);
	EXPECT_EQ(XS_AFF_RUN_STATIC, c.kind);

	/* Verdicts forgotten: the first schedule is tried afresh. */
	xs_affinity_trial_reset();
	xs_affinity_choose(rt, N, &c);
	EXPECT_EQ(&m, c.tried);

	/* A length no schedule fits: hybrid, nothing to time. */
	xs_affinity_choose(rt, N + 1, &c);
	EXPECT_EQ(NULL, c.tried);
	EXPECT_EQ(NULL, c.map);
	EXPECT_EQ(XS_AFF_RUN_HYBRID, c.kind);

	xs_affinity_override(NULL);
	xs_runtime_destroy(rt);
}

/* No trial (XSCHED_AFFINITY_TRIAL=0): the schedule, kept from the first
 * loop on. */
TEST(no_trial_replays_at_once)
{
	struct xs_runtime *rt = xs_runtime_create(2);
	struct xs_affinity_map m;
	struct xs_aff_choice c;

	ASSERT_NE(NULL, rt);
	rt->opt.affinity_trial = 0;
	m = map_for(_metadata, rt);
	xs_affinity_override(&m);
	for (int i = 0; i < 2; i++) {
		xs_affinity_choose(rt, N, &c);
		EXPECT_EQ(NULL, c.tried);
		EXPECT_EQ(&m, c.map);
		EXPECT_EQ(XS_AFF_RUN_SCHEDULE, c.kind);
	}
	EXPECT_EQ(1, kept_slots(rt));
	xs_affinity_override(NULL);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
