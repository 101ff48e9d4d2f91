// SPDX-License-Identifier: MIT
// fib_lace_tbb.cpp - fib on oneTBB in Lace's shape (fib_lace.h): run
// fib(n-1) in a task_group, call fib(n-2), wait.
#include <tbb/task_group.h>
#include "fib_lace.h"

static long fib_lace_par(int n)
{
	if (n < 2)
		return n;
	long x;
	tbb::task_group g;

	g.run([&] { x = fib_lace_par(n - 1); });
	long y = fib_lace_par(n - 2);
	g.wait();
	return x + y;
}

extern "C" void fib_lace_tbb(void *p)
{
	struct fib_state *st = static_cast<struct fib_state *>(p);

	st->result = fib_lace_par(st->n);
}
