/* SPDX-License-Identifier: MIT */
/*
 * sparselu_omp.c - sparselu as OpenMP tasks chained by depend(in/inout) on
 * the blocks (the address of a block's slot in a[] stands for the block):
 * one thread creates every task of every step, and waits once at the end.
 */
#include "sparselu.h"

static void sparselu_omp(void *p)
{
	struct sparselu_state *st = (struct sparselu_state *)p;
	double **a = st->a;
	int nb = st->nb;

#pragma omp parallel
#pragma omp single
	{
		for (int k = 0; k < nb; k++) {
#pragma omp task firstprivate(k) depend(inout: a[k * nb + k])
			slu_lu0(a[k * nb + k]);
			for (int j = k + 1; j < nb; j++) {
				if (!a[k * nb + j])
					continue;
#pragma omp task firstprivate(k, j) depend(in: a[k * nb + k]) depend(inout: a[k * nb + j])
				slu_fwd(a[k * nb + k], a[k * nb + j]);
			}
			for (int i = k + 1; i < nb; i++) {
				if (!a[i * nb + k])
					continue;
#pragma omp task firstprivate(k, i) depend(in: a[k * nb + k]) depend(inout: a[i * nb + k])
				slu_bdiv(a[k * nb + k], a[i * nb + k]);
			}
			for (int i = k + 1; i < nb; i++) {
				if (!a[i * nb + k])
					continue;
				for (int j = k + 1; j < nb; j++) {
					if (!a[k * nb + j])
						continue;
#pragma omp task firstprivate(k, i, j) depend(in: a[i * nb + k], a[k * nb + j]) depend(inout: a[i * nb + j])
					slu_bmod(a[i * nb + k], a[k * nb + j],
						 a[i * nb + j]);
				}
			}
		}
#pragma omp taskwait
	}
}

const struct bench_omp bench_omp_sparselu = {
	.problem = &sparselu_problem,
	.omp = sparselu_omp,
};
