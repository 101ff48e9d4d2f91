// SPDX-License-Identifier: MIT
/*
 * With 8 workers on 2 CPUs, many racing thieves, and each strategy (NA-WS,
 * NA-RP, auto, SLB; round-robin and local push), checksummed irregular task trees lose nothing and run
 * nothing twice: the count of nodes and the sum of leaf values match the
 * serial computation exactly, and the counters add up.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"
#include "checksum-tree.h"

/* Mostly narrow, 1 in 8 nodes has 9 children, tasks of 0..16k spins. */
static const struct tree_shape shape = {
	.wide_every = 8, .wide_fanout = 9, .spin_shift = 50, .wait_at_end = 1,
};

static void run_strategy(struct __test_metadata *_metadata, const char *dlb, const char *push)
{
	struct xs_runtime *rt;
	struct xs_stats st;

	setenv("XSCHED_DLB", dlb, 1);
	setenv("XSCHED_PUSH", push, 1);
	setenv("XSCHED_DLB_TIMEOUT", "8", 1);
	setenv("XSCHED_DLB_STEAL", "3", 1);
	rt = xs_runtime_create(8);
	ASSERT_NE(NULL, rt);
	for (uint64_t seed = 1; seed <= 12 / test_scale() + 1; seed++) {
		_Atomic uint64_t sum = 0, nodes = 0;
		uint64_t want_sum = 0, want_nodes = 0;
		struct tree root = { seed, 11, &shape, &sum, &nodes };

		tree_serial(&shape, seed, 11, &want_sum, &want_nodes);
		ASSERT_EQ(0, xs_runtime_run(rt, tree_node, &root));
		ASSERT_EQ(want_nodes, atomic_load(&nodes)) TH_LOG("XSCHED_DLB=%s", dlb);
		ASSERT_EQ(want_sum, atomic_load(&sum)) TH_LOG("XSCHED_DLB=%s", dlb);
	}
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	EXPECT_EQ(st.static_pushes, st.tasks_self + st.tasks_local + st.tasks_remote);
	EXPECT_LE(st.requests_handled, st.requests_sent);
	EXPECT_LE(st.requests_with_steal, st.requests_handled);
	TH_LOG("%s: %llu tasks, %llu requests, %llu served with tasks, %llu moved", dlb,
	       (unsigned long long)st.tasks_executed, (unsigned long long)st.requests_sent,
	       (unsigned long long)st.requests_with_steal,
	       (unsigned long long)(st.stolen_local + st.stolen_remote));
	xs_runtime_destroy(rt);
}

FIXTURE(runtime) {};
FIXTURE_SETUP(runtime) {}
FIXTURE_TEARDOWN(runtime) {}

TEST_F_TIMEOUT(runtime, work_stealing, 300) { run_strategy(_metadata, "ws", "rr"); }
TEST_F_TIMEOUT(runtime, redirect_push, 300) { run_strategy(_metadata, "rp", "rr"); }
TEST_F_TIMEOUT(runtime, automatic, 300) { run_strategy(_metadata, "auto", "rr"); }
TEST_F_TIMEOUT(runtime, static_only, 300) { run_strategy(_metadata, "slb", "rr"); }
TEST_F_TIMEOUT(runtime, work_stealing_local_push, 300) { run_strategy(_metadata, "ws", "local"); }
TEST_F_TIMEOUT(runtime, redirect_push_local_push, 300) { run_strategy(_metadata, "rp", "local"); }
TEST_F_TIMEOUT(runtime, automatic_local_push, 300) { run_strategy(_metadata, "auto", "local"); }

TEST_HARNESS_MAIN
