// SPDX-License-Identifier: MIT
/*
 * The rescue (libxsched/core/deque_rescue.c) with typed children: a worker
 * spawns typed children (private frames: nobody asked it to publish) and
 * is then stranded before its joins, asleep in a syscall. The other
 * worker finds its splitreq unanswered for XSCHED_RESCUE_US, publishes
 * the frames for it and runs them; the stranded worker's typed joins
 * then find them stolen and return the results the thief stored in the
 * frames. Without the rescue the victim waits its 10 s out and the test
 * fails. Asserted with counts: every child ran exactly once, on the other
 * worker, before the joins; the joined results; the frame counters.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"
#include "xs_test.h"

#define NCHILD 32
#include "rescue-blocker.h"
#define WAIT_MS 10000

static int seen_before_join;
static uint64_t joined;

XS_TASK_1(uint64_t, tchild, int, i)
{
	atomic_fetch_add(&ran[i], 1);
	if (xs_worker_id() != 0)
		atomic_fetch_add(&elsewhere, 1);
	atomic_fetch_add(&finished, 1);
	return (uint64_t)(i + 1) * 1000003u;
}

static void victim(void *arg)
{
	struct timespec t0;
	int none = 0;

	(void)arg;
	xs_spawn(rescue_blocker, &none, sizeof none);
	xs_task_publish();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!atomic_load(&blocker_started) && elapsed_ms(&t0) < WAIT_MS)
		;
	for (int i = 0; i < NCHILD; i++)
		tchild_spawn(i);
	atomic_store(&spawned, 1);
	/* Stranded: no spawn, no join, so no splitreq is served. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (atomic_load(&finished) < NCHILD && elapsed_ms(&t0) < WAIT_MS) {
		struct timespec ms = { 0, 1000000 };

		nanosleep(&ms, NULL);
	}
	seen_before_join = atomic_load(&finished);
	/* Typed children first (newest first), then the generic one. */
	for (int i = 0; i < NCHILD; i++)
		joined += tchild_join();
	xs_sync();
}

FIXTURE(typed) {
	struct xs_runtime *rt;
};

FIXTURE_SETUP(typed)
{
	setenv("XSCHED_DLB", "ws", 1);
	setenv("XSCHED_DAEMON", "off", 1); /* the missed-poll detector */
	setenv("XSCHED_RESCUE_US", "1000", 1);
	self->rt = xs_runtime_create(2);
	ASSERT_NE(NULL, self->rt);
}

FIXTURE_TEARDOWN(typed)
{
	xs_runtime_destroy(self->rt);
}

TEST_F_TIMEOUT(typed, sleeping_victim_typed_frames_run_elsewhere, 60)
{
	struct xs_stats st;
	uint64_t expect = 0;

	for (int i = 0; i < NCHILD; i++)
		expect += (uint64_t)(i + 1) * 1000003u;
	ASSERT_EQ(0, xs_runtime_run(self->rt, victim, NULL));
	TH_LOG("%d of %d children ran before the joins, %d on the other worker",
	       seen_before_join, NCHILD, atomic_load(&elsewhere));
	for (int i = 0; i < NCHILD; i++) {
		int n = atomic_load(&ran[i]);

		EXPECT_EQ(1, n) {
			TH_LOG("child %d ran %d times", i, n);
		}
	}
	EXPECT_EQ(NCHILD, seen_before_join);
	EXPECT_EQ(NCHILD, atomic_load(&elsewhere));
	EXPECT_EQ(expect, joined);
	ASSERT_EQ(0, xs_runtime_stats(self->rt, &st));
	/* The blocker and every typed child ran on the thief. */
	EXPECT_GE(st.frames_taken, NCHILD + 1);
	EXPECT_GE(st.frames_stolen, NCHILD + 1);
}

TEST_HARNESS_MAIN
