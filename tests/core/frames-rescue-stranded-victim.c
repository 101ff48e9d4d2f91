// SPDX-License-Identifier: MIT
/*
 * A worker spawns children (private frames: nobody asked it to publish)
 * (while the other worker runs a task that waits for the spawns to end)
 * and is then stranded before its join: asleep in a syscall (a stopped
 * thread, as far as the deque can tell: SIGSTOP stops every thread of a
 * process, so the test stops one thread this way), or spinning in one
 * long task at SCHED_IDLE on a CPU where a pinned hog runs. Its children
 * must still run, on the other worker, while it is stranded: the thief
 * finds its splitreq unanswered for XSCHED_RESCUE_US and publishes the
 * frames for it (libxsched/core/deque_rescue.c). Without the rescue the
 * victim waits its 10 s out and the test fails. Asserted with counts:
 * every child ran exactly once, all of them on the other worker, before
 * the victim's join, and the sum of their values.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"
#include "xs_test.h"

#define NCHILD 32
#include "rescue-blocker.h"
#define WAIT_MS 10000

static _Atomic int hog_stop;
static int mode, seen_before_join;

enum { SLEEP, SPIN };

static void victim(void *arg)
{
	struct timespec t0;

	(void)arg;
	xs_spawn(rescue_blocker, &mode, sizeof mode);
	xs_task_publish();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!atomic_load(&blocker_started) && elapsed_ms(&t0) < WAIT_MS)
		;
	for (int i = 0; i < NCHILD; i++)
		xs_spawn(rescue_child, &i, sizeof i);
	atomic_store(&spawned, 1);
	/* Stranded: no spawn, no join, so no splitreq is served. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (atomic_load(&finished) < NCHILD && elapsed_ms(&t0) < WAIT_MS) {
		if (mode == SLEEP) {
			struct timespec ms = { 0, 1000000 };

			nanosleep(&ms, NULL);
		}
	}
	seen_before_join = atomic_load(&finished);
	xs_sync();
}

static void *hog(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&hog_stop, memory_order_relaxed))
		;
	return NULL;
}

static void reset(void)
{
	for (int i = 0; i < NCHILD; i++)
		atomic_store(&ran[i], 0);
	atomic_store(&elsewhere, 0);
	atomic_store(&finished, 0);
	atomic_store(&sum, 0);
	atomic_store(&blocker_started, 0);
	atomic_store(&spawned, 0);
	seen_before_join = 0;
}

static uint64_t expected_sum(void)
{
	uint64_t s = 0;

	for (int i = 0; i < NCHILD; i++)
		s += (uint64_t)(i + 1) * 1000003u;
	return s;
}

FIXTURE(rescue) {
	struct xs_runtime *rt;
};

FIXTURE_SETUP(rescue)
{
	setenv("XSCHED_DLB", "ws", 1);
	setenv("XSCHED_DAEMON", "off", 1); /* the missed-poll detector */
	setenv("XSCHED_RESCUE_US", "1000", 1);
	reset();
	self->rt = xs_runtime_create(2);
	ASSERT_NE(NULL, self->rt);
}

FIXTURE_TEARDOWN(rescue)
{
	xs_runtime_destroy(self->rt);
}

static void check_rescued(struct __test_metadata *_metadata)
{
	TH_LOG("%d of %d children ran before the join, %d on the other worker",
	       seen_before_join, NCHILD, atomic_load(&elsewhere));
	for (int i = 0; i < NCHILD; i++) {
		int n = atomic_load(&ran[i]);

		EXPECT_EQ(1, n) {
			TH_LOG("child %d ran %d times", i, n);
		}
	}
	EXPECT_EQ(expected_sum(), atomic_load(&sum));
	EXPECT_EQ(NCHILD, seen_before_join);
	EXPECT_EQ(NCHILD, atomic_load(&elsewhere));
}

TEST_F_TIMEOUT(rescue, sleeping_victim_frames_run_elsewhere, 60)
{
	mode = SLEEP;
	ASSERT_EQ(0, xs_runtime_run(self->rt, victim, NULL));
	check_rescued(_metadata);
}

/* The job's root runs on the calling thread (worker 0): pin it and a hog
 * to one CPU, the victim at SCHED_IDLE, so that it barely runs. */
TEST_F_TIMEOUT(rescue, hogged_victim_frames_run_elsewhere, 60)
{
	struct sched_param none = { 0 };
	cpu_set_t all, one;
	pthread_t h;
	pthread_attr_t a;
	int cpu = -1;

	ASSERT_EQ(0, sched_getaffinity(0, sizeof all, &all));
	if (CPU_COUNT(&all) < 2)
		SKIP(return, "needs 2 CPUs (the hog's and the thief's), has %d", CPU_COUNT(&all));
	for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
		if (CPU_ISSET(c, &all))
			cpu = c;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ASSERT_EQ(0, pthread_attr_init(&a));
	ASSERT_EQ(0, pthread_attr_setaffinity_np(&a, sizeof one, &one));
	ASSERT_EQ(0, pthread_create(&h, &a, hog, NULL));
	pthread_attr_destroy(&a); /* its CPU set is malloc'ed (LSan) */
	ASSERT_EQ(0, pthread_setaffinity_np(pthread_self(), sizeof one, &one));
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_IDLE, &none));
	mode = SPIN;
	EXPECT_EQ(0, xs_runtime_run(self->rt, victim, NULL));
	atomic_store(&hog_stop, 1);
	pthread_join(h, NULL);
	check_rescued(_metadata);
}

TEST_HARNESS_MAIN
