// SPDX-License-Identifier: MIT
/*
 * The real-machine source (xs_topology_load(NULL)) is hwloc's view, whatever
 * hwloc was given: the hwloc XML machine tests/machines/hwloc-2p-gpu-nic.xml
 * (2 packages x 1 node x 1 L3 x 2 cores x 2 threads, an HBM node beside
 * them, P/E CPU kinds, a NIC on package 0 and a GPU and an InfiniBand
 * adapter on package 1) and a synthetic description (HWLOC_SYNTHETIC) load
 * as what they describe, with no affinity mask applied to CPU numbers that
 * are not this system's; the devices come with the node and CPUs nearest
 * to them, and devices that are neither GPU nor NIC are left out.
 *
 * Each test runs in its own process (the harness forks), so each loads
 * hwloc afresh with its own environment.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "topology-test.h"

static void use_xml(void)
{
	unsetenv("HWLOC_SYNTHETIC");
	setenv("HWLOC_XMLFILE", xs_test_src("tests/machines/hwloc-2p-gpu-nic.xml"), 1);
}

TEST(xml_machine_loads_as_described)
{
	struct xs_topology *t;

	use_xml();
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	EXPECT_STREQ("hwloc", t->source);
	ASSERT_EQ(8u, t->ncpus);
	EXPECT_EQ(2u, t->npackages);
	EXPECT_EQ(4u, t->ncores);
	EXPECT_EQ(2u, t->nllcs);
	ASSERT_EQ(2u, t->nnodes);
	EXPECT_EQ(0u, t->node_ids[0]);
	EXPECT_EQ(1u, t->node_ids[1]);
	for (uint32_t i = 0; i < 8; i++) {
		const struct xs_cpu_info *c = &t->cpus[i];

		EXPECT_EQ(i, c->cpu);
		EXPECT_EQ(i / 4, c->package);
		EXPECT_EQ(i / 4, c->node) TH_LOG("cpu%u: the HBM node is nobody's own", i);
		EXPECT_EQ(i / 2, c->core_group);
		EXPECT_EQ(i / 2, c->core);
		EXPECT_EQ(i / 4, c->llc);
	}
	EXPECT_EQ(10, t->distance[0][0]);
	EXPECT_EQ(21, t->distance[0][1]);
	EXPECT_EQ(21, t->distance[1][0]);
	EXPECT_EQ(10, t->distance[1][1]);
	ASSERT_EQ(1u, t->nother_nodes);
	EXPECT_EQ(2u, t->other_node_ids[0]);
	xs_topology_free(t);
}

TEST(xml_machine_reports_cpu_kinds)
{
	struct xs_topology *t;

	use_xml();
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(2u, t->nkinds);
	for (uint32_t i = 0; i < t->ncpus; i++) {
		EXPECT_EQ(i < 4 ? 0u : 1u, t->cpus[i].kind) TH_LOG("cpu%u", i);
	}
	xs_topology_free(t);
}

/* Its CPU numbers are not this system's: the affinity mask is not applied. */
TEST(xml_machine_ignores_affinity)
{
	struct xs_topology *t;
	cpu_set_t one;

	use_xml();
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		SKIP(return, "cannot pin to cpu0");
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(8u, t->ncpus);
	xs_topology_free(t);
}

TEST(synthetic_description_loads_as_described)
{
	struct xs_topology *t;

	unsetenv("HWLOC_XMLFILE");
	setenv("HWLOC_SYNTHETIC", "pack:2 numa:2 l3:1 core:4 pu:2", 1);
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(32u, t->ncpus);
	EXPECT_EQ(2u, t->npackages);
	EXPECT_EQ(4u, t->nnodes);
	EXPECT_EQ(4u, t->nllcs);
	EXPECT_EQ(16u, t->ncores);
	EXPECT_EQ(1u, t->nkinds);
	EXPECT_EQ(0u, t->nother_nodes);
	/* no distance matrix: the kernel's defaults */
	EXPECT_EQ(10, t->distance[0][0]);
	EXPECT_EQ(20, t->distance[0][3]);
	for (uint32_t i = 0; i < t->ncpus; i++) {
		EXPECT_EQ(i / 8, t->cpus[i].node);
		EXPECT_EQ(i / 8, t->cpus[i].llc);
		EXPECT_EQ(i / 16, t->cpus[i].package);
	}
	xs_topology_free(t);
}

TEST(devices_come_with_their_locality)
{
	struct xs_device d[8];
	int n;

	use_xml();
	ASSERT_EQ(4, xs_topology_devices(NULL, 0));
	n = xs_topology_devices(d, 8);
	ASSERT_EQ(4, n);
	/* hwloc's order: by PCI bus; the NVMe disk is neither GPU nor NIC */
	EXPECT_STREQ("eth0", d[0].name);
	EXPECT_EQ(XS_DEVICE_NIC, d[0].kind);
	EXPECT_STREQ("0000:01:00.0", d[0].pci);
	EXPECT_EQ(0, d[0].node);
	EXPECT_STREQ("cuda0", d[1].name);
	EXPECT_EQ(XS_DEVICE_GPU, d[1].kind);
	EXPECT_STREQ("0000:81:00.0", d[1].pci);
	EXPECT_EQ(1, d[1].node);
	EXPECT_STREQ("nvml0", d[2].name);
	EXPECT_EQ(XS_DEVICE_GPU, d[2].kind);
	EXPECT_STREQ("mlx5_0", d[3].name);
	EXPECT_EQ(XS_DEVICE_NIC, d[3].kind);
	EXPECT_EQ(1, d[3].node);
	for (uint32_t c = 0; c < 8; c++) {
		EXPECT_EQ(c < 4, xs_cpumask_test(&d[0].cpus, c)) TH_LOG("eth0, cpu%u", c);
		EXPECT_EQ(c >= 4, xs_cpumask_test(&d[1].cpus, c)) TH_LOG("cuda0, cpu%u", c);
	}
	/* fewer slots than devices: the count still says how many there are */
	EXPECT_EQ(4, xs_topology_devices(d, 1));
	EXPECT_STREQ("eth0", d[0].name);
}

/*
 * On the real machine the call works whatever devices it has; with one
 * NUMA node every device is near it, even one hwloc attaches to the
 * machine as a whole (as it does on one-socket boxes and VMs).
 */
TEST(real_machine_devices_load)
{
	struct xs_device d[64];
	struct xs_topology *t;
	int n;

	unsetenv("HWLOC_XMLFILE");
	unsetenv("HWLOC_SYNTHETIC");
	n = xs_topology_devices(d, 64);
	ASSERT_LE(0, n);
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	for (int i = 0; i < n && i < 64; i++) {
		if (t->nnodes == 1 && t->nother_nodes == 0)
			EXPECT_EQ((int32_t)t->node_ids[0], d[i].node) TH_LOG("%s", d[i].name);
	}
	xs_topology_free(t);
}

TEST_HARNESS_MAIN
