// SPDX-License-Identifier: MIT
/*
 * A corrupt or missing file in a synthetic sysfs tree fails the load with an
 * errno and exactly one line on stderr, "xsched: topology: <file>: <problem>",
 * that names the file and quotes the bad content. Never a crash, never a
 * silent default.
 *
 * The machine is "1s2n2c": cpu0-1 on node0, cpu2-3 on node1, one LLC each.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "topology-test.h"

FIXTURE(corrupt) {
	char root[PATH_MAX];
};

FIXTURE_VARIANT(corrupt) {
	const char *file;    /* relative to the root */
	const char *content; /* NULL: remove the file */
	int err;
	const char *problem; /* what follows "<root>/<named>: " */
	const char *named;   /* the file the message names; NULL: @file */
};

FIXTURE_SETUP(corrupt)
{
	ASSERT_EQ(0, xs_test_mksysfs(self->root, sizeof(self->root), "--spec 1s2n2c"));
	ASSERT_EQ(0, xs_test_write(self->root, variant->file, variant->content));
}

FIXTURE_TEARDOWN(corrupt)
{
	xs_test_rmtree(self->root);
}

#define CORRUPT(name, f, c, e, p, ...) \
	FIXTURE_VARIANT_ADD(corrupt, name) { .file = f, .content = c, .err = e, .problem = p, \
					     __VA_ARGS__ }

CORRUPT(core_id_not_a_number, "cpu/cpu1/topology/core_id", "x1\n", EINVAL,
	"bad content \"x1\\n\": expected an integer in 0..2147483646");
CORRUPT(package_id_negative, "cpu/cpu3/topology/physical_package_id", "-1\n", EINVAL,
	"bad content \"-1\\n\": expected an integer");
CORRUPT(package_id_missing, "cpu/cpu2/topology/physical_package_id", NULL, ENOENT,
	"No such file or directory");
CORRUPT(online_trailing_comma, "cpu/online", "0-3,\n", EINVAL,
	"bad cpulist \"0-3,\\n\": expected N or N-M");
CORRUPT(online_too_large, "cpu/online", "0-2000\n", ERANGE,
	"bad cpulist \"0-2000\\n\": numbers must be below 1024");
CORRUPT(online_empty, "cpu/online", "\n", ENODEV,
	"no usable CPU");
CORRUPT(siblings_without_self, "cpu/cpu1/topology/thread_siblings_list", "0\n", EINVAL,
	"does not list cpu1 itself");
CORRUPT(siblings_not_mutual, "cpu/cpu0/topology/thread_siblings_list", "0-1\n", EINVAL,
	"lists cpu1, whose thread_siblings_list lists other CPUs");
CORRUPT(llc_not_mutual, "cpu/cpu0/cache/index3/shared_cpu_list", "0-2\n", EINVAL,
	"lists cpu1, whose LLC lists other CPUs");
CORRUPT(cache_type_unknown, "cpu/cpu2/cache/index1/type", "Weird\n", EINVAL,
	"bad content \"Weird\\n\": expected Data, Instruction or Unified");
CORRUPT(cache_level_missing, "cpu/cpu3/cache/index2/level", NULL, ENOENT,
	"No such file or directory");
CORRUPT(distance_too_many, "node/node1/distance", "21 10 5\n", EINVAL,
	"bad content \"21 10 5\\n\": expected 2 distances");
CORRUPT(distance_word, "node/node0/distance", "10 far\n", EINVAL,
	"bad content \"10 far\\n\": expected 2 distances");
CORRUPT(distance_below_10, "node/node1/distance", "21 9\n", EINVAL,
	"distance from node1 to node1 is 9: expected 10..255");
CORRUPT(distance_above_255, "node/node0/distance", "10 300\n", EINVAL,
	"distance from node0 to node1 is 300: expected 10..255");
CORRUPT(cpu_in_two_nodes, "node/node0/cpulist", "0-2\n", EINVAL,
	"lists cpu2, which node0 lists too", .named = "node/node1/cpulist");
CORRUPT(cpu_in_no_node, "node/node1/cpulist", "3\n", EINVAL,
	"cpu2 is in no online node's cpulist", .named = "node");
CORRUPT(node_online_garbage, "node/online", "0-1 2\n", EINVAL,
	"bad cpulist \"0-1 2\\n\"");
CORRUPT(node_cpulist_missing, "node/node1/cpulist", NULL, ENOENT,
	"No such file or directory");

TEST_F(corrupt, load_fails_naming_file_and_content)
{
	struct xs_test_load res;
	char want[PATH_MAX + 256];
	const char *nl;

	ASSERT_EQ(0, xs_test_load_capture(self->root, &res));
	xs_topology_free(res.topo);
	ASSERT_EQ(NULL, res.topo);
	EXPECT_EQ(variant->err, res.err);
	snprintf(want, sizeof(want), "xsched: topology: %s/%s: %s", self->root,
		 variant->named ? variant->named : variant->file, variant->problem);
	EXPECT_EQ(0, strncmp(res.stderr_text, want, strlen(want))) {
		TH_LOG("stderr: %s", res.stderr_text);
		TH_LOG("wanted: %s", want);
	}
	nl = strchr(res.stderr_text, '\n');
	ASSERT_NE(NULL, nl);
	EXPECT_EQ('\0', nl[1]) {
		TH_LOG("more than one line: %s", res.stderr_text);
	}
}

TEST_HARNESS_MAIN
