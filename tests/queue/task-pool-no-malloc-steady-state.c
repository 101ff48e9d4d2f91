// SPDX-License-Identifier: MIT
/*
 * Ten million tasks, spawned and completed across workers, take task
 * descriptors from the per-worker pools: after warm-up, no malloc at all.
 * Warm-up runs until the pools have stopped growing: a worker's descriptors
 * sit in the N queues it produces into (N x Q slots) or are running, so the
 * slab count converges to its high-water mark, which a loaded machine (slow
 * thieves, late remote frees) reaches later than a quiet one.
 * malloc is interposed by this program (it is defined here, so the
 * library's calls bind to it) and counted. Sanitizers interpose malloc
 * themselves; under them only the pool's own slab count is checked.
 */
#include <stdatomic.h>
#include <stddef.h>
#include "xsched.h"
#include "xs_test.h"

#include "test-scale.h"

static _Atomic long allocations;

#ifndef XS_TEST_SANITIZED

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

void *malloc(size_t n)
{
	atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t m)
{
	atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
	return __libc_calloc(n, m);
}

void *realloc(void *p, size_t n)
{
	atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
	return __libc_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
	return __libc_memalign(align, n);
}
#endif /* !XS_TEST_SANITIZED */

/* ROUNDS * FANOUT = 10^7 tasks. Few, wide rounds: each round starts and
 * ends a job, whose waits are what a loaded machine stretches (10^4 rounds
 * of 10^3 hit the harness's 30 s beside two busy fuzzers). */
#define FANOUT 10000
#define ROUNDS 1000

static _Atomic long executed;

static void leaf(void *arg)
{
	(void)arg;
	atomic_fetch_add_explicit(&executed, 1, memory_order_relaxed);
}

FIXTURE(pool) {};
FIXTURE_SETUP(pool) {}
FIXTURE_TEARDOWN(pool) {}

static void round_root(void *arg)
{
	(void)arg;
	for (int i = 0; i < FANOUT; i++)
		xs_task_spawn(leaf, &i, sizeof i);
	xs_task_wait();
}

TEST_F_TIMEOUT(pool, ten_million_tasks_no_malloc, 300)
{
	struct xs_runtime *rt = xs_runtime_create(3);
	struct xs_stats st;
	struct xs_stats warm;
	uint64_t prev_slabs = 0, bound;
	long before;

	ASSERT_NE(NULL, rt);
	/* Warm-up: until the pools have not grown for 100 rounds. */
	for (int r = 0, stable = 0; r < 2000 && stable < 100; r++) {
		uint64_t slabs;

		ASSERT_EQ(0, xs_runtime_run(rt, round_root, NULL));
		ASSERT_EQ(0, xs_runtime_stats(rt, &warm));
		slabs = warm.slabs_allocated;
		stable = r && slabs == prev_slabs ? stable + 1 : 0;
		prev_slabs = slabs;
	}
	ASSERT_EQ(0, xs_runtime_stats(rt, &warm));
	before = atomic_load(&allocations);
	atomic_store(&executed, 0);
	for (int r = 0; r < ROUNDS; r++)
		ASSERT_EQ(0, xs_runtime_run(rt, round_root, NULL));
	EXPECT_EQ(0, atomic_load(&allocations) - before);
	EXPECT_EQ((long)ROUNDS * FANOUT, atomic_load(&executed));
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	/* Descriptors came from the pools: no slab after warm-up... */
	EXPECT_EQ(warm.slabs_allocated, st.slabs_allocated);
	EXPECT_LT(st.slabs_allocated, 100);
	/* ...and the pools are within XQueue's bound: 3 workers x (3 queues x
	 * 256 slots / 256 per slab + 2 for running and returning ones). */
	bound = 3 * (3 * 256 / 256 + 2);
	EXPECT_LE(st.slabs_allocated, bound);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
