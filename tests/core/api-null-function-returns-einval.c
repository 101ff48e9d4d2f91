// SPDX-License-Identifier: MIT
/*
 * A NULL function or result pointer is refused with -EINVAL by every
 * public entry point that takes one (issue 31, item 13), inside a task as
 * outside: xs_task_spawn(NULL, ...) used to return 0 and leave a frame
 * that a worker later called, jumping to address 0. After the misuse the
 * runtime still runs a checked job.
 */
#include <errno.h>

#include "fib-task.h"
#include "xsched.h"
#include "xs_test.h"

static int spawned[3];

static void nop(void *arg)
{
	(void)arg;
}

static void spawn_null(void *arg)
{
	int x = 1;

	(void)arg;
	spawned[0] = xs_task_spawn(NULL, &x, sizeof(x));
	spawned[1] = xs_spawn(NULL, &x, sizeof(x));
	spawned[2] = xs_task_wait();
}

static void for_nop(void *arg, int64_t first, uint64_t count)
{
	(void)arg;
	(void)first;
	(void)count;
}

TEST(spawn_of_null_is_einval)
{
	struct xs_runtime *rt = xs_runtime_create(2);
	long r = -1;
	struct fib_arg a = { 20, &r };

	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, spawn_null, NULL));
	EXPECT_EQ(-EINVAL, spawned[0]);
	EXPECT_EQ(-EINVAL, spawned[1]);
	EXPECT_EQ(0, spawned[2]);
	/* and nothing was left behind: a job still checks out */
	ASSERT_EQ(0, xs_runtime_run(rt, fib_task, &a));
	EXPECT_EQ(6765, r);
	xs_runtime_destroy(rt);
}

TEST(other_entry_points_refuse_null)
{
	struct xs_runtime *rt = xs_runtime_create(2);

	ASSERT_NE(NULL, rt);
	EXPECT_EQ(-EINVAL, xs_runtime_run(rt, NULL, NULL));
	EXPECT_EQ(-EINVAL, xs_runtime_parallel(rt, NULL, NULL));
	EXPECT_EQ(-EINVAL, xs_runtime_stats(rt, NULL));
	EXPECT_EQ(-EINVAL, xs_runtime_get_dlb(rt, NULL));
	EXPECT_EQ(-EINVAL, xs_runtime_set_dlb(rt, NULL));
	EXPECT_EQ(-EINVAL, xs_runtime_get_dlb(NULL, NULL));
	EXPECT_EQ(-EINVAL, xs_loop_sched_default(rt, NULL));
	EXPECT_EQ(-EINVAL, xs_loop_sched_check(NULL));
	EXPECT_EQ(-EINVAL, xs_parallel_for(rt, 0, 10, 1, NULL, NULL, NULL));
	EXPECT_EQ(-EINVAL, xs_parallel_for(NULL, 0, 10, 1, NULL, for_nop, NULL));
	EXPECT_EQ(-EINVAL, xs_parallel_for_u64(rt, 0, 10, 1, NULL, NULL, NULL));
	EXPECT_EQ(-EINVAL, xs_parallel_for_2d(rt, 0, 4, 0, 4, 2, 2, NULL, NULL, NULL));
	EXPECT_EQ(-EINVAL, xs_option_describe(0, NULL));
	errno = 0;
	EXPECT_EQ(NULL, xs_continuation_create(NULL, NULL, 0));
	EXPECT_EQ(EPERM, errno); /* outside a task: that first */
	EXPECT_EQ(0, xs_runtime_run(rt, nop, NULL));
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
