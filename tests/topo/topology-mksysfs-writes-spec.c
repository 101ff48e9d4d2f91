// SPDX-License-Identifier: MIT
/*
 * tools/xsched-mksysfs writes the machine its spec names: the loader reads
 * back the CPU, node, package, core and LLC counts and the local /
 * same-socket / cross-socket distances, without the offline CPUs (and
 * without nodes left with none); a bad spec fails with a message.
 */
#include <string.h>

#include "kselftest_harness.h"
#include "topology-test.h"

FIXTURE(spec) {
	char root[PATH_MAX];
};

FIXTURE_VARIANT(spec) {
	const char *args;
	uint32_t ncpus, nnodes, npackages, ncores, nllcs;
	uint32_t nodes_per_socket;
	uint8_t local, same_socket, other_socket;
};

FIXTURE_SETUP(spec)
{
	ASSERT_EQ(0, xs_test_mksysfs(self->root, sizeof(self->root), variant->args));
}

FIXTURE_TEARDOWN(spec)
{
	xs_test_rmtree(self->root);
}

FIXTURE_VARIANT_ADD(spec, one_cpu) {
	"--spec 1s1n1c", 1, 1, 1, 1, 1, 1, 10, 0, 0
};
FIXTURE_VARIANT_ADD(spec, two_sockets_default_distance) {
	"--spec 2s2n4c", 16, 4, 2, 16, 4, 2, 10, 21, 21
};
FIXTURE_VARIANT_ADD(spec, smt_two_llcs_three_distances) {
	"--spec 2s2n4c2t --llc-per-node 2 --distance 10,12,21", 32, 4, 2, 16, 8, 2, 10, 12, 21
};
FIXTURE_VARIANT_ADD(spec, one_offline_cpu) {
	"--spec 1s2n3c --offline 1 --distance 11,40", 5, 2, 1, 5, 2, 2, 11, 40, 40
};
/* cpus 0,1 (thread 0) and 8,9 (thread 1) are socket 0's: it disappears */
FIXTURE_VARIANT_ADD(spec, offline_socket) {
	"--spec 4s1n2c2t --offline 0-1,8-9 --distance 10,20,30", 12, 3, 3, 6, 3, 1, 10, 20, 30
};

TEST_F(spec, loads_back)
{
	struct xs_topology *t = xs_topology_load(self->root);

	ASSERT_NE(NULL, t);
	EXPECT_EQ(variant->ncpus, t->ncpus);
	EXPECT_EQ(variant->nnodes, t->nnodes);
	EXPECT_EQ(variant->npackages, t->npackages);
	EXPECT_EQ(variant->ncores, t->ncores);
	EXPECT_EQ(variant->nllcs, t->nllcs);
	for (uint32_t a = 0; a < t->nnodes; a++) {
		for (uint32_t b = 0; b < t->nnodes; b++) {
			uint32_t sa = t->node_ids[a] / variant->nodes_per_socket;
			uint32_t sb = t->node_ids[b] / variant->nodes_per_socket;
			uint8_t want = a == b ? variant->local :
				       sa == sb ? variant->same_socket : variant->other_socket;

			EXPECT_EQ(want, t->distance[a][b]);
		}
	}
	for (uint32_t i = 0; i < t->ncpus; i++)
		EXPECT_EQ(t->node_ids[t->cpus[i].node] / variant->nodes_per_socket,
			  t->cpus[i].package);
	xs_topology_free(t);
}

TEST(bad_spec_is_refused)
{
	char root[PATH_MAX];
	int status;

	status = xs_test_mksysfs(root, sizeof(root), "--spec 2s2n 2>/dev/null");
	xs_test_rmtree(root);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(2, WEXITSTATUS(status));
	status = xs_test_mksysfs(root, sizeof(root), "--spec 1s1n2c --llc-per-node 3 2>/dev/null");
	xs_test_rmtree(root);
	EXPECT_EQ(2, WEXITSTATUS(status));
}

TEST_HARNESS_MAIN
