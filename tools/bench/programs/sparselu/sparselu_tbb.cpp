// SPDX-License-Identifier: MIT
// sparselu_tbb.cpp - sparselu on oneTBB: each step in phases, as on xsched
// (lu0; fwd and bdiv; bmod; a task_group wait after each).
#include <tbb/task_group.h>
#include "sparselu.h"

extern "C" void sparselu_tbb(void *p)
{
	struct sparselu_state *st = static_cast<struct sparselu_state *>(p);
	double **a = st->a;
	int nb = st->nb;
	tbb::task_group g;

	for (int k = 0; k < nb; k++) {
		double *d = a[k * nb + k];

		g.run([=] { slu_lu0(d); });
		g.wait();
		for (int j = k + 1; j < nb; j++) {
			double *col = a[k * nb + j];

			if (col)
				g.run([=] { slu_fwd(d, col); });
		}
		for (int i = k + 1; i < nb; i++) {
			double *row = a[i * nb + k];

			if (row)
				g.run([=] { slu_bdiv(d, row); });
		}
		g.wait();
		for (int i = k + 1; i < nb; i++) {
			const double *row = a[i * nb + k];

			if (!row)
				continue;
			for (int j = k + 1; j < nb; j++) {
				const double *col = a[k * nb + j];
				double *inner = a[i * nb + j];

				if (col)
					g.run([=] { slu_bmod(row, col, inner); });
			}
		}
		g.wait();
	}
}
