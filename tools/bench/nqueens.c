/* SPDX-License-Identifier: MIT */
/* nqueens.c - nqueens on xsched: the board travels in the task argument. */
#include "spawn.h"
#include "nqueens.h"

struct nq_arg {
	char board[NQ_MAX];	/* rows 0..j placed by the spawner */
	long *out;		/* a slot in the parent's frame */
	int n, j;
};

_Static_assert(sizeof(struct nq_arg) <= XS_TASK_ARG_MAX, "inline argument");

static void nq_task(void *p);

/* Spawn the n tasks that place a queen in row a->j, wait, sum. */
static void nq_node(struct nq_arg *a)
{
	long sols[NQ_MAX];
	struct nq_arg c;
	long sum = 0;
	int n = a->n;

	memcpy(c.board, a->board, (size_t)a->j);
	c.n = n;
	c.j = a->j;
	for (int i = 0; i < n; i++) {
		c.board[a->j] = (char)i;
		c.out = &sols[i];
		bench_spawn(nq_task, &c, sizeof(c));
	}
	bench_wait();
	for (int i = 0; i < n; i++)
		sum += sols[i];
	*a->out = sum;
}

/* Row a->j holds the new queen: check, then fill the next row. */
static void nq_task(void *p)
{
	struct nq_arg *a = (struct nq_arg *)p;

	a->j++;
	if (!nqueens_ok(a->j, a->board))
		*a->out = 0;
	else if (a->j == a->n)
		*a->out = 1;
	else
		nq_node(a);
}

static void nqueens_xsched(void *p)
{
	struct nqueens_state *st = (struct nqueens_state *)p;
	struct nq_arg root = { .out = &st->solutions, .n = st->n, .j = 0 };

	nq_node(&root);
}

const struct bench bench_nqueens = {
	.problem = &nqueens_problem,
	.xsched = nqueens_xsched,
	.tbb = nqueens_tbb,
};
