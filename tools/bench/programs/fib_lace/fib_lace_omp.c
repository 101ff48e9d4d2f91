/* SPDX-License-Identifier: MIT */
/* fib_lace_omp.c - fib as OpenMP tasks in Lace's shape (fib_lace.h): task
 * fib(n-1), call fib(n-2), taskwait. */
#include "fib_lace.h"

static long fib_lace_par(int n)
{
	long x, y;

	if (n < 2)
		return n;
#pragma omp task shared(x) firstprivate(n)
	x = fib_lace_par(n - 1);
	y = fib_lace_par(n - 2);
#pragma omp taskwait
	return x + y;
}

static void fib_lace_omp(void *p)
{
	struct fib_state *st = (struct fib_state *)p;

#pragma omp parallel
#pragma omp single
	st->result = fib_lace_par(st->n);
}

const struct bench_omp bench_omp_fib_lace = {
	.problem = &fib_lace_problem,
	.omp = fib_lace_omp,
};
