/* SPDX-License-Identifier: MIT */
/* alignment.c - alignment on xsched: a task per pair, one wait. */
#include "../../harness/spawn.h"
#include "alignment.h"

struct aln_arg {
	struct alignment_state *st;
	int i, j;
};

_Static_assert(sizeof(struct aln_arg) <= XS_TASK_ARG_MAX, "inline argument");

static void pair_task(void *p)
{
	const struct aln_arg *a = (const struct aln_arg *)p;

	a->st->score[a->i * a->st->n + a->j] = aln_score(a->st, a->i, a->j);
}

static void alignment_xsched(void *p)
{
	struct alignment_state *st = (struct alignment_state *)p;

	for (int i = 0; i < st->n; i++)
		for (int j = i + 1; j < st->n; j++) {
			struct aln_arg a = { st, i, j };

			bench_spawn(pair_task, &a, sizeof(a));
		}
	bench_wait();
}

const struct bench bench_alignment = {
	.problem = &alignment_problem,
	.xsched = alignment_xsched,
	.tbb = alignment_tbb,
};
