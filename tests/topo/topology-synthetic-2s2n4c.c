// SPDX-License-Identifier: MIT
/*
 * The hand-written machine tests/machines/2s2n4c (not made by our own
 * writer) loads as what its README says: interleaved CPU numbers, sparse
 * node numbers, a memory-only node (listed apart from the nodes with CPUs),
 * an offline CPU and an asymmetric SLIT.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "topology-test.h"

FIXTURE(m2s2n4c) {
	struct xs_topology *topo;
};

FIXTURE_SETUP(m2s2n4c)
{
	self->topo = xs_topology_load(xs_test_src("tests/machines/2s2n4c"));
	ASSERT_NE(NULL, self->topo) {
		TH_LOG("cannot load %s", xs_test_src("tests/machines/2s2n4c"));
	}
}

FIXTURE_TEARDOWN(m2s2n4c)
{
	xs_topology_free(self->topo);
}

/* sysfs node number of each CPU 0..15 */
static const uint32_t node_of_cpu[16] = { 0, 0, 1, 1, 4, 4, 5, 5, 0, 0, 1, 1, 4, 4, 5, 5 };

TEST_F(m2s2n4c, counts_exclude_offline_cpu_and_memory_only_node)
{
	EXPECT_EQ(16u, self->topo->ncpus);
	EXPECT_EQ(4u, self->topo->nnodes);
	EXPECT_EQ(2u, self->topo->npackages);
	EXPECT_EQ(16u, self->topo->ncores);
	EXPECT_EQ(4u, self->topo->nllcs);
	EXPECT_EQ(-1, xs_topology_cpu_index(self->topo, 16));
	EXPECT_STREQ(xs_test_src("tests/machines/2s2n4c"), self->topo->source);
}

TEST_F(m2s2n4c, sparse_node_numbers_map_to_indexes)
{
	static const uint32_t ids[4] = { 0, 1, 4, 5 };

	for (int i = 0; i < 4; i++)
		EXPECT_EQ(ids[i], self->topo->node_ids[i]);
}

TEST_F(m2s2n4c, node_package_and_llc_of_each_cpu)
{
	const struct xs_topology *t = self->topo;

	for (uint32_t cpu = 0; cpu < 16; cpu++) {
		int i = xs_topology_cpu_index(t, cpu);
		const struct xs_cpu_info *c;

		ASSERT_EQ((int)cpu, i);
		c = &t->cpus[i];
		EXPECT_EQ(cpu, c->cpu);
		EXPECT_EQ(node_of_cpu[cpu], t->node_ids[c->node]) {
			TH_LOG("cpu%u", cpu);
		}
		EXPECT_EQ(node_of_cpu[cpu] >= 4 ? 1u : 0u, c->package);
		EXPECT_EQ((cpu % 4 + cpu / 8 * 4) * 2, c->core);
		EXPECT_EQ(i, (int)c->core_group); /* no SMT: one CPU per core */
		/* one L3 per node: LLC groups are the nodes, numbered by lowest CPU */
		EXPECT_EQ(c->node, c->llc);
	}
}

TEST_F(m2s2n4c, asymmetric_distance_rows)
{
	/* rows and columns: nodes 0, 1, 4, 5 (node6's column dropped) */
	static const uint8_t want[4][4] = {
		{ 10, 12, 20, 22 },
		{ 13, 10, 22, 20 },
		{ 21, 23, 10, 12 },
		{ 23, 21, 13, 10 },
	};

	for (int a = 0; a < 4; a++) {
		for (int b = 0; b < 4; b++) {
			EXPECT_EQ(want[a][b], self->topo->distance[a][b]) {
				TH_LOG("distance[%d][%d]", a, b);
			}
		}
	}
}

/* node6 holds memory and no CPU: listed apart, where memory can go */
TEST_F(m2s2n4c, memory_only_node_listed_apart)
{
	ASSERT_EQ(1u, self->topo->nother_nodes);
	EXPECT_EQ(6u, self->topo->other_node_ids[0]);
	EXPECT_EQ(1u, self->topo->nkinds);
	for (uint32_t i = 0; i < self->topo->ncpus; i++)
		EXPECT_EQ(0u, self->topo->cpus[i].kind);
}

TEST_HARNESS_MAIN
