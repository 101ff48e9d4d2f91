// SPDX-License-Identifier: MIT
/*
 * Waiting tasks run other tasks on their own stack. On a deep, narrow tree
 * (a spine thousands of levels deep with bushy side branches, like UTS)
 * and round-robin distribution, that nesting once grew until the worker
 * stack overflowed. The runtime now stops feeding a worker that is nested
 * too deep (park.saturated), so the same tree completes on a small stack,
 * under every push policy, with every node counted once. And under NA-RP,
 * where a waiting task's children go to a thief, the join once popped its
 * ancestors' older tasks without end until fib(35) overflowed the stack;
 * past the stack mark a join now takes only its own children.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"
#include "fib-task.h"

/* Sanitizers make frames several times larger: a shorter spine keeps the
 * same proportion of the stack. */
#define SPINE (6000 / (int)test_scale())

static _Atomic uint64_t nodes;

struct node {
	int depth;   /* levels left on the spine; -1 for side branches */
	int bushy;   /* side-branch levels left */
};

static void visit(void *arg)
{
	struct node *n = arg;

	atomic_fetch_add_explicit(&nodes, 1, memory_order_relaxed);
	if (n->depth > 0) {
		struct node spine = { n->depth - 1, 0 }, side = { -1, 3 };

		xs_task_spawn(visit, &side, sizeof side);
		xs_task_spawn(visit, &spine, sizeof spine);
	} else if (n->bushy > 0) {
		struct node side = { -1, n->bushy - 1 };

		for (int i = 0; i < 2; i++)
			xs_task_spawn(visit, &side, sizeof side);
	}
	xs_task_wait();
}

/* Spine nodes: SPINE + 1; every spine node but the last has a side
 * branch, a full binary tree of 1 + 2 + 4 + 8 = 15 nodes. */
#define EXPECT_NODES ((uint64_t)(SPINE + 1) + (uint64_t)SPINE * 15)

static void run(struct __test_metadata *_metadata, const char *push)
{
	struct node root = { SPINE, 0 };
	struct xs_runtime *rt;

	setenv("XSCHED_PUSH", push, 1);
	setenv("XSCHED_STACK_KIB", "4096", 1);
	rt = xs_runtime_create(3);
	ASSERT_NE(NULL, rt);
	for (int r = 0; r < 3; r++) {
		atomic_store(&nodes, 0);
		ASSERT_EQ(0, xs_runtime_run(rt, visit, &root));
		ASSERT_EQ(EXPECT_NODES, atomic_load(&nodes)) TH_LOG("XSCHED_PUSH=%s", push);
	}
	xs_runtime_destroy(rt);
}

FIXTURE(runtime) {};
FIXTURE_SETUP(runtime) {}
FIXTURE_TEARDOWN(runtime) {}

TEST_F_TIMEOUT(runtime, round_robin, 300) { run(_metadata, "rr"); }
TEST_F_TIMEOUT(runtime, local, 300) { run(_metadata, "local"); }

TEST_F_TIMEOUT(runtime, redirect_push_fib, 300)
{
	const int n = test_scale() > 1 ? 27 : 35;
	const long want = n == 35 ? 9227465 : 196418;
	struct xs_runtime *rt;

	setenv("XSCHED_DLB", "rp", 1);
	setenv("XSCHED_PUSH", "auto", 1);
	setenv("XSCHED_STACK_KIB", "1024", 1);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	for (int r = 0; r < 5; r++) {
		long out = -1;
		struct fib_arg root = { n, &out };

		ASSERT_EQ(0, xs_runtime_run(rt, fib_task, &root));
		ASSERT_EQ(want, out);
	}
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
