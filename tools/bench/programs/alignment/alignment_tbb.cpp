// SPDX-License-Identifier: MIT
// alignment_tbb.cpp - alignment on oneTBB: a task_group task per pair.
#include <tbb/task_group.h>
#include "alignment.h"

extern "C" void alignment_tbb(void *p)
{
	struct alignment_state *st = static_cast<struct alignment_state *>(p);
	tbb::task_group g;

	for (int i = 0; i < st->n; i++)
		for (int j = i + 1; j < st->n; j++)
			g.run([=] { st->score[i * st->n + j] = aln_score(st, i, j); });
	g.wait();
}
