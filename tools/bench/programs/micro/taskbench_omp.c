/* SPDX-License-Identifier: MIT */
/*
 * taskbench_omp.c - the task rows of --micro, after EPCC's OpenMP
 * taskbench (Bull, Reid, McDonnell, IWOMP 2012): how much a task costs
 * when every thread creates them, when one thread does while the others
 * wait or are busy, and when tasks create tasks. Compiled with -fopenmp
 * into xsched-bench-omp like micro_omp.c, so the same code runs under
 * libgomp, libomp and the drop-in. EPCC times tasks with a short delay in
 * their body and subtracts a reference; these bodies are empty, so an
 * operation (one task created, run and waited for) is the runtime's own
 * cost. Each row is timed by thread 0 from a barrier before the
 * creation to the barrier (or taskwait) that ends it.
 */
#include <omp.h>
#include "../../harness/bench.h"
#include "micro.h"

#define KEEP() __asm__ volatile("" ::: "memory")

/* EPCC PARALLEL TASK: every thread creates @iters / threads tasks; they
 * complete at the closing barrier. */
double micro_task_parallel(long iters)
{
	double t = 0, t0 = 0;

#pragma omp parallel shared(t, t0)
	{
		long mine = iters / omp_get_num_threads();

#pragma omp barrier
#pragma omp master
		t0 = bench_now();
		if (omp_get_thread_num() == 0)
			mine += iters % omp_get_num_threads();
		for (long i = 0; i < mine; i++) {
#pragma omp task
			KEEP();
		}
#pragma omp barrier
#pragma omp master
		t = bench_now() - t0;
	}
	return t;
}

/* EPCC MASTER TASK: thread 0 creates @iters tasks; the others take them
 * in the closing barrier. */
double micro_task_master(long iters)
{
	double t = 0, t0 = 0;

#pragma omp parallel shared(t, t0)
	{
#pragma omp barrier
#pragma omp master
		{
			t0 = bench_now();
			for (long i = 0; i < iters; i++) {
#pragma omp task
				KEEP();
			}
		}
#pragma omp barrier
#pragma omp master
		t = bench_now() - t0;
	}
	return t;
}

/* EPCC MASTER TASK BUSY SLAVES: thread 0 creates @iters tasks while the
 * others are busy in user code (here: until it is done creating), so the
 * creator meets its runtime's queue bound alone; the tasks left then run
 * in the closing barrier. */
double micro_task_master_busy(long iters)
{
	double t = 0, t0 = 0;
	int creating = 1;

#pragma omp parallel shared(t, t0, creating)
	{
#pragma omp barrier
		if (omp_get_thread_num() == 0) {
			t0 = bench_now();
			for (long i = 0; i < iters; i++) {
#pragma omp task
				KEEP();
			}
#pragma omp atomic write
			creating = 0;
		} else {
			for (int c = 1; c;) {
#pragma omp atomic read
				c = creating;
			}
		}
#pragma omp barrier
#pragma omp master
		t = bench_now() - t0;
	}
	return t;
}

/* A task that creates @n empty untied tasks and waits for them (EPCC's
 * nested rows). */
static void nest(int n)
{
	for (int i = 0; i < n; i++) {
#pragma omp task untied
		KEEP();
	}
#pragma omp taskwait
}

/* EPCC NESTED TASK: every thread creates tasks that each create one task
 * per thread and wait for them; @iters tasks in all, outer and inner. */
double micro_task_nested(long iters)
{
	double t = 0, t0 = 0;

#pragma omp parallel shared(t, t0)
	{
		int p = omp_get_num_threads();
		long outer = iters / ((long)p * (p + 1));

#pragma omp barrier
#pragma omp master
		t0 = bench_now();
		for (long i = 0; i < (outer > 0 ? outer : 1); i++) {
#pragma omp task firstprivate(p)
			nest(p);
		}
#pragma omp barrier
#pragma omp master
		t = bench_now() - t0;
	}
	return t;
}

/* EPCC NESTED MASTER TASK: thread 0 creates the tasks that each create
 * one task per thread and wait for them; @iters tasks in all. */
double micro_task_nested_master(long iters)
{
	double t = 0, t0 = 0;

#pragma omp parallel shared(t, t0)
	{
		int p = omp_get_num_threads();
		long outer = iters / (p + 1);

#pragma omp barrier
#pragma omp master
		{
			t0 = bench_now();
			for (long i = 0; i < (outer > 0 ? outer : 1); i++) {
#pragma omp task firstprivate(p)
				nest(p);
			}
		}
#pragma omp barrier
#pragma omp master
		t = bench_now() - t0;
	}
	return t;
}
