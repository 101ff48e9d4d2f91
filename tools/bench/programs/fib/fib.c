/* SPDX-License-Identifier: MIT */
/*
 * fib.c - fib on xsched, as BOTS: spawn fib(n-1), spawn fib(n-2), join
 * both. A typed task (xsched/task_typed.h) written with XS_SPAWN() and
 * XS_JOIN(), which pass the deque and its top along instead of looking up
 * the worker at each spawn and join (fib_lace.c has Lace's shape): each
 * join of a child nobody stole is a direct call of fib_task(), which the
 * compiler may inline.
 */
#include "../../harness/spawn.h"
#include "fib.h"

XS_TASK_1(long, fib_task, int, n)
{
	if (n < 2)
		return n;
	XS_SPAWN(fib_task, n - 1);
	XS_SPAWN(fib_task, n - 2);
	long y = XS_JOIN(fib_task);	/* the newest: fib(n - 2) */
	long x = XS_JOIN(fib_task);

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
