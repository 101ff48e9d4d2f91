// SPDX-License-Identifier: MIT
/*
 * The team barrier under frames (barrier.c, rule 2 and "Where a task can
 * be"). Worker 1 arrives first and reports its first wave; only then does
 * worker 0 spawn a frame, which worker 1 - waiting in the barrier - steals.
 * The stolen task creates a continuation (counted on worker 1, after its
 * report) that a helper thread makes ready 20 ms later. Worker 0 joins
 * the stolen frame and arrives: nobody pushed a descriptor before the
 * first wave's reads, so only the join's frames_stolen count tells the
 * root that something happened. A barrier that released on the first wave
 * would return before the continuation ran: asserted it never does.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <time.h>
#include "core/runtime.h"
#include "xsched.h"
#include "xs_test.h"

#define ROUNDS 20

static struct xs_runtime *rt;
static uint64_t reported_before;
static _Atomic int started, cont_ran, stolen_rounds, early;
static pthread_t helper;

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void cont(void *arg)
{
	(void)arg;
	atomic_store(&cont_ran, 1);
}

static void *ready_later(void *arg)
{
	sleep_ms(20);
	xs_continuation_ready(arg);
	return NULL;
}

static void stolen(void *arg)
{
	struct xs_continuation *c;

	(void)arg;
	atomic_store(&started, xs_worker_id() == 1 ? 2 : 1);
	c = xs_continuation_create(cont, NULL, 0);
	if (!c || pthread_create(&helper, NULL, ready_later, c))
		abort();
}

static void implicit(void *arg)
{
	(void)arg;
	if (xs_worker_id() == 0) {
		struct timespec t0, t;
		int z = 0;

		/* Acquire: worker 1's wave-1 report is out. */
		while (xs_load_acquire(&rt->workers[1]->bnode.report_seq) == reported_before)
			sched_yield();
		xs_spawn(stolen, &z, sizeof z);
		/* Give the thief a second to take it; if it does not, the
		 * round tests nothing and is not counted. */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			sched_yield();
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (!atomic_load(&started) && t.tv_sec - t0.tv_sec < 2);
		xs_sync();
	}
	if (xs_barrier_wait())
		abort();
	if (xs_worker_id() == 0 && !atomic_load(&cont_ran))
		atomic_fetch_add(&early, 1);
}

FIXTURE(runtime) {};
FIXTURE_SETUP(runtime) {}
FIXTURE_TEARDOWN(runtime) {}

TEST_F_TIMEOUT(runtime, barrier_counts_stolen_frames, 300)
{
	setenv("XSCHED_DLB", "ws", 1);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	for (int r = 0; r < ROUNDS; r++) {
		atomic_store(&started, 0);
		atomic_store(&cont_ran, 0);
		/* Relaxed: no job runs; the job post orders it for worker 0. */
		reported_before = xs_load_relaxed(&rt->workers[1]->bnode.report_seq);
		ASSERT_EQ(0, xs_runtime_parallel(rt, implicit, NULL));
		ASSERT_EQ(0, pthread_join(helper, NULL));
		ASSERT_EQ(1, atomic_load(&cont_ran));
		if (atomic_load(&started) == 2)
			atomic_fetch_add(&stolen_rounds, 1);
	}
	TH_LOG("%d of %d rounds had the frame stolen", atomic_load(&stolen_rounds), ROUNDS);
	EXPECT_GT(atomic_load(&stolen_rounds), 0);
	EXPECT_EQ(0, atomic_load(&early));
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
