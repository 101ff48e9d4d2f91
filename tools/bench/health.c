/* SPDX-License-Identifier: MIT */
/* health.c - health on xsched: a task per child village and step. */
#include "spawn.h"
#include "health.h"

static void health_task(void *p)
{
	struct health_village *v = *(struct health_village **)p;

	for (int c = 0; c < HEALTH_CITIES && v->child[c]; c++)
		bench_spawn(health_task, &v->child[c], sizeof(v->child[c]));
	health_before_wait(v);
	bench_wait();
	health_after_wait(v);
}

static void health_xsched(void *p)
{
	struct health_state *st = (struct health_state *)p;
	struct health_village *root = &st->v[0];

	for (long t = 0; t < st->steps; t++)
		health_task(&root);
}

const struct bench bench_health = {
	.problem = &health_problem,
	.xsched = health_xsched,
	.tbb = health_tbb,
};
