// SPDX-License-Identifier: MIT
/*
 * A producer spawns children that each run 10 ms, then joins them, so it
 * runs them one after the other on its own stack and never polls anything
 * while one runs. The other worker must still get work: it takes public
 * frames without the producer's help, and a request it made while parked
 * (splitreq) is served at the producer's next spawn or join. The first
 * child of each round keeps the producer busy until the other worker has
 * started one of its siblings (or 2 s pass): without prompt steals that
 * never happens, whatever the machine's load. Asserted with counts:
 * children overlapped (two ran at once), the idle worker ran children in
 * every round, and the join found them stolen.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"
#include "xs_test.h"

#define NCHILD 16

static _Atomic int running, max_running, on_other, on_other_round;

static void spin_ms(long ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
}

static void child(void *arg)
{
	int now = atomic_fetch_add(&running, 1) + 1, seen = atomic_load(&max_running);
	int first = *(const int *)arg == 0;

	while (now > seen && !atomic_compare_exchange_weak(&max_running, &seen, now))
		;
	if (xs_worker_id() != 0) {
		atomic_fetch_add(&on_other, 1);
		atomic_fetch_add(&on_other_round, 1);
	}
	/* The first child runs on the producer (it is the oldest frame,
	 * but the join takes its own frames oldest first as well): it
	 * blocks the producer until a thief took a sibling. */
	for (int ms = 0; first && ms < 2000 && !atomic_load(&on_other_round); ms += 10)
		spin_ms(10);
	spin_ms(10);
	atomic_fetch_sub(&running, 1);
}

static void producer(void *arg)
{
	(void)arg;
	atomic_store(&on_other_round, 0);
	for (int i = 0; i < NCHILD; i++)
		xs_task_spawn(child, &i, sizeof i);
	xs_task_wait();
}

TEST(idle_worker_gets_frames_of_a_busy_producer)
{
	struct xs_runtime *rt;
	struct xs_stats st;

	setenv("XSCHED_DLB", "ws", 1);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	for (int round = 0; round < 3; round++)
		ASSERT_EQ(0, xs_runtime_run(rt, producer, NULL));
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	TH_LOG("worker 1 ran %d of %d; %llu frames taken, %llu publications",
	       atomic_load(&on_other), 3 * NCHILD, (unsigned long long)st.frames_taken,
	       (unsigned long long)st.publishes);
	EXPECT_EQ(2, atomic_load(&max_running));
	EXPECT_GE(atomic_load(&on_other), 3);
	EXPECT_EQ((uint64_t)atomic_load(&on_other), st.frames_taken);
	EXPECT_GE(st.frames_stolen, st.frames_taken);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
