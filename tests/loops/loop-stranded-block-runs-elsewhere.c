// SPDX-License-Identifier: MIT
/*
 * A worker that stops in the middle of its static block strands only the
 * chunk it is running: xs_parallel_for() makes every piece of a helper's
 * block claimable (libxsched/loops/loop.c, elastic loops; a static block
 * loop's caller takes the pieces left once the helper has stayed inside
 * past a short timeout), so the other worker runs the rest of that block
 * while it is stopped. Here worker 1 sleeps in its
 * first chunk until every other iteration of the loop has run (10 s at
 * most); asserted with counts: every iteration exactly once, the sum of
 * their values, and, seen from inside worker 1's chunk, all iterations but
 * that chunk's finished before it returned. Before the rescue its static
 * block was its own and stayed undone behind it.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"
#include "xs_test.h"

#define N 4096
#define WAIT_MS 10000

static _Atomic int ran[N], w1_started;
static _Atomic uint64_t finished, sum, w1_chunk_len, w1_seen;
static _Atomic int w1_chunks;

static long elapsed_ms(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

static void body(void *arg, int64_t first, uint64_t count)
{
	struct timespec t0;
	int me = xs_worker_id();

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (me == 0) /* let worker 1 reach its block first */
		while (!atomic_load(&w1_started) && elapsed_ms(&t0) < WAIT_MS)
			;
	for (uint64_t i = 0; i < count; i++) {
		atomic_fetch_add(&ran[first + (int64_t)i], 1);
		atomic_fetch_add(&sum, (uint64_t)(first + (int64_t)i) * 7919u + 1);
	}
	if (me == 1 && atomic_fetch_add(&w1_chunks, 1) == 0) {
		/* Stranded, holding this chunk. */
		atomic_store(&w1_chunk_len, count);
		atomic_store(&w1_started, 1);
		while (atomic_load(&finished) + count < N && elapsed_ms(&t0) < WAIT_MS) {
			struct timespec ms = { 0, 1000000 };

			nanosleep(&ms, NULL);
		}
		atomic_store(&w1_seen, atomic_load(&finished));
	}
	atomic_fetch_add(&finished, count);
}

TEST(stranded_block_runs_elsewhere)
{
	static const struct xs_loop_sched sched = { .kind = XS_LOOP_STATIC };
	struct xs_runtime *rt;
	uint64_t want = 0;

	setenv("XSCHED_DAEMON", "off", 1);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_parallel_for(rt, 0, N, 1, &sched, body, NULL));
	xs_runtime_destroy(rt);

	for (int i = 0; i < N; i++) {
		int n = atomic_load(&ran[i]);

		want += (uint64_t)i * 7919u + 1;
		EXPECT_EQ(1, n) {
			TH_LOG("iteration %d ran %d times", i, n);
		}
	}
	EXPECT_EQ(want, atomic_load(&sum));
	ASSERT_EQ(1, atomic_load(&w1_started)) {
		TH_LOG("worker 1 ran no chunk within %d ms", WAIT_MS);
	}
	TH_LOG("worker 1 held a chunk of %llu; %llu of the other %llu iterations had run "
	       "when it returned", (unsigned long long)atomic_load(&w1_chunk_len),
	       (unsigned long long)atomic_load(&w1_seen),
	       (unsigned long long)(N - atomic_load(&w1_chunk_len)));
	EXPECT_LT(atomic_load(&w1_chunk_len), (uint64_t)N / 2);
	EXPECT_EQ((uint64_t)N - atomic_load(&w1_chunk_len), atomic_load(&w1_seen));
}

TEST_HARNESS_MAIN
