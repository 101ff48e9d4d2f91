/* SPDX-License-Identifier: MIT */
/*
 * topology.h - what libxsched knows about the machine (internal).
 *
 * One module, two sources. The real machine comes from hwloc (machine.c):
 * CPUs, packages, cores and SMT, caches, NUMA nodes with their distances,
 * hybrid CPU kinds, and the locality of GPUs and network devices, restricted
 * to what the process may use (hwloc's allowed set: online CPUs inside the
 * cgroup cpuset) and to the calling thread's affinity mask. A synthetic
 * machine comes from a directory laid out like /sys/devices/system
 * (XSCHED_SYSFS_ROOT, written by tools/xsched-mksysfs; topology.c reads it),
 * so multi-node behaviour can be tested on any box:
 *
 *   <root>/cpu/online
 *   <root>/cpu/cpuN/topology/{physical_package_id,core_id,thread_siblings_list}
 *   <root>/cpu/cpuN/cache/indexK/{level,type,shared_cpu_list}   (optional)
 *   <root>/node/online, <root>/node/nodeN/{cpulist,distance}    (optional:
 *                                    absent = one node, as CONFIG_NUMA=n)
 *
 * hwloc's own test inputs (HWLOC_XMLFILE, HWLOC_SYNTHETIC, HWLOC_FSROOT in
 * the environment) are honoured by the real-machine source; their CPU
 * numbers are not this system's, so no affinity mask is applied to them.
 * Both daemon and library build their struct xs_topology here, so they
 * see one machine.
 *
 * Victim tables are derived from it (victims.c): for each CPU an ordered,
 * weighted list of the other CPUs (same core, same LLC, same node, then nodes
 * by distance). Stealing reads victims only through struct xs_victim_table
 * and xs_victim_row(), so the daemon can publish a replacement without the
 * stealing code knowing. Worker placement (place.c) is derived from it too.
 *
 * Errors: every file that cannot be read or parsed is named on stderr as
 * "xsched: topology: <file>: <problem>" and the call fails with errno set;
 * nothing is silently defaulted.
 */
#ifndef XSCHED_TOPOLOGY_H
#define XSCHED_TOPOLOGY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define XS_MAX_CPUS 1024  /* CPU (and node) numbers must be below this */
#define XS_MAX_NODES 64   /* nodes that hold usable CPUs */

/* A set of CPU (or node) numbers 0..XS_MAX_CPUS-1. */
struct xs_cpumask {
	uint64_t bits[XS_MAX_CPUS / 64];
};

/*
 * Parse a kernel cpulist ("0-3,8,10-11", optionally ending in a newline; an
 * empty list is valid) into @mask. Every number must be < @limit (at most
 * XS_MAX_CPUS). Returns 0, or -EINVAL / -ERANGE with a one-line description
 * of the bad content (quoting it) written to @why.
 */
int xs_cpulist_parse(const char *text, uint32_t limit, struct xs_cpumask *mask,
		     char *why, size_t why_len);

static inline int xs_cpumask_test(const struct xs_cpumask *m, uint32_t cpu)
{
	return cpu < XS_MAX_CPUS && (m->bits[cpu / 64] >> (cpu % 64)) & 1;
}

/* Closeness classes, nearest first. Classes nest: a victim is REMOTE when its
 * node differs, whatever caches it shares; SMT and LLC imply the same node. */
enum xs_victim_class {
	XS_VICTIM_SMT = 0,   /* same core (hyper-thread sibling) */
	XS_VICTIM_LLC = 1,   /* same last-level cache, other core */
	XS_VICTIM_NODE = 2,  /* same NUMA node, other LLC */
	XS_VICTIM_REMOTE = 3 /* other node; ordered by distance */
};

struct xs_cpu_info {
	uint32_t cpu;        /* logical CPU number (as in sysfs) */
	uint32_t node;       /* node index: into node_ids[] and distance[][] */
	uint32_t package;    /* physical_package_id */
	uint32_t core;       /* core_id within the package */
	uint32_t core_group; /* its physical core (thread_siblings_list), 0..ncores-1 */
	uint32_t llc;        /* index of its LLC group, 0..nllcs-1 */
	uint32_t kind;       /* hybrid CPU kind, 0..nkinds-1: higher = faster
			      * and less energy-efficient (hwloc's ranking) */
};

/*
 * Invariants after a successful load: 1 <= ncpus <= XS_MAX_CPUS; cpus[] sorted
 * by strictly increasing cpu; every node/core_group/llc index is below its
 * count and every index below a count is used by some CPU; node_ids[]
 * strictly increasing; distance[i][j] in 10..255 for i, j < nnodes;
 * 1 <= nkinds; other_node_ids[] strictly increasing and disjoint from
 * node_ids[].
 */
struct xs_topology {
	uint32_t ncpus;                       /* usable CPUs (online & allowed) */
	uint32_t nnodes;                      /* nodes that hold usable CPUs */
	uint32_t npackages;
	uint32_t ncores;                      /* SMT sibling groups */
	uint32_t nllcs;
	uint32_t nkinds;                      /* CPU kinds (P/E cores); 1 if uniform */
	uint32_t nother_nodes;                /* nodes without usable CPUs */
	struct xs_cpu_info cpus[XS_MAX_CPUS]; /* sorted by cpu number */
	uint32_t node_ids[XS_MAX_NODES];      /* sysfs node number of node i */
	uint8_t distance[XS_MAX_NODES][XS_MAX_NODES]; /* SLIT, by node index */
	/* Nodes that hold no usable CPU: memory-only nodes (CXL, HBM,
	 * persistent memory) and nodes whose CPUs are all outside the
	 * affinity mask or cpuset. Memory can still be placed on them. */
	uint32_t other_node_ids[XS_MAX_NODES];
	char source[256];                     /* "hwloc" or the synthetic root */
};

/* Load the topology; @sysfs_root NULL means the real machine (hwloc).
 * Returns NULL and sets errno (a message naming the file is printed) on
 * failure. */
struct xs_topology *xs_topology_load(const char *sysfs_root);

/*
 * The real machine through hwloc (machine.c); xs_topology_load(NULL) is
 * this. hwloc's topology is loaded once per process and shared; the
 * affinity mask is read at every call.
 */
struct xs_topology *xs_machine_load(void);

/*
 * Where the loader's files come from. xs_topology_load() reads the file
 * system; xs_topology_load_from() parses the same files from any source
 * (tests/fuzz/topology.c: from memory), with the same code and the same
 * errors. @path is <root>/<rel>, the name errors give; @rel has no
 * leading '/'.
 */
struct xs_topology_files {
	/* Up to @cap bytes of the file into @buf: the count, or -errno
	 * (-ENOENT: no such file, -EISDIR: a directory). @cap bytes means
	 * the file may be longer. */
	ssize_t (*read)(void *ctx, const char *path, const char *rel, char *buf, size_t cap);
	/* Nonzero when the file or directory exists. */
	int (*exists)(void *ctx, const char *path, const char *rel);
	void *ctx;
};

struct xs_topology *xs_topology_load_from(const char *sysfs_root,
					  const struct xs_topology_files *files);
void xs_topology_free(struct xs_topology *topo);

/* topology_error.c: "xsched: topology: <file>: <problem>" on stderr, every
 * load error. */
void xs_topology_err(const char *file, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Devices whose locality matters to placement: GPUs for the CUDA path,
 * network devices for MPI ranks. Found by hwloc on the real machine (or
 * in HWLOC_XMLFILE); a synthetic sysfs root has none.
 */
enum xs_device_kind {
	XS_DEVICE_GPU = 0, /* GPU or coprocessor: CUDA, NVML, OpenCL, DRM, ... */
	XS_DEVICE_NIC = 1  /* network interface or RDMA (OpenFabrics) device */
};

struct xs_device {
	char name[32];          /* the OS's name: "cuda0", "card1", "eth0", "mlx5_0" */
	char pci[16];           /* PCI bus id "0000:3b:00.0", "" when not on PCI */
	uint32_t kind;          /* enum xs_device_kind */
	int32_t node;           /* nearest NUMA node's number, -1 when unknown */
	struct xs_cpumask cpus; /* the CPUs nearest to it; all CPUs if unknown */
};

/*
 * Copy up to @cap devices of the machine into @out, in hwloc's order (by
 * PCI bus). Returns how many there are (more than @cap: some were left
 * out), or -errno. The first call loads hwloc a second time with I/O
 * objects (a PCI scan, and hwloc's plugins, which may initialise the CUDA
 * or NVML driver): milliseconds or more, so runtimes never pay it unless
 * they ask; the result is kept for the process.
 */
int xs_topology_devices(struct xs_device *out, uint32_t cap);

/* Index into topo->cpus of logical CPU @cpu, or -1. */
int xs_topology_cpu_index(const struct xs_topology *topo, uint32_t cpu);

/*
 * OMP_PROC_BIND-like policies.
 *  XS_BIND_COMPACT: CPUs in (package, node, LLC, core, cpu) order, so a
 *                   core, then an LLC, then a node fills before the next.
 *  XS_BIND_SCATTER: round-robin across packages, then nodes within each,
 *                   then LLCs, then cores, then SMT threads.
 *  XS_BIND_NONE:    workers are not pinned; out[i] is the nominal CPU
 *                   (index i, in cpu-number order) whose victim row the
 *                   worker uses.
 */
enum xs_bind_policy { XS_BIND_NONE, XS_BIND_COMPACT, XS_BIND_SCATTER };

/* Fill @out[0..nworkers) with the CPU index (into topo->cpus) that worker i
 * should be pinned to under @policy. Wraps (out[i] = order[i % ncpus]) when
 * nworkers > ncpus. Returns 0, -EINVAL (bad policy or NULL @out with
 * nworkers > 0) or -ENOMEM. */
int xs_topology_place(const struct xs_topology *topo, enum xs_bind_policy policy,
		      uint32_t nworkers, uint32_t *out);

struct xs_victim {
	uint32_t cpu_index; /* index into topo->cpus */
	uint16_t class;     /* enum xs_victim_class */
	uint16_t weight;    /* 1..65535, higher = preferred; see victims.c */
};

/*
 * Victim table: for each usable CPU index, ncpus-1 victims ordered nearest
 * first (never itself). Flat array: row r starts at victims[r * row_len].
 * A plain data structure: a later producer (the daemon) may rebuild or
 * re-weight it by load; readers use only xs_victim_row().
 */
struct xs_victim_table {
	uint32_t ncpus;
	uint32_t row_len;          /* ncpus - 1 */
	struct xs_victim *victims; /* NULL when row_len == 0 */
};

/* Weight of a victim at SLIT-like cost @cost (victims.c states the costs). */
#define XS_VICTIM_WEIGHT(cost) ((uint16_t)(10240u / (cost)))

struct xs_victim_table *xs_victim_table_build(const struct xs_topology *topo);
void xs_victim_table_free(struct xs_victim_table *vt);

/*
 * Check the invariants every table must keep, whoever built it (a table the
 * daemon publishes is checked before stealing adopts it): 1 <= ncpus <=
 * XS_MAX_CPUS, row_len == ncpus - 1, every row a permutation of the other
 * CPU indexes, class <= XS_VICTIM_REMOTE, weight >= 1. Order and weights
 * are advice and are not checked. Returns 0 or -EINVAL.
 */
int xs_victim_table_check(const struct xs_victim_table *vt);

/* The victims of CPU index @r, row_len of them, nearest first. */
static inline const struct xs_victim *xs_victim_row(const struct xs_victim_table *vt,
						    uint32_t r)
{
	return vt->row_len ? vt->victims + (size_t)r * vt->row_len : NULL;
}

#endif /* XSCHED_TOPOLOGY_H */
