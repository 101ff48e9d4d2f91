/* SPDX-License-Identifier: MIT */
/*
 * uts.c - UTS on xsched: one task per node; a node joins its children.
 * A typed task (xsched/task_typed.h): the node's state in, the size of
 * its subtree out.
 */
#include "spawn.h"
#include "uts.h"

XS_TASK_1(uint64_t, uts_task, uint64_t, state)
{
	int nc = uts_nchildren(state);
	uint64_t nodes = 1;

	for (int i = 0; i < nc; i++)
		uts_task_spawn(uts_child(state, i));
	for (int i = 0; i < nc; i++)
		nodes += uts_task_join();
	return nodes;
}

static void uts_xsched(void *p)
{
	struct uts_state *st = (struct uts_state *)p;

	for (long i = 0; i < st->b0; i++)
		uts_task_spawn(uts_child(UTS_SEED, (int)i));
	/* Newest first: child i's count lands in its own slot. */
	for (long i = st->b0; i-- > 0;)
		st->root_counts[i] = uts_task_join();
	st->nodes = uts_root_sum(st);
}

const struct bench bench_uts = {
	.problem = &uts_problem,
	.xsched = uts_xsched,
	.tbb = uts_tbb,
};
