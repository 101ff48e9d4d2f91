/* SPDX-License-Identifier: MIT */
/*
 * fib_lace.c - fib on xsched in Lace's shape (fib_lace.h): spawn
 * fib(n-1), call fib(n-2), join. A typed task written as Lace writes it:
 * XS_SPAWN(), XS_CALL() and XS_JOIN() pass the deque and its top along
 * (xsched/task_typed.h) instead of looking up the worker at each of them;
 * the join of a child nobody stole is a direct call of the body.
 */
#include "../../harness/spawn.h"
#include "fib_lace.h"

XS_TASK_1(long, fib_lace_task, int, n)
{
	if (n < 2)
		return n;
	XS_SPAWN(fib_lace_task, n - 1);
	long y = XS_CALL(fib_lace_task, n - 2);
	long x = XS_JOIN(fib_lace_task);

	return x + y;
}

static void fib_lace_xsched(void *p)
{
	struct fib_state *st = (struct fib_state *)p;

	st->result = fib_lace_task(st->n);
}

const struct bench bench_fib_lace = {
	.problem = &fib_lace_problem,
	.xsched = fib_lace_xsched,
	.tbb = fib_lace_tbb,
};
