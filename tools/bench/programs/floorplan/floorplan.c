/* SPDX-License-Identifier: MIT */
/* floorplan.c - floorplan on xsched: a task per move, as BOTS. */
#include "../../harness/spawn.h"
#include "floorplan.h"

struct fp_arg {
	struct floorplan_state *st;
	const struct fp_layout *parent;	/* in the parent's frame: it waits */
	struct fp_move m;
};

_Static_assert(sizeof(struct fp_arg) <= XS_TASK_ARG_MAX, "inline argument");

static void fp_node(struct floorplan_state *st, const struct fp_layout *l,
		    int id);

static void fp_task(void *p)
{
	const struct fp_arg *a = (const struct fp_arg *)p;
	struct fp_layout child;

	if (fp_step(a->st, a->parent, &a->m, &child) == FP_INNER)
		fp_node(a->st, &child, a->m.id + 1);
}

static void fp_node(struct floorplan_state *st, const struct fp_layout *l,
		    int id)
{
	struct fp_arg a = { .st = st, .parent = l };
	struct fp_move mv[FP_ROWS];

	for (int s = 0; s < st->cell[id].nshapes; s++) {
		int n = fp_moves(st, l, id, s, mv);

		for (int j = 0; j < n; j++) {
			a.m = mv[j];
			bench_spawn(fp_task, &a, sizeof(a));
		}
	}
	bench_wait();
}

static void floorplan_xsched(void *p)
{
	struct floorplan_state *st = (struct floorplan_state *)p;

	fp_node(st, &st->root, 1);
}

const struct bench bench_floorplan = {
	.problem = &floorplan_problem,
	.xsched = floorplan_xsched,
	.tbb = floorplan_tbb,
};
