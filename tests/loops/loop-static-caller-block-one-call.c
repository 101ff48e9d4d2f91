// SPDX-License-Identifier: MIT
/*
 * Static block loops take their blocks in the loop word and cut only the
 * helpers' blocks into pieces (libxsched/loops/loop.c, "Static block
 * loops"): the caller runs its own block, the first, in one call, and
 * every block a helper does not take (late, switched out: 5 workers on
 * this machine's CPUs) is taken and run by the caller or another helper.
 * The pieces words are never reset between loops, only stamped with the
 * loop's number, so loops of different sizes follow one another, with a
 * hybrid loop (claim words, the same slots) every seventh. Asserted, loop
 * by loop: every iteration ran exactly once, and in static loops the
 * caller's block was one call on worker 0; also with 17 workers (the most
 * whose blocks the word holds) and 18 (claim words, every iteration once). Before, every block was four
 * claimable pieces, the caller's too (four calls, some on helpers); a
 * pieces word read as empty in the next loop leaves iterations unrun.
 */
#include <stdatomic.h>
#include <stdint.h>
#include "xsched.h"
#include "xs_test.h"

#define LOOPS 2000
#define NMAX 5003

static _Atomic uint32_t hits[NMAX];
static _Atomic int first_calls, first_worker;
static _Atomic uint64_t first_count;

static void body(void *arg, int64_t first, uint64_t count)
{
	(void)arg;
	if (first == 0) {
		atomic_fetch_add(&first_calls, 1);
		atomic_store(&first_worker, xs_worker_id());
		atomic_store(&first_count, count);
	}
	for (uint64_t i = 0; i < count; i++)
		atomic_fetch_add_explicit(&hits[first + (int64_t)i], 1, memory_order_relaxed);
}

/* @workers: block loops up to 17 (XS_LOOP_BLOCKS_MAX helpers), claim
 * words beyond, where the caller's block is pieces (@one_call false). */
static void run_loops(struct __test_metadata *_metadata, uint32_t workers, int loops,
		      bool one_call)
{
	static const int64_t sizes[] = { 1, 3, 5, 64, 256, 4096, 5003, 17 };
	const struct xs_loop_sched st = { .kind = XS_LOOP_STATIC };
	const struct xs_loop_sched hy = { .kind = XS_LOOP_HYBRID, .ns = 2, .nd = 4, .grain = 50 };
	struct xs_runtime *rt = xs_runtime_create(workers);

	ASSERT_NE(NULL, rt);
	for (int k = 0; k < loops; k++) {
		int64_t n = sizes[k % (int)(sizeof(sizes) / sizeof(sizes[0]))];
		bool is_static = k % 7 != 6;
		int64_t len0 = n / workers + (n % workers != 0);

		for (int64_t i = 0; i < n; i++)
			atomic_store(&hits[i], 0);
		atomic_store(&first_calls, 0);
		ASSERT_EQ(0, xs_parallel_for(rt, 0, n, 1, is_static ? &st : &hy, body, NULL));
		for (int64_t i = 0; i < n; i++)
			if (atomic_load(&hits[i]) != 1) {
				TH_LOG("loop %d (n %lld, %s): iteration %lld ran %u times", k,
				       (long long)n, is_static ? "static" : "hybrid", (long long)i,
				       atomic_load(&hits[i]));
				ASSERT_EQ(1, atomic_load(&hits[i]));
			}
		if (!is_static || !one_call)
			continue;
		ASSERT_EQ(1, atomic_load(&first_calls));
		ASSERT_EQ(0, atomic_load(&first_worker));
		ASSERT_EQ((uint64_t)len0, atomic_load(&first_count));
	}
	xs_runtime_destroy(rt);
}

TEST(caller_block_one_call_every_iteration_once)
{
	run_loops(_metadata, 5, LOOPS, true);
}

TEST(most_helpers_and_past_them)
{
	run_loops(_metadata, 17, LOOPS / 4, true);
	run_loops(_metadata, 18, LOOPS / 4, false);
}

TEST_HARNESS_MAIN
