/* SPDX-License-Identifier: MIT */
/*
 * taskloop.c - GOMP_taskloop and GOMP_taskloop_ull: grainsize, num_tasks,
 * nogroup, collapse(2), if(0), long and unsigned long long induction
 * variables, negative steps and odd bounds; every iteration runs once.
 */
#include <omp.h>
#include <string.h>

#include "omp-check.h"

enum { SLOTS = 4096 };
static int count[SLOTS];

/* Checks that exactly the iterations lo, lo + step, ... (< or > hi) ran. */
static void check_counts(const char *name, long lo, long hi, long step, long base)
{
	static int want[SLOTS];

	memset(want, 0, sizeof want);
	if (step > 0)
		for (long i = lo; i < hi; i += step)
			want[i - base]++;
	else
		for (long i = lo; i > hi; i += step)
			want[i - base]++;
	for (int k = 0; k < SLOTS; k++)
		CHECK(name, count[k] == want[k]);
	memset(count, 0, sizeof count);
	OK(name);
}

static void hit(long slot)
{
#pragma omp atomic
	count[slot]++;
}

static void long_loops(void)
{
	long sum = 0;

#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop grainsize(7)
		for (long i = -13; i < 1001; i += 3)
			hit(i + 13);
	}
	check_counts("taskloop.grainsize(7)", -13, 1001, 3, -13);

#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop num_tasks(5)
		for (long i = 999; i > -4; i -= 5)
			hit(i + 4);
	}
	check_counts("taskloop.num_tasks(5)-negative-step", 999, -4, -5, -4);

#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop
		for (int i = 3000; i >= 17; i--)
			hit(i);
	}
	check_counts("taskloop.default-int-down", 3000, 16, -1, 0);

	/* nogroup: the tasks are waited for by the taskwait, not the taskloop */
#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop nogroup grainsize(64)
		for (long i = 0; i < 4000; i++)
			hit(i);
#pragma omp taskwait
	}
	check_counts("taskloop.nogroup", 0, 4000, 1, 0);

	/* empty */
#pragma omp parallel
#pragma omp single
	{
		volatile long vhi = 5;
		long hi = vhi;
#pragma omp taskloop grainsize(1)
		for (long i = 10; i < hi; i++)
			hit(i);
	}
	check_counts("taskloop.empty", 10, 5, 1, 0);

	/* collapse(2) with odd bounds */
#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop collapse(2) num_tasks(7)
		for (int i = 0; i < 37; i++)
			for (int j = 5; j < 100; j += 9)
				hit(i * 100 + j);
	}
	static int want2[SLOTS];

	memset(want2, 0, sizeof want2);
	for (int i = 0; i < 37; i++)
		for (int j = 5; j < 100; j += 9)
			want2[i * 100 + j] = 1;
	for (int k = 0; k < SLOTS; k++)
		CHECK("taskloop.collapse(2)", count[k] == want2[k]);
	memset(count, 0, sizeof count);
	OK("taskloop.collapse(2)");

	/* if(0): still every iteration once; outside any parallel region */
	volatile int zero = 0;
#pragma omp taskloop if (zero) grainsize(10)
	for (long i = 1; i < 300; i += 2)
		hit(i);
	check_counts("taskloop.if(0)-outside-parallel", 1, 300, 2, 0);

	/* a result that needs the iterations' values, through shared atomics */
#pragma omp parallel
#pragma omp single
#pragma omp taskloop grainsize(100) shared(sum)
	for (long i = 1; i <= 100000; i++) {
#pragma omp atomic
		sum += i * (i % 7);
	}
	long want = 0;

	for (long i = 1; i <= 100000; i++)
		want += i * (i % 7);
	CHECK("taskloop.sum", sum == want);
	printf("taskloop.sum checksum %ld\n", sum);
	OK("taskloop.sum");
}

static void ull_loops(void)
{
	const unsigned long long base = 0x8000000000000000ULL + 12345;

	/* unsigned long long bounds above LONG_MAX: GOMP_taskloop_ull */
#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop grainsize(11)
		for (unsigned long long i = base; i < base + 3001; i += 2)
			hit((long)(i - base));
	}
	check_counts("taskloop.ull-grainsize", 0, 3001, 2, 0);

#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop num_tasks(9)
		for (unsigned long long i = base + 2999; i > base + 7; i -= 3)
			hit((long)(i - base));
	}
	check_counts("taskloop.ull-negative-step", 2999, 7, -3, 0);

	/* all the way up to the top of the range */
	const unsigned long long top = ~0ULL - 100;
#pragma omp parallel
#pragma omp single
	{
#pragma omp taskloop grainsize(3) nogroup
		for (unsigned long long i = top; i < ~0ULL; i++)
			hit((long)(i - top));
#pragma omp taskwait
	}
	check_counts("taskloop.ull-top-of-range", 0, 100, 1, 0);
}

int main(void)
{
	long_loops();
	ull_loops();
	return 0;
}
