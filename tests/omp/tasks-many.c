/* SPDX-License-Identifier: MIT */
/*
 * tasks-many.c - many tasks: 500000 leaf tasks from one producer, a binary
 * task tree of 2^18 leaves, a task chain thousands of levels deep with a
 * taskwait at each level, a spine 2000 deep with 10 leaves a level, and
 * fib(25) with both children spawned as tasks.
 */
#include <omp.h>

#include "omp-check.h"

static unsigned long long flat_sum;

static void flat(void)
{
	enum { LEAVES = 500000 };
	unsigned long long want = 0;

	flat_sum = 0;
#pragma omp parallel
#pragma omp single
	for (int i = 0; i < LEAVES; i++) {
#pragma omp task firstprivate(i)
		{
			unsigned long long v = omp_check_mix(i) & 0xffffff;
#pragma omp atomic
			flat_sum += v;
		}
	}
	for (int i = 0; i < LEAVES; i++)
		want += omp_check_mix(i) & 0xffffff;
	CHECK("tasks-many.flat-500000", flat_sum == want);
	printf("tasks-many.flat-500000 checksum %llu\n", flat_sum);
	OK("tasks-many.flat-500000");
}

static unsigned long long tree(unsigned lo, unsigned hi)
{
	unsigned long long a, b;

	if (hi - lo == 1)
		return omp_check_mix(lo) & 0xfff;
	unsigned mid = lo + (hi - lo) / 2;
#pragma omp task shared(a)
	a = tree(lo, mid);
#pragma omp task shared(b)
	b = tree(mid, hi);
#pragma omp taskwait
	return a + b;
}

static void binary_tree(void)
{
	enum { LEAVES = 1 << 18 };
	unsigned long long got = 0, want = 0;

#pragma omp parallel
#pragma omp single
	got = tree(0, LEAVES);
	for (unsigned i = 0; i < LEAVES; i++)
		want += omp_check_mix(i) & 0xfff;
	CHECK("tasks-many.tree-2^18", got == want);
	printf("tasks-many.tree-2^18 checksum %llu\n", got);
	OK("tasks-many.tree-2^18");
}

/* Each level spawns the next level and a small sibling, then waits. */
static long deep(int depth)
{
	long below = 0, side = 0;

	if (depth == 0)
		return 1;
#pragma omp task shared(below)
	below = deep(depth - 1);
#pragma omp task shared(side) firstprivate(depth)
	side = depth % 7;
#pragma omp taskwait
	return below + side + 1;
}

static void deep_chain(void)
{
	enum { DEPTH = 3000 };
	long got = 0, want = 1;

#pragma omp parallel
#pragma omp single
	got = deep(DEPTH);
	for (int d = 1; d <= DEPTH; d++)
		want += d % 7 + 1;
	CHECK("tasks-many.deep-3000", got == want);
	printf("tasks-many.deep-3000 checksum %ld\n", got);
	OK("tasks-many.deep-3000");
}

/*
 * A spine 2000 levels deep, each level with 10 leaf tasks and the next
 * level as a task, then a taskwait: the drop-in runs most of it past its
 * depth bound, where an idle thread that asks for work is given frames
 * from deep in the spine (libxsched/gomp/task.c,
 * xg_deep_defer()).
 */
static unsigned long long spine(int depth)
{
	enum { SPINE = 2000, LEAVES = 10 };
	unsigned long long leaves[LEAVES], next = 0, sum = omp_check_mix(depth) & 0xff;

	if (depth == SPINE)
		return sum;
	for (int i = 0; i < LEAVES; i++) {
#pragma omp task shared(leaves) firstprivate(i, depth)
		leaves[i] = omp_check_mix(depth * LEAVES + i) & 0xfff;
	}
#pragma omp task shared(next) firstprivate(depth)
	next = spine(depth + 1);
#pragma omp taskwait
	for (int i = 0; i < LEAVES; i++)
		sum += leaves[i];
	return sum + next;
}

static void deep_spine(void)
{
	unsigned long long got = 0, want = 0;

#pragma omp parallel
#pragma omp single
	got = spine(0);
	for (int d = 0; d <= 2000; d++) {
		want += omp_check_mix(d) & 0xff;
		for (int i = 0; d < 2000 && i < 10; i++)
			want += omp_check_mix(d * 10 + i) & 0xfff;
	}
	CHECK("tasks-many.spine-2000", got == want);
	printf("tasks-many.spine-2000 checksum %llu\n", got);
	OK("tasks-many.spine-2000");
}

static long fib(int n)
{
	long x, y;

	if (n < 2)
		return n;
#pragma omp task shared(x)
	x = fib(n - 1);
#pragma omp task shared(y)
	y = fib(n - 2);
#pragma omp taskwait
	return x + y;
}

static void bots_fib(void)
{
	long got = 0;

#pragma omp parallel
#pragma omp single
	got = fib(25);
	CHECK("tasks-many.fib(25)", got == 75025);
	printf("tasks-many.fib(25) = %ld\n", got);
	OK("tasks-many.fib(25)");
}

int main(void)
{
	flat();
	binary_tree();
	deep_chain();
	deep_spine();
	bots_fib();
	return 0;
}
