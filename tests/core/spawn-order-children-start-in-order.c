// SPDX-License-Identifier: MIT
/*
 * On one worker, a task's children start in the order they were spawned,
 * depth first, exactly as the serial calls would run: the join turns the
 * run of its children in the (otherwise newest-first) master queue around.
 * Branch-and-bound searches depend on that order to prune early.
 */
#include <stdatomic.h>
#include "xsched.h"
#include "xs_test.h"

#define FANOUT 6
#define DEPTH 3

static int order[1 << 12];
static int norder;

struct node {
	int id, depth;
};

static void visit(void *arg)
{
	struct node *n = arg;

	order[norder++] = n->id;
	if (n->depth == 0)
		return;
	for (int i = 0; i < FANOUT; i++) {
		struct node c = { n->id * FANOUT + i + 1, n->depth - 1 };

		xs_task_spawn(visit, &c, sizeof c);
	}
	xs_task_wait();
}

static int expect[1 << 12];
static int nexpect;

static void serial(int id, int depth)
{
	expect[nexpect++] = id;
	for (int i = 0; depth && i < FANOUT; i++)
		serial(id * FANOUT + i + 1, depth - 1);
}

TEST(children_start_in_spawn_order)
{
	struct xs_runtime *rt = xs_runtime_create(1);
	struct node root = { 0, DEPTH };

	ASSERT_NE(NULL, rt);
	serial(0, DEPTH);
	for (int round = 0; round < 3; round++) {
		norder = 0;
		ASSERT_EQ(0, xs_runtime_run(rt, visit, &root));
		ASSERT_EQ(nexpect, norder);
		for (int i = 0; i < nexpect; i++) {
			ASSERT_EQ(expect[i], order[i]) {
				TH_LOG("position %d", i);
			}
		}
	}
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
