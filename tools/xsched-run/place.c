// SPDX-License-Identifier: MIT
/*
 * place.c - where xsched-run --mpi puts one rank (place.h).
 *
 * The rank's place on its node comes from its launcher's environment
 * (Open MPI: OMPI_COMM_WORLD_LOCAL_RANK/_SIZE; MPICH's Hydra:
 * MPI_LOCALRANKID/MPI_LOCALNRANKS). The launcher bound the rank when the
 * rank's CPUs differ from its parent's (orted, hydra_pmi_proxy, mpirun:
 * the launcher binds the ranks it starts, not itself; a cgroup CPU set,
 * Slurm's, applies to both alike). A bound rank is kept as it is. An
 * unbound one, with --place, gets the L-th of S blocks of the node's
 * usable CPUs taken in topology order (node, last-level cache, core, CPU,
 * from libxsched's topology: XSCHED_SYSFS_ROOT is honoured), so the ranks
 * of a node split it along NUMA nodes and caches. --verbose says which,
 * and which GPUs and network devices are near the rank's CPUs (hwloc's
 * locality, through libxsched's topology), so a wrong GPU or NIC choice
 * shows before the run.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ext.h"
#include "place.h"

/* "Cpus_allowed_list" of /proc/<pid>/status into @out; -1 if unreadable. */
static int cpus_allowed(const char *pid, char *out, size_t len)
{
	char path[64], line[4096];
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Cpus_allowed_list:", 18)) {
			char *v = line + 18;

			v += strspn(v, " \t");
			v[strcspn(v, "\n")] = '\0';
			snprintf(out, len, "%s", v);
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

static int env_int(const char *name, int *out)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0 || v > 1 << 20)
		return -1;
	*out = (int)v;
	return 0;
}

/* The rank's index and count on this node, and the variable they came from. */
static const char *local_rank(int *rank, int *size)
{
	static const char *const vars[][2] = {
		{ "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE" },
		{ "MPI_LOCALRANKID", "MPI_LOCALNRANKS" },
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (!env_int(vars[i][0], rank) && !env_int(vars[i][1], size) && *rank < *size)
			return vars[i][0];
	return NULL;
}

/* Topology order: node, LLC, core, CPU (cpus[] is sorted by CPU). */
static const struct xs_topology *order_topo;

static int by_place(const void *a, const void *b)
{
	const struct xs_cpu_info *x = &order_topo->cpus[*(const uint32_t *)a];
	const struct xs_cpu_info *y = &order_topo->cpus[*(const uint32_t *)b];

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->llc != y->llc)
		return x->llc < y->llc ? -1 : 1;
	if (x->core_group != y->core_group)
		return x->core_group < y->core_group ? -1 : 1;
	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

int place_rank(bool place, bool verbose)
{
	char mine[4096] = "?", parent[4096] = "?", ppid[32], list[4096] = "";
	struct xs_topology *t;
	uint32_t *idx, from, to;
	const char *src, *root;
	cpu_set_t set;
	int rank, size, ret = 0;
	size_t o = 0;

	src = local_rank(&rank, &size);
	if (!src) {
		if (verbose || place)
			fprintf(stderr, "xsched-run: --mpi: no local rank from the launcher "
					"(OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID): %s\n",
				place ? "not placing" : "placement unknown");
		return 0;
	}
	snprintf(ppid, sizeof(ppid), "%d", (int)getppid());
	if (cpus_allowed("self", mine, sizeof(mine)) || cpus_allowed(ppid, parent, sizeof(parent))) {
		if (verbose || place)
			fprintf(stderr, "xsched-run: --mpi: local rank %d of %d: its CPUs or its "
					"launcher's are unreadable: not placing\n", rank, size);
		return 0;
	}
	if (strcmp(mine, parent)) {
		if (verbose || place)
			fprintf(stderr, "xsched-run: --mpi: local rank %d of %d (%s): bound by the "
					"launcher to CPUs %s (the launcher's: %s): kept\n", rank, size, src, mine,
				parent);
		return 0;
	}
	if (!place) {
		if (verbose)
			fprintf(stderr, "xsched-run: --mpi: local rank %d of %d (%s): not bound, "
					"CPUs %s (--place splits them)\n", rank, size, src, mine);
		return 0;
	}
	/* The runtime's own source of topology, a synthetic one included. */
	root = getenv("XSCHED_SYSFS_ROOT");
	t = xs_topology_load(root && *root ? root : NULL);
	idx = t ? malloc(t->ncpus * sizeof(*idx)) : NULL;
	if (!idx) {
		fprintf(stderr, "xsched-run: --place: no topology: not placing\n");
		xs_topology_free(t);
		return 0;
	}
	for (uint32_t i = 0; i < t->ncpus; i++)
		idx[i] = i;
	order_topo = t;
	qsort(idx, t->ncpus, sizeof(*idx), by_place);
	/* Block L of S; more ranks than CPUs: CPU L mod n each. */
	if ((uint32_t)size <= t->ncpus) {
		from = (uint32_t)((uint64_t)rank * t->ncpus / (uint32_t)size);
		to = (uint32_t)((uint64_t)(rank + 1) * t->ncpus / (uint32_t)size);
	} else {
		from = (uint32_t)rank % t->ncpus;
		to = from + 1;
	}
	CPU_ZERO(&set);
	for (uint32_t i = from; i < to; i++) {
		const struct xs_cpu_info *c = &t->cpus[idx[i]];

		if (c->cpu < CPU_SETSIZE)
			CPU_SET(c->cpu, &set);
		if (o < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%u", i > from ? "," : "",
					      c->cpu);
	}
	if (sched_setaffinity(0, sizeof(set), &set)) {
		ret = -errno;
		fprintf(stderr, "xsched-run: --place: local rank %d of %d: CPUs %s: %s\n", rank,
			size, list, strerror(errno));
	} else if (verbose) {
		fprintf(stderr, "xsched-run: --mpi: local rank %d of %d (%s): placed on CPUs %s "
				"(node %u)\n", rank, size, src, list, t->node_ids[t->cpus[idx[from]].node]);
	}
	free(idx);
	xs_topology_free(t);
	return ret;
}

static const char *device_kind_name(uint32_t kind)
{
	return kind == XS_DEVICE_GPU ? "GPU" : "NIC";
}

void place_show_devices(void)
{
	struct xs_device dev[64];
	cpu_set_t mine;
	int n;

	if (sched_getaffinity(0, sizeof(mine), &mine))
		return;
	n = xs_topology_devices(dev, sizeof(dev) / sizeof(dev[0]));
	if (n < 0) {
		fprintf(stderr, "xsched-run: --mpi: devices unknown: %s\n", strerror(-n));
		return;
	}
	if (n == 0)
		fprintf(stderr, "xsched-run: --mpi: no GPU or network device found\n");
	for (int i = 0; i < n && i < (int)(sizeof(dev) / sizeof(dev[0])); i++) {
		const struct xs_device *d = &dev[i];
		bool near = false;

		for (uint32_t c = 0; c < CPU_SETSIZE && !near; c++)
			near = CPU_ISSET(c, &mine) && xs_cpumask_test(&d->cpus, c);
		fprintf(stderr, "xsched-run: --mpi: %s %s%s%s: node %d, %s this rank's CPUs\n",
			device_kind_name(d->kind), d->name, *d->pci ? " at " : "", d->pci,
			d->node, near ? "near" : "away from");
	}
}
