// SPDX-License-Identifier: MIT
/*
 * The API refuses misuse with -errno instead of crashing: spawning or
 * waiting outside a task, oversized argument blocks, the team barrier
 * outside a parallel region, running a job from inside a worker, NULL.
 */
#include <errno.h>
#include "xsched.h"
#include "xs_test.h"

static int inner_result[4];
static struct xs_runtime *the_rt;

static void nop(void *arg)
{
	(void)arg;
}

static void misuse_inside(void *arg)
{
	char big[XS_TASK_ARG_MAX + 1] = { 0 };

	(void)arg;
	inner_result[0] = xs_task_spawn(nop, big, sizeof big);
	inner_result[1] = xs_barrier_wait(); /* root task, not a parallel region */
	inner_result[2] = xs_runtime_run(the_rt, nop, NULL);
	inner_result[3] = xs_worker_id();
}

TEST(outside_a_task)
{
	EXPECT_EQ(-EPERM, xs_task_spawn(nop, NULL, 0));
	EXPECT_EQ(-EPERM, xs_task_wait());
	EXPECT_EQ(-EPERM, xs_barrier_wait());
	EXPECT_EQ(-1, xs_worker_id());
	EXPECT_EQ(0, xs_worker_count());
	EXPECT_EQ(-EINVAL, xs_runtime_run(NULL, nop, NULL));
	EXPECT_EQ(-EINVAL, xs_runtime_stats(NULL, NULL));
	EXPECT_EQ(0, xs_runtime_workers(NULL));
	xs_runtime_destroy(NULL);
}

TEST(inside_a_task)
{
	the_rt = xs_runtime_create(2);
	ASSERT_NE(NULL, the_rt);
	EXPECT_EQ(-EINVAL, xs_runtime_run(the_rt, NULL, NULL));
	ASSERT_EQ(0, xs_runtime_run(the_rt, misuse_inside, NULL));
	EXPECT_EQ(-E2BIG, inner_result[0]);
	EXPECT_EQ(-EPERM, inner_result[1]);
	EXPECT_EQ(-EBUSY, inner_result[2]);
	EXPECT_EQ(0, inner_result[3]);
	xs_runtime_destroy(the_rt);
}

TEST(too_many_workers)
{
	errno = 0;
	EXPECT_EQ(NULL, xs_runtime_create(5000));
	EXPECT_EQ(EINVAL, errno);
}

TEST_HARNESS_MAIN
