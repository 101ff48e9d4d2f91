/* SPDX-License-Identifier: MIT */
/*
 * micro.h - the micro-benchmarks of --micro: what one operation is. Both
 * programs build their tables from this list: xsched-bench-omp times
 * micro_<name>() (micro_omp.c) under whichever OpenMP runtime serves it,
 * xsched-bench runs it under each and reports ns per operation (micro.c).
 *
 * The epcc_ rows use the EPCC syncbench method (Bull, Reid, McDonnell): a
 * timed loop of the construct with a fixed delay (MICRO_DELAY_SPINS) as
 * its body or between two of them, minus a reference loop of the same
 * delays, per construct. That is what a program with work between its
 * constructs pays; the older rows time back-to-back constructs, where a
 * waiter never stops spinning (docs/perf/sync.md).
 */
#ifndef XSCHED_BENCH_MICRO_H
#define XSCHED_BENCH_MICRO_H

#include "taskbench.h"

#define MICRO_OPS \
	MICRO(parallel, "an empty parallel region: fork the team, join it") \
	MICRO(barrier, "back-to-back barriers, no work between, timed whole (docs/perf/sync.md)") \
	MICRO(taskwait, "one empty task spawned by a single thread, then taskwait") \
	MICRO(undeferred, "one empty if(0) task, run at once by its creator") \
	MICRO(included, "one empty task created inside a final task (included)") \
	MICRO(epcc_parallel, "EPCC: a parallel region around the delay, minus the delay") \
	MICRO(epcc_barrier, "EPCC: the delay then a barrier, in one region, minus the delay") \
	MICRO(epcc_for, "EPCC: a static for of one delay per thread, minus the delay") \
	MICRO(epcc_single, "EPCC: a single around the delay, minus the delay") \
	MICRO(epcc_critical, "EPCC: a critical around the delay, all threads, minus the delays") \
	MICRO(epcc_lock, "an uncontended omp_set_lock/omp_unset_lock pair (own lock) after the delay") \
	MICRO(epcc_lock_hint, "the same on a lock from omp_init_lock_with_hint(contended)") \
	MICRO(epcc_nest_lock, "the same with omp_set_nest_lock/omp_unset_nest_lock") \
	TASKBENCH_OPS

/* The delay: this many iterations of an empty asm (~0.1 us, EPCC's default
 * delay, at 3 GHz). */
#define MICRO_DELAY_SPINS 300

/* Seconds that @iters operations took (xsched-bench-omp, micro_omp.c). */
#define MICRO(name, doc) double micro_##name(long iters);
MICRO_OPS
#undef MICRO

#endif /* XSCHED_BENCH_MICRO_H */
