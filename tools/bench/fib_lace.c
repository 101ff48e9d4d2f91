/* SPDX-License-Identifier: MIT */
/*
 * fib_lace.c - fib on xsched in Lace's shape (fib_lace.h): spawn
 * fib(n-1), call fib(n-2), join. The same typed task as fib.c; the join
 * of a child nobody stole is a direct call of fib_lace_task().
 */
#include "spawn.h"
#include "fib_lace.h"

XS_TASK_1(long, fib_lace_task, int, n)
{
	if (n < 2)
		return n;
	fib_lace_task_spawn(n - 1);
	long y = fib_lace_task(n - 2);
	long x = fib_lace_task_join();

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
