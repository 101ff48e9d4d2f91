/* SPDX-License-Identifier: MIT */
/*
 * micro_omp.c - the timed loops of --micro, compiled with -fopenmp into
 * xsched-bench-omp so the same code runs under libgomp, libomp and the
 * drop-in. The team exists before each loop (xsched-bench-omp has already
 * run a region of the same size), so the first fork is not in the time.
 * The empty asm keeps a region or task body from being anything the
 * compiler could drop; the calls into the runtime stay as gcc emits them
 * for any program.
 */
#include <omp.h>
#include "bench.h"
#include "micro.h"

#define KEEP() __asm__ volatile("" ::: "memory")

/* GOMP_parallel of an empty body, @iters times. */
double micro_parallel(long iters)
{
	double t0 = bench_now();

	for (long i = 0; i < iters; i++) {
#pragma omp parallel
		KEEP();
	}
	return bench_now() - t0;
}

/* GOMP_barrier, @iters times in one region, timed by thread 0 between a
 * barrier before and the last one. */
double micro_barrier(long iters)
{
	double t = 0;

#pragma omp parallel shared(t)
	{
		double t0;

#pragma omp barrier
		t0 = bench_now();
		for (long i = 0; i < iters; i++) {
#pragma omp barrier
			KEEP();
		}
		if (omp_get_thread_num() == 0)
			t = bench_now() - t0;
	}
	return t;
}

/* GOMP_task of an empty task and GOMP_taskwait, @iters times, by the one
 * thread of a single; the others wait for tasks in its closing barrier, as
 * they would in a task program. */
double micro_taskwait(long iters)
{
	double t = 0;

#pragma omp parallel shared(t)
#pragma omp single
	{
		double t0 = bench_now();

		for (long i = 0; i < iters; i++) {
#pragma omp task
			KEEP();
#pragma omp taskwait
		}
		t = bench_now() - t0;
	}
	return t;
}

/* GOMP_task of an empty task with if(0), @iters times, by the one thread
 * of a single: the task is undeferred, its creator runs it at once. */
double micro_undeferred(long iters)
{
	double t = 0;

#pragma omp parallel shared(t)
#pragma omp single
	{
		double t0 = bench_now();

		for (long i = 0; i < iters; i++) {
#pragma omp task if(0)
			KEEP();
		}
		t = bench_now() - t0;
	}
	return t;
}

/* GOMP_task of an empty task, @iters times, inside one final task: every
 * one is an included task (a final-clause cut-off's leaves). */
double micro_included(long iters)
{
	double t = 0;

#pragma omp parallel shared(t)
#pragma omp single
#pragma omp task final(1) shared(t)
	{
		double t0 = bench_now();

		for (long i = 0; i < iters; i++) {
#pragma omp task
			KEEP();
		}
		t = bench_now() - t0;
	}
	return t;
}
