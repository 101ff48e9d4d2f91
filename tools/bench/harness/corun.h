/* SPDX-License-Identifier: MIT */
/*
 * corun.h - the child side of xsched-bench --corun, shared by xsched-bench
 * (xsched and oneTBB copies) and xsched-bench-omp (OpenMP copies).
 *
 * A copy sets its program up, starts its runtime, prints one line
 *
 *   {"ready":1[,"lib":"...",...]}
 *
 * and waits for its standard input to reach end of file: the parent
 * closes the one pipe that every copy reads once all of them are ready,
 * so they all start at once. Then it runs the program once and prints
 *
 *   {"bench":"fib","threads":2,"n":27,"start_s":S,"end_s":E,
 *    "checksum":"...."[,"lib":"...",...]}
 *
 * S and E are CLOCK_MONOTONIC, which all processes share: the parent
 * takes the makespan of a group as max E - min S and checks every
 * checksum against its own serial run.
 */
#ifndef XSCHED_BENCH_CORUN_H
#define XSCHED_BENCH_CORUN_H

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

/* Block until standard input is closed; 0, or -errno. */
static inline int corun_wait_go(void)
{
	char c[64];

	for (;;) {
		ssize_t r = read(STDIN_FILENO, c, sizeof(c));

		if (r == 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

/* The result line up to the checksum; the caller closes the object. */
static inline void corun_print_result(const char *bench, long threads, long n,
				      double start, double end, unsigned long long sum)
{
	printf("{\"bench\":\"%s\",\"threads\":%ld,\"n\":%ld,\"start_s\":%.9f,"
	       "\"end_s\":%.9f,\"checksum\":\"%016llx\"", bench, threads, n,
	       start, end, sum);
}

#endif /* XSCHED_BENCH_CORUN_H */
