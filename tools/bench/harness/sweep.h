/* SPDX-License-Identifier: MIT */
/*
 * sweep.h - "spin", the synthetic program of --sweep (sweep.c): tasks of a
 * chosen size in TSC ticks, spawned in a pattern that static round-robin
 * balances badly.
 *
 * A run is `tasks` tasks, spawned by the root in batches of SPIN_BATCH with
 * a wait after each. Task i of a batch spins for k ticks, or for
 * SPIN_HEAVY x k when i is a multiple of `period` (the thread count P).
 * Round-robin sends task i of a batch to queue i mod P (xsched restarts
 * its round-robin at every job and SPIN_BATCH is a multiple of P), so
 * under SLB every heavy task lands on the same worker: it has
 * SPIN_HEAVY / (SPIN_HEAVY + P - 1) x P times its share of the work, and
 * a perfect balancer would be that many times faster (1.78 at P = 2).
 * The number of tasks is chosen so that a run is about `work` ticks of
 * spinning whatever k is.
 *
 * Each task writes its weight (1 or SPIN_HEAVY) into a slot of the root's
 * frame; the root adds them up after each batch. The checksum is the sum,
 * which only a run that ran every task once can get right.
 */
#ifndef XSCHED_BENCH_SWEEP_H
#define XSCHED_BENCH_SWEEP_H

#include <stdint.h>
#include <time.h>
#include "bench.h"

#define SPIN_BATCH 64
#define SPIN_HEAVY 8

struct spin_state {
	uint64_t k;		/* ticks of a light task */
	int period;		/* every period-th task is heavy */
	long tasks;		/* a multiple of SPIN_BATCH */
	uint64_t sum;		/* of the weights of the tasks run */
};

/* The time-stamp counter, or nanoseconds where there is none. */
static inline uint64_t spin_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

static inline void spin_for(uint64_t ticks)
{
	uint64_t t0 = spin_ticks();

	while (spin_ticks() - t0 < ticks) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

static inline unsigned int spin_weight(const struct spin_state *st, int i)
{
	return i % st->period ? 1 : SPIN_HEAVY;
}

/* What a correct run adds up to. */
static inline uint64_t spin_expected(const struct spin_state *st)
{
	uint64_t batch = 0;

	for (int i = 0; i < SPIN_BATCH; i++)
		batch += spin_weight(st, i);
	return batch * (uint64_t)(st->tasks / SPIN_BATCH);
}

#endif /* XSCHED_BENCH_SWEEP_H */
