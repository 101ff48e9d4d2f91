/* SPDX-License-Identifier: MIT */
/* nqueens_omp.c - nqueens as OpenMP tasks, as BOTS writes it. */
#include <alloca.h>
#include <string.h>
#include "nqueens.h"

/* Rows 0..j-1 of @a are placed and ok. */
static long nq_node(int n, int j, const char *a)
{
	long sols[NQ_MAX];
	long sum = 0;

	for (int i = 0; i < n; i++) {
#pragma omp task firstprivate(i) shared(sols)
		{
			char *b = (char *)alloca((size_t)n);

			memcpy(b, a, (size_t)j);
			b[j] = (char)i;
			if (!nqueens_ok(j + 1, b))
				sols[i] = 0;
			else if (j + 1 == n)
				sols[i] = 1;
			else
				sols[i] = nq_node(n, j + 1, b);
		}
	}
#pragma omp taskwait
	for (int i = 0; i < n; i++)
		sum += sols[i];
	return sum;
}

static void nqueens_omp(void *p)
{
	struct nqueens_state *st = (struct nqueens_state *)p;
	char empty[NQ_MAX] = { 0 };

#pragma omp parallel
#pragma omp single
	st->solutions = nq_node(st->n, 0, empty);
}

const struct bench_omp bench_omp_nqueens = {
	.problem = &nqueens_problem,
	.omp = nqueens_omp,
};
