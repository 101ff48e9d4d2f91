// SPDX-License-Identifier: MIT
/*
 * Worker placement (OMP_PROC_BIND-like): compact fills a core, then an LLC,
 * then a node before the next; scatter round-robins over packages, then
 * nodes, LLCs, cores and SMT threads; none keeps cpu order (workers are not
 * pinned; the list only names their victim rows). All wrap past ncpus.
 */
#include <errno.h>

#include "kselftest_harness.h"
#include "topology-test.h"

FIXTURE(smt) {
	struct xs_topology *topo;
	uint32_t out[64];
};

/* 2s2n4c2t: node n holds cores 4n..4n+3, threads c and c+16; packages
 * hold nodes 0,1 and 2,3 */
FIXTURE_SETUP(smt)
{
	char root[PATH_MAX];

	ASSERT_EQ(0, xs_test_mksysfs(root, sizeof(root), "--spec 2s2n4c2t"));
	self->topo = xs_topology_load(root);
	xs_test_rmtree(root);
	ASSERT_NE(NULL, self->topo);
	ASSERT_EQ(32u, self->topo->ncpus);
}

FIXTURE_TEARDOWN(smt)
{
	xs_topology_free(self->topo);
}

static uint32_t cpu_of(const struct xs_topology *t, uint32_t idx)
{
	return t->cpus[idx].cpu;
}

TEST_F(smt, compact_fills_core_then_node)
{
	const struct xs_topology *t = self->topo;

	ASSERT_EQ(0, xs_topology_place(t, XS_BIND_COMPACT, 32, self->out));
	for (uint32_t w = 0; w < 32; w++) {
		uint32_t core = w / 2; /* two threads per core, cores in order */

		EXPECT_EQ(core + (w % 2) * 16, cpu_of(t, self->out[w])) {
			TH_LOG("worker %u", w);
		}
		EXPECT_EQ(w / 8, t->cpus[self->out[w]].node);
	}
}

TEST_F(smt, scatter_spreads_packages_nodes_cores_then_threads)
{
	static const uint32_t want[16] = { 0, 8, 4, 12, 1, 9, 5, 13, 2, 10, 6, 14, 3, 11, 7, 15 };
	const struct xs_topology *t = self->topo;
	uint8_t used[32] = { 0 };

	ASSERT_EQ(0, xs_topology_place(t, XS_BIND_SCATTER, 32, self->out));
	for (uint32_t w = 0; w < 16; w++) {
		EXPECT_EQ(want[w], cpu_of(t, self->out[w])) {
			TH_LOG("worker %u", w);
		}
		/* the second half uses the SMT siblings, in the same order */
		EXPECT_EQ(want[w] + 16, cpu_of(t, self->out[w + 16]));
	}
	EXPECT_NE(t->cpus[self->out[0]].package, t->cpus[self->out[1]].package);
	for (uint32_t w = 0; w < 32; w++)
		EXPECT_EQ(0, used[self->out[w]]++);
}

TEST_F(smt, none_keeps_cpu_order)
{
	ASSERT_EQ(0, xs_topology_place(self->topo, XS_BIND_NONE, 32, self->out));
	for (uint32_t w = 0; w < 32; w++)
		EXPECT_EQ(w, self->out[w]);
}

TEST_F(smt, more_workers_than_cpus_wrap)
{
	static const enum xs_bind_policy policies[] = {
		XS_BIND_NONE, XS_BIND_COMPACT, XS_BIND_SCATTER
	};

	for (int p = 0; p < 3; p++) {
		ASSERT_EQ(0, xs_topology_place(self->topo, policies[p], 40, self->out));
		for (uint32_t w = 32; w < 40; w++)
			EXPECT_EQ(self->out[w - 32], self->out[w]);
	}
}

TEST_F(smt, bad_arguments)
{
	EXPECT_EQ(-EINVAL, xs_topology_place(self->topo, (enum xs_bind_policy)7, 4, self->out));
	EXPECT_EQ(-EINVAL, xs_topology_place(self->topo, XS_BIND_COMPACT, 4, NULL));
	EXPECT_EQ(0, xs_topology_place(self->topo, XS_BIND_COMPACT, 0, NULL));
}

TEST(scatter_alternates_llcs_within_a_node)
{
	struct xs_topology *t;
	uint32_t out[4];
	char root[PATH_MAX];

	ASSERT_EQ(0, xs_test_mksysfs(root, sizeof(root), "--spec 1s1n4c --llc-per-node 2"));
	t = xs_topology_load(root);
	xs_test_rmtree(root);
	ASSERT_NE(NULL, t);
	ASSERT_EQ(2u, t->nllcs);
	ASSERT_EQ(0, xs_topology_place(t, XS_BIND_SCATTER, 4, out));
	EXPECT_EQ(0u, cpu_of(t, out[0]));
	EXPECT_EQ(2u, cpu_of(t, out[1]));
	EXPECT_EQ(1u, cpu_of(t, out[2]));
	EXPECT_EQ(3u, cpu_of(t, out[3]));
	xs_topology_free(t);
}

TEST(compact_follows_nodes_not_cpu_numbers)
{
	/* hand-written machine: node0 is 0-1,8-9, node1 2-3,10-11, ... */
	static const uint32_t want[16] = { 0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14, 15 };
	struct xs_topology *t = xs_topology_load(xs_test_src("tests/machines/2s2n4c"));
	uint32_t out[16];

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, xs_topology_place(t, XS_BIND_COMPACT, 16, out));
	for (int w = 0; w < 16; w++)
		EXPECT_EQ(want[w], cpu_of(t, out[w]));
	xs_topology_free(t);
}

TEST_HARNESS_MAIN
