// SPDX-License-Identifier: MIT
/*
 * Eight workers on two CPUs run irregular task trees mixing deep
 * recursion, wide fan-out, tasks that wait and tasks that don't; the
 * checksum of every leaf's value and the count of every node must match
 * the serial computation exactly: no task lost, none run twice.
 */
#include <stdatomic.h>
#include <stdint.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"

struct tree {
	uint64_t seed;
	int depth;
	_Atomic uint64_t *sum;
	_Atomic uint64_t *nodes;
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int fanout_of(uint64_t r, int depth)
{
	if (depth <= 0)
		return 0;
	return (r % 16 == 0) ? 12 : (int)(r % 3); /* occasionally wide */
}

static void node(void *arg)
{
	struct tree *t = arg;
	uint64_t r = mix(t->seed);
	int fanout = fanout_of(r, t->depth);

	atomic_fetch_add_explicit(t->nodes, 1, memory_order_relaxed);
	if (!fanout)
		atomic_fetch_add_explicit(t->sum, r, memory_order_relaxed);
	for (int i = 0; i < fanout; i++) {
		struct tree c = { r ^ (uint64_t)(i + 1), t->depth - 1, t->sum, t->nodes };

		xs_task_spawn(node, &c, sizeof c);
		if ((r >> 8) % 4 == 0)
			xs_task_wait(); /* sometimes wait after each child */
	}
}

static void serial(uint64_t seed, int depth, uint64_t *sum, uint64_t *nodes)
{
	uint64_t r = mix(seed);
	int fanout = fanout_of(r, depth);

	(*nodes)++;
	if (!fanout)
		*sum += r;
	for (int i = 0; i < fanout; i++)
		serial(r ^ (uint64_t)(i + 1), depth - 1, sum, nodes);
}

FIXTURE(runtime) {};
FIXTURE_SETUP(runtime) {}
FIXTURE_TEARDOWN(runtime) {}

TEST_F_TIMEOUT(runtime, eight_workers_two_cpus, 300)
{
	struct xs_runtime *rt = xs_runtime_create(8);

	ASSERT_NE(NULL, rt);
	for (uint64_t seed = 1; seed <= 32 / test_scale(); seed++) {
		_Atomic uint64_t sum = 0, nodes = 0;
		uint64_t want_sum = 0, want_nodes = 0;
		struct tree root = { seed, 18, &sum, &nodes };

		serial(seed, 18, &want_sum, &want_nodes);
		ASSERT_EQ(0, xs_runtime_run(rt, node, &root));
		ASSERT_EQ(want_nodes, atomic_load(&nodes));
		ASSERT_EQ(want_sum, atomic_load(&sum));
	}
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
