/* SPDX-License-Identifier: MIT */
/* loops.c - loops on xsched: one xs_parallel_for() per loop, static
 * schedule (a block per worker), from the calling thread. */
#include <xsched.h>
#include "loops.h"

struct loops_arg {
	struct loops_state *st;
	long k;
};

static void loops_chunk(void *p, int64_t first, uint64_t count)
{
	const struct loops_arg *a = (const struct loops_arg *)p;

	loops_body(a->st, a->k, (long)first, (long)first + (long)count);
}

static int loops_xsched(struct xs_runtime *rt, void *p)
{
	static const struct xs_loop_sched sched = { .kind = XS_LOOP_STATIC };
	struct loops_state *st = (struct loops_state *)p;

	for (long k = 0; k < st->n; k++) {
		struct loops_arg a = { st, k };
		int rc = xs_parallel_for(rt, 0, LOOPS_WIDTH, 1, &sched, loops_chunk, &a);

		if (rc)
			return rc;
	}
	return 0;
}

const struct bench bench_loops = {
	.problem = &loops_problem,
	.xsched_rt = loops_xsched,
	.tbb = loops_tbb,
};
