// SPDX-License-Identifier: MIT
/*
 * cpu_ceiling.c - the most T1/TP can be on this machine right now, for
 * work that shares nothing: the table's header prints it beside the
 * cache line's round trip.
 *
 * On a virtual machine the vCPUs need not run at one speed: the host
 * may run another guest on a vCPU's sibling hyperthread, or share its
 * core. On this project's 2-CPU VM a serial health ran 1.15-1.24 s of
 * CPU on CPU 0 while a copy ran 0.66 s on CPU 1 (docs/perf/core.md,
 * seventh session). T1 runs on one CPU, TP on P at once, so T1/TP can
 * reach only the sum of the P CPUs' rates while all are busy over the
 * first CPU's rate alone: that is the figure. Rates are per thread CPU
 * time, so time a thread spent preempted does not count (the counters'
 * runq% shows that); an ALU loop, so the caches and memory are not
 * measured. Five rounds of 20 ms alone then 20 ms together, medians: on
 * the loaded VM one round's figure moved by 10% from one to the next.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "driver.h"

#define CEILING_CPUS 64
#define CEILING_SECS 0.02
#define CEILING_ROUNDS 5

struct spinner {
	int cpu;
	atomic_int *go;
	double rate;	/* loop rounds per CPU second */
};

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *spin(void *arg)
{
	struct spinner *s = arg;
	uint64_t x = 88172645463325252ull, rounds = 0;
	double t0, c0, c1;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	/* Relaxed: a start flag; every thread then runs for its own time. */
	while (!atomic_load_explicit(s->go, memory_order_relaxed))
		;
	t0 = bench_now();
	c0 = thread_cpu_s();
	do {
		for (int i = 0; i < 4096; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
		}
		rounds++;
	} while (bench_now() - t0 < CEILING_SECS);
	c1 = thread_cpu_s();
	/* x joins the result so that the loop is not optimized away. */
	s->rate = c1 > c0 ? (double)(rounds + (x == 0)) / (c1 - c0) : 0;
	return NULL;
}

/* Run spinners on the @n CPUs @cpus at once; their rates in @s. */
static int spin_on(const int *cpus, int n, struct spinner *s)
{
	pthread_t t[CEILING_CPUS];
	atomic_int go = 0;
	int started = 0;

	for (int i = 0; i < n; i++) {
		s[i] = (struct spinner){ .cpu = cpus[i], .go = &go };
		if (pthread_create(&t[i], NULL, spin, &s[i]))
			break;
		started++;
	}
	/* Relaxed: see spin(). */
	atomic_store_explicit(&go, 1, memory_order_relaxed);
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	return started == n ? 0 : -1;
}

double cpu_ceiling(int p, int *cpus, double *rel)
{
	struct spinner alone, all[CEILING_CPUS];
	double r[CEILING_CPUS][CEILING_ROUNDS], sums[CEILING_ROUNDS];
	cpu_set_t mask;
	int n = 0;

	if (p < 2 || p > CEILING_CPUS || sched_getaffinity(0, sizeof(mask), &mask))
		return -1;
	for (int c = 0; c < CPU_SETSIZE && n < p; c++)
		if (CPU_ISSET(c, &mask))
			cpus[n++] = c;
	if (n < p)
		return -1;
	/* Alone and together in turn, so that a spell of the host's falls
	 * on both; medians of the rounds. */
	for (int k = 0; k < CEILING_ROUNDS; k++) {
		if (spin_on(cpus, 1, &alone) || spin_on(cpus, p, all) || alone.rate <= 0)
			return -1;
		sums[k] = 0;
		for (int i = 0; i < p; i++) {
			r[i][k] = all[i].rate / alone.rate;
			sums[k] += r[i][k];
		}
	}
	for (int i = 0; i < p; i++) {
		qsort(r[i], CEILING_ROUNDS, sizeof(double), bench_cmp_double);
		rel[i] = r[i][CEILING_ROUNDS / 2];
	}
	qsort(sums, CEILING_ROUNDS, sizeof(double), bench_cmp_double);
	return sums[CEILING_ROUNDS / 2];
}
