/* SPDX-License-Identifier: MIT */
/* cutoff.c - the cut-off versions in xsched-bench's table: OpenMP only
 * (their xsched and oneTBB cells are n/a; cutoff.h). */
#include "cutoff.h"

#define CUTOFF_BENCH(base, kind, docstr, FIELDS, tasksfn) \
	const struct bench bench_##base##_##kind = { \
		.problem = &base##_##kind##_problem, \
	};
CUTOFF_PROBLEMS(CUTOFF_BENCH)
