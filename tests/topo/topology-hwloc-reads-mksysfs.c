// SPDX-License-Identifier: MIT
/*
 * A machine written by tools/xsched-mksysfs is one machine to both of
 * libxsched's sources: read as a synthetic root (XSCHED_SYSFS_ROOT, the
 * *_list files, xsched's reader) and read by hwloc as a fake Linux root
 * (HWLOC_FSROOT, the hexadecimal cpumaps, the real-machine source), it
 * gives the same CPUs, packages, cores, LLCs, nodes and distances, CPU by
 * CPU. So the test machines carry over to hwloc and its tools (lstopo).
 *
 * Each variant runs in its own process (the harness forks), which loads
 * hwloc once, from its own root.
 */
#include <ftw.h>
#include <stdlib.h>

#include "kselftest_harness.h"
#include "topology-test.h"

FIXTURE(both) {
	char tmp[64];
	char root[PATH_MAX]; /* <tmp>/sys/devices/system */
};

FIXTURE_VARIANT(both) {
	const char *args;
};

FIXTURE_VARIANT_ADD(both, one_node) { .args = "--spec 1s1n4c" };
FIXTURE_VARIANT_ADD(both, smt_llcs_offline) {
	.args = "--spec 2s2n4c2t --llc-per-node 2 --distance 10,16,32 --offline 3"
};
FIXTURE_VARIANT_ADD(both, cpu0_offline) { .args = "--spec 1s2n2c --offline 0" };
/* 40 CPUs: cpumaps of two 32-bit words */
FIXTURE_VARIANT_ADD(both, two_word_cpumaps) { .args = "--spec 2s1n10c2t --offline 33" };

FIXTURE_SETUP(both)
{
	char cmd[2 * PATH_MAX];

	snprintf(self->tmp, sizeof(self->tmp), "/tmp/xsched-topology-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->tmp));
	snprintf(self->root, sizeof(self->root), "%s/sys/devices/system", self->tmp);
	snprintf(cmd, sizeof(cmd), "sh '%s' %s '%s'", xs_test_src("tools/xsched-mksysfs"),
		 variant->args, self->root);
	ASSERT_EQ(0, system(cmd));
}

FIXTURE_TEARDOWN(both)
{
	nftw(self->tmp, xs_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TEST_F(both, hwloc_and_sysfs_reader_agree)
{
	struct xs_topology *sys, *hw;

	unsetenv("HWLOC_XMLFILE");
	unsetenv("HWLOC_SYNTHETIC");
	setenv("HWLOC_FSROOT", self->tmp, 1);
	sys = xs_topology_load(self->root);
	ASSERT_NE(NULL, sys);
	hw = xs_topology_load(NULL);
	ASSERT_NE(NULL, hw);
	EXPECT_STREQ("hwloc", hw->source);
	ASSERT_EQ(sys->ncpus, hw->ncpus);
	EXPECT_EQ(sys->npackages, hw->npackages);
	EXPECT_EQ(sys->ncores, hw->ncores);
	EXPECT_EQ(sys->nllcs, hw->nllcs);
	ASSERT_EQ(sys->nnodes, hw->nnodes);
	EXPECT_EQ(sys->nother_nodes, hw->nother_nodes);
	for (uint32_t i = 0; i < sys->ncpus; i++) {
		const struct xs_cpu_info *s = &sys->cpus[i], *h = &hw->cpus[i];

		EXPECT_EQ(s->cpu, h->cpu);
		EXPECT_EQ(s->node, h->node) TH_LOG("cpu%u", s->cpu);
		EXPECT_EQ(s->package, h->package) TH_LOG("cpu%u", s->cpu);
		EXPECT_EQ(s->core, h->core) TH_LOG("cpu%u", s->cpu);
		EXPECT_EQ(s->core_group, h->core_group) TH_LOG("cpu%u", s->cpu);
		EXPECT_EQ(s->llc, h->llc) TH_LOG("cpu%u", s->cpu);
	}
	for (uint32_t a = 0; a < sys->nnodes; a++) {
		EXPECT_EQ(sys->node_ids[a], hw->node_ids[a]);
		for (uint32_t b = 0; b < sys->nnodes; b++)
			EXPECT_EQ(sys->distance[a][b], hw->distance[a][b]);
	}
	xs_topology_free(hw);
	xs_topology_free(sys);
}

TEST_HARNESS_MAIN
