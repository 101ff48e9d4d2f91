// SPDX-License-Identifier: MIT
/*
 * Within a class the victim order rotates per thief, so that thieves do not
 * all hit the same victim first: same-LLC victims start right after the
 * thief itself, the CPUs of one node spread their first victim over the
 * CPUs of another node, and the nodes of one socket prefer different nodes
 * of the other socket when those are at equal distance.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "topology-test.h"

static struct xs_topology *load_spec(const char *spec)
{
	struct xs_topology *t;
	char root[PATH_MAX];

	if (xs_test_mksysfs(root, sizeof(root), spec))
		return NULL;
	t = xs_topology_load(root);
	xs_test_rmtree(root);
	return t;
}

TEST(llc_victims_start_after_the_thief)
{
	struct xs_topology *t = xs_topology_load(xs_test_src("tests/machines/2s2n4c"));
	struct xs_victim_table *vt;

	ASSERT_NE(NULL, t);
	vt = xs_victim_table_build(t);
	ASSERT_NE(NULL, vt);
	/* LLC {0,1,8,9}: cpu8 visits 9, 0, 1; cpu9 visits 0, 1, 8 */
	for (uint32_t r = 0; r < t->ncpus; r++) {
		const struct xs_victim *row = xs_victim_row(vt, r);
		uint32_t next = r, k;

		for (k = 0; k < 3; k++) {
			do
				next = (next + 1) % t->ncpus;
			while (t->cpus[next].llc != t->cpus[r].llc);
			EXPECT_EQ(next, row[k].cpu_index) {
				TH_LOG("cpu%u victim %u", t->cpus[r].cpu, k);
			}
		}
	}
	EXPECT_EQ(9u, t->cpus[xs_victim_row(vt, 8)[0].cpu_index].cpu);
	xs_victim_table_free(vt);
	xs_topology_free(t);
}

TEST(one_node_spreads_over_the_next)
{
	struct xs_topology *t = xs_topology_load(xs_test_src("tests/machines/2s2n4c"));
	struct xs_victim_table *vt;
	uint32_t first[4], cpus[4] = { 0, 1, 8, 9 };

	ASSERT_NE(NULL, t);
	vt = xs_victim_table_build(t);
	ASSERT_NE(NULL, vt);
	/* victims 3..6 of node0's CPUs are node1's; their first differ */
	for (int i = 0; i < 4; i++) {
		const struct xs_victim *row = xs_victim_row(vt, cpus[i]);

		ASSERT_EQ(XS_VICTIM_REMOTE, row[3].class);
		first[i] = t->cpus[row[3].cpu_index].cpu;
	}
	EXPECT_EQ(2u, first[0]);
	EXPECT_EQ(3u, first[1]);
	EXPECT_EQ(10u, first[2]);
	EXPECT_EQ(11u, first[3]);
	xs_victim_table_free(vt);
	xs_topology_free(t);
}

TEST(equal_distance_nodes_rotate)
{
	/* nodes 0,1 on socket 0; 2,3 on socket 1; all cross-socket at 21 */
	struct xs_topology *t = load_spec("--spec 2s2n2c --distance 10,12,21");
	struct xs_victim_table *vt;
	uint32_t want[4] = { 2, 3, 0, 1 }; /* first cross-socket node of nodes 0..3 */

	ASSERT_NE(NULL, t);
	vt = xs_victim_table_build(t);
	ASSERT_NE(NULL, vt);
	for (uint32_t r = 0; r < t->ncpus; r++) {
		const struct xs_victim *row = xs_victim_row(vt, r);
		uint32_t node = t->cpus[r].node;

		/* row: 1 same-node, 2 same-socket (12), then 4 at 21 */
		ASSERT_EQ(7u, vt->row_len);
		EXPECT_EQ(want[node], t->cpus[row[3].cpu_index].node) {
			TH_LOG("cpu%u of node%u", t->cpus[r].cpu, node);
		}
		EXPECT_EQ(row[3].weight, row[6].weight);
	}
	xs_victim_table_free(vt);
	xs_topology_free(t);
}

TEST_HARNESS_MAIN
