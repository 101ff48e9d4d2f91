/* SPDX-License-Identifier: MIT */
/* floorplan_omp.c - floorplan as OpenMP tasks, a task per move (BOTS). */
#include "floorplan.h"

static void fp_node(struct floorplan_state *st, const struct fp_layout *l,
		    int id)
{
	struct fp_move mv[FP_ROWS];

	for (int s = 0; s < st->cell[id].nshapes; s++) {
		int n = fp_moves(st, l, id, s, mv);

		for (int j = 0; j < n; j++) {
			struct fp_move m = mv[j];

#pragma omp task firstprivate(m)
			{
				struct fp_layout child;

				if (fp_step(st, l, &m, &child) == FP_INNER)
					fp_node(st, &child, m.id + 1);
			}
		}
	}
#pragma omp taskwait
}

static void floorplan_omp(void *p)
{
	struct floorplan_state *st = (struct floorplan_state *)p;

#pragma omp parallel
#pragma omp single
	fp_node(st, &st->root, 1);
}

const struct bench_omp bench_omp_floorplan = {
	.problem = &floorplan_problem,
	.omp = floorplan_omp,
};
