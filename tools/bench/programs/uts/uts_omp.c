/* SPDX-License-Identifier: MIT */
/* uts_omp.c - UTS as OpenMP tasks: one task per node, as in BOTS. */
#include "uts.h"

static uint64_t uts_node(uint64_t s)
{
	int nc = uts_nchildren(s);
	uint64_t counts[UTS_M];
	uint64_t nodes = 1;

	if (!nc)
		return 1;
	for (int i = 0; i < nc; i++) {
#pragma omp task firstprivate(i) shared(counts)
		counts[i] = uts_node(uts_child(s, i));
	}
#pragma omp taskwait
	for (int i = 0; i < nc; i++)
		nodes += counts[i];
	return nodes;
}

static void uts_omp(void *p)
{
	struct uts_state *st = (struct uts_state *)p;

#pragma omp parallel
#pragma omp single
	{
		for (long i = 0; i < st->b0; i++) {
#pragma omp task firstprivate(i)
			st->root_counts[i] = uts_node(uts_child(UTS_SEED, (int)i));
		}
#pragma omp taskwait
		st->nodes = uts_root_sum(st);
	}
}

const struct bench_omp bench_omp_uts = {
	.problem = &uts_problem,
	.omp = uts_omp,
};
