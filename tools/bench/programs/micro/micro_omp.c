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
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../harness/bench.h"
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

/* ---------------------------------------------------------------- */
/*
 * The EPCC rows (micro.h): construct + delay, minus the delays alone.
 *
 * A run times its loop in chunks of MICRO_CHUNK operations and keeps the
 * fastest chunk (scaled to @iters), and so does the reference loop: on a
 * shared machine a chunk (tens of microseconds) is seldom preempted while
 * a whole run seldom is not, and the difference of two whole runs was
 * then noise of either sign. A construct every thread meets (barrier,
 * for, single, parallel) keeps the threads in step, so thread 0's chunks
 * are the team's. critical is timed whole, as in EPCC: its threads are
 * not in step (one may run many sections while the other waits).
 *
 * Each thread times its own reference: the CPUs of a virtual machine need
 * not run the same delay equally fast.
 * A team construct is as slow as its slowest thread, so it subtracts the
 * slowest reference, taken with every thread running the delay at once
 * as in the construct; critical's sections are shared out evenly and run
 * one at a time, so it subtracts the sum of each thread's part, each
 * taken alone (two virtual CPUs may be one core's two hyperthreads: the
 * delay ran slower with both busy, which made the sections look cheaper
 * than free).
 */
#define MICRO_CHUNK 256L

/* The fixed work between or inside constructs; noinline, so that every
 * loop runs the same instructions as the reference. */
static __attribute__((noinline)) void micro_delay(void)
{
	for (int i = 0; i < MICRO_DELAY_SPINS; i++)
		KEEP();
}

/* Chunks of a run of @iters operations, and operations per chunk. */
static long micro_chunks(long iters, long *per)
{
	*per = iters < MICRO_CHUNK ? iters : MICRO_CHUNK;
	return iters / *per;
}

/* Keep @t if it is the fastest chunk so far (@best < 0: none yet). */
static void micro_keep(double *best, double t)
{
	if (*best < 0 || t < *best)
		*best = t;
}

/* Seconds of @iters delays on the calling thread, from the fastest chunk:
 * the reference loop. */
static double micro_reference(long iters)
{
	long per, n = micro_chunks(iters, &per);
	double best = -1;

	for (long c = 0; c < n; c++) {
		double t0 = bench_now();

		for (long i = 0; i < per; i++)
			micro_delay();
		micro_keep(&best, bench_now() - t0);
	}
	return best * iters / per;
}

/* The slowest thread's reference for @iters delays, in a region of the
 * team. */
static double micro_team_reference(long iters)
{
	double ref = 0;

#pragma omp parallel shared(ref)
	{
		double mine = micro_reference(iters);

#pragma omp critical
		if (mine > ref)
			ref = mine;
	}
	return ref;
}

/* A region of the delay, @iters times. */
double micro_epcc_parallel(long iters)
{
	long per, n = micro_chunks(iters, &per);
	double ref = micro_team_reference(iters), best = -1;

	for (long c = 0; c < n; c++) {
		double t0 = bench_now();

		for (long i = 0; i < per; i++) {
#pragma omp parallel
			micro_delay();
		}
		micro_keep(&best, bench_now() - t0);
	}
	return best * iters / per - ref;
}

enum micro_construct { MICRO_BARRIER, MICRO_FOR, MICRO_SINGLE };

/* @iters constructs of one region, each with the delay: before a barrier,
 * as the body of a static for's one iteration per thread, as the body
 * of a single; each ends in a barrier (the for's and single's own). */
static double micro_epcc_team(long iters, enum micro_construct what)
{
	long per, n = micro_chunks(iters, &per);
	double ref = 0, best = -1;

#pragma omp parallel shared(best, ref)
	{
		int nthreads = omp_get_num_threads();
		double mine = micro_reference(iters);

#pragma omp critical
		if (mine > ref)
			ref = mine;
#pragma omp barrier
		for (long c = 0; c < n; c++) {
			double t0 = bench_now();

			for (long i = 0; i < per; i++) {
				if (what == MICRO_BARRIER) {
					micro_delay();
#pragma omp barrier
				} else if (what == MICRO_FOR) {
#pragma omp for schedule(static)
					for (int j = 0; j < nthreads; j++)
						micro_delay();
				} else {
#pragma omp single
					micro_delay();
				}
			}
			if (omp_get_thread_num() == 0)
				micro_keep(&best, bench_now() - t0);
		}
	}
	return best * iters / per - ref;
}

double micro_epcc_barrier(long iters)
{
	return micro_epcc_team(iters, MICRO_BARRIER);
}

double micro_epcc_for(long iters)
{
	return micro_epcc_team(iters, MICRO_FOR);
}

double micro_epcc_single(long iters)
{
	return micro_epcc_team(iters, MICRO_SINGLE);
}

/*
 * @iters critical sections of the delay, shared out among the threads:
 * they contend, as in EPCC. The threads are not in step (one may run many
 * sections while the other waits), so thread 0's chunks are measured in
 * sections of the whole team: each thread counts its sections inside
 * the section itself, and thread 0 reads the counts in its own sections
 * with the time. The delay is then each thread's own reference times its
 * sections of the chunk: the virtual CPUs did not run it equally fast
 * (one up to 1.4x faster on the loaded dev VM), and each thread takes
 * its reference alone, as the sections run.
 */
#define MICRO_MAX_THREADS 256

double micro_epcc_critical(long iters)
{
	static double ref[MICRO_MAX_THREADS];
	static long done[MICRO_MAX_THREADS];
	double best = -1;

	if (omp_get_max_threads() > MICRO_MAX_THREADS) {
		fprintf(stderr, "xsched-bench-omp: epcc_critical takes at most %d "
			"threads\n", MICRO_MAX_THREADS);
		exit(4);
	}
#pragma omp parallel shared(ref, best, done)
	{
		int me = omp_get_thread_num(), nthreads = omp_get_num_threads();
		long mine = iters / nthreads, per, n, at[MICRO_MAX_THREADS];
		double t0 = 0;

		n = micro_chunks(mine, &per);
		done[me] = 0;
#pragma omp critical
		ref[me] = micro_reference(mine) / mine;
#pragma omp barrier
		for (long c = 0; c < n; c++) {
			for (long i = 0; i < per; i++) {
#pragma omp critical
				{
					micro_delay();
					done[me]++;
					if (me == 0 && i == 0) {
						double now = bench_now(), delays = 0;
						long sections = 0;

						for (int k = 0; c && k < nthreads; k++) {
							sections += done[k] - at[k];
							delays += (done[k] - at[k]) * ref[k];
						}
						if (sections)
							micro_keep(&best, (now - t0 - delays) /
									  sections);
						for (int k = 0; k < nthreads; k++)
							at[k] = done[k];
						t0 = bench_now();
					}
				}
			}
		}
	}
	return best * iters;
}

/* Not in gcc 12's libgomp (nor so in the drop-in, which has its ABI):
 * looked up at run time, not linked (omp_binding.c would call a weak
 * reference a symbol served by no library), and the row is skipped where
 * the runtime lacks it. */
typedef void (*micro_init_hint_fn)(omp_lock_t *, omp_sync_hint_t);

enum micro_lock_kind { MICRO_LOCK, MICRO_LOCK_HINT, MICRO_NEST_LOCK };

/* On every thread, @iters times the delay and a lock/unlock pair of the
 * thread's own lock: uncontended, what a program pays for a lock that is
 * rarely fought over. Thread 0's fastest chunk, minus the delays. */
static double micro_epcc_locks(long iters, enum micro_lock_kind kind)
{
	long per, n = micro_chunks(iters, &per);
	double ref = 0, best = -1;
	micro_init_hint_fn init_hint = NULL;

	if (kind == MICRO_LOCK_HINT)
		*(void **)&init_hint = dlsym(RTLD_DEFAULT, "omp_init_lock_with_hint");
	if (kind == MICRO_LOCK_HINT && !init_hint) {
		fprintf(stderr, "xsched-bench-omp: this OpenMP runtime has no "
			"omp_init_lock_with_hint\n");
		exit(4);
	}
#pragma omp parallel shared(best, ref)
	{
		omp_lock_t l;
		omp_nest_lock_t nl;

		/* Thread 0 times the loop: its reference. */
		if (omp_get_thread_num() == 0)
			ref = micro_reference(iters);
		if (kind == MICRO_NEST_LOCK)
			omp_init_nest_lock(&nl);
		else if (kind == MICRO_LOCK_HINT)
			init_hint(&l, omp_sync_hint_contended);
		else
			omp_init_lock(&l);
#pragma omp barrier
		for (long c = 0; c < n; c++) {
			double t0 = bench_now();

			for (long i = 0; i < per; i++) {
				micro_delay();
				if (kind == MICRO_NEST_LOCK) {
					omp_set_nest_lock(&nl);
					omp_unset_nest_lock(&nl);
				} else {
					omp_set_lock(&l);
					omp_unset_lock(&l);
				}
			}
			if (omp_get_thread_num() == 0)
				micro_keep(&best, bench_now() - t0);
		}
#pragma omp barrier
		if (kind == MICRO_NEST_LOCK)
			omp_destroy_nest_lock(&nl);
		else
			omp_destroy_lock(&l);
	}
	return best * iters / per - ref;
}

double micro_epcc_lock(long iters)
{
	return micro_epcc_locks(iters, MICRO_LOCK);
}

double micro_epcc_lock_hint(long iters)
{
	return micro_epcc_locks(iters, MICRO_LOCK_HINT);
}

double micro_epcc_nest_lock(long iters)
{
	return micro_epcc_locks(iters, MICRO_NEST_LOCK);
}
