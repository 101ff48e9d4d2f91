/* SPDX-License-Identifier: MIT */
/*
 * fib.c - fib on xsched, as BOTS: spawn fib(n-1), spawn fib(n-2), join
 * both. A typed task (xsched/task_typed.h): each join of a child nobody
 * stole is a direct call of fib_task(), which the compiler may inline.
 */
#include "spawn.h"
#include "fib.h"

XS_TASK_1(long, fib_task, int, n)
{
	if (n < 2)
		return n;
	fib_task_spawn(n - 1);
	fib_task_spawn(n - 2);
	long y = fib_task_join();	/* the newest: fib(n - 2) */
	long x = fib_task_join();

	return x + y;
}

static void fib_xsched(void *p)
{
	struct fib_state *st = (struct fib_state *)p;

	st->result = fib_task(st->n);
}

const struct bench bench_fib = {
	.problem = &fib_problem,
	.xsched = fib_xsched,
	.tbb = fib_tbb,
};
