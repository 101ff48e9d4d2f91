/* SPDX-License-Identifier: MIT */
/* alignment_omp.c - alignment as OpenMP tasks: one thread spawns a task per
 * pair, then waits (BOTS's single version). */
#include "alignment.h"

static void alignment_omp(void *p)
{
	struct alignment_state *st = (struct alignment_state *)p;

#pragma omp parallel
#pragma omp single
	{
		for (int i = 0; i < st->n; i++)
			for (int j = i + 1; j < st->n; j++) {
#pragma omp task firstprivate(i, j)
				st->score[i * st->n + j] = aln_score(st, i, j);
			}
#pragma omp taskwait
	}
}

const struct bench_omp bench_omp_alignment = {
	.problem = &alignment_problem,
	.omp = alignment_omp,
};
