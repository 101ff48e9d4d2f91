// SPDX-License-Identifier: MIT
// floorplan_tbb.cpp - floorplan on oneTBB: a task_group task per move.
#include <tbb/task_group.h>
#include "floorplan.h"

static void fp_node(struct floorplan_state *st, const struct fp_layout *l,
		    int id)
{
	struct fp_move mv[FP_ROWS];
	tbb::task_group g;

	for (int s = 0; s < st->cell[id].nshapes; s++) {
		int n = fp_moves(st, l, id, s, mv);

		for (int j = 0; j < n; j++) {
			struct fp_move m = mv[j];

			g.run([=] {
				struct fp_layout child;

				if (fp_step(st, l, &m, &child) == FP_INNER)
					fp_node(st, &child, m.id + 1);
			});
		}
	}
	g.wait();
}

extern "C" void floorplan_tbb(void *p)
{
	struct floorplan_state *st = static_cast<struct floorplan_state *>(p);

	fp_node(st, &st->root, 1);
}
