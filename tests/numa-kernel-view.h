/* SPDX-License-Identifier: MIT */
/*
 * numa-kernel-view.h - the machine as the kernel shows it, read here
 * independently of libxsched/topo/topology.c, for the tests that check the
 * topology, the victim tables, DLB and xschedd against the real machine
 * (tests/{core,topo}/numa-*.c, make check-system's 2- and 4-node guests): each CPU's
 * node from libnuma (numa_node_of_cpu), node distances from libnuma
 * (numa_distance, the ACPI SLIT), SMT siblings and the last-level cache
 * from sysfs (topology/thread_siblings_list, the highest-level data or
 * unified cache/index*).
 */
#ifndef XSCHED_NUMA_KERNEL_VIEW_H
#define XSCHED_NUMA_KERNEL_VIEW_H

#include <numa.h>
#include <stdio.h>
#include <string.h>

#include "topo/topology.h"

/* Read sysfs @path (a CPU list) into @set; 0, or -1 if absent or bad. */
static inline int kv_read_list(const char *path, struct xs_cpumask *set)
{
	char text[4096], why[128];
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(text, sizeof(text), f) != NULL;
	fclose(f);
	return ok && !xs_cpulist_parse(text, XS_MAX_CPUS, set, why, sizeof(why)) ? 0 : -1;
}

/* Whether @b shares the last-level cache of @a (the highest-level data or
 * unified cache listed for @a; without cache information, its SMT core). */
static inline int kv_same_llc(uint32_t a, uint32_t b)
{
	char path[256], line[64];
	int best = -1, best_level = -1;
	struct xs_cpumask set;

	for (int k = 0; k < 16; k++) {
		int level;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/cache/index%d/level", a, k);
		f = fopen(path, "r");
		if (!f)
			break;
		level = fscanf(f, "%d", &level) == 1 ? level : -1;
		fclose(f);
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/cache/index%d/type", a, k);
		f = fopen(path, "r");
		if (!f || !fgets(line, sizeof(line), f))
			line[0] = '\0';
		if (f)
			fclose(f);
		if (strncmp(line, "Instruction", 11) && level > best_level) {
			best_level = level;
			best = k;
		}
	}
	if (best < 0)
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/topology/thread_siblings_list", a);
	else
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/cache/index%d/shared_cpu_list", a, best);
	return !kv_read_list(path, &set) && xs_cpumask_test(&set, b);
}

static inline int kv_same_core(uint32_t a, uint32_t b)
{
	char path[128];
	struct xs_cpumask set;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%u/topology/thread_siblings_list", a);
	return !kv_read_list(path, &set) && xs_cpumask_test(&set, b);
}

/* The victim class of CPU @b seen from CPU @a, by the kernel's view. */
static inline uint16_t kv_class(uint32_t a, uint32_t b)
{
	if (numa_node_of_cpu((int)a) != numa_node_of_cpu((int)b))
		return XS_VICTIM_REMOTE;
	if (kv_same_core(a, b))
		return XS_VICTIM_SMT;
	return kv_same_llc(a, b) ? XS_VICTIM_LLC : XS_VICTIM_NODE;
}

/* The documented weight of that victim: 10240 / cost (SMT 2, LLC 5,
 * NODE 10, REMOTE max(SLIT distance, 11)). */
static inline uint16_t kv_weight(uint32_t a, uint32_t b)
{
	static const uint32_t cost[] = { 2, 5, 10 };
	uint16_t cls = kv_class(a, b);
	int d = numa_distance(numa_node_of_cpu((int)a), numa_node_of_cpu((int)b));

	if (cls != XS_VICTIM_REMOTE)
		return (uint16_t)(10240 / cost[cls]);
	return (uint16_t)(10240 / (d < 11 ? 11 : d));
}

/* Nodes that have CPUs this process may run on (the nodes a topology of
 * the real machine holds). */
static inline uint32_t kv_cpu_nodes(void)
{
	struct bitmask *cpus = numa_allocate_cpumask();
	uint32_t n = 0;

	for (int node = 0; node <= numa_max_node(); node++) {
		int any = 0;

		if (numa_node_to_cpus(node, cpus))
			continue;
		for (unsigned int c = 0; c < cpus->size && !any; c++)
			any = numa_bitmask_isbitset(cpus, c) &&
			      numa_bitmask_isbitset(numa_all_cpus_ptr, c);
		n += (uint32_t)any;
	}
	numa_free_cpumask(cpus);
	return n;
}

#endif /* XSCHED_NUMA_KERNEL_VIEW_H */
