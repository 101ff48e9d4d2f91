/* SPDX-License-Identifier: MIT */
/*
 * sync.c - synchronization constructs: barrier, single (plain, nowait,
 * copyprivate), master, masked, critical (unnamed, named, and held past
 * the waiters' spin), atomic (including types gcc serializes through
 * GOMP_atomic_start/end) and ordered.
 */
#include <omp.h>
#include <string.h>
#include <unistd.h>

#include "omp-check.h"

/* Every thread checks that all of its team arrived at each barrier. */
static void barrier(void)
{
	enum { PHASES = 200 };
	static int arrived[PHASES];
	int bad = 0;

#pragma omp parallel
	{
		int n = omp_get_num_threads();

		for (int p = 0; p < PHASES; p++) {
			/* Nobody may be in phase p + 1 before everyone arrived in p. */
			int next;

#pragma omp atomic capture
			next = arrived[p]++;
			if (next >= n) {
#pragma omp atomic
				bad++;
			}
			if (p + 1 < PHASES) {
				int early;
#pragma omp atomic read
				early = arrived[p + 1];
				if (early != 0) {
#pragma omp atomic
					bad++;
				}
			}
#pragma omp barrier
			int seen;
#pragma omp atomic read
			seen = arrived[p];
			if (seen != n) {
#pragma omp atomic
				bad++;
			}
		}
	}
	CHECK("sync.barrier", bad == 0);
	OK("sync.barrier");
}

static void single(void)
{
	enum { ROUNDS = 300 };
	int runs = 0, runs_nowait = 0, bad = 0;

#pragma omp parallel
	{
		for (int r = 0; r < ROUNDS; r++) {
#pragma omp single
			runs++;	/* one thread; the implied barrier orders the next */
		}
		for (int r = 0; r < ROUNDS; r++) {
#pragma omp single nowait
			{
#pragma omp atomic
				runs_nowait++;
			}
		}
		for (int r = 0; r < ROUNDS; r++) {
			long v = -1;
			double d = -1;

#pragma omp single copyprivate(v, d)
			{
				v = 1000 + r;
				d = r * 0.5;
			}
			if (v != 1000 + r || d != r * 0.5) {
#pragma omp atomic
				bad++;
			}
		}
	}
	CHECK("sync.single", runs == ROUNDS);
	OK("sync.single");
	CHECK("sync.single-nowait", runs_nowait == ROUNDS);
	OK("sync.single-nowait");
	CHECK("sync.single-copyprivate", bad == 0);
	OK("sync.single-copyprivate");
}

static void master_masked(void)
{
	int master = 0, masked = 0, filter1 = 0, bad = 0, nt = 0;

#pragma omp parallel
	{
#pragma omp master
		{
			nt = omp_get_num_threads();
			master++;
			if (omp_get_thread_num() != 0)
				bad++;
		}
#pragma omp barrier
#pragma omp masked
		{
			masked++;
			if (omp_get_thread_num() != 0)
				bad++;
		}
#pragma omp masked filter(1)
		{
#pragma omp atomic
			filter1++;
			if (omp_get_thread_num() != 1) {
#pragma omp atomic
				bad++;
			}
		}
	}
	CHECK("sync.master", master == 1 && bad == 0);
	OK("sync.master");
	CHECK("sync.masked", masked == 1 && bad == 0);
	CHECK("sync.masked-filter", filter1 == (nt >= 2) && bad == 0);
	OK("sync.masked");
}

/* volatile: the increments are separate loads and stores, not one locked add. */
static volatile long unnamed_count, a_count, b_count;

static void critical(void)
{
	enum { ITERS = 20000 };
	int nt = 0;

	unnamed_count = a_count = b_count = 0;
#pragma omp parallel
	{
#pragma omp single
		nt = omp_get_num_threads();
		for (int i = 0; i < ITERS; i++) {
#pragma omp critical
			unnamed_count = unnamed_count + 1;
#pragma omp critical(a)
			a_count = a_count + 2;
#pragma omp critical(b)
			{
				long v = b_count;
				b_count = v + 3;
			}
		}
	}
	CHECK("sync.critical", unnamed_count == (long)nt * ITERS);
	OK("sync.critical");
	CHECK("sync.critical-named", a_count == 2L * nt * ITERS && b_count == 3L * nt * ITERS);
	OK("sync.critical-named");
}

/*
 * Sections held longer than a waiter spins (1 ms in the drop-in, gomp/lock.c
 * xg_mutex_spin_ns()): the waiters go to sleep on the lock's futex, each
 * unlock must wake one, and no two threads are ever inside.
 */
static void critical_held_long(void)
{
	enum { ROUNDS = 3 };
	static volatile int inside, overlap;
	static volatile long sections;
	int nt = 0;

	inside = overlap = 0;
	sections = 0;
#pragma omp parallel
	{
#pragma omp single
		nt = omp_get_num_threads();
		for (int i = 0; i < ROUNDS; i++) {
#pragma omp critical(held_long)
			{
				overlap = overlap | inside;
				inside = inside + 1;
				usleep(3000);
				inside = inside - 1;
				sections = sections + 1;
			}
		}
	}
	CHECK("sync.critical-held-long", sections == (long)nt * ROUNDS && overlap == 0);
	OK("sync.critical-held-long");
}

static void atomic(void)
{
	enum { ITERS = 20000 };
	int nt = 0, ix = 0, bad = 0;
	long long ll = 0;
	double d = 0;
	long double ld = 0;
	__int128 big = 0;
	static char seen[4 * ITERS * 16];

	memset(seen, 0, sizeof seen);
#pragma omp parallel
	{
#pragma omp single
		nt = omp_get_num_threads();
		for (int i = 0; i < ITERS; i++) {
			int old;

#pragma omp atomic
			ll += 3;
#pragma omp atomic update
			d += 0.5;
#pragma omp atomic
			ld += 0.25L;	/* GOMP_atomic_start/end */
#pragma omp atomic capture
			old = ix++;
			if (old < 0 || old >= (int)sizeof seen) {
#pragma omp atomic
				bad++;
			} else {
				seen[old] = 1;
			}
			__int128 before;

#pragma omp atomic capture	/* GOMP_atomic_start/end */
			{
				before = big;
				big += 7;
			}
			if (before % 7 != 0) {
#pragma omp atomic
				bad++;
			}
		}
	}
	long long want = (long long)nt * ITERS;

	CHECK("sync.atomic.long-long", ll == 3 * want);
	CHECK("sync.atomic.double", d == 0.5 * (double)want);
	CHECK("sync.atomic.capture", ix == want && bad == 0);
	for (long long k = 0; k < want; k++)
		CHECK("sync.atomic.capture-unique", seen[k] == 1);
	CHECK("sync.atomic.long-double", ld == 0.25L * (long double)want);
	CHECK("sync.atomic.int128", big == (__int128)7 * want);

	/* atomic read and write of a long double */
	long double lr = 0, lw = 1.5L;
#pragma omp parallel
	{
		long double v;
#pragma omp atomic read
		v = lw;
		if (v != 1.5L) {
#pragma omp atomic
			bad++;
		}
#pragma omp barrier
#pragma omp single
		{
#pragma omp atomic write
			lr = 2.5L;
		}
	}
	CHECK("sync.atomic.long-double-read-write", bad == 0 && lr == 2.5L);
	OK("sync.atomic");
}

/* The ordered blocks must run in iteration order whatever the schedule. */
static void ordered(void)
{
	enum { N = 2000 };
	static int seq[N];
	int pos = 0;

#pragma omp parallel
	{
#pragma omp for ordered schedule(dynamic, 3)
		for (int i = 0; i < N; i++) {
			volatile int work = i % 17;	/* unordered part */
			(void)work;
#pragma omp ordered
			seq[pos++] = i;
		}
	}
	CHECK("sync.ordered-dynamic.count", pos == N);
	for (int i = 0; i < N; i++)
		CHECK("sync.ordered-dynamic.sequence", seq[i] == i);
	OK("sync.ordered-dynamic");

	pos = 0;
#pragma omp parallel for ordered schedule(static, 1)
	for (int i = N - 1; i >= 0; i -= 2) {
#pragma omp ordered
		seq[pos++] = i;
	}
	CHECK("sync.ordered-static.count", pos == N / 2);
	for (int k = 0; k < N / 2; k++)
		CHECK("sync.ordered-static.sequence", seq[k] == N - 1 - 2 * k);
	OK("sync.ordered-static");

	pos = 0;
#pragma omp parallel for ordered schedule(guided)
	for (long i = 0; i < N; i++) {
#pragma omp ordered
		seq[pos++] = (int)i;
	}
	CHECK("sync.ordered-guided.count", pos == N);
	for (int i = 0; i < N; i++)
		CHECK("sync.ordered-guided.sequence", seq[i] == i);
	OK("sync.ordered-guided");

	/* Bounds above LONG_MAX unknown at compile time: GOMP_loop_ull_ordered_* */
	volatile unsigned long long vlo = 0x8000000000000000ULL + 3;
	unsigned long long lo = vlo, hi = lo + N;

	pos = 0;
#pragma omp parallel for ordered schedule(runtime)
	for (unsigned long long i = lo; i < hi; i++) {
#pragma omp ordered
		seq[pos++] = (int)(i - lo);
	}
	CHECK("sync.ordered-runtime-ull.count", pos == N);
	for (int i = 0; i < N; i++)
		CHECK("sync.ordered-runtime-ull.sequence", seq[i] == i);
	OK("sync.ordered-runtime-ull");
}

int main(void)
{
	omp_set_dynamic(0);
	barrier();
	single();
	master_masked();
	critical();
	critical_held_long();
	atomic();
	ordered();
	return 0;
}
