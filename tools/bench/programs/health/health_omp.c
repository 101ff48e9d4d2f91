/* SPDX-License-Identifier: MIT */
/* health_omp.c - health as OpenMP tasks, as BOTS's sim_village_par. */
#include "health.h"

static void health_village(struct health_village *v)
{
	for (int c = 0; c < HEALTH_CITIES && v->child[c]; c++) {
		struct health_village *child = v->child[c];

#pragma omp task firstprivate(child)
		health_village(child);
	}
	health_before_wait(v);
#pragma omp taskwait
	health_after_wait(v);
}

static void health_omp(void *p)
{
	struct health_state *st = (struct health_state *)p;

#pragma omp parallel
#pragma omp single
	for (long t = 0; t < st->steps; t++)
		health_village(&st->v[0]);
}

const struct bench_omp bench_omp_health = {
	.problem = &health_problem,
	.omp = health_omp,
};
