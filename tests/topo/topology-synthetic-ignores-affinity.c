// SPDX-License-Identifier: MIT
/*
 * A synthetic machine is not restricted by this process's affinity mask:
 * its CPU numbers are not this machine's. Pinned to one real CPU, the
 * process still sees every online synthetic CPU.
 */
#include <sched.h>

#include "kselftest_harness.h"
#include "topology-test.h"

TEST(pinned_process_sees_all_synthetic_cpus)
{
	struct xs_topology *topo;
	char root[PATH_MAX];
	cpu_set_t one;

	ASSERT_EQ(0, xs_test_mksysfs(root, sizeof(root), "--spec 2s2n4c"));
	CPU_ZERO(&one);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(one), &one));
	for (int c = 0, kept = 0; c < CPU_SETSIZE; c++) {
		if (CPU_ISSET(c, &one) && kept++)
			CPU_CLR(c, &one);
	}
	ASSERT_EQ(1, CPU_COUNT(&one));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));

	topo = xs_topology_load(root);
	xs_test_rmtree(root);
	ASSERT_NE(NULL, topo);
	EXPECT_EQ(16u, topo->ncpus);
	EXPECT_EQ(4u, topo->nnodes);
	xs_topology_free(topo);
}

TEST_HARNESS_MAIN
