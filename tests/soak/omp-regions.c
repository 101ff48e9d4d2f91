// SPDX-License-Identifier: MIT
/*
 * omp-regions.c - N short OpenMP parallel regions (gcc -fopenmp), run on
 * the drop-in by tests/soak/soak.sh. Each region's team adds one per
 * thread; the total must be the sum of the team sizes. Prints RSS and
 * open fds after the first and the last region.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "proc-usage.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	long sum = 0, want = 0, rss0 = 0;
	int fds0 = 0;

	for (long i = 0; i < n; i++) {
		long s = 0;
		int team = 0;

#pragma omp parallel reduction(+ : s)
		{
			s += 1;
#pragma omp single
			team = omp_get_num_threads();
		}
		sum += s;
		want += team;
		if (i == 0) {
			rss0 = rss_kib();
			fds0 = open_fds();
		}
	}
	printf("omp-regions: regions %ld lost %ld rss-kib %ld->%ld fds %d->%d\n", n, want - sum,
	       rss0, rss_kib(), fds0, open_fds());
	return sum != want;
}
