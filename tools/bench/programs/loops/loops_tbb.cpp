// SPDX-License-Identifier: MIT
// loops_tbb.cpp - loops on oneTBB: a parallel_for per loop, one block per
// thread (static_partitioner), which returns when the loop is done.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include "loops.h"

extern "C" void loops_tbb(void *p)
{
	struct loops_state *st = static_cast<struct loops_state *>(p);

	for (long k = 0; k < st->n; k++)
		tbb::parallel_for(tbb::blocked_range<long>(0, LOOPS_WIDTH),
				  [st, k](const tbb::blocked_range<long> &r) {
					  loops_body(st, k, r.begin(), r.end());
				  },
				  tbb::static_partitioner());
}
