// SPDX-License-Identifier: MIT
/*
 * A runtime of one worker runs a static loop as one chunk: the caller has
 * nobody to leave chunks to, so xs_parallel_for() neither posts the loop
 * nor cuts the block into claimable pieces (libxsched/loops/loop.c,
 * xs_loop_disp_claim_all(), which makes a block at least 4 pieces). The
 * other schedules still run every iteration once. Asserted: the body's
 * calls and the iterations they cover.
 */
#include "xsched.h"
#include "xs_test.h"

#define N 1000

struct seen {
	int calls;
	int hits[N];
};

static void body(void *arg, int64_t first, uint64_t count)
{
	struct seen *s = arg;

	s->calls++;
	for (uint64_t i = 0; i < count; i++)
		s->hits[first + (int64_t)i]++;
}

TEST(static_block_is_one_call)
{
	static const struct xs_loop_sched sched[] = {
		{ .kind = XS_LOOP_STATIC },
		{ .kind = XS_LOOP_DYNAMIC, .chunk = 7 },
		{ .kind = XS_LOOP_HYBRID, .ns = 4, .nd = 8, .grain = 10 },
	};
	struct xs_runtime *rt = xs_runtime_create(1);

	ASSERT_NE(NULL, rt);
	for (size_t k = 0; k < sizeof(sched) / sizeof(sched[0]); k++) {
		static struct seen s;

		s = (struct seen){ 0 };
		ASSERT_EQ(0, xs_parallel_for(rt, 0, N, 1, &sched[k], body, &s));
		int missed = 0;

		for (int i = 0; i < N; i++)
			missed += s.hits[i] != 1;
		ASSERT_EQ(0, missed) TH_LOG("schedule %zu", k);
		if (sched[k].kind == XS_LOOP_STATIC)
			EXPECT_EQ(1, s.calls);
	}
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
