// SPDX-License-Identifier: MIT
/*
 * machine.c - the real machine through hwloc: usable CPUs, packages, cores
 * and SMT, last-level caches, NUMA nodes and their distances, hybrid CPU
 * kinds, and where GPUs and network devices hang off.
 *
 * hwloc is loaded once per process (machine_once): its load reads hundreds
 * of sysfs files, and every runtime, the daemon and the tools ask for the
 * same machine. Once loaded it is only read, which hwloc allows from any
 * thread without a lock. What may change while the process runs is read at
 * every xs_machine_load(): the calling thread's affinity mask. A CPU taken
 * offline or out of the cgroup cpuset later shows through that mask too
 * (the kernel shrinks the masks of the tasks it moves off a CPU); a CPU
 * added later is not seen.
 *
 * Usable CPUs = hwloc's allowed cpuset (online CPUs inside the cgroup
 * cpuset; hwloc reads cgroup v1 and v2) & the thread's affinity mask. The
 * mask is skipped when hwloc describes another machine (HWLOC_XMLFILE,
 * HWLOC_SYNTHETIC, HWLOC_FSROOT): its CPU numbers are not this system's.
 *
 * The load keeps only what the model reads: no instruction caches, no Misc
 * objects, and no I/O objects, whose discovery scans PCI and runs hwloc's
 * plugins (CUDA, NVML, OpenCL initialise their driver). Devices come from a
 * second load, with I/O kept, made the first time xs_topology_devices() is
 * called.
 */
#include <errno.h>
#include <hwloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topology.h"

/* Distance between two nodes when hwloc has no matrix (one node, or a
 * synthetic description without distances): the kernel's defaults. */
#define LOCAL_DISTANCE 10
#define REMOTE_DISTANCE 20

/*
 * One hwloc load, made once (@once) and never freed: the process keeps it
 * to its end. @topo is NULL when the load failed; @err is then the -errno
 * every caller gets.
 */
struct machine {
	pthread_once_t once;
	hwloc_topology_t topo;
	int err;
};

static struct machine cpus_machine = { .once = PTHREAD_ONCE_INIT };
static struct machine io_machine = { .once = PTHREAD_ONCE_INIT };

static int machine_open(struct machine *m, enum hwloc_type_filter_e io)
{
	hwloc_topology_t t;
	int ret;

	if (hwloc_topology_init(&t))
		return errno ? -errno : -ENOMEM;
	hwloc_topology_set_icache_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_MISC, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_io_types_filter(t, io);
	if (hwloc_topology_load(t)) {
		ret = errno ? -errno : -EINVAL;
		xs_topology_err("hwloc", "hwloc_topology_load: %s", strerror(-ret));
		hwloc_topology_destroy(t);
		return ret;
	}
	m->topo = t;
	return 0;
}

static void cpus_machine_open(void)
{
	cpus_machine.err = machine_open(&cpus_machine, HWLOC_TYPE_FILTER_KEEP_NONE);
}

static void io_machine_open(void)
{
	io_machine.err = machine_open(&io_machine, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
}

static void mask_from_bitmap(struct xs_cpumask *m, hwloc_const_bitmap_t b)
{
	int i;

	memset(m, 0, sizeof(*m));
	hwloc_bitmap_foreach_begin(i, b) {
		if (i >= XS_MAX_CPUS)
			break;
		m->bits[i / 64] |= 1ull << (i % 64);
	}
	hwloc_bitmap_foreach_end();
}

/* ---- CPUs and nodes -------------------------------------------------------- */

/*
 * Objects numbered in order of first sight. CPUs are visited by increasing
 * number, so a group's number orders the groups by their lowest usable CPU,
 * as the sysfs reader numbers them.
 */
struct numbering {
	uint32_t n;
	hwloc_obj_t seen[XS_MAX_CPUS];
};

static uint32_t number_of(struct numbering *nb, hwloc_obj_t obj)
{
	/* newest first: neighbouring CPUs mostly share their groups */
	for (uint32_t i = nb->n; i-- > 0;)
		if (nb->seen[i] == obj)
			return i;
	nb->seen[nb->n] = obj;
	return nb->n++;
}

struct builder {
	hwloc_topology_t hw;
	struct xs_topology *topo;
	struct numbering packages, cores, llcs;
	struct xs_cpumask nodes;                  /* node numbers holding usable CPUs */
	uint32_t node_of[XS_MAX_CPUS];            /* node number, by CPU index */
};

/*
 * The node of @pu as the kernel has it (numa_node_of_cpu()): hwloc gives a
 * memory-only node the CPU set of the object it is attached to, so several
 * nodes may cover a CPU; the one with the fewest CPUs is its own, and of
 * equals the lowest numbered (the kernel numbers a socket's DRAM node
 * before the HBM or CXL memory beside it).
 */
static hwloc_obj_t node_of_pu(hwloc_topology_t hw, hwloc_obj_t pu)
{
	hwloc_obj_t node = NULL, best = NULL;
	int weight, best_weight = 0;

	while ((node = hwloc_get_next_obj_by_type(hw, HWLOC_OBJ_NUMANODE, node))) {
		if (!node->cpuset || !hwloc_bitmap_isset(node->cpuset, pu->os_index))
			continue;
		weight = hwloc_bitmap_weight(node->cpuset);
		if (!best || weight < best_weight ||
		    (weight == best_weight && node->os_index < best->os_index)) {
			best = node;
			best_weight = weight;
		}
	}
	return best;
}

/* The outermost data or unified cache above @pu, or NULL. */
static hwloc_obj_t llc_of_pu(hwloc_obj_t pu)
{
	hwloc_obj_t llc = NULL;

	for (hwloc_obj_t a = pu->parent; a; a = a->parent)
		if (hwloc_obj_type_is_dcache(a->type))
			llc = a;
	return llc;
}

static uint32_t index_or_zero(unsigned idx)
{
	return idx == HWLOC_UNKNOWN_INDEX ? 0 : idx;
}

static int add_cpu(struct builder *b, hwloc_obj_t pu)
{
	struct xs_topology *topo = b->topo;
	struct xs_cpu_info *ci = &topo->cpus[topo->ncpus];
	hwloc_obj_t package, core, llc, node;

	package = hwloc_get_ancestor_obj_by_type(b->hw, HWLOC_OBJ_PACKAGE, pu);
	core = hwloc_get_ancestor_obj_by_type(b->hw, HWLOC_OBJ_CORE, pu);
	node = node_of_pu(b->hw, pu);
	if (!node) {
		xs_topology_err("hwloc", "cpu%u is in no NUMA node", pu->os_index);
		return -EINVAL;
	}
	if (node->os_index >= XS_MAX_CPUS) {
		xs_topology_err("hwloc", "node%u: node numbers must be below %d",
				node->os_index, XS_MAX_CPUS);
		return -ERANGE;
	}
	/* A CPU without a Core object above it is a core of its own. */
	if (!core)
		core = pu;
	llc = llc_of_pu(pu);
	ci->cpu = pu->os_index;
	ci->package = package ? index_or_zero(package->os_index) : 0;
	ci->core = index_or_zero(core->os_index);
	ci->core_group = number_of(&b->cores, core);
	/* without a cache the CPU shares nothing beyond its core */
	ci->llc = number_of(&b->llcs, llc ? llc : core);
	if (package)
		number_of(&b->packages, package);
	b->node_of[topo->ncpus] = node->os_index;
	b->nodes.bits[node->os_index / 64] |= 1ull << (node->os_index % 64);
	topo->ncpus++;
	return 0;
}

/* Node indexes in increasing node number, their distances, the others. */
static int add_nodes(struct builder *b)
{
	struct xs_topology *topo = b->topo;
	struct hwloc_distances_s *dist = NULL;
	hwloc_obj_t obj[XS_MAX_NODES], node = NULL;
	unsigned nr = 1;
	uint32_t n;

	for (n = 0; n < XS_MAX_CPUS; n++) {
		if (!xs_cpumask_test(&b->nodes, n))
			continue;
		if (topo->nnodes == XS_MAX_NODES) {
			xs_topology_err("hwloc", "more than %d nodes hold usable CPUs",
					XS_MAX_NODES);
			return -E2BIG;
		}
		obj[topo->nnodes] = hwloc_get_numanode_obj_by_os_index(b->hw, n);
		topo->node_ids[topo->nnodes++] = n;
	}
	for (uint32_t i = 0; i < topo->ncpus; i++)
		for (n = 0; n < topo->nnodes; n++)
			if (topo->node_ids[n] == b->node_of[i])
				topo->cpus[i].node = n;
	while ((node = hwloc_get_next_obj_by_type(b->hw, HWLOC_OBJ_NUMANODE, node))) {
		if (node->os_index < XS_MAX_CPUS && xs_cpumask_test(&b->nodes, node->os_index))
			continue;
		if (topo->nother_nodes == XS_MAX_NODES)
			break; /* advice only: the first 64 are enough to place memory */
		topo->other_node_ids[topo->nother_nodes++] = node->os_index;
	}

	/* The kernel's SLIT, as hwloc read it from node/nodeN/distance. */
	if (hwloc_distances_get_by_type(b->hw, HWLOC_OBJ_NUMANODE, &nr, &dist,
					HWLOC_DISTANCES_KIND_FROM_OS |
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0))
		nr = 0;
	for (uint32_t i = 0; i < topo->nnodes; i++) {
		for (uint32_t j = 0; j < topo->nnodes; j++) {
			uint64_t d = i == j ? LOCAL_DISTANCE : REMOTE_DISTANCE;
			int from = nr ? hwloc_distances_obj_index(dist, obj[i]) : -1;
			int to = nr ? hwloc_distances_obj_index(dist, obj[j]) : -1;

			if (from >= 0 && to >= 0)
				d = dist->values[(unsigned)from * dist->nbobjs + (unsigned)to];
			if (d < 10 || d > 255) {
				xs_topology_err("hwloc", "distance from node%u to node%u is %llu: "
						"expected 10..255", topo->node_ids[i],
						topo->node_ids[j], (unsigned long long)d);
				if (nr)
					hwloc_distances_release(b->hw, dist);
				return -EINVAL;
			}
			topo->distance[i][j] = (uint8_t)d;
		}
	}
	if (nr)
		hwloc_distances_release(b->hw, dist);
	return 0;
}

/* Each CPU's kind by hwloc's ranking; one kind when hwloc knows none. */
static void add_kinds(struct builder *b)
{
	struct xs_topology *topo = b->topo;
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int nr = hwloc_cpukinds_get_nr(b->hw, 0);

	topo->nkinds = 1;
	if (!set || nr <= 1)
		goto out;
	for (int k = 0; k < nr; k++) {
		if (hwloc_cpukinds_get_info(b->hw, (unsigned)k, set, NULL, NULL, NULL, 0))
			continue;
		for (uint32_t i = 0; i < topo->ncpus; i++)
			if (hwloc_bitmap_isset(set, topo->cpus[i].cpu))
				topo->cpus[i].kind = (uint32_t)k;
	}
	topo->nkinds = (uint32_t)nr;
out:
	hwloc_bitmap_free(set);
}

/* Allowed & online & (on this system) the calling thread's affinity. */
static int usable_cpus(hwloc_topology_t hw, hwloc_bitmap_t usable)
{
	hwloc_bitmap_t bound;
	int ret = 0;

	if (hwloc_bitmap_and(usable, hwloc_topology_get_allowed_cpuset(hw),
			     hwloc_topology_get_topology_cpuset(hw)))
		return -ENOMEM;
	if (hwloc_topology_is_thissystem(hw)) {
		bound = hwloc_bitmap_alloc();
		if (!bound)
			return -ENOMEM;
		if (hwloc_get_cpubind(hw, bound, HWLOC_CPUBIND_THREAD)) {
			ret = -errno;
			xs_topology_err("sched_getaffinity", "%s", strerror(errno));
		} else if (hwloc_bitmap_and(usable, usable, bound)) {
			ret = -ENOMEM;
		}
		hwloc_bitmap_free(bound);
	}
	if (!ret && hwloc_bitmap_iszero(usable)) {
		xs_topology_err("hwloc", "no usable CPU (online & affinity & cgroup cpuset "
				"is empty)");
		ret = -ENODEV;
	}
	if (!ret && hwloc_bitmap_last(usable) >= XS_MAX_CPUS) {
		xs_topology_err("hwloc", "cpu%d: CPU numbers must be below %d",
				hwloc_bitmap_last(usable), XS_MAX_CPUS);
		ret = -ERANGE;
	}
	return ret;
}

struct xs_topology *xs_machine_load(void)
{
	struct xs_topology *topo = NULL;
	hwloc_bitmap_t usable = NULL;
	struct builder *b;
	int ret = -ENOMEM, cpu;

	pthread_once(&cpus_machine.once, cpus_machine_open);
	if (cpus_machine.err) {
		errno = -cpus_machine.err;
		return NULL;
	}
	b = calloc(1, sizeof(*b));
	if (!b)
		goto out;
	b->hw = cpus_machine.topo;
	b->topo = calloc(1, sizeof(*b->topo));
	usable = hwloc_bitmap_alloc();
	if (!b->topo || !usable)
		goto out;
	ret = usable_cpus(b->hw, usable);
	if (ret)
		goto out;
	/* by increasing CPU number (cpus[] is sorted by it), which need not be
	 * hwloc's logical order */
	hwloc_bitmap_foreach_begin(cpu, usable) {
		hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(b->hw, (unsigned)cpu);

		ret = pu ? add_cpu(b, pu) : -EINVAL;
		if (ret) {
			if (!pu)
				xs_topology_err("hwloc", "cpu%d is usable but has no PU", cpu);
			goto out;
		}
	}
	hwloc_bitmap_foreach_end();
	b->topo->npackages = b->packages.n ? b->packages.n : 1;
	b->topo->ncores = b->cores.n;
	b->topo->nllcs = b->llcs.n;
	ret = add_nodes(b);
	if (ret)
		goto out;
	add_kinds(b);
	strcpy(b->topo->source, "hwloc");
	topo = b->topo;
out:
	hwloc_bitmap_free(usable);
	if (b && !topo)
		free(b->topo);
	free(b);
	if (!topo)
		errno = -ret;
	return topo;
}

/* ---- devices --------------------------------------------------------------- */

static int device_kind(hwloc_obj_t osdev)
{
	switch (osdev->attr->osdev.type) {
	case HWLOC_OBJ_OSDEV_GPU:
	case HWLOC_OBJ_OSDEV_COPROC:
		return XS_DEVICE_GPU;
	case HWLOC_OBJ_OSDEV_NETWORK:
	case HWLOC_OBJ_OSDEV_OPENFABRICS:
		return XS_DEVICE_NIC;
	default:
		return -1;
	}
}

static void describe_device(hwloc_topology_t hw, hwloc_obj_t osdev, int kind,
			    struct xs_device *d)
{
	hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(hw, osdev);

	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", osdev->name ? osdev->name : "?");
	d->kind = (uint32_t)kind;
	for (hwloc_obj_t a = osdev->parent; a; a = a->parent) {
		if (a->type == HWLOC_OBJ_PCI_DEVICE) {
			const struct hwloc_pcidev_attr_s *p = &a->attr->pcidev;

			snprintf(d->pci, sizeof(d->pci), "%04x:%02x:%02x.%01x",
				 p->domain & 0xffffu, p->bus, p->dev, p->func & 0xfu);
			break;
		}
	}
	/* Attached to the machine itself, which has several nodes: hwloc
	 * does not know which one is near. */
	d->node = -1;
	if (near && near->nodeset && !hwloc_bitmap_iszero(near->nodeset) &&
	    (near->parent || hwloc_bitmap_weight(near->nodeset) == 1))
		d->node = hwloc_bitmap_first(near->nodeset);
	mask_from_bitmap(&d->cpus, near && near->cpuset ? near->cpuset :
			 hwloc_topology_get_topology_cpuset(hw));
}

int xs_topology_devices(struct xs_device *out, uint32_t cap)
{
	hwloc_obj_t osdev = NULL;
	uint32_t n = 0;
	int kind;

	if (!out && cap)
		return -EINVAL;
	pthread_once(&io_machine.once, io_machine_open);
	if (io_machine.err)
		return io_machine.err;
	while ((osdev = hwloc_get_next_osdev(io_machine.topo, osdev))) {
		kind = device_kind(osdev);
		if (kind < 0)
			continue;
		if (n < cap)
			describe_device(io_machine.topo, osdev, kind, &out[n]);
		n++;
	}
	return (int)n;
}
