// SPDX-License-Identifier: MIT
/*
 * A million park/unpark cycles with 4 workers on (typically) 2 CPUs and no
 * spinning: workers park the moment they are idle, and every task handed
 * to a parked worker must wake it. A lost wake-up hangs the test, which
 * the harness's timeout turns into a failure.
 */
#include <stdatomic.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"

#define WORKERS 4
#define TARGET_PARKS 1000000ull

static _Atomic unsigned long hops;

/* A relay: each task spawns the next one, so consecutive hops land on
 * different workers (round-robin) while the others have gone idle. */
static void relay(void *arg)
{
	int left = *(int *)arg - 1;

	atomic_fetch_add_explicit(&hops, 1, memory_order_relaxed);
	if (left > 0)
		xs_task_spawn(relay, &left, sizeof left);
}

static void root(void *arg)
{
	int len = *(int *)arg;

	for (int i = 0; i < WORKERS; i++)
		xs_task_spawn(relay, &len, sizeof len);
}

FIXTURE(runtime) {};
FIXTURE_SETUP(runtime) {}
FIXTURE_TEARDOWN(runtime) {}

TEST_F_TIMEOUT(runtime, million_park_cycles, 600)
{
	struct xs_runtime *rt;
	struct xs_stats st = { 0 };
	unsigned long runs = 0;
	int len = 16;

	setenv("XSCHED_SPIN_US", "0", 1);
	rt = xs_runtime_create(WORKERS);
	ASSERT_NE(NULL, rt);
	while (st.parks < TARGET_PARKS / test_scale()) {
		ASSERT_EQ(0, xs_runtime_run(rt, root, &len));
		runs++;
		ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	}
	EXPECT_EQ(runs * WORKERS * (unsigned long)len, atomic_load(&hops));
	TH_LOG("%lu runs, %llu parks", runs, (unsigned long long)st.parks);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
