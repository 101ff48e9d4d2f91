// SPDX-License-Identifier: MIT
// fib_tbb.cpp - fib on oneTBB, as BOTS: run fib(n-1) and fib(n-2) in a
// task_group, wait.
#include <tbb/task_group.h>
#include "fib.h"

static long fib_par(int n)
{
	if (n < 2)
		return n;
	long x, y;
	tbb::task_group g;

	g.run([&] { x = fib_par(n - 1); });
	g.run([&] { y = fib_par(n - 2); });
	g.wait();
	return x + y;
}

extern "C" void fib_tbb(void *p)
{
	struct fib_state *st = static_cast<struct fib_state *>(p);

	st->result = fib_par(st->n);
}
