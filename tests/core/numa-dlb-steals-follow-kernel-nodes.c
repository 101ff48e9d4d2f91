// SPDX-License-Identifier: MIT
/*
 * NUMA-aware stealing on the real machine's nodes (no synthetic sysfs
 * root): with two workers per CPU and one heavy worker, XSCHED_DLB_LOCAL=
 * 100 keeps every steal on the thief's node (as the kernel numbers nodes)
 * and 0 sends every steal to another node, for NA-WS and NA-RP. Needs at
 * least two NUMA nodes: make check-system runs it on guests with 2 and 4.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "numa-kernel-view.h"
#include "dlb-imbalance.h"

/* Runs the job; false when the test was skipped or failed already. */
static bool steals_with(struct __test_metadata *_metadata, const char *dlb,
			const char *local, struct xs_stats *st)
{
	struct xs_topology *t;
	struct imbalance im = { 400, 0, 1u << 1, 100 * 1000 };

	if (numa_available() < 0)
		SKIP(return false, "libnuma: this kernel has no NUMA support (numa_available() < 0)");
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	im.nworkers = (int)(2 * t->ncpus > 32 ? 32 : 2 * t->ncpus);
	xs_topology_free(t);
	if (kv_cpu_nodes() < 2)
		SKIP(return false, "one NUMA node with CPUs here: no steal can cross nodes "
				   "(make check-system boots 2 and 4)");
	unsetenv("XSCHED_SYSFS_ROOT");
	setenv("XSCHED_DLB_LOCAL", local, 1);
	ASSERT_EQ(0, imbalance_measure(dlb, &im, st));
	TH_LOG("%s P=%s, %d workers on %u nodes: %llu requests, stolen local %llu remote %llu",
	       dlb, local, im.nworkers, kv_cpu_nodes(), (unsigned long long)st->requests_sent,
	       (unsigned long long)st->stolen_local, (unsigned long long)st->stolen_remote);
	return true;
}

TEST(ws_local_only)
{
	struct xs_stats st = { 0 };

	if (!steals_with(_metadata, "ws", "100", &st))
		return;
	EXPECT_GT(st.stolen_local, 0);
	EXPECT_EQ(0, st.stolen_remote);
}

TEST(ws_remote_only)
{
	struct xs_stats st = { 0 };

	if (!steals_with(_metadata, "ws", "0", &st))
		return;
	EXPECT_GT(st.stolen_remote, 0);
	EXPECT_EQ(0, st.stolen_local);
}

TEST(rp_local_only)
{
	struct xs_stats st = { 0 };

	if (!steals_with(_metadata, "rp", "100", &st))
		return;
	EXPECT_GT(st.requests_handled, 0);
	EXPECT_EQ(0, st.stolen_remote);
}

TEST(rp_remote_only)
{
	struct xs_stats st = { 0 };

	if (!steals_with(_metadata, "rp", "0", &st))
		return;
	EXPECT_GT(st.requests_handled, 0);
	EXPECT_EQ(0, st.stolen_local);
}

TEST_HARNESS_MAIN
