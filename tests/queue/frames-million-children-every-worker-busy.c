// SPDX-License-Identifier: MIT
/*
 * One task spawns a million children (frames on its deque; no inline
 * cliff, no full queue): every other worker runs some of them - idle
 * workers steal the public frames while the spawner is still spawning
 * (it may run none itself) - and every child runs exactly once. Counters,
 * not time.
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
static _Atomic uint64_t sum;

static void child(void *arg)
{
	uint64_t i = *(uint64_t *)arg;
	volatile unsigned spin = 200;

	while (spin)
		spin--;
	atomic_fetch_add_explicit(&per_worker[xs_worker_id()], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&sum, i, memory_order_relaxed);
}

static void root(void *arg)
{
	uint64_t n = *(uint64_t *)arg;

	for (uint64_t i = 0; i < n; i++)
		xs_spawn(child, &i, sizeof i);
	xs_sync();
}

FIXTURE(frames) {};
FIXTURE_SETUP(frames) {}
FIXTURE_TEARDOWN(frames) {}

TEST_F_TIMEOUT(frames, million_children_spread_over_every_worker, 600)
{
	uint64_t n = NCHILD / test_scale();

	for (unsigned int nw = 2; nw <= MAXW; nw += 2) {
		struct xs_runtime *rt;
		struct xs_stats st;
		uint64_t total = 0;

		setenv("XSCHED_DLB", "ws", 1);
		rt = xs_runtime_create(nw);
		ASSERT_NE(NULL, rt);
		for (unsigned int w = 0; w < MAXW; w++)
			atomic_store(&per_worker[w], 0);
		atomic_store(&sum, 0);
		ASSERT_EQ(0, xs_runtime_run(rt, root, &n));
		ASSERT_EQ(0, xs_runtime_stats(rt, &st));
		for (unsigned int w = 0; w < nw; w++) {
			TH_LOG("%u workers: worker %u ran %llu", nw, w,
			       (unsigned long long)atomic_load(&per_worker[w]));
			/* Worker 0 spawns all the while; the others run. */
			if (w)
				EXPECT_GT(atomic_load(&per_worker[w]), 0);
			total += atomic_load(&per_worker[w]);
		}
		EXPECT_EQ(n, total);
		EXPECT_EQ(n * (n - 1) / 2, atomic_load(&sum));
		/* Every child was a frame, none ran at once for lack of room. */
		EXPECT_EQ(0, st.immediate);
		EXPECT_EQ(n, st.static_pushes);
		EXPECT_GT(st.frames_taken, 0);
		xs_runtime_destroy(rt);
	}
}

TEST_HARNESS_MAIN
