/* SPDX-License-Identifier: MIT */
/* uts.c - UTS on xsched: one task per node; a node waits for its children. */
#include "spawn.h"
#include "uts.h"

struct uts_arg {
	uint64_t state;
	uint64_t *out;	/* a slot in the parent's frame (root: root_counts) */
};

_Static_assert(sizeof(struct uts_arg) <= XS_TASK_ARG_MAX, "inline argument");

static void uts_task(void *p)
{
	const struct uts_arg *a = (const struct uts_arg *)p;
	int nc = uts_nchildren(a->state);
	uint64_t counts[UTS_M];
	uint64_t nodes = 1;

	if (!nc) {
		*a->out = 1;
		return;
	}
	for (int i = 0; i < nc; i++) {
		struct uts_arg c = { uts_child(a->state, i), &counts[i] };

		bench_spawn(uts_task, &c, sizeof(c));
	}
	bench_wait();
	for (int i = 0; i < nc; i++)
		nodes += counts[i];
	*a->out = nodes;
}

static void uts_xsched(void *p)
{
	struct uts_state *st = (struct uts_state *)p;

	for (long i = 0; i < st->b0; i++) {
		struct uts_arg c = { uts_child(UTS_SEED, (int)i),
				     &st->root_counts[i] };

		bench_spawn(uts_task, &c, sizeof(c));
	}
	bench_wait();
	st->nodes = uts_root_sum(st);
}

const struct bench bench_uts = {
	.problem = &uts_problem,
	.xsched = uts_xsched,
	.tbb = uts_tbb,
};
