// SPDX-License-Identifier: MIT
// uts_tbb.cpp - UTS on oneTBB: one task_group task per node.
#include <tbb/task_group.h>
#include "uts.h"

static uint64_t uts_node(uint64_t s)
{
	int nc = uts_nchildren(s);
	uint64_t counts[UTS_M];
	uint64_t nodes = 1;
	tbb::task_group g;

	if (!nc)
		return 1;
	for (int i = 0; i < nc; i++)
		g.run([=, &counts] { counts[i] = uts_node(uts_child(s, i)); });
	g.wait();
	for (int i = 0; i < nc; i++)
		nodes += counts[i];
	return nodes;
}

extern "C" void uts_tbb(void *p)
{
	struct uts_state *st = static_cast<struct uts_state *>(p);
	tbb::task_group g;

	for (long i = 0; i < st->b0; i++)
		g.run([=] {
			st->root_counts[i] = uts_node(uts_child(UTS_SEED, (int)i));
		});
	g.wait();
	st->nodes = uts_root_sum(st);
}
