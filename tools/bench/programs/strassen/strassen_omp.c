/* SPDX-License-Identifier: MIT */
/* strassen_omp.c - Strassen as OpenMP tasks, a task per product (BOTS). */
#include "strassen.h"

static void node(double *c, long ldc, const double *a, long lda,
		 const double *b, long ldb, long m)
{
	struct strassen_product p[7];
	double *m7 = strassen_node_split(c, ldc, a, lda, b, ldb, m, p);

	if (!m7)
		return;
	for (int k = 0; k < 7; k++) {
#pragma omp task firstprivate(k) shared(p)
		strassen_product_run(&p[k], node);
	}
#pragma omp taskwait
	strassen_node_join(c, ldc, m, m7);
}

static void strassen_omp(void *p)
{
	struct strassen_state *st = (struct strassen_state *)p;

#pragma omp parallel
#pragma omp single
	node(st->c, st->n, st->a, st->n, st->b, st->n, st->n);
}

const struct bench_omp bench_omp_strassen = {
	.problem = &strassen_problem,
	.omp = strassen_omp,
};
