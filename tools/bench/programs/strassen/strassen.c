/* SPDX-License-Identifier: MIT */
/* strassen.c - Strassen on xsched: a task per product, as BOTS. */
#include "../../harness/spawn.h"
#include "strassen.h"

_Static_assert(sizeof(struct strassen_product) <= XS_TASK_ARG_MAX,
	       "inline argument");

static strassen_node_fn node;

static void product_task(void *p)
{
	strassen_product_run((const struct strassen_product *)p, node);
}

static void node(double *c, long ldc, const double *a, long lda,
		 const double *b, long ldb, long m)
{
	struct strassen_product p[7];
	double *m7 = strassen_node_split(c, ldc, a, lda, b, ldb, m, p);

	if (!m7)
		return;
	for (int k = 0; k < 7; k++)
		bench_spawn(product_task, &p[k], sizeof(p[k]));
	bench_wait();
	strassen_node_join(c, ldc, m, m7);
}

static void strassen_xsched(void *p)
{
	struct strassen_state *st = (struct strassen_state *)p;

	node(st->c, st->n, st->a, st->n, st->b, st->n, st->n);
}

const struct bench bench_strassen = {
	.problem = &strassen_problem,
	.xsched = strassen_xsched,
	.tbb = strassen_tbb,
};
