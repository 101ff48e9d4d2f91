// SPDX-License-Identifier: MIT
/*
 * xsched-affinity plan partitions along the machine: on a synthetic
 * machine of 2 nodes x 2 LLCs x 2 cores (XSCHED_SYSFS_ROOT), the planted
 * graph (affinity-planted.h: 8 tight groups of 12 logical threads, linked
 * in pairs and in fours, scattered over the ids) gets each group on one
 * worker, every group on its own worker, pairs on one LLC and fours on one
 * node; the schedule names that machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "affinity/affinity.h"
#include "topology-test.h"
#include "xs_test.h"

#include "affinity-planted.h"

TEST(groups_follow_nodes_and_llcs)
{
	char root[PATH_MAX], dir[] = "/tmp/xsched-affinity-plan-XXXXXX", cmd[8 * PATH_MAX];
	char graph[128], sched[128];
	const char *build = getenv("XS_BUILDDIR");
	struct xs_aff_machine mach;
	struct xs_affinity_map m;
	struct xs_topology *topo;
	uint32_t owner[T], gw[GROUPS];

	if (!build || !*build)
		build = "build";
	snprintf(cmd, sizeof(cmd), "%s/xsched-affinity", build);
	if (access(cmd, X_OK))
		SKIP(return, "%.200s not built", cmd);
	ASSERT_EQ(0, xs_test_mksysfs(root, sizeof(root), "--spec 1s2n4c --llc-per-node 2"));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(graph, sizeof(graph), "%s/graph", dir);
	snprintf(sched, sizeof(sched), "%s/schedule", dir);
	planted(graph);
	snprintf(cmd, sizeof(cmd), "XSCHED_SYSFS_ROOT='%s' XSCHED_BIND=compact "
		 "'%s/xsched-affinity' plan '%s' -o '%s' --workers 8 --dense-ratio 1 >/dev/null",
		 root, build, graph, sched);
	ASSERT_EQ(0, system(cmd));
	ASSERT_EQ(0, xs_affinity_map_read(sched, &m));
	topo = xs_topology_load(root);
	ASSERT_NE(NULL, topo);
	ASSERT_EQ(2, topo->nnodes);
	ASSERT_EQ(4, topo->nllcs);
	ASSERT_EQ(0, xs_aff_machine_from_topology(topo, XS_BIND_COMPACT, 8, &mach));
	EXPECT_EQ(mach.hash, m.machine);
	ASSERT_EQ(8, m.nworkers);
	for (uint32_t w = 0; w < m.nworkers; w++)
		for (uint32_t p = m.start[w]; p < m.start[w + 1]; p++)
			owner[m.order[p]] = w;
	EXPECT_FALSE(m.identity);
	for (uint32_t g = 0; g < GROUPS; g++) {
		gw[g] = owner[id_of(g * PER)];
		for (uint32_t i = 1; i < PER; i++) {
			EXPECT_EQ(gw[g], owner[id_of(g * PER + i)]) TH_LOG("group %u split", g);
		}
		for (uint32_t h = 0; h < g; h++) {
			EXPECT_NE(gw[h], gw[g]) TH_LOG("groups %u and %u share a worker", h, g);
		}
	}
	for (uint32_t a = 0; a < GROUPS / 2; a++) {
		EXPECT_EQ(mach.llc[gw[2 * a]], mach.llc[gw[2 * a + 1]]) TH_LOG("pair %u", a);
	}
	for (uint32_t b = 0; b < GROUPS / 4; b++) {
		for (uint32_t g = 4 * b + 1; g < 4 * b + 4; g++) {
			EXPECT_EQ(mach.node[gw[4 * b]], mach.node[gw[g]]) TH_LOG("four %u", b);
		}
	}
	xs_aff_machine_free(&mach);
	xs_affinity_map_free(&m);
	xs_topology_free(topo);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", dir, root);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
