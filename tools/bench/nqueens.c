/* SPDX-License-Identifier: MIT */
/*
 * nqueens.c - nqueens on xsched: the board travels in the task argument.
 * A typed task (xsched/task_typed.h): the board and the row are typed
 * arguments, the count of solutions the result.
 */
#include "spawn.h"
#include "nqueens.h"

struct nq_board {
	char a[NQ_MAX];	/* rows 0..j placed by the spawner */
};

/* Row j holds the new queen: check it, then spawn the n placements of
 * row j + 1 and sum their solutions. */
XS_TASK_3(long, nq_task, struct nq_board, b, int, n, int, j)
{
	long sum = 0;

	j++;
	if (!nqueens_ok(j, b.a))
		return 0;
	if (j == n)
		return 1;
	for (int i = 0; i < n; i++) {
		b.a[j] = (char)i;
		nq_task_spawn(b, n, j);
	}
	for (int i = 0; i < n; i++)
		sum += nq_task_join();
	return sum;
}

static void nqueens_xsched(void *p)
{
	struct nqueens_state *st = (struct nqueens_state *)p;
	struct nq_board b = { { 0 } };
	long sum = 0;

	for (int i = 0; i < st->n; i++) {
		b.a[0] = (char)i;
		nq_task_spawn(b, st->n, 0);
	}
	for (int i = 0; i < st->n; i++)
		sum += nq_task_join();
	st->solutions = sum;
}

const struct bench bench_nqueens = {
	.problem = &nqueens_problem,
	.xsched = nqueens_xsched,
	.tbb = nqueens_tbb,
};
