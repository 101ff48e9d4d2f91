// SPDX-License-Identifier: MIT
/*
 * omp-regions.c - N short OpenMP parallel regions (gcc -fopenmp), run on
 * the drop-in by tests/soak/soak.sh. Each region's team adds one per
 * thread; the total must be the sum of the team sizes. Prints RSS and
 * open fds after the first and the last region.
 */
#include <dirent.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long rss_kib(void)
{
	long pages = 0, rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f && fscanf(f, "%ld %ld", &pages, &rss) != 2)
		rss = 0;
	if (f)
		fclose(f);
	return rss * (sysconf(_SC_PAGESIZE) / 1024);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = -3;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

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
