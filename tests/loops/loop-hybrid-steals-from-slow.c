// SPDX-License-Identifier: MIT
/*
 * Hybrid schedule: when one worker is slow, the others run its dynamic
 * tasks (xs_parallel_for() also lets them take its static tasks, from the
 * back, once the dynamic ones are gone: libxsched/loops/loop.c, elastic loops;
 * never the one it is running), every iteration still exactly once. Run under ThreadSanitizer too (tests-concurrency-y):
 * the claims race on the slow worker's span word.
 */
#include <stdatomic.h>
#include <time.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"

#define N 4000

static _Atomic int ran_by[N];
static _Atomic uint32_t hits[N];

static void body(void *arg, int64_t first, uint64_t count)
{
	int me = xs_worker_id();

	(void)arg;
	if (me == 0 && first == 0) {
		/* Worker 0's first static task is slow: 200 ms. */
		struct timespec ts = { 0, 200 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	for (uint64_t k = 0; k < count; k++) {
		atomic_fetch_add(&hits[first + (int64_t)k], 1);
		atomic_store(&ran_by[first + (int64_t)k], me);
	}
}

TEST(slow_worker_is_helped)
{
	struct xs_runtime *rt = xs_runtime_create(4);
	/* Worker 0 owns [0, 1000): static 2 x 400, dynamic 4 x 50 at 800.. */
	struct xs_loop_sched s = { .kind = XS_LOOP_HYBRID, .ns = 2, .nd = 4, .grain = 50 };
	int helped = 0;

	ASSERT_NE(NULL, rt);
	for (unsigned round = 0; round < 4 / test_scale() + 1; round++) {
		for (int i = 0; i < N; i++)
			atomic_store(&hits[i], 0);
		ASSERT_EQ(0, xs_parallel_for(rt, 0, N, 1, &s, body, NULL));
		int twice = -1;

		for (int i = 0; i < N && twice < 0; i++)
			if (atomic_load(&hits[i]) != 1)
				twice = i;
		ASSERT_EQ(-1, twice) TH_LOG("iteration %d ran %u times", twice,
					     atomic_load(&hits[twice]));
		for (int i = 800; i < 1000; i++)
			helped += atomic_load(&ran_by[i]) != 0;
	}
	/* 200 ms is long enough for three idle workers to take its dynamic
	 * tasks, nearly always; at least one of them, every round. */
	EXPECT_GT(helped, 0);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
