// SPDX-License-Identifier: MIT
/*
 * A task that spawns many more children than the deque's per-task bound
 * (XS_DEQUE_QUEUED, 16384) never has more than that many spawned and not
 * finished: at the bound its spawn runs the queued ones first (and waits
 * for those thieves took), so its frames take bounded memory however wide
 * the node. None of them runs "now" for lack of room, every child runs
 * exactly once, and on one worker they run in spawn order. Counters, not
 * time.
 */
#include <stdatomic.h>
#include <stdint.h>
#include "xsched.h"
#include "xs_test.h"

#define BOUND 16384	/* XS_DEQUE_QUEUED (libxsched/queue/deque.h) */
#define NCHILD (5 * BOUND + 123)

static _Atomic uint64_t finished;
static _Atomic uint64_t sum;
static uint64_t spawned, max_open;
static int errors;	/* failed spawns or waits */
static _Atomic int64_t out_of_order;
static _Atomic uint64_t next_expected;

static void child(void *arg)
{
	uint64_t i = *(uint64_t *)arg;

	/* One worker: child i must be the i-th to start. Relaxed: counts
	 * read after xs_runtime_run() returns (its barrier orders them). */
	if (atomic_fetch_add_explicit(&next_expected, 1, memory_order_relaxed) != i)
		atomic_fetch_add_explicit(&out_of_order, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&sum, i, memory_order_relaxed);
	/* Release: the parent's acquire load below sees the child done. */
	atomic_fetch_add_explicit(&finished, 1, memory_order_release);
}

static void root(void *arg)
{
	(void)arg;
	for (uint64_t i = 0; i < NCHILD; i++) {
		uint64_t open;

		if (xs_task_spawn(child, &i, sizeof i))
			errors++;
		spawned++;
		/* Acquire: pairs with the child's release increment. */
		open = spawned - atomic_load_explicit(&finished, memory_order_acquire);
		if (open > max_open)
			max_open = open;
	}
	if (xs_task_wait())
		errors++;
}

static void run(struct __test_metadata *_metadata, unsigned int nw)
{
	struct xs_runtime *rt;
	struct xs_stats st;

	setenv("XSCHED_DLB", "ws", 1);
	rt = xs_runtime_create(nw);
	ASSERT_NE(NULL, rt);
	atomic_store(&finished, 0);
	atomic_store(&sum, 0);
	atomic_store(&out_of_order, 0);
	atomic_store(&next_expected, 0);
	spawned = max_open = 0;
	errors = 0;
	ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	TH_LOG("%u workers: at most %llu children open, %llu frames taken by thieves", nw,
	       (unsigned long long)max_open, (unsigned long long)st.frames_taken);
	EXPECT_EQ(0, errors);
	EXPECT_EQ(NCHILD, atomic_load(&finished));
	EXPECT_EQ((uint64_t)NCHILD * (NCHILD - 1) / 2, atomic_load(&sum));
	/* The bound holds, and it is reached: the children were queued. */
	EXPECT_LE(max_open, BOUND);
	if (nw == 1) {
		EXPECT_EQ(BOUND, max_open);
		EXPECT_EQ(0, atomic_load(&out_of_order));
	}
	/* Every child a frame; none ran at once for lack of room. */
	EXPECT_EQ(0, st.immediate);
	EXPECT_EQ(NCHILD, st.static_pushes);
	xs_runtime_destroy(rt);
}

TEST(one_worker_runs_in_order_within_bound)
{
	run(_metadata, 1);
}

TEST(two_workers_stay_within_bound)
{
	run(_metadata, 2);
}

TEST(four_workers_stay_within_bound)
{
	run(_metadata, 4);
}

TEST_HARNESS_MAIN
