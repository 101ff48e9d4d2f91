// SPDX-License-Identifier: MIT
/*
 * Typed tasks written in Lace's shape (xsched/task_typed.h: XS_SPAWN(),
 * XS_CALL(), XS_JOIN(), the deque and its top passed along): random trees
 * whose nodes spawn some children, call the last one and join the others
 * newest first give the serial checksum at 1..8 workers, repeatedly on one
 * runtime, also mixed with the other typed forms: a Lace-shaped body that
 * calls a task written with NAME_spawn()/NAME_join() (plain_node), and a
 * NAME_spawn() child whose body is Lace-shaped (each join then runs the
 * body with the top it popped to). Thieves take Lace-shaped frames too:
 * every node's value is in the sum exactly once.
 */
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"
#include <stdatomic.h>

#define MAX_FANOUT 4

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int fanout(uint64_t seed, int depth)
{
	return depth <= 0 ? 0 : (int)(mix(seed) % (MAX_FANOUT + 1));
}

/* The serial answer: every node's hash, summed. */
static uint64_t serial(uint64_t seed, int depth)
{
	uint64_t sum = mix(seed ^ 0x5555);

	for (int c = 0; c < fanout(seed, depth); c++)
		sum += serial(seed * 31 + (uint64_t)c + 1, depth - 1);
	return sum;
}

/* A Lace-shaped subtree: spawns all but the last child, calls it. */
XS_TASK_2(uint64_t, lace_sub, uint64_t, seed, int, depth)
{
	int k = fanout(seed, depth);
	uint64_t sum = mix(seed ^ 0x5555);

	if (!k)
		return sum;
	for (int c = 0; c < k - 1; c++)
		XS_SPAWN(lace_sub, seed * 31 + (uint64_t)c + 1, depth - 1);
	sum += XS_CALL(lace_sub, seed * 31 + (uint64_t)k, depth - 1);
	for (int c = 0; c < k - 1; c++)
		sum += XS_JOIN(lace_sub);
	return sum;
}

/* Written with NAME_spawn()/NAME_join(); its children are Lace-shaped. */
XS_TASK_2(uint64_t, plain_node, uint64_t, seed, int, depth)
{
	int k = fanout(seed, depth);
	uint64_t sum = mix(seed ^ 0x5555);

	for (int c = 0; c < k; c++)
		lace_sub_spawn(seed * 31 + (uint64_t)c + 1, depth - 1);
	while (k--)
		sum += lace_sub_join();
	return sum;
}

XS_TASK_2(uint64_t, lace_node, uint64_t, seed, int, depth)
{
	int k = fanout(seed, depth);
	uint64_t sum = mix(seed ^ 0x5555);

	if (!k)
		return sum;
	for (int c = 0; c < k - 1; c++)
		XS_SPAWN(lace_node, seed * 31 + (uint64_t)c + 1, depth - 1);
	/* The last child: every fourth node hands it to plain_node, a
	 * function call, as a task body calls any function. */
	if (seed % 4 == 0)
		sum += plain_node(seed * 31 + (uint64_t)k, depth - 1);
	else
		sum += XS_CALL(lace_node, seed * 31 + (uint64_t)k, depth - 1);
	for (int c = 0; c < k - 1; c++)
		sum += XS_JOIN(lace_node);
	return sum;
}

/* The same node with XS_TASK_0 and XS_VOID_TASK_1 shapes: no argument,
 * no result. */
static _Atomic uint64_t leaves;

XS_VOID_TASK_1(count_leaf, int, k)
{
	atomic_fetch_add_explicit(&leaves, (uint64_t)k, memory_order_relaxed);
}

XS_TASK_0(int, leaf_batch)
{
	for (int k = 1; k <= 8; k++)
		XS_SPAWN(count_leaf, k);
	for (int k = 1; k <= 8; k++)
		XS_JOIN(count_leaf);
	return 36;
}

struct run {
	uint64_t seed;
	int depth;
	uint64_t out;
	int batch;
};

static void root(void *p)
{
	struct run *r = p;

	r->out = lace_node(r->seed, r->depth);
	r->batch = leaf_batch();
}

FIXTURE(lace_shape) {};
FIXTURE_SETUP(lace_shape) {}
FIXTURE_TEARDOWN(lace_shape) {}

TEST_F_TIMEOUT(lace_shape, random_trees_all_worker_counts, 600)
{
	const int depth = test_scale() > 1 ? 10 : 14;
	const int reps = test_scale() > 1 ? 2 : 6;

	for (unsigned p = 1; p <= 8; p++) {
		struct xs_runtime *rt = xs_runtime_create(p);
		struct xs_stats st;

		ASSERT_NE(NULL, rt);
		for (int rep = 0; rep < reps; rep++) {
			struct run r = { mix(p * 100 + (unsigned)rep), depth, 0, 0 };
			uint64_t expect = serial(r.seed, depth);

			atomic_store(&leaves, 0);
			ASSERT_EQ(0, xs_runtime_run(rt, root, &r));
			ASSERT_EQ(expect, r.out);
			ASSERT_EQ(36, r.batch);
			ASSERT_EQ(36, atomic_load(&leaves));
		}
		ASSERT_EQ(0, xs_runtime_stats(rt, &st));
		TH_LOG("%u workers: %llu frames taken by thieves", p,
		       (unsigned long long)st.frames_taken);
		xs_runtime_destroy(rt);
	}
}

TEST_HARNESS_MAIN
