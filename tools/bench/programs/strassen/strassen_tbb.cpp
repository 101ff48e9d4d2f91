// SPDX-License-Identifier: MIT
// strassen_tbb.cpp - Strassen on oneTBB: a task_group task per product.
#include <tbb/task_group.h>
#include "strassen.h"

static void node(double *c, long ldc, const double *a, long lda,
		 const double *b, long ldb, long m)
{
	struct strassen_product p[7];
	double *m7 = strassen_node_split(c, ldc, a, lda, b, ldb, m, p);
	tbb::task_group g;

	if (!m7)
		return;
	for (int k = 0; k < 7; k++) {
		const struct strassen_product *pk = &p[k];

		g.run([=] { strassen_product_run(pk, node); });
	}
	g.wait();
	strassen_node_join(c, ldc, m, m7);
}

extern "C" void strassen_tbb(void *p)
{
	struct strassen_state *st = static_cast<struct strassen_state *>(p);

	node(st->c, st->n, st->a, st->n, st->b, st->n, st->n);
}
