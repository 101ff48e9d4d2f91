/* SPDX-License-Identifier: MIT */
/*
 * doacross.c - ordered(n) loops with depend(sink:) and depend(source):
 * GOMP_loop_doacross_*_start, GOMP_doacross_post/wait and their _ull forms.
 * Each loop computes a recurrence whose result is wrong if an iteration
 * runs before the one it waits for has posted.
 */
#include <omp.h>
#include <string.h>

#include "omp-check.h"

static void spin(int n)
{
	for (volatile int i = 0; i < n; i++)
		;
}

static unsigned long step1(unsigned long prev, long i)
{
	return (prev * 2654435761UL + (unsigned long)i) % 4294967291UL;
}

#define PRAGMA(x) _Pragma(#x)

/* a[i] = f(a[i - 1], i) over i = 1 .. N - 1 under schedule(__VA_ARGS__).
 * libgomp's doacross wait spins without sleeping, so when threads outnumber
 * CPUs each hand-off between threads can cost a time slice: N is small for
 * the schedules that hand off at every iteration. */
#define ORDERED1(NAME, N, ...)                                                      \
	static void ordered1_##NAME(const char *name)                               \
	{                                                                           \
		static unsigned long a[N], ref[N];                                  \
                                                                                    \
		memset(a, 0, sizeof a);                                             \
		a[0] = ref[0] = 17;                                                 \
		PRAGMA(omp parallel for ordered(1) schedule(__VA_ARGS__))           \
		for (long i = 1; i < N; i++) {                                      \
			spin((int)(i % 13) * 20);                                   \
			PRAGMA(omp ordered depend(sink : i - 1))                    \
			a[i] = step1(a[i - 1], i);                                  \
			PRAGMA(omp ordered depend(source))                          \
		}                                                                   \
		for (long i = 1; i < N; i++)                                        \
			ref[i] = step1(ref[i - 1], i);                              \
		for (long i = 0; i < N; i++)                                        \
			CHECK(name, a[i] == ref[i]);                                \
		printf("%s checksum %lu\n", name, a[N - 1]);                        \
		OK(name);                                                           \
	}

ORDERED1(static, 3000, static)
ORDERED1(static_1, 150, static, 1)
ORDERED1(dynamic_3, 400, dynamic, 3)
ORDERED1(guided, 3000, guided)
ORDERED1(runtime, 400, runtime)

/* Two-dimensional: g[i][j] from g[i-1][j] and g[i][j-1]. */
static void ordered2(void)
{
	enum { R = 40, C = 50 };
	static unsigned g[R][C], ref[R][C];

	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++)
			g[i][j] = ref[i][j] = (i == 0 || j == 0) ? (unsigned)(i * 7 + j * 3 + 1) : 0;
#pragma omp parallel for ordered(2) schedule(static, 1)
	for (int i = 1; i < R; i++)
		for (int j = 1; j < C; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
			g[i][j] = (g[i - 1][j] * 31 + g[i][j - 1] * 17 + (unsigned)(i ^ j)) % 65521;
#pragma omp ordered depend(source)
		}
	for (int i = 1; i < R; i++)
		for (int j = 1; j < C; j++)
			ref[i][j] = (ref[i - 1][j] * 31 + ref[i][j - 1] * 17 + (unsigned)(i ^ j)) % 65521;
	unsigned long long sum = 0;

	for (int i = 0; i < R; i++)
		for (int j = 0; j < C; j++) {
			CHECK("doacross.ordered(2)", g[i][j] == ref[i][j]);
			sum = sum * 131 + g[i][j];
		}
	printf("doacross.ordered(2) checksum %llu\n", sum);
	OK("doacross.ordered(2)");
}

/* ordered(2) with a dynamic schedule, a negative outer step and a
 * dependence two rows back. */
static void ordered2_negative(void)
{
	enum { R = 60, C = 40 };
	static long g[R + 2][C], ref[R + 2][C];

	for (int i = 0; i < R + 2; i++)
		for (int j = 0; j < C; j++)
			g[i][j] = ref[i][j] = (i >= R || j == 0) ? i + 2 * j : 0;
#pragma omp parallel for ordered(2) schedule(dynamic, 2)
	for (int i = R - 1; i >= 0; i--)
		for (int j = 1; j < C; j++) {
#pragma omp ordered depend(sink : i + 1, j) depend(sink : i + 2, j - 1) depend(sink : i, j - 1)
			g[i][j] = (g[i + 1][j] * 3 + g[i + 2][j - 1] + g[i][j - 1] * 5 + i) % 1000003;
#pragma omp ordered depend(source)
		}
	for (int i = R - 1; i >= 0; i--)
		for (int j = 1; j < C; j++)
			ref[i][j] = (ref[i + 1][j] * 3 + ref[i + 2][j - 1] + ref[i][j - 1] * 5 + i) % 1000003;
	for (int i = 0; i < R + 2; i++)
		for (int j = 0; j < C; j++)
			CHECK("doacross.ordered(2)-negative-step", g[i][j] == ref[i][j]);
	OK("doacross.ordered(2)-negative-step");
}

/* unsigned long long iteration space: GOMP_loop_ull_doacross_* and
 * GOMP_doacross_ull_post/wait. */
static void ordered1_ull(void)
{
	enum { N = 600 };
	const unsigned long long base = 0x8000000000000000ULL + 99;
	static unsigned long a[N + 1], ref[N + 1];

	/* Bounds unknown at compile time: gcc cannot prove that the iteration
	 * count fits a long and takes the unsigned long long entry points. */
	volatile unsigned long long vlo = base + 1, vhi = base + N;
	unsigned long long lo = vlo, hi = vhi;

	a[0] = ref[0] = 5;
#pragma omp parallel for ordered(1) schedule(dynamic, 16)
	for (unsigned long long i = lo; i <= hi; i++) {
#pragma omp ordered depend(sink : i - 1)
		a[i - base] = step1(a[i - base - 1], (long)(i - base));
#pragma omp ordered depend(source)
	}
	for (long i = 1; i <= N; i++)
		ref[i] = step1(ref[i - 1], i);
	for (long i = 0; i <= N; i++)
		CHECK("doacross.ull", a[i] == ref[i]);
	OK("doacross.ull");
}

/* Worksharing doacross inside an explicit parallel region (not combined). */
static void ordered1_in_team(void)
{
	enum { N = 2500 };
	static unsigned long a[N], ref[N];

	a[0] = ref[0] = 3;
#pragma omp parallel
	{
#pragma omp for ordered(1) schedule(static, 100)
		for (int i = 1; i < N; i++) {
#pragma omp ordered depend(sink : i - 2)
#pragma omp ordered depend(sink : i - 1)
			a[i] = step1(a[i - 1], i) ^ (i >= 2 ? a[i - 2] & 0xff : 0);
#pragma omp ordered depend(source)
		}
	}
	for (int i = 1; i < N; i++)
		ref[i] = step1(ref[i - 1], i) ^ (i >= 2 ? ref[i - 2] & 0xff : 0);
	for (int i = 0; i < N; i++)
		CHECK("doacross.in-team", a[i] == ref[i]);
	OK("doacross.in-team");
}

int main(void)
{
	omp_set_dynamic(0);
	ordered1_static("doacross.ordered(1)-static");
	ordered1_static_1("doacross.ordered(1)-static,1");
	ordered1_dynamic_3("doacross.ordered(1)-dynamic,3");
	ordered1_guided("doacross.ordered(1)-guided");
	omp_set_schedule(omp_sched_dynamic, 5);
	ordered1_runtime("doacross.ordered(1)-runtime");
	ordered2();
	ordered2_negative();
	ordered1_ull();
	ordered1_in_team();
	return 0;
}
