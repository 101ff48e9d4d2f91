/* SPDX-License-Identifier: MIT */
/*
 * strassen.c - Strassen on xsched: a typed task per product, as BOTS.
 *
 * A node joins its 7 products newest first while thieves take the oldest
 * (as oneTBB's task_group): the owner runs the product it spawned last
 * while its operands are still in its cache, and pops its private frames
 * with a store of its own top. Joined oldest first (xs_sync()), owner and
 * thief took from the same end, by CASes on the deque's shared word.
 */
#include "spawn.h"
#include "strassen.h"

static strassen_node_fn node;

XS_VOID_TASK_1(strassen_product_task, const struct strassen_product *, p)
{
	strassen_product_run(p, node);
}

static void node(double *c, long ldc, const double *a, long lda,
		 const double *b, long ldb, long m)
{
	struct strassen_product p[7];
	double *m7 = strassen_node_split(c, ldc, a, lda, b, ldb, m, p);

	if (!m7)
		return;
	for (int k = 0; k < 7; k++)
		strassen_product_task_spawn(&p[k]);
	for (int k = 0; k < 7; k++)
		strassen_product_task_join();
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
