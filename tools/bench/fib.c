/* SPDX-License-Identifier: MIT */
/* fib.c - fib on xsched, as BOTS: spawn fib(n-1), spawn fib(n-2), wait. */
#include "spawn.h"
#include "fib.h"

struct fib_arg {
	int n;
	long *out;	/* in the parent's frame: it waits before returning */
};

_Static_assert(sizeof(struct fib_arg) <= XS_TASK_ARG_MAX, "inline argument");

static void fib_task(void *p)
{
	const struct fib_arg *a = (const struct fib_arg *)p;
	long x, y;

	if (a->n < 2) {
		*a->out = a->n;
		return;
	}
	struct fib_arg left = { a->n - 1, &x };
	struct fib_arg right = { a->n - 2, &y };

	bench_spawn(fib_task, &left, sizeof(left));
	bench_spawn(fib_task, &right, sizeof(right));
	bench_wait();
	*a->out = x + y;
}

static void fib_xsched(void *p)
{
	struct fib_state *st = (struct fib_state *)p;
	struct fib_arg root = { st->n, &st->result };

	fib_task(&root);
}

const struct bench bench_fib = {
	.problem = &fib_problem,
	.xsched = fib_xsched,
	.tbb = fib_tbb,
};
