/* SPDX-License-Identifier: MIT */
/*
 * clock.h - the runtime's one clock: CLOCK_MONOTONIC in nanoseconds.
 *
 * Idle clocks, park stamps, rescue thresholds and the daemon's staleness
 * bounds compare times taken by different threads, and the daemon's BPF
 * programs stamp with the same clock (bpf_ktime_get_ns()), so every
 * runtime time is this one.
 *
 * xs_now_coarse_ns() is the same clock as of the last timer tick
 * (CLOCK_MONOTONIC_COARSE): a few nanoseconds instead of a counter read,
 * never ahead of xs_now_ns() and behind it by less than a tick. It is for
 * stamps taken so often that reading the counter would cost more than
 * what they stamp (a parallel loop's job bookkeeping: two fine reads are
 * a quarter of a 256-iteration loop), and whose readers take a stretch in
 * whole ticks: a stretch between two coarse stamps is 0 or a few ticks,
 * right on average over many stretches.
 *
 * xs_tsc() is the cheap counter for intervals one thread measures on its
 * own (profile events, XSCHED_DLB=auto's task samples): the time-stamp
 * counter where there is one, else the same nanoseconds.
 */
#ifndef XSCHED_CLOCK_H
#define XSCHED_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t xs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t xs_now_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t xs_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	return xs_now_ns();
#endif
}

#endif /* XSCHED_CLOCK_H */
