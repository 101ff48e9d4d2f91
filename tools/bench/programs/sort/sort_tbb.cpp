// SPDX-License-Identifier: MIT
// sort_tbb.cpp - multisort on oneTBB: task_group tasks for sorts and merges.
#include <tbb/task_group.h>
#include "sort.h"

static void merge_par(struct sort_merge_args m)
{
	struct sort_merge_args h[2];
	tbb::task_group g;

	if (sort_merge_split(m, h))
		return;
	g.run([=] { merge_par(h[0]); });
	g.run([=] { merge_par(h[1]); });
	g.wait();
}

static void cilksort_par(sort_elm *low, sort_elm *tmp, long size)
{
	struct sort_merge_args m[3];
	long q = size / 4;
	tbb::task_group g;

	if (size < SORT_QUICK_CUTOFF) {
		sort_quick(low, low + size - 1);
		return;
	}
	for (int i = 0; i < 4; i++)
		g.run([=] {
			cilksort_par(low + i * q, tmp + i * q,
				     i < 3 ? q : size - 3 * q);
		});
	g.wait();
	sort_level_merges(low, tmp, size, m);
	g.run([=] { merge_par(m[0]); });
	g.run([=] { merge_par(m[1]); });
	g.wait();
	merge_par(m[2]);
}

extern "C" void sort_tbb(void *p)
{
	struct sort_state *st = static_cast<struct sort_state *>(p);

	cilksort_par(st->a, st->tmp, st->n);
}
