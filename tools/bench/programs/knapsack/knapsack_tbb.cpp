// SPDX-License-Identifier: MIT
// knapsack_tbb.cpp - knapsack on oneTBB: a task_group task per branch,
// take before leave.
#include <tbb/task_group.h>
#include "knapsack.h"

static uint64_t ks_par(struct knapsack_state *st, int i, long w, long v)
{
	uint64_t take = 0, leave = 0;
	tbb::task_group g;

	if (ks_visit(st, i, w, v) == KS_DONE)
		return 1;
	if (ks_fits(st, i, w))
		g.run([&] { take = ks_par(st, i + 1, w + st->wt[i],
					   v + st->val[i]); });
	g.run([&] { leave = ks_par(st, i + 1, w, v); });
	g.wait();
	return 1 + take + leave;
}

extern "C" void knapsack_tbb(void *p)
{
	struct knapsack_state *st = static_cast<struct knapsack_state *>(p);

	st->nodes = ks_par(st, 0, 0, 0);
}
