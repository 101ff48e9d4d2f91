// SPDX-License-Identifier: MIT
/*
 * Under an affinity schedule every iteration runs exactly once, with parts
 * of any size (one empty), a granule that does not divide n, and a slow
 * worker whose dynamic tail the others take over: the hybrid tail is kept.
 * Runs of consecutive logical threads in the planned order come as one
 * chunk. Run under ThreadSanitizer too (the claims race on span words).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"
#include "affinity/affinity.h"
#include "xs_test.h"

#define N 1000
#define G 3
#define NT ((N + G - 1) / G)

static _Atomic uint32_t hits[N];
static _Atomic int ran_by[N];
static _Atomic int slept;

static void body(void *arg, int64_t first, uint64_t count)
{
	int me = xs_worker_id();

	(void)arg;
	if (me == 0 && !atomic_exchange(&slept, 1)) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };

		nanosleep(&ts, NULL);
	}
	for (uint64_t k = 0; k < count; k++) {
		atomic_fetch_add(&hits[first + (int64_t)k], 1);
		atomic_store(&ran_by[first + (int64_t)k], me);
	}
}

TEST(every_iteration_once_tail_helped)
{
	static uint32_t order[NT], start[5];
	struct xs_loop_sched s = { .kind = XS_LOOP_AFFINITY, .ns = 2, .nd = 8, .grain = 50 };
	struct xs_affinity_map m = { .n = N, .granule = G, .nthreads = NT, .nworkers = 4,
				     .start = start, .order = order };
	struct xs_runtime *rt = xs_runtime_create(4);
	struct xs_aff_machine mach;
	uint32_t helped = 0;
	char why[128];

	ASSERT_NE(NULL, rt);
	/* Runs of 5 consecutive threads, the runs in a scrambled order. */
	for (uint32_t i = 0; i < NT; i++)
		order[i] = i;
	for (uint32_t r = 0; r + 10 <= NT; r += 10)
		for (uint32_t i = 0; i < 5; i++) {
			uint32_t t = order[r + i];

			order[r + i] = order[r + 5 + i];
			order[r + 5 + i] = t;
		}
	start[0] = 0;
	start[1] = 200;  /* worker 0: the slow one, the biggest part */
	start[2] = 300;
	start[3] = NT;   /* worker 3: nothing planned */
	start[4] = NT;
	ASSERT_EQ(0, xs_affinity_map_check(&m, why, sizeof(why))) TH_LOG("%s", why);
	ASSERT_EQ(0, xs_aff_machine_from_runtime(rt, &mach));
	m.machine = mach.hash;
	xs_aff_machine_free(&mach);
	xs_affinity_override(&m);
	ASSERT_EQ(0, xs_parallel_for(rt, 0, N, 1, &s, body, NULL));
	xs_affinity_override(NULL);
	for (int i = 0; i < N; i++) {
		ASSERT_EQ(1u, atomic_load(&hits[i])) TH_LOG("iteration %d", i);
	}
	/* Worker 0's part ends in 8 dynamic tasks; it slept 200 ms in its
	 * first chunk, so others ran some of its part. */
	for (uint32_t p = 0; p < 200; p++)
		for (uint32_t i = order[p] * G; i < order[p] * G + G && i < N; i++)
			helped += atomic_load(&ran_by[i]) != 0;
	EXPECT_GT(helped, 0);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
