/* SPDX-License-Identifier: MIT */
/* sort_omp.c - multisort as OpenMP tasks, as BOTS writes it. */
#include "sort.h"

static void merge_par(struct sort_merge_args m)
{
	struct sort_merge_args h[2];

	if (sort_merge_split(m, h))
		return;
#pragma omp task firstprivate(h)
	merge_par(h[0]);
#pragma omp task firstprivate(h)
	merge_par(h[1]);
#pragma omp taskwait
}

static void cilksort_par(sort_elm *low, sort_elm *tmp, long size)
{
	struct sort_merge_args m[3];
	long q = size / 4;

	if (size < SORT_QUICK_CUTOFF) {
		sort_quick(low, low + size - 1);
		return;
	}
#pragma omp task
	cilksort_par(low, tmp, q);
#pragma omp task
	cilksort_par(low + q, tmp + q, q);
#pragma omp task
	cilksort_par(low + 2 * q, tmp + 2 * q, q);
#pragma omp task
	cilksort_par(low + 3 * q, tmp + 3 * q, size - 3 * q);
#pragma omp taskwait
	sort_level_merges(low, tmp, size, m);
#pragma omp task firstprivate(m)
	merge_par(m[0]);
#pragma omp task firstprivate(m)
	merge_par(m[1]);
#pragma omp taskwait
	merge_par(m[2]);
}

static void sort_omp(void *p)
{
	struct sort_state *st = (struct sort_state *)p;

#pragma omp parallel
#pragma omp single
	cilksort_par(st->a, st->tmp, st->n);
}

const struct bench_omp bench_omp_sort = {
	.problem = &sort_problem,
	.omp = sort_omp,
};
