// SPDX-License-Identifier: MIT
// nqueens_tbb.cpp - nqueens on oneTBB: one task_group task per column; the
// task copies the board (BOTS does it with alloca inside the task).
#include <cstring>
#include <tbb/task_group.h>
#include "nqueens.h"

// Rows 0..j-1 of @a are placed and ok.
static long nq_node(int n, int j, const char *a)
{
	long sols[NQ_MAX];
	long sum = 0;
	tbb::task_group g;

	for (int i = 0; i < n; i++)
		g.run([=, &sols] {
			char b[NQ_MAX];

			std::memcpy(b, a, (size_t)j);
			b[j] = (char)i;
			if (!nqueens_ok(j + 1, b))
				sols[i] = 0;
			else if (j + 1 == n)
				sols[i] = 1;
			else
				sols[i] = nq_node(n, j + 1, b);
		});
	g.wait();
	for (int i = 0; i < n; i++)
		sum += sols[i];
	return sum;
}

extern "C" void nqueens_tbb(void *p)
{
	struct nqueens_state *st = static_cast<struct nqueens_state *>(p);
	char empty[NQ_MAX] = { 0 };

	st->solutions = nq_node(st->n, 0, empty);
}
