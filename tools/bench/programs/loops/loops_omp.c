/* SPDX-License-Identifier: MIT */
/* loops_omp.c - loops in one parallel region: a worksharing loop per
 * loop, static schedule, whose implicit barrier ends it. */
#include "loops.h"

static void loops_omp(void *p)
{
	struct loops_state *st = (struct loops_state *)p;
	long n = st->n;

#pragma omp parallel
	for (long k = 0; k < n; k++) {
#pragma omp for schedule(static)
		for (long i = 0; i < LOOPS_WIDTH; i++)
			loops_body(st, k, i, i + 1);
	}
}

const struct bench_omp bench_omp_loops = {
	.problem = &loops_problem,
	.omp = loops_omp,
};
