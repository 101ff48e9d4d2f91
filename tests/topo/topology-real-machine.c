// SPDX-License-Identifier: MIT
/*
 * On the real machine the topology (hwloc's) holds exactly the online CPUs
 * this process may run on, with libnuma's node of each CPU and its SLIT
 * distances; pinning the process to one CPU leaves one CPU; and reading
 * /sys/devices/system as if it were a synthetic root (xsched's own sysfs
 * reader) gives the same nodes and distances as hwloc.
 */
#include <numa.h>
#include <sched.h>

#include "kselftest_harness.h"
#include "topology-test.h"

/* online & sched_getaffinity(), computed here independently of topology.c */
static uint32_t allowed_cpus(struct __test_metadata *_metadata, uint32_t *cpus)
{
	struct xs_cpumask online;
	char text[8192] = "", why[160];
	cpu_set_t set;
	uint32_t n = 0;
	FILE *f;

	f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f)
		SKIP(return 0, "no /sys/devices/system/cpu/online: sysfs is not mounted");
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	EXPECT_EQ(0, xs_cpulist_parse(text, XS_MAX_CPUS, &online, why, sizeof(why)));
	EXPECT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	for (uint32_t c = 0; c < CPU_SETSIZE && c < XS_MAX_CPUS; c++)
		if (CPU_ISSET(c, &set) && xs_cpumask_test(&online, c))
			cpus[n++] = c;
	return n;
}

TEST(cpus_nodes_and_distances_match_the_kernel)
{
	static uint32_t want[XS_MAX_CPUS];
	struct xs_topology *t;
	uint32_t n = allowed_cpus(_metadata, want);

	ASSERT_LT(0u, n);
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	EXPECT_STREQ("hwloc", t->source);
	ASSERT_EQ(n, t->ncpus);
	for (uint32_t i = 0; i < n; i++) {
		const struct xs_cpu_info *c = &t->cpus[i];

		EXPECT_EQ(want[i], c->cpu);
		ASSERT_LT(c->node, t->nnodes);
		ASSERT_LT(c->core_group, t->ncores);
		ASSERT_LT(c->llc, t->nllcs);
		if (numa_available() >= 0)
			EXPECT_EQ((uint32_t)numa_node_of_cpu((int)c->cpu), t->node_ids[c->node]);
		/* SMT siblings share package and core_id */
		for (uint32_t j = 0; j < i; j++) {
			if (t->cpus[j].core_group != c->core_group)
				continue;
			EXPECT_EQ(t->cpus[j].package, c->package);
			EXPECT_EQ(t->cpus[j].core, c->core);
		}
	}
	for (uint32_t a = 0; a < t->nnodes; a++) {
		EXPECT_EQ(10, t->distance[a][a]);
		for (uint32_t b = 0; b < t->nnodes && numa_available() >= 0; b++)
			EXPECT_EQ(numa_distance((int)t->node_ids[a], (int)t->node_ids[b]),
				  t->distance[a][b]);
	}
	xs_topology_free(t);
}

TEST(pinned_to_one_cpu_sees_one_cpu)
{
	static uint32_t allowed[XS_MAX_CPUS];
	uint32_t n = allowed_cpus(_metadata, allowed);
	struct xs_topology *t;
	cpu_set_t one;

	ASSERT_LT(0u, n);
	CPU_ZERO(&one);
	CPU_SET(allowed[n - 1], &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	t = xs_topology_load(NULL);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(1u, t->ncpus);
	EXPECT_EQ(allowed[n - 1], t->cpus[0].cpu);
	EXPECT_EQ(1u, t->nnodes);
	EXPECT_EQ(1u, t->ncores);
	EXPECT_EQ(1u, t->nllcs);
	xs_topology_free(t);
}

/* The sysfs reader (used for synthetic roots) and hwloc agree here. */
TEST(sysfs_reader_agrees_with_hwloc)
{
	struct xs_topology *real = xs_topology_load(NULL);
	struct xs_topology *sys = xs_topology_load("/sys/devices/system");

	ASSERT_NE(NULL, real);
	ASSERT_NE(NULL, sys);
	/* the synthetic path ignores affinity: real's CPUs are a subset */
	ASSERT_LE(real->ncpus, sys->ncpus);
	for (uint32_t i = 0; i < real->ncpus; i++) {
		const struct xs_cpu_info *r = &real->cpus[i];
		int j = xs_topology_cpu_index(sys, r->cpu);
		const struct xs_cpu_info *s;

		ASSERT_LE(0, j);
		s = &sys->cpus[j];
		EXPECT_EQ(real->node_ids[r->node], sys->node_ids[s->node]);
		EXPECT_EQ(r->package, s->package);
		EXPECT_EQ(r->core, s->core);
		for (uint32_t k = 0; k < real->ncpus; k++) {
			const struct xs_cpu_info *rk = &real->cpus[k];
			const struct xs_cpu_info *sk = &sys->cpus[xs_topology_cpu_index(sys, rk->cpu)];

			EXPECT_EQ(real->distance[r->node][rk->node], sys->distance[s->node][sk->node]);
		}
	}
	xs_topology_free(sys);
	xs_topology_free(real);
}

TEST_HARNESS_MAIN
