/* SPDX-License-Identifier: MIT */
/*
 * uts.c - UTS on xsched: one task per node; a node joins its children.
 * Below the root a node is a typed task (xsched/task_typed.h): its state
 * in, the size of its subtree out.
 */
#include "../../harness/spawn.h"
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

/* A child of the root: a generic task, so the runtime's bound on queued
 * children (XS_DEQUE_QUEUED) joins the root's wide fan-out in batches and
 * its frames stay few; below it, typed tasks. */
struct uts_root_child {
	uint64_t state;
	uint64_t *count;
};

static void uts_root_child(void *p)
{
	const struct uts_root_child *c = (const struct uts_root_child *)p;

	*c->count = uts_task(c->state);
}

static void uts_xsched(void *p)
{
	struct uts_state *st = (struct uts_state *)p;

	for (long i = 0; i < st->b0; i++) {
		struct uts_root_child c = { uts_child(UTS_SEED, (int)i), &st->root_counts[i] };

		bench_spawn(uts_root_child, &c, sizeof(c));
	}
	bench_wait();
	st->nodes = uts_root_sum(st);
}

const struct bench bench_uts = {
	.problem = &uts_problem,
	.xsched = uts_xsched,
	.tbb = uts_tbb,
};
