// SPDX-License-Identifier: MIT
/*
 * core_latency.c - the round trip of a cache line between two CPUs, which
 * the header of the table prints: fine-grained programs (health: lists
 * that a village's parent and children both write each step) run at the
 * speed of this figure, and on a virtual machine it moves with where the
 * host places the vCPUs (on this project's 2-CPU VM: 455 ns in an hour
 * when health at 2 threads ran 2x slower than at 1 thread, while an hour
 * before it had run 1.74x faster).
 *
 * Two threads pinned to the first two CPUs of our mask hand a counter
 * back and forth: one stores an odd value, the other answers with the
 * next even one; the time per exchange is the round trip, of the fastest
 * chunk of CHUNK exchanges: on a shared machine the whole run (a few tens
 * of milliseconds) is always cut by preemption, which made it read 2-5 us
 * on the loaded dev VM, while a chunk of a few hundred microseconds
 * seldom is (--micro compares barriers with it).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "driver.h"

#define EXCHANGES 100000L
#define CHUNK 1000L

struct pingpong {
	_Alignas(64) _Atomic long word;
	int cpu;
};

static int pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static void *answer(void *arg)
{
	struct pingpong *p = arg;

	pin(p->cpu); /* unpinned, the figure is only less exact */
	for (long i = 0; i < EXCHANGES; i++) {
		/* Acquire/release: only the value matters; the pair keeps
		 * the compiler from merging the loop's accesses. */
		while (atomic_load_explicit(&p->word, memory_order_acquire) != 2 * i + 1)
			;
		atomic_store_explicit(&p->word, 2 * i + 2, memory_order_release);
	}
	return NULL;
}

double core_round_trip_ns(int *cpu_a, int *cpu_b)
{
	static struct pingpong p;
	cpu_set_t saved;
	double t0, chunk, secs;
	pthread_t t;
	int a = -1, b = -1;

	if (sched_getaffinity(0, sizeof(saved), &saved))
		return -1;
	for (int c = 0; c < CPU_SETSIZE && b < 0; c++)
		if (CPU_ISSET(c, &saved)) {
			if (a < 0)
				a = c;
			else
				b = c;
		}
	if (b < 0)
		return -1;
	atomic_store(&p.word, 0);
	p.cpu = b;
	if (pin(a) || pthread_create(&t, NULL, answer, &p)) {
		sched_setaffinity(0, sizeof(saved), &saved);
		return -1;
	}
	secs = -1;
	for (long i = 0; i < EXCHANGES; i += CHUNK) {
		t0 = bench_now();
		for (long j = i; j < i + CHUNK; j++) {
			/* Release/acquire, as in answer(). */
			atomic_store_explicit(&p.word, 2 * j + 1, memory_order_release);
			while (atomic_load_explicit(&p.word, memory_order_acquire) != 2 * j + 2)
				;
		}
		chunk = bench_now() - t0;
		if (secs < 0 || chunk < secs)
			secs = chunk;
	}
	pthread_join(t, NULL);
	sched_setaffinity(0, sizeof(saved), &saved);
	*cpu_a = a;
	*cpu_b = b;
	return secs * 1e9 / CHUNK;
}
