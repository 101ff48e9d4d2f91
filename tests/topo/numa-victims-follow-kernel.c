// SPDX-License-Identifier: MIT
/*
 * On the real machine (no synthetic sysfs root) the topology's nodes and
 * distances are the kernel's, and every victim row follows them: each
 * victim's class and weight are those the kernel's view gives (libnuma's
 * node of each CPU and SLIT distance, sysfs SMT siblings and last-level
 * cache; tests/numa-kernel-view.h reads them independently of
 * libxsched), and remote victims come nearest first by that distance.
 * make check-system runs this on guests with 2 and 4 NUMA nodes.
 */
#include "kselftest_harness.h"
#include "numa-kernel-view.h"

TEST(topology_nodes_are_the_kernels)
{
	struct xs_topology *t;

	if (numa_available() < 0)
		SKIP(return, "libnuma: this kernel has no NUMA support (numa_available() < 0)");
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	TH_LOG("%u CPUs on %u node(s) here", t->ncpus, t->nnodes);
	EXPECT_EQ(kv_cpu_nodes(), t->nnodes);
	for (uint32_t i = 0; i < t->ncpus; i++)
		EXPECT_EQ((uint32_t)numa_node_of_cpu((int)t->cpus[i].cpu),
			  t->node_ids[t->cpus[i].node]);
	for (uint32_t a = 0; a < t->nnodes; a++)
		for (uint32_t b = 0; b < t->nnodes; b++)
			EXPECT_EQ(numa_distance((int)t->node_ids[a], (int)t->node_ids[b]),
				  (int)t->distance[a][b]);
	xs_topology_free(t);
}

TEST(victim_rows_follow_the_kernels_view)
{
	uint32_t remote = 0;
	struct xs_topology *t;
	struct xs_victim_table *vt;

	if (numa_available() < 0)
		SKIP(return, "libnuma: this kernel has no NUMA support (numa_available() < 0)");
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	vt = xs_victim_table_build(t);
	ASSERT_NE(NULL, vt);
	ASSERT_EQ(0, xs_victim_table_check(vt));
	ASSERT_EQ(t->ncpus - 1, vt->row_len);
	for (uint32_t r = 0; r < t->ncpus; r++) {
		const struct xs_victim *row = xs_victim_row(vt, r);
		uint32_t me = t->cpus[r].cpu;
		int node = numa_node_of_cpu((int)me);

		for (uint32_t k = 0; k < vt->row_len; k++) {
			uint32_t v = t->cpus[row[k].cpu_index].cpu;

			ASSERT_EQ(kv_class(me, v), row[k].class) {
				TH_LOG("cpu%u's victim %u is cpu%u", me, k, v);
			}
			ASSERT_EQ(kv_weight(me, v), row[k].weight) {
				TH_LOG("cpu%u's victim %u is cpu%u", me, k, v);
			}
			remote += row[k].class == XS_VICTIM_REMOTE;
			if (!k)
				continue;
			ASSERT_LE(row[k - 1].class, row[k].class);
			if (row[k - 1].class == XS_VICTIM_REMOTE) {
				uint32_t u = t->cpus[row[k - 1].cpu_index].cpu;

				ASSERT_LE(numa_distance(node, numa_node_of_cpu((int)u)),
					  numa_distance(node, numa_node_of_cpu((int)v)));
			}
		}
	}
	/* more than one node: every row ends with the other nodes' CPUs */
	TH_LOG("%u remote victims in %u rows", remote, t->ncpus);
	if (t->nnodes > 1) {
		EXPECT_LT(0u, remote);
	} else {
		EXPECT_EQ(0u, remote);
	}
	xs_victim_table_free(vt);
	xs_topology_free(t);
}

TEST_HARNESS_MAIN
