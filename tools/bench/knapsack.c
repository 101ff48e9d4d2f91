/* SPDX-License-Identifier: MIT */
/* knapsack.c - knapsack on xsched: a task per branch, take before leave. */
#include "spawn.h"
#include "knapsack.h"

struct ks_arg {
	struct knapsack_state *st;
	int i;
	long w, v;
	uint64_t *out;	/* nodes, in the parent's frame: it waits */
};

_Static_assert(sizeof(struct ks_arg) <= XS_TASK_ARG_MAX, "inline argument");

static void ks_task(void *p)
{
	const struct ks_arg *a = (const struct ks_arg *)p;
	struct knapsack_state *st = a->st;
	uint64_t take = 0, leave = 0;

	if (ks_visit(st, a->i, a->w, a->v) == KS_BRANCH) {
		struct ks_arg t = { st, a->i + 1, a->w + st->wt[a->i],
				    a->v + st->val[a->i], &take };
		struct ks_arg l = { st, a->i + 1, a->w, a->v, &leave };

		if (ks_fits(st, a->i, a->w))
			bench_spawn(ks_task, &t, sizeof(t));
		bench_spawn(ks_task, &l, sizeof(l));
		bench_wait();
	}
	*a->out = 1 + take + leave;
}

static void knapsack_xsched(void *p)
{
	struct knapsack_state *st = (struct knapsack_state *)p;
	struct ks_arg root = { st, 0, 0, 0, &st->nodes };

	ks_task(&root);
}

const struct bench bench_knapsack = {
	.problem = &knapsack_problem,
	.xsched = knapsack_xsched,
	.tbb = knapsack_tbb,
};
