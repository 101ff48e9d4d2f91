// SPDX-License-Identifier: MIT
/*
 * A runtime of more workers than CPUs parks its waiters instead of
 * spinning (worker.c): three workers confined to one CPU, with
 * XSCHED_SPIN_US at one second, run regions with a barrier in the middle.
 * Spinning waiters would see each post and each barrier within their spin
 * time and hardly ever park; parking ones park at least once per region.
 * Every park goes through the symmetric fences (park.h) such a runtime
 * uses: a lost wake-up hangs the test, which the harness's timeout turns
 * into a failure. Counts only, no timing.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"

#define WORKERS 3
#define REGIONS 2000u

static _Atomic unsigned long before, after;

static void region(void *arg)
{
	(void)arg;
	atomic_fetch_add_explicit(&before, 1, memory_order_relaxed);
	xs_barrier_wait();
	atomic_fetch_add_explicit(&after, 1, memory_order_relaxed);
}

FIXTURE(runtime) {};
FIXTURE_SETUP(runtime) {}
FIXTURE_TEARDOWN(runtime) {}

TEST_F_TIMEOUT(runtime, three_workers_one_cpu, 300)
{
	unsigned int regions = REGIONS / test_scale();
	struct xs_stats st = { 0 };
	struct xs_runtime *rt;
	cpu_set_t one;
	int cpu = sched_getcpu();

	ASSERT_LE(0, cpu);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	/* The workers inherit the creating thread's mask. */
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	setenv("XSCHED_SPIN_US", "1000000", 1);
	rt = xs_runtime_create(WORKERS);
	ASSERT_NE(NULL, rt);
	for (unsigned int r = 0; r < regions; r++) {
		ASSERT_EQ(0, xs_runtime_parallel(rt, region, NULL));
		ASSERT_EQ((unsigned long)WORKERS * (r + 1), atomic_load(&before));
		ASSERT_EQ((unsigned long)WORKERS * (r + 1), atomic_load(&after));
	}
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	TH_LOG("%u regions, %llu parks", regions, (unsigned long long)st.parks);
	EXPECT_LE(regions, st.parks);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
