/* SPDX-License-Identifier: MIT */
/*
 * tasks.c - GOMP_task and its clauses: large and over-aligned firstprivate
 * arguments, a copy function (VLA firstprivate), if(0), final and included
 * descendants, untied, mergeable, priority, taskyield, taskwait and
 * taskgroup (which waits for grandchildren too).
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "omp-check.h"

struct big {
	long v[32];	/* 256 bytes, far above any inline argument buffer */
};

struct aligned64 {
	char c;
	long v;
} __attribute__((aligned(64)));

static long big_sum(const struct big *b)
{
	long s = 0;

	for (int i = 0; i < 32; i++)
		s += b->v[i] * (i + 1);
	return s;
}

static void arguments(void)
{
	enum { TASKS = 200 };
	static long sums[TASKS];
	int misaligned = 0, wrong = 0;

#pragma omp parallel
#pragma omp single
	{
		struct big b;

		for (int t = 0; t < TASKS; t++) {
			for (int i = 0; i < 32; i++)
				b.v[i] = t * 100 + i;
#pragma omp task firstprivate(b, t)
			sums[t] = big_sum(&b);
			memset(&b, 0xff, sizeof b);	/* the task has its own copy */
		}

		for (int t = 0; t < TASKS; t++) {
			struct aligned64 a = { (char)t, 3L * t };

#pragma omp task firstprivate(a, t)
			{
				if ((uintptr_t)&a % 64 != 0) {
#pragma omp atomic
					misaligned++;
				}
				if (a.c != (char)t || a.v != 3L * t) {
#pragma omp atomic
					wrong++;
				}
			}
			a.v = -1;
		}

		/* A VLA firstprivate makes gcc emit a copy function (cpyfn). */
		for (int t = 0; t < TASKS; t++) {
			int n = 10 + t % 50;
			int vla[n];

			for (int i = 0; i < n; i++)
				vla[i] = t + i;
#pragma omp task firstprivate(vla, n, t)
			{
				for (int i = 0; i < n; i++)
					if (vla[i] != t + i) {
#pragma omp atomic
						wrong++;
					}
			}
			for (int i = 0; i < n; i++)
				vla[i] = -1;
		}
#pragma omp taskwait
	}
	for (int t = 0; t < TASKS; t++) {
		struct big b;

		for (int i = 0; i < 32; i++)
			b.v[i] = t * 100 + i;
		CHECK("tasks.firstprivate-256-bytes", sums[t] == big_sum(&b));
	}
	OK("tasks.firstprivate-256-bytes");
	CHECK("tasks.firstprivate-aligned64", misaligned == 0);
	OK("tasks.firstprivate-aligned64");
	CHECK("tasks.firstprivate-vla-cpyfn", wrong == 0);
	OK("tasks.firstprivate-vla-cpyfn");
}

static void if0_and_final(void)
{
	volatile int zero = 0;
	int done = 0, bad = 0;

#pragma omp parallel
#pragma omp single
	{
		for (int i = 0; i < 100; i++) {
			/* Undeferred: complete before the construct returns. */
#pragma omp task if (zero) shared(done)
			done++;
			if (done != i + 1)
				bad++;
		}

		int in_final = -1, child_final = -1, grandchild_final = -1;
		int order = 0, child_at = -1, grandchild_at = -1;

#pragma omp task final(1) shared(in_final, child_final, grandchild_final, order, child_at, grandchild_at)
		{
			in_final = omp_in_final();
			/* Descendants of a final task are included: they run at once,
			 * in order, on the encountering thread. */
#pragma omp task shared(child_final, grandchild_final, order, child_at, grandchild_at)
			{
				child_final = omp_in_final();
#pragma omp task shared(grandchild_final, order, grandchild_at)
				{
					grandchild_final = omp_in_final();
					grandchild_at = order++;
				}
				child_at = order++;
			}
			if (child_at != 1 || grandchild_at != 0)
				bad += 1000;
		}
#pragma omp taskwait
		if (in_final != 1 || child_final != 1 || grandchild_final != 1)
			bad += 100;
		if (omp_in_final())
			bad += 10000;

		int not_final = -1;
#pragma omp task final(zero) shared(not_final)
		not_final = omp_in_final();
#pragma omp taskwait
		if (not_final != 0)
			bad += 100000;
	}
	CHECK("tasks.if(0)-undeferred", done == 100 && bad % 100 == 0);
	OK("tasks.if(0)");
	CHECK("tasks.final", bad == 0);
	OK("tasks.final");
}

/* An LCG in unsigned arithmetic, where wrapping is defined (UBSan checks). */
static long fold(long seed, int rounds)
{
	unsigned long s = (unsigned long)seed;

	for (int i = 0; i < rounds; i++)
		s = s * 6364136223846793005UL + 1442695040888963407UL;
	return (long)s;
}

static void clauses(void)
{
	enum { TASKS = 500 };
	static long out[TASKS];
	int max_prio = omp_get_max_task_priority();

	CHECK("tasks.max-task-priority", max_prio >= 0);
	memset(out, 0, sizeof out);
#pragma omp parallel
#pragma omp single
	{
		for (int t = 0; t < TASKS; t++) {
			switch (t % 4) {
			case 0:
#pragma omp task untied firstprivate(t)
				{
					long v = fold(t, 50);
#pragma omp taskyield
					out[t] = fold(v, 50);
				}
				break;
			case 1:
#pragma omp task mergeable firstprivate(t)
				out[t] = fold(fold(t, 50), 50);
				break;
			case 2:
#pragma omp task priority(t % 8) firstprivate(t)
				out[t] = fold(fold(t, 50), 50);
				break;
			default:
#pragma omp task untied mergeable priority(1) firstprivate(t)
				{
#pragma omp taskyield
					out[t] = fold(fold(t, 50), 50);
				}
			}
#pragma omp taskyield
		}
	}
	long sum = 0;

	for (int t = 0; t < TASKS; t++) {
		CHECK("tasks.untied-mergeable-priority", out[t] == fold(t, 100));
		sum += out[t] & 0xffff;
	}
	printf("tasks.clauses checksum %ld\n", sum);
	OK("tasks.untied-mergeable-priority-taskyield");
}

static int leaves;

static void grandchildren(int depth)
{
	if (depth == 0) {
#pragma omp atomic
		leaves++;
		return;
	}
	for (int i = 0; i < 3; i++) {
#pragma omp task
		grandchildren(depth - 1);	/* no taskwait: the taskgroup waits */
	}
}

static void taskgroup(void)
{
	int bad = 0;

	leaves = 0;
#pragma omp parallel
#pragma omp single
	{
		for (int r = 0; r < 20; r++) {
			int before;
#pragma omp atomic read
			before = leaves;
#pragma omp taskgroup
			{
#pragma omp task
				grandchildren(5);
			}
			int after;
#pragma omp atomic read
			after = leaves;
			if (after - before != 243)
				bad++;
		}

		/* taskwait waits for children only, but the children here wait
		 * for their own, so the count is complete as well. */
		int sum = 0;
		for (int i = 1; i <= 100; i++) {
#pragma omp task shared(sum) firstprivate(i)
			{
				int part = 0;
#pragma omp task shared(part) firstprivate(i)
				part = i;
#pragma omp taskwait
#pragma omp atomic
				sum += part;
			}
		}
#pragma omp taskwait
		if (sum != 5050)
			bad += 1000;
	}
	CHECK("tasks.taskgroup-grandchildren", bad % 1000 == 0);
	OK("tasks.taskgroup");
	CHECK("tasks.taskwait-nested", bad == 0);
	OK("tasks.taskwait");
}

/* Tasks created outside any parallel region run in an implicit team of one. */
static void orphaned(void)
{
	int x = 0;

#pragma omp task shared(x)
	x = 42;
#pragma omp taskwait
	CHECK("tasks.outside-parallel", x == 42);
	OK("tasks.outside-parallel");
}

/* A detached task whose event a later sibling fulfills: the thread that
 * runs the detached task and waits for its event must get to the sibling
 * (the drop-in queues a detached task's later siblings as descriptors). */
static void detach_later_sibling(void)
{
	int bad = 0;

#pragma omp parallel reduction(+ : bad)
#pragma omp single
	for (int round = 0; round < 100; round++) {
		omp_event_handle_t ev;
		int a = 0, b = 0;

#pragma omp task detach(ev) shared(a)
		a = 1;
#pragma omp task shared(b) firstprivate(ev)
		{
			b = 2;
			omp_fulfill_event(ev);
		}
#pragma omp taskwait
		bad += a != 1 || b != 2;
	}
	CHECK("tasks.detach-fulfilled-by-later-sibling", bad == 0);
	OK("tasks.detach-fulfilled-by-later-sibling");
}

int main(void)
{
	omp_set_dynamic(0);
	arguments();
	if0_and_final();
	clauses();
	taskgroup();
	orphaned();
	detach_later_sibling();
	return 0;
}
