// SPDX-License-Identifier: MIT
/*
 * One typed task spawns a million typed children (frames on its deque,
 * no inline cliff) and joins them all, newest first: every child runs
 * exactly once, the joined results add up, and the other workers run
 * some of them (idle workers steal the public frames while the spawner
 * is still spawning). Counters, not time.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"

#define NCHILD 1000000
#define MAXW 4

static _Atomic uint64_t per_worker[MAXW];

XS_TASK_1(uint64_t, tleaf, uint64_t, i)
{
	volatile unsigned spin = 200;

	while (spin)
		spin--;
	atomic_fetch_add_explicit(&per_worker[xs_worker_id()], 1, memory_order_relaxed);
	return i * 7 + 3;
}

struct run {
	uint64_t n, sum;
};

static void root(void *p)
{
	struct run *r = p;

	for (uint64_t i = 0; i < r->n; i++)
		tleaf_spawn(i);
	for (uint64_t i = 0; i < r->n; i++)
		r->sum += tleaf_join();
}

FIXTURE(typed) {};
FIXTURE_SETUP(typed) {}
FIXTURE_TEARDOWN(typed) {}

TEST_F_TIMEOUT(typed, million_children_every_worker, 600)
{
	uint64_t n = NCHILD / test_scale();

	for (unsigned int nw = 2; nw <= MAXW; nw += 2) {
		struct run r = { n, 0 };
		struct xs_runtime *rt;
		struct xs_stats st;
		uint64_t total = 0;

		setenv("XSCHED_DLB", "ws", 1);
		rt = xs_runtime_create(nw);
		ASSERT_NE(NULL, rt);
		for (unsigned int w = 0; w < MAXW; w++)
			atomic_store(&per_worker[w], 0);
		ASSERT_EQ(0, xs_runtime_run(rt, root, &r));
		ASSERT_EQ(0, xs_runtime_stats(rt, &st));
		for (unsigned int w = 0; w < nw; w++) {
			TH_LOG("%u workers: worker %u ran %llu", nw, w,
			       (unsigned long long)atomic_load(&per_worker[w]));
			if (w)
				EXPECT_GT(atomic_load(&per_worker[w]), 0);
			total += atomic_load(&per_worker[w]);
		}
		EXPECT_EQ(n, total);
		EXPECT_EQ(7 * (n * (n - 1) / 2) + 3 * n, r.sum);
		/* Every child was a frame (none ran at once), counted once
		 * (task_typed.h, Counting): joined by a direct call or not. */
		EXPECT_EQ(0, st.immediate);
		EXPECT_EQ(n, st.static_pushes);
		EXPECT_EQ(n, st.tasks_executed);
		EXPECT_GT(st.frames_taken, 0);
		EXPECT_LE(st.frames_taken, st.static_pushes);
		xs_runtime_destroy(rt);
	}
}

TEST_HARNESS_MAIN
