// SPDX-License-Identifier: MIT
/*
 * Every victim row lists all other CPUs once, nearest first: SMT sibling,
 * then same LLC, then same node, then other nodes by increasing SLIT
 * distance (from the thief's node: the SLIT may be asymmetric), with
 * weights that never increase along the row and follow the documented
 * formula 10240 / cost (SMT 2, LLC 5, NODE 10, REMOTE max(distance, 11)).
 */
#include <string.h>

#include "kselftest_harness.h"
#include "topology-test.h"

/* The class the row must give @v from @r, from the topology alone. */
static uint16_t want_class(const struct xs_topology *t, uint32_t r, uint32_t v)
{
	const struct xs_cpu_info *a = &t->cpus[r], *b = &t->cpus[v];

	if (a->node != b->node)
		return XS_VICTIM_REMOTE;
	if (a->core_group == b->core_group)
		return XS_VICTIM_SMT;
	return a->llc == b->llc ? XS_VICTIM_LLC : XS_VICTIM_NODE;
}

static uint16_t want_weight(const struct xs_topology *t, uint32_t r, uint32_t v)
{
	static const uint32_t cost[] = { 2, 5, 10 };
	uint16_t cls = want_class(t, r, v);
	uint32_t d = t->distance[t->cpus[r].node][t->cpus[v].node];

	if (cls != XS_VICTIM_REMOTE)
		return (uint16_t)(10240 / cost[cls]);
	return (uint16_t)(10240 / (d < 11 ? 11 : d));
}

static void check_rows(struct __test_metadata *_metadata, const struct xs_topology *t,
		       const struct xs_victim_table *vt)
{
	ASSERT_EQ(t->ncpus, vt->ncpus);
	ASSERT_EQ(t->ncpus - 1, vt->row_len);
	for (uint32_t r = 0; r < t->ncpus; r++) {
		const struct xs_victim *row = xs_victim_row(vt, r);
		uint8_t seen[XS_MAX_CPUS] = { 0 };

		for (uint32_t k = 0; k < vt->row_len; k++) {
			uint32_t v = row[k].cpu_index;

			ASSERT_LT(v, t->ncpus);
			ASSERT_NE(r, v);
			ASSERT_EQ(0, seen[v]++);
			ASSERT_EQ(want_class(t, r, v), row[k].class) {
				TH_LOG("row %u victim %u", r, v);
			}
			ASSERT_EQ(want_weight(t, r, v), row[k].weight);
			if (!k)
				continue;
			ASSERT_LE(row[k - 1].class, row[k].class);
			ASSERT_GE(row[k - 1].weight, row[k].weight);
			if (row[k].class == XS_VICTIM_REMOTE && row[k - 1].class == XS_VICTIM_REMOTE) {
				uint32_t n = t->cpus[r].node;

				ASSERT_LE(t->distance[n][t->cpus[row[k - 1].cpu_index].node],
					  t->distance[n][t->cpus[v].node]);
			}
		}
	}
}

/* sysfs node number of each victim of @cpu, in row order */
static void victim_nodes(const struct xs_topology *t, const struct xs_victim_table *vt,
			 uint32_t cpu, uint32_t *out)
{
	const struct xs_victim *row = xs_victim_row(vt, (uint32_t)xs_topology_cpu_index(t, cpu));

	for (uint32_t k = 0; k < vt->row_len; k++)
		out[k] = t->node_ids[t->cpus[row[k].cpu_index].node];
}

TEST(hand_written_asymmetric_machine)
{
	/* thief cpu -> sysfs node of its 15 victims; rows follow the thief's
	 * own SLIT row, e.g. node1 goes 0 (13) < 5 (20) < 4 (22) */
	static const struct { uint32_t cpu; uint32_t nodes[15]; } want[] = {
		{ 0, { 0, 0, 0, 1, 1, 1, 1, 4, 4, 4, 4, 5, 5, 5, 5 } },
		{ 2, { 1, 1, 1, 0, 0, 0, 0, 5, 5, 5, 5, 4, 4, 4, 4 } },
		{ 12, { 4, 4, 4, 5, 5, 5, 5, 0, 0, 0, 0, 1, 1, 1, 1 } },
		{ 15, { 5, 5, 5, 4, 4, 4, 4, 1, 1, 1, 1, 0, 0, 0, 0 } },
	};
	struct xs_topology *t = xs_topology_load(xs_test_src("tests/machines/2s2n4c"));
	struct xs_victim_table *vt;
	uint32_t got[15];

	ASSERT_NE(NULL, t);
	vt = xs_victim_table_build(t);
	ASSERT_NE(NULL, vt);
	check_rows(_metadata, t, vt);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		victim_nodes(t, vt, want[i].cpu, got);
		for (int k = 0; k < 15; k++) {
			EXPECT_EQ(want[i].nodes[k], got[k]) {
				TH_LOG("cpu%u victim %d", want[i].cpu, k);
			}
		}
	}
	xs_victim_table_free(vt);
	xs_topology_free(t);
}

TEST(smt_llc_node_then_remote_by_distance)
{
	struct xs_topology *t;
	struct xs_victim_table *vt;
	const struct xs_victim *row;
	uint32_t count[4] = { 0 };
	char root[PATH_MAX];

	/* 32 CPUs; cpu0's core is {0,16}, its LLC {0,1,16,17}, its node 0-3,16-19 */
	ASSERT_EQ(0, xs_test_mksysfs(root, sizeof(root),
				     "--spec 2s2n4c2t --llc-per-node 2 --distance 10,12,21"));
	t = xs_topology_load(root);
	xs_test_rmtree(root);
	ASSERT_NE(NULL, t);
	vt = xs_victim_table_build(t);
	ASSERT_NE(NULL, vt);
	check_rows(_metadata, t, vt);

	row = xs_victim_row(vt, 0);
	for (uint32_t k = 0; k < vt->row_len; k++)
		count[row[k].class]++;
	EXPECT_EQ(1u, count[XS_VICTIM_SMT]);
	EXPECT_EQ(2u, count[XS_VICTIM_LLC]);
	EXPECT_EQ(4u, count[XS_VICTIM_NODE]);
	EXPECT_EQ(24u, count[XS_VICTIM_REMOTE]);
	EXPECT_EQ(16u, t->cpus[row[0].cpu_index].cpu);
	EXPECT_EQ(5120, row[0].weight);
	EXPECT_EQ(2048, row[1].weight);
	EXPECT_EQ(1024, row[3].weight);
	EXPECT_EQ(1u, t->cpus[row[7].cpu_index].node);  /* distance 12 */
	EXPECT_EQ(853, row[7].weight);
	EXPECT_EQ(487, row[15].weight);                 /* distance 21 */
	xs_victim_table_free(vt);
	xs_topology_free(t);
}

TEST(one_cpu_has_no_victims)
{
	struct xs_topology *t;
	struct xs_victim_table *vt;
	char root[PATH_MAX];

	ASSERT_EQ(0, xs_test_mksysfs(root, sizeof(root), "--spec 1s1n1c"));
	t = xs_topology_load(root);
	xs_test_rmtree(root);
	ASSERT_NE(NULL, t);
	vt = xs_victim_table_build(t);
	ASSERT_NE(NULL, vt);
	EXPECT_EQ(1u, vt->ncpus);
	EXPECT_EQ(0u, vt->row_len);
	EXPECT_EQ(NULL, xs_victim_row(vt, 0));
	xs_victim_table_free(vt);
	xs_topology_free(t);
}

TEST_HARNESS_MAIN
