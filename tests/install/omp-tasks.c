// SPDX-License-Identifier: MIT
/*
 * omp-tasks.c - an unmodified OpenMP program (gcc -fopenmp), run through
 * xsched-run by tests/system/install-destdir.sh and the system test. Prints the
 * team size and a checksum of 1000 tasks.
 */
#include <omp.h>
#include <stdio.h>

int main(void)
{
	long sum = 0;
	int team = 0;

#pragma omp parallel
	{
#pragma omp single
		{
			team = omp_get_num_threads();
			for (int i = 0; i < 1000; i++) {
#pragma omp task shared(sum)
				{
#pragma omp atomic
					sum += i;
				}
			}
		}
	}
	printf("team %d sum %ld\n", team, sum);
	return 0;
}
