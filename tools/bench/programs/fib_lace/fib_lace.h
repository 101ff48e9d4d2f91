/* SPDX-License-Identifier: MIT */
/*
 * fib_lace.h - fib(n) in the shape of Lace's own fib benchmark: spawn
 * fib(n-1), *call* fib(n-2), join - one spawn per internal node, where
 * fib (BOTS, fib.h) spawns both calls. Same input, serial version, result
 * and checks as fib; only the task tree differs. It exists to compare
 * xsched's per-spawn cost with the figure Lace publishes for this shape
 * in its papers; the fib row stays the BOTS program.
 */
#ifndef XSCHED_BENCH_FIB_LACE_H
#define XSCHED_BENCH_FIB_LACE_H

#include "../fib/fib.h"

BENCH_C_LINKAGE void fib_lace_tbb(void *st);

/* One spawn per call with n >= 2 (fib.h's fib_spawn_count()), i.e.
 * fib(n+1) - 1: 14,930,351 at n = 35. */
static inline uint64_t fib_lace_tasks(const void *p)
{
	return fib_spawn_count(((const struct fib_state *)p)->n, 1);
}

#ifndef __cplusplus
static const struct bench_problem fib_lace_problem = {
	.name = "fib-lace",
	.doc = "fib(n) as Lace's benchmark: spawn fib(n-1), call fib(n-2), join",
	FIB_PROBLEM_FIELDS
	.tasks = fib_lace_tasks,
};
#endif

#endif /* XSCHED_BENCH_FIB_LACE_H */
