// SPDX-License-Identifier: MIT
/*
 * A join of N public children, while the other worker steals them, writes
 * its deque's shared word (ts = head << 32 | split, libxsched/queue/deque.h, the
 * line its thieves CAS) far fewer than N times: it takes the public frames
 * back a share at a time, one CAS per share, and lowers ts once for the
 * run of taken frames at its pop-down (libxsched/queue/deque.c). Before, it
 * wrote ts once per frame it took back (a CAS) and once per taken frame
 * at the pop-down (a store): more than N writes for N public children.
 *
 * The producer spawns N children, publishes all of them (what a thief's
 * requests make it do) and joins; its first child holds the producer until
 * a sibling ran on the other worker (or 2 s passed), so the join meets a
 * thief. Asserted with counts: every child ran once (a checksum), children
 * started in spawn order on the producer, and the owner's ts writes
 * (xs_stats.ts_writes_owner) stay below N / 8.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"
#include "xs_test.h"

#define N 4096

static _Atomic uint64_t sum;
static _Atomic int on_other, owner_id = -1, last_on_owner = -1, out_of_order;

static void child(void *arg)
{
	int i = *(const int *)arg, me = xs_worker_id();
	volatile unsigned spin = 2000;

	atomic_fetch_add(&sum, (uint64_t)i + 1);
	if (me == atomic_load(&owner_id)) {
		/* Only the producer's worker writes last_on_owner. */
		if (atomic_load(&last_on_owner) >= i)
			atomic_fetch_add(&out_of_order, 1);
		atomic_store(&last_on_owner, i);
	} else {
		atomic_fetch_add(&on_other, 1);
	}
	for (int ms = 0; i == 0 && ms < 2000 && !atomic_load(&on_other); ms++) {
		struct timespec t = { 0, 1000000 };

		nanosleep(&t, NULL);
	}
	while (spin)
		spin--;
}

static void producer(void *arg)
{
	(void)arg;
	atomic_store(&owner_id, xs_worker_id());
	for (int i = 0; i < N; i++)
		xs_spawn(child, &i, sizeof i);
	/* Each publication moves the split over half of the private frames
	 * (rounded up): after log2(N) + 1 of them, all N are public. */
	for (int k = 0; k < 20; k++)
		xs_task_publish();
	xs_sync();
}

TEST(join_of_public_children_writes_ts_per_share)
{
	struct xs_runtime *rt;
	struct xs_stats st;

	setenv("XSCHED_DLB", "ws", 1);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, producer, NULL));
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	TH_LOG("%d of %d children on the other worker; ts writes: owner %llu, thieves %llu; "
	       "%llu publications", atomic_load(&on_other), N,
	       (unsigned long long)st.ts_writes_owner, (unsigned long long)st.ts_writes_thief,
	       (unsigned long long)st.publishes);
	EXPECT_EQ((uint64_t)N * (N + 1) / 2, atomic_load(&sum));
	EXPECT_EQ(0, atomic_load(&out_of_order));
	EXPECT_EQ((uint64_t)atomic_load(&on_other), st.frames_taken);
	EXPECT_LT(st.ts_writes_owner, (uint64_t)N / 8);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
