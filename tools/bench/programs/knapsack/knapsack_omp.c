/* SPDX-License-Identifier: MIT */
/* knapsack_omp.c - knapsack as OpenMP tasks: a task per branch, take
 * before leave, taskwait. */
#include "knapsack.h"

static uint64_t ks_par(struct knapsack_state *st, int i, long w, long v)
{
	uint64_t take = 0, leave = 0;

	if (ks_visit(st, i, w, v) == KS_DONE)
		return 1;
	if (ks_fits(st, i, w)) {
#pragma omp task shared(take) firstprivate(i, w, v)
		take = ks_par(st, i + 1, w + st->wt[i], v + st->val[i]);
	}
#pragma omp task shared(leave) firstprivate(i, w, v)
	leave = ks_par(st, i + 1, w, v);
#pragma omp taskwait
	return 1 + take + leave;
}

static void knapsack_omp(void *p)
{
	struct knapsack_state *st = (struct knapsack_state *)p;

#pragma omp parallel
#pragma omp single
	st->nodes = ks_par(st, 0, 0, 0);
}

const struct bench_omp bench_omp_knapsack = {
	.problem = &knapsack_problem,
	.omp = knapsack_omp,
};
