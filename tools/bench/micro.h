/* SPDX-License-Identifier: MIT */
/*
 * micro.h - the micro-benchmarks of --micro: what one operation is. Both
 * programs build their tables from this list: xsched-bench-omp times
 * micro_<name>() (micro_omp.c) under whichever OpenMP runtime serves it,
 * xsched-bench runs it under each and reports ns per operation (micro.c).
 */
#ifndef XSCHED_BENCH_MICRO_H
#define XSCHED_BENCH_MICRO_H

#include "taskbench.h"

#define MICRO_OPS \
	MICRO(parallel, "an empty parallel region: fork the team, join it") \
	MICRO(barrier, "a barrier of the whole team, inside one region") \
	MICRO(taskwait, "one empty task spawned by a single thread, then taskwait") \
	MICRO(undeferred, "one empty if(0) task, run at once by its creator") \
	MICRO(included, "one empty task created inside a final task (included)") \
	TASKBENCH_OPS

/* Seconds that @iters operations took (xsched-bench-omp, micro_omp.c). */
#define MICRO(name, doc) double micro_##name(long iters);
MICRO_OPS
#undef MICRO

#endif /* XSCHED_BENCH_MICRO_H */
