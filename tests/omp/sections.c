/* SPDX-License-Identifier: MIT */
/*
 * sections.c - sections and parallel sections: each section runs exactly
 * once, more sections than threads, lastprivate, nowait, reductions.
 */
#include <omp.h>

#include "omp-check.h"

static int ran[16];

static void mark(int s)
{
#pragma omp atomic
	ran[s]++;
}

static void check_ran(const char *name, int n)
{
	for (int s = 0; s < 16; s++)
		CHECK(name, ran[s] == (s < n));
	for (int s = 0; s < 16; s++)
		ran[s] = 0;
	OK(name);
}

static void in_team(void)
{
	int last = -1, sum = 0;

#pragma omp parallel
	{
#pragma omp sections lastprivate(last) reduction(+ : sum)
		{
#pragma omp section
			{
				mark(0);
				last = 100;
				sum += 1;
			}
#pragma omp section
			{
				mark(1);
				last = 200;
				sum += 2;
			}
#pragma omp section
			{
				mark(2);
				last = 300;	/* the lexically last section */
				sum += 4;
			}
		}
	}
	CHECK("sections.lastprivate", last == 300);
	CHECK("sections.reduction", sum == 7);
	check_ran("sections.three", 3);

	/* Two sections constructs back to back, the first nowait. */
	int a = 0, b = 0;
#pragma omp parallel
	{
#pragma omp sections nowait
		{
#pragma omp section
			mark(0);
#pragma omp section
			mark(1);
		}
#pragma omp sections
		{
#pragma omp section
			mark(2);
#pragma omp section
			a = 1;
#pragma omp section
			b = 1;
		}
	}
	CHECK("sections.nowait", a == 1 && b == 1);
	check_ran("sections.nowait", 3);
}

static void parallel_sections(void)
{
	int last = -1;

	/* Eleven sections: more than threads, whatever the team. */
#pragma omp parallel sections lastprivate(last)
	{
#pragma omp section
		mark(0);
#pragma omp section
		mark(1);
#pragma omp section
		mark(2);
#pragma omp section
		mark(3);
#pragma omp section
		mark(4);
#pragma omp section
		mark(5);
#pragma omp section
		mark(6);
#pragma omp section
		mark(7);
#pragma omp section
		mark(8);
#pragma omp section
		mark(9);
#pragma omp section
		{
			mark(10);
			last = 10;
		}
	}
	CHECK("parallel-sections.lastprivate", last == 10);
	check_ran("parallel-sections.eleven", 11);

#pragma omp parallel sections num_threads(2)
	{
#pragma omp section
		mark(0);
#pragma omp section
		mark(1);
#pragma omp section
		mark(2);
#pragma omp section
		mark(3);
#pragma omp section
		mark(4);
	}
	check_ran("parallel-sections.num_threads(2)", 5);

	/* Many rounds, each section doing a piece of a sum. */
	long total = 0;

	for (int r = 0; r < 500; r++) {
		long p0 = 0, p1 = 0, p2 = 0;

#pragma omp parallel sections
		{
#pragma omp section
			p0 = r * 3L;
#pragma omp section
			p1 = r * 5L;
#pragma omp section
			p2 = r * 7L;
		}
		CHECK("parallel-sections.rounds", p0 + p1 + p2 == r * 15L);
		total += p0 + p1 + p2;
	}
	printf("parallel-sections.rounds checksum %ld\n", total);
	OK("parallel-sections.rounds");
}

int main(void)
{
	omp_set_dynamic(0);
	in_team();
	parallel_sections();
	return 0;
}
