/* SPDX-License-Identifier: MIT */
/* fib_omp.c - fib as OpenMP tasks, as BOTS: task fib(n-1), task fib(n-2),
 * taskwait. */
#include "fib.h"

static long fib_par(int n)
{
	long x, y;

	if (n < 2)
		return n;
#pragma omp task shared(x) firstprivate(n)
	x = fib_par(n - 1);
#pragma omp task shared(y) firstprivate(n)
	y = fib_par(n - 2);
#pragma omp taskwait
	return x + y;
}

static void fib_omp(void *p)
{
	struct fib_state *st = (struct fib_state *)p;

#pragma omp parallel
#pragma omp single
	st->result = fib_par(st->n);
}

const struct bench_omp bench_omp_fib = {
	.problem = &fib_problem,
	.omp = fib_omp,
};
