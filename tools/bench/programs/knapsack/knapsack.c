/* SPDX-License-Identifier: MIT */
/*
 * knapsack.c - knapsack on xsched: a typed task per branch, in Lace's
 * shape (xsched/task_typed.h). "Leave item i" is spawned, where a thief
 * can take it, and "take item i" is called, so the spawner runs the two
 * branches in the serial order (take before leave) and prunes as the
 * serial search does; the join of a leave nobody stole is a direct call.
 * The result is the count of nodes visited below and at this one.
 */
#include "../../harness/spawn.h"
#include "knapsack.h"

XS_TASK_4(uint64_t, ks_task, struct knapsack_state *, st, int, i, long, w, long, v)
{
	uint64_t nodes = 1;

	if (ks_visit(st, i, w, v) != KS_BRANCH)
		return nodes;
	XS_SPAWN(ks_task, st, i + 1, w, v);
	if (ks_fits(st, i, w))
		nodes += XS_CALL(ks_task, st, i + 1, w + st->wt[i], v + st->val[i]);
	return nodes + XS_JOIN(ks_task);
}

static void knapsack_xsched(void *p)
{
	struct knapsack_state *st = (struct knapsack_state *)p;

	st->nodes = ks_task(st, 0, 0, 0);
}

const struct bench bench_knapsack = {
	.problem = &knapsack_problem,
	.xsched = knapsack_xsched,
	.tbb = knapsack_tbb,
};
