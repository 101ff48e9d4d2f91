// SPDX-License-Identifier: MIT
/*
 * A typed child that a thief takes: its spawner publishes it and does not
 * join it before another worker has started it, so the join finds it
 * stolen, waits, and returns the result the thief stored in the frame.
 * The stolen child spawns and joins typed children of its own on the
 * thief's deque. Counters prove the steal: frames taken by a thief and
 * found stolen by their spawner, one per round.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"
#include "xs_test.h"

#define ROUNDS 20
#define WAIT_MS 10000

static _Atomic int started, ran_on;

static long elapsed_ms(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

/* Sum of k * 3 + 1 over [lo, hi), split in typed halves. */
XS_TASK_2(uint64_t, tsum, uint64_t, lo, uint64_t, hi)
{
	if (hi - lo < 4) {
		uint64_t s = 0;

		for (uint64_t k = lo; k < hi; k++)
			s += k * 3 + 1;
		return s;
	}
	uint64_t mid = lo + (hi - lo) / 2;

	tsum_spawn(lo, mid);
	tsum_spawn(mid, hi);
	uint64_t b = tsum_join();

	return tsum_join() + b;
}

/* The child the spawner leaves to a thief. */
XS_TASK_1(uint64_t, tleft, uint64_t, n)
{
	atomic_store(&ran_on, xs_worker_id());
	atomic_store(&started, 1);
	return tsum(0, n);
}

struct round {
	uint64_t n, got;
	int seen_started;
};

static void spawner(void *p)
{
	struct round *r = p;
	struct timespec t0;

	tleft_spawn(r->n);
	xs_task_publish();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!atomic_load(&started) && elapsed_ms(&t0) < WAIT_MS)
		;
	r->seen_started = atomic_load(&started);
	r->got = tleft_join();
}

FIXTURE(typed) {
	struct xs_runtime *rt;
};

FIXTURE_SETUP(typed)
{
	setenv("XSCHED_DLB", "ws", 1);
	self->rt = xs_runtime_create(2);
	ASSERT_NE(NULL, self->rt);
}

FIXTURE_TEARDOWN(typed)
{
	xs_runtime_destroy(self->rt);
}

TEST_F_TIMEOUT(typed, stolen_child_result_through_frame, 300)
{
	struct xs_stats st;

	for (int i = 0; i < ROUNDS; i++) {
		struct round r = { 1000 + (uint64_t)i * 37, 0, 0 };
		uint64_t expect = 0;

		for (uint64_t k = 0; k < r.n; k++)
			expect += k * 3 + 1;
		atomic_store(&started, 0);
		atomic_store(&ran_on, -1);
		ASSERT_EQ(0, xs_runtime_run(self->rt, spawner, &r));
		ASSERT_EQ(1, r.seen_started);
		EXPECT_EQ(1, atomic_load(&ran_on));
		EXPECT_EQ(expect, r.got);
	}
	ASSERT_EQ(0, xs_runtime_stats(self->rt, &st));
	TH_LOG("frames taken %llu, found stolen %llu", (unsigned long long)st.frames_taken,
	       (unsigned long long)st.frames_stolen);
	EXPECT_GE(st.frames_taken, ROUNDS);
	EXPECT_GE(st.frames_stolen, ROUNDS);
}

TEST_HARNESS_MAIN
