// SPDX-License-Identifier: MIT
/*
 * An idle runtime does not burn CPU: after a job, its workers spin for
 * XSCHED_SPIN_US and then park, so over a quiet second the process uses
 * well under 5% of one CPU, even with more workers than CPUs.
 */
#include <time.h>
#include <unistd.h>
#include "xsched.h"
#include "xs_test.h"

static void leaf(void *arg)
{
	(void)arg;
}

static void root(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++)
		xs_task_spawn(leaf, &i, sizeof i);
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

TEST(idle_workers_park)
{
	struct xs_runtime *rt = xs_runtime_create(8);
	struct xs_stats st;
	double before, used;

	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
	usleep(100 * 1000); /* past the spin phase */
	before = cpu_seconds();
	sleep(1);
	used = cpu_seconds() - before;
	TH_LOG("idle second used %.4f s of CPU", used);
	EXPECT_LT(used, 0.05);
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	EXPECT_GE(st.parks, 7); /* every worker thread parked at least once */
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
