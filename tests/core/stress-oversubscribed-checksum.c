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
#include "checksum-tree.h"

/* 1 in 16 nodes has 12 children; a quarter of the nodes wait after each
 * child, the others leave the join to the end of the task. */
static const struct tree_shape shape = {
	.wide_every = 16, .wide_fanout = 12, .wait_each_mod = 4,
};

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
		struct tree root = { seed, 18, &shape, &sum, &nodes };

		tree_serial(&shape, seed, 18, &want_sum, &want_nodes);
		ASSERT_EQ(0, xs_runtime_run(rt, tree_node, &root));
		ASSERT_EQ(want_nodes, atomic_load(&nodes));
		ASSERT_EQ(want_sum, atomic_load(&sum));
	}
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
