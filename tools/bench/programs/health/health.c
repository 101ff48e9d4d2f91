/* SPDX-License-Identifier: MIT */
/*
 * health.c - health on xsched: a typed task per child village and step.
 *
 * The children are joined newest first (XS_JOIN) while thieves take the
 * oldest, as oneTBB's task_group and Lace run them: the owner and a thief
 * work from opposite ends of a village's children, so from one step to
 * the next a subtree tends to run on the worker that ran it before and
 * its patients' lists stay in that CPU's cache. The result does not
 * depend on the order (health.h: the parent collects its children's lists
 * lowest id first after the join).
 */
#include "../../harness/spawn.h"
#include "health.h"

XS_VOID_TASK_1(health_village_task, struct health_village *, v)
{
	int c;

	for (c = 0; c < HEALTH_CITIES && v->child[c]; c++)
		XS_SPAWN(health_village_task, v->child[c]);
	health_before_wait(v);
	while (c-- > 0)
		XS_JOIN(health_village_task);
	health_after_wait(v);
}

static void health_xsched(void *p)
{
	struct health_state *st = (struct health_state *)p;

	for (long t = 0; t < st->steps; t++)
		health_village_task(&st->v[0]);
}

const struct bench bench_health = {
	.problem = &health_problem,
	.xsched = health_xsched,
	.tbb = health_tbb,
};
