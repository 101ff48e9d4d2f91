// SPDX-License-Identifier: MIT
/*
 * A spawn whose target queue is full runs the child before xs_task_spawn()
 * returns; a spawn into a queue with room defers it.
 */
#include <stdatomic.h>
#include "xsched.h"
#include "xs_test.h"

#define NCHILD 200

static _Atomic int ran[NCHILD];
static int ran_before_return[NCHILD];

static void child(void *arg)
{
	atomic_store(&ran[*(int *)arg], 1);
}

static void root(void *arg)
{
	(void)arg;
	for (int i = 0; i < NCHILD; i++) {
		xs_task_spawn(child, &i, sizeof i);
		ran_before_return[i] = atomic_load(&ran[i]);
	}
	xs_task_wait();
}

TEST(full_queue_runs_child_inline)
{
	struct xs_runtime *rt;
	struct xs_stats st;
	int deferred = 0, inline_runs = 0;

	setenv("XSCHED_QUEUE_SIZE", "16", 1);
	/* The full-queue rule is XQueue's: the paper's reference setting,
	 * slb (ws and auto push frames onto the deque instead). */
	setenv("XSCHED_DLB", "slb", 1);
	rt = xs_runtime_create(1);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	for (int i = 0; i < NCHILD; i++) {
		ASSERT_EQ(1, atomic_load(&ran[i]));
		if (ran_before_return[i])
			inline_runs++;
		else
			deferred++;
	}
	/* One worker, nobody pops until the wait: the first pushes fill the
	 * 16-slot queue (B-queue keeps a batch of slack), the rest run inline. */
	EXPECT_GE(deferred, 8);
	EXPECT_LE(deferred, 16);
	EXPECT_EQ(NCHILD - deferred, inline_runs);
	EXPECT_EQ((uint64_t)deferred, st.static_pushes);
	EXPECT_EQ((uint64_t)inline_runs, st.immediate);
	EXPECT_EQ((uint64_t)NCHILD, st.tasks_executed);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
