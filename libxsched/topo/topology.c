// SPDX-License-Identifier: MIT
/*
 * topology.c - read a synthetic machine: usable CPUs, packages, SMT and LLC
 * sharing, NUMA nodes and their SLIT distances from a directory laid out like
 * /sys/devices/system (XSCHED_SYSFS_ROOT: tests, benchmarks, "2 sockets x 2
 * nodes x 4 CPUs" on any box). The real machine is hwloc's (machine.c).
 *
 * This reader stays xsched's own, beside hwloc, because the synthetic trees
 * are a test input whose mistakes must be named: hwloc's Linux reader
 * (HWLOC_FSROOT) skips a missing or malformed file and builds whatever the
 * rest describes, and it reads hexadecimal cpumaps that the hand-written
 * trees under tests/machines do not carry. Trees written by
 * tools/xsched-mksysfs carry both forms, and hwloc reads them as this
 * reader does (tests/topo/topology-hwloc-reads-mksysfs.c). No CPU numbers of a
 * synthetic tree are this system's, so no affinity mask or cgroup cpuset
 * applies to them.
 *
 * Every file that cannot be read or parsed is reported once, as
 * "xsched: topology: <file>: <problem>", and the load fails with that errno.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo/topology.h"

#define TEXT_MAX 8192   /* a cpulist of 1024 CPUs, a distance row of 1024 nodes */
#define MAX_CACHE_INDEX 64
#define NO_NODE UINT32_MAX

/*
 * Working state of one load; the per-CPU arrays are indexed by CPU number
 * and have ncpu_ids entries, one more than the highest usable CPU.
 */
struct loader {
	const char *root;             /* no trailing '/' */
	const struct xs_topology_files *files; /* where the files come from */
	struct xs_topology *topo;
	struct xs_cpumask usable;
	struct xs_cpumask *smt;       /* thread_siblings_list & usable */
	struct xs_cpumask *llc;       /* LLC shared_cpu_list & usable */
	int16_t *llc_index;           /* cache/indexK chosen as LLC, -1: none */
	uint32_t *node_of;            /* node index, NO_NODE until assigned */
	uint32_t *group;              /* by CPU index: scratch for number_groups() */
	uint32_t ncpu_ids;            /* entries of the arrays above */
	char path[PATH_MAX];          /* the file read last: named in errors */
	char text[TEXT_MAX];          /* its content */
};

/* ---- masks and cpulists -------------------------------------------------- */

static void mask_set(struct xs_cpumask *m, uint32_t cpu)
{
	m->bits[cpu / 64] |= 1ull << (cpu % 64);
}

static void mask_and(struct xs_cpumask *dst, const struct xs_cpumask *src)
{
	for (size_t i = 0; i < XS_MAX_CPUS / 64; i++)
		dst->bits[i] &= src->bits[i];
}

static int mask_equal(const struct xs_cpumask *a, const struct xs_cpumask *b)
{
	return !memcmp(a->bits, b->bits, sizeof(a->bits));
}

static uint32_t mask_weight(const struct xs_cpumask *m)
{
	uint32_t n = 0;

	for (size_t i = 0; i < XS_MAX_CPUS / 64; i++)
		n += (uint32_t)__builtin_popcountll(m->bits[i]);
	return n;
}

/* Lowest member at or after @from, or XS_MAX_CPUS. */
static uint32_t mask_next(const struct xs_cpumask *m, uint32_t from)
{
	for (uint32_t i = from; i < XS_MAX_CPUS; i++) {
		uint64_t w = m->bits[i / 64] >> (i % 64);

		if (w)
			return i + (uint32_t)__builtin_ctzll(w);
		i |= 63; /* rest of this word is empty */
	}
	return XS_MAX_CPUS;
}

#define mask_for_each(cpu, m) \
	for ((cpu) = mask_next((m), 0); (cpu) < XS_MAX_CPUS; (cpu) = mask_next((m), (cpu) + 1))

/*
 * Parse one unsigned decimal at *p, advancing it. Returns -EINVAL when there
 * are no digits and -ERANGE when the value is >= limit.
 */
static int parse_number(const char **p, uint32_t limit, uint32_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (uint64_t)(*s++ - '0');
		if (v >= limit)
			return -ERANGE;
	}
	*p = s;
	*out = (uint32_t)v;
	return 0;
}

/* Quote at most the first 40 characters of @text, newlines escaped. */
static const char *quote(const char *text, char *buf, size_t len)
{
	size_t o = 0;

	for (const char *s = text; *s && o + 5 < len && s - text < 40; s++) {
		if (*s == '\n') {
			buf[o++] = '\\';
			buf[o++] = 'n';
		} else {
			buf[o++] = isprint((unsigned char)*s) ? *s : '?';
		}
	}
	buf[o] = '\0';
	return buf;
}

int xs_cpulist_parse(const char *text, uint32_t limit, struct xs_cpumask *mask,
		     char *why, size_t why_len)
{
	const char *p = text;
	char q[64];
	int ret;

	memset(mask, 0, sizeof(*mask));
	if (limit > XS_MAX_CPUS)
		limit = XS_MAX_CPUS;
	if (*p == '\n' && p[1] == '\0')
		return 0;
	while (*p) {
		uint32_t lo, hi;

		ret = parse_number(&p, limit, &lo);
		if (ret)
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			ret = parse_number(&p, limit, &hi);
			if (ret)
				goto bad;
			if (hi < lo) {
				ret = -EINVAL;
				goto bad;
			}
		}
		for (uint32_t c = lo; c <= hi; c++)
			mask_set(mask, c);
		if (*p == ',' && p[1] && p[1] != '\n') {
			p++;
		} else if (*p == '\n' && p[1] == '\0') {
			break;
		} else if (*p) {
			ret = -EINVAL;
			goto bad;
		}
	}
	return 0;
bad:
	if (ret == -ERANGE)
		snprintf(why, why_len, "bad cpulist \"%s\": numbers must be below %u",
			 quote(text, q, sizeof(q)), limit);
	else
		snprintf(why, why_len, "bad cpulist \"%s\": expected N or N-M (N <= M) "
			 "separated by ',' at offset %zu", quote(text, q, sizeof(q)),
			 (size_t)(p - text));
	return ret;
}

/* ---- files --------------------------------------------------------------- */

/* The file system: xs_topology_load()'s source of files. */

/* What fs_read() returns for a file that is not a regular file (open and
 * read of a file never fail with it); read_rel() names it. */
#define XS_TOPO_ENOTREG ENOTBLK

static ssize_t fs_read(void *ctx, const char *path, const char *rel, char *buf, size_t cap)
{
	size_t used = 0;
	struct stat st;
	ssize_t ret;
	int fd;

	(void)ctx;
	(void)rel;
	/* O_NONBLOCK: a FIFO put in a sysfs tree (XSCHED_SYSFS_ROOT) must
	 * not block the open until a writer comes; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -XS_TOPO_ENOTREG;
	}
	while (used < cap) {
		ret = read(fd, buf + used, cap - used);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			ret = -errno;
			close(fd);
			return ret;
		}
		if (ret == 0)
			break;
		used += (size_t)ret;
	}
	close(fd);
	return (ssize_t)used;
}

static int fs_exists(void *ctx, const char *path, const char *rel)
{
	struct stat st;

	(void)ctx;
	(void)rel;
	return stat(path, &st) == 0;
}

static const struct xs_topology_files fs_files = { .read = fs_read, .exists = fs_exists };

/*
 * Put <root>/<rel> in ld->path; returns the offset of <rel> in it, or
 * -ENAMETOOLONG.
 */
static int format_path(struct loader *ld, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static int format_path(struct loader *ld, const char *fmt, va_list ap)
{
	int n, rel;

	rel = snprintf(ld->path, sizeof(ld->path), "%s/", ld->root);
	if (rel < 0 || (size_t)rel >= sizeof(ld->path))
		return -ENAMETOOLONG;
	n = vsnprintf(ld->path + rel, sizeof(ld->path) - (size_t)rel, fmt, ap);
	if (n < 0 || (size_t)(rel + n) >= sizeof(ld->path))
		return -ENAMETOOLONG;
	return rel;
}

/*
 * Read <root>/<rel> into ld->text (NUL-terminated) and leave its name in
 * ld->path. A missing file is -ENOENT, reported unless @optional.
 */
static int read_rel(struct loader *ld, int optional, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int read_rel(struct loader *ld, int optional, const char *fmt, ...)
{
	ssize_t got;
	va_list ap;
	int rel, ret = 0;

	va_start(ap, fmt);
	rel = format_path(ld, fmt, ap);
	va_end(ap);
	if (rel < 0) {
		xs_topology_err(ld->path, "path longer than %d bytes", PATH_MAX - 1);
		return -ENAMETOOLONG;
	}
	/* a file that fills the buffer may be longer: refused as too long */
	got = ld->files->read(ld->files->ctx, ld->path, ld->path + rel, ld->text,
			      sizeof(ld->text) - 1);
	if (got < 0) {
		ret = (int)got;
		got = 0;
	} else if ((size_t)got == sizeof(ld->text) - 1) {
		xs_topology_err(ld->path, "longer than %zu bytes", sizeof(ld->text) - 1);
		ret = -EFBIG;
	}
	ld->text[got] = '\0';
	if (ret == -XS_TOPO_ENOTREG) {
		xs_topology_err(ld->path, "not a regular file (a FIFO, device, socket or directory "
			 "is refused)");
		return -EINVAL;
	}
	if (ret && ret != -EFBIG && !(optional && ret == -ENOENT))
		xs_topology_err(ld->path, "%s", strerror(-ret));
	return ret;
}

static int exists_rel(struct loader *ld, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int exists_rel(struct loader *ld, const char *fmt, ...)
{
	va_list ap;
	int rel;

	va_start(ap, fmt);
	rel = format_path(ld, fmt, ap);
	va_end(ap);
	return rel >= 0 && ld->files->exists(ld->files->ctx, ld->path, ld->path + rel);
}

/* ld->text holds one unsigned decimal below @limit, then optionally '\n'. */
static int parse_text_u32(struct loader *ld, uint32_t limit, uint32_t *out)
{
	const char *p = ld->text;
	char q[64];
	int ret;

	ret = parse_number(&p, limit, out);
	if (!ret && *p && strcmp(p, "\n"))
		ret = -EINVAL;
	if (ret)
		xs_topology_err(ld->path, "bad content \"%s\": expected an integer in 0..%u",
			 quote(ld->text, q, sizeof(q)), limit - 1);
	return ret;
}

static int parse_text_list(struct loader *ld, uint32_t limit, struct xs_cpumask *m)
{
	char why[160];
	int ret;

	ret = xs_cpulist_parse(ld->text, limit, m, why, sizeof(why));
	if (ret)
		xs_topology_err(ld->path, "%s", why);
	return ret;
}

/* ---- usable CPUs ---------------------------------------------------------- */

/* Usable = online: a synthetic tree names no CPU of this system. */
static int load_usable(struct loader *ld)
{
	int ret;

	ret = read_rel(ld, 0, "cpu/online");
	if (!ret)
		ret = parse_text_list(ld, XS_MAX_CPUS, &ld->usable);
	if (ret)
		return ret;
	if (!mask_weight(&ld->usable)) {
		xs_topology_err(ld->path, "no usable CPU (it lists no online CPU)");
		return -ENODEV;
	}
	return 0;
}

/* ---- per-CPU files -------------------------------------------------------- */

/*
 * The LLC of @cpu: the highest-level Data or Unified cache in cache/index*.
 * Without cache information the CPU shares no cache beyond its core, so its
 * LLC group is its SMT group.
 */
static int load_llc(struct loader *ld, uint32_t cpu)
{
	uint32_t level, best_level = 0, k;
	int best = -1, ret;

	for (k = 0; exists_rel(ld, "cpu/cpu%u/cache/index%u", cpu, k); k++) {
		if (k == MAX_CACHE_INDEX) {
			xs_topology_err(ld->path, "more than %d cache indexes", MAX_CACHE_INDEX);
			return -E2BIG;
		}
		ret = read_rel(ld, 0, "cpu/cpu%u/cache/index%u/level", cpu, k);
		if (!ret)
			ret = parse_text_u32(ld, 16, &level);
		if (ret)
			return ret;
		ret = read_rel(ld, 0, "cpu/cpu%u/cache/index%u/type", cpu, k);
		if (ret)
			return ret;
		if (!strcmp(ld->text, "Instruction\n"))
			continue;
		if (strcmp(ld->text, "Data\n") && strcmp(ld->text, "Unified\n")) {
			char q[64];

			xs_topology_err(ld->path, "bad content \"%s\": expected Data, Instruction "
				 "or Unified", quote(ld->text, q, sizeof(q)));
			return -EINVAL;
		}
		if (level > best_level) {
			best_level = level;
			best = (int)k;
		}
	}
	ld->llc_index[cpu] = (int16_t)best;
	if (best < 0) {
		ld->llc[cpu] = ld->smt[cpu];
		return 0;
	}
	ret = read_rel(ld, 0, "cpu/cpu%u/cache/index%d/shared_cpu_list", cpu, best);
	if (!ret)
		ret = parse_text_list(ld, XS_MAX_CPUS, &ld->llc[cpu]);
	if (!ret)
		mask_and(&ld->llc[cpu], &ld->usable);
	return ret;
}

static int load_cpu(struct loader *ld, struct xs_cpu_info *ci)
{
	uint32_t cpu = ci->cpu;
	int ret;

	ret = read_rel(ld, 0, "cpu/cpu%u/topology/physical_package_id", cpu);
	if (!ret)
		ret = parse_text_u32(ld, INT32_MAX, &ci->package);
	if (ret)
		return ret;
	ret = read_rel(ld, 0, "cpu/cpu%u/topology/core_id", cpu);
	if (!ret)
		ret = parse_text_u32(ld, INT32_MAX, &ci->core);
	if (ret)
		return ret;
	ret = read_rel(ld, 0, "cpu/cpu%u/topology/thread_siblings_list", cpu);
	if (!ret)
		ret = parse_text_list(ld, XS_MAX_CPUS, &ld->smt[cpu]);
	if (ret)
		return ret;
	mask_and(&ld->smt[cpu], &ld->usable);
	return load_llc(ld, cpu);
}

/* Leave in ld->path the file that gave @cpu's SMT (@llc == 0) or LLC set. */
static void sharing_file(struct loader *ld, int llc, uint32_t cpu)
{
	if (!llc)
		snprintf(ld->path, sizeof(ld->path),
			 "%s/cpu/cpu%u/topology/thread_siblings_list", ld->root, cpu);
	else if (ld->llc_index[cpu] < 0)
		snprintf(ld->path, sizeof(ld->path), "%s/cpu/cpu%u/cache", ld->root, cpu);
	else
		snprintf(ld->path, sizeof(ld->path), "%s/cpu/cpu%u/cache/index%d/shared_cpu_list",
			 ld->root, cpu, ld->llc_index[cpu]);
}

/*
 * Number the sharing groups in @sets (SMT siblings or LLC) in order of their
 * lowest CPU, writing each CPU's group to @group[cpu index]. The sets must
 * partition the usable CPUs: each CPU is in its own set and every member of
 * a set lists the same set. Returns the number of groups or -EINVAL.
 */
static int number_groups(struct loader *ld, const struct xs_cpumask *sets, int llc)
{
	const struct xs_topology *topo = ld->topo;
	uint32_t *group = ld->group, count = 0, other, i;

	for (i = 0; i < topo->ncpus; i++) {
		uint32_t cpu = topo->cpus[i].cpu;
		const struct xs_cpumask *set = &sets[cpu];
		uint32_t rep = mask_next(set, 0);

		if (!xs_cpumask_test(set, cpu)) {
			sharing_file(ld, llc, cpu);
			xs_topology_err(ld->path, "does not list cpu%u itself", cpu);
			return -EINVAL;
		}
		mask_for_each(other, set) {
			if (!mask_equal(&sets[other], set)) {
				sharing_file(ld, llc, cpu);
				xs_topology_err(ld->path, "lists cpu%u, whose %s lists other CPUs",
					 other, llc ? "LLC" : "thread_siblings_list");
				return -EINVAL;
			}
		}
		/* rep <= cpu and usable, so its group is already numbered */
		if (rep == cpu)
			group[i] = count++;
		else
			group[i] = group[xs_topology_cpu_index(topo, rep)];
	}
	return (int)count;
}

/* ---- nodes ---------------------------------------------------------------- */

/* No NUMA (CONFIG_NUMA=n, or no node directory): one node 0 at distance 10. */
static int single_node(struct loader *ld)
{
	uint32_t cpu;

	ld->topo->nnodes = 1;
	ld->topo->node_ids[0] = 0;
	ld->topo->distance[0][0] = 10;
	mask_for_each(cpu, &ld->usable)
		ld->node_of[cpu] = 0;
	return 0;
}

static int add_node(struct loader *ld, const char *file, uint32_t id)
{
	struct xs_topology *topo = ld->topo;

	if (topo->nnodes == XS_MAX_NODES) {
		xs_topology_err(file, "more than %d nodes hold usable CPUs", XS_MAX_NODES);
		return -E2BIG;
	}
	topo->node_ids[topo->nnodes] = id;
	return (int)topo->nnodes++;
}

static int check_distance(const char *file, uint32_t a, uint32_t b, long d)
{
	if (d >= 10 && d <= 255)
		return 0;
	xs_topology_err(file, "distance from node%u to node%u is %ld: expected 10..255", a, b, d);
	return -EINVAL;
}

/*
 * Nodes from <root>/node: node/online lists the nodes, nodeN/cpulist their
 * CPUs, nodeN/distance one SLIT entry per online node, in node/online order.
 */
static int load_nodes_sysfs(struct loader *ld)
{
	struct xs_topology *topo = ld->topo;
	uint32_t pos[XS_MAX_CPUS], nonline = 0, n, cpu;
	struct xs_cpumask online, cpus;
	int ret, idx;

	ret = read_rel(ld, 1, "node/online");
	if (ret == -ENOENT)
		return single_node(ld);
	if (!ret)
		ret = parse_text_list(ld, XS_MAX_CPUS, &online);
	if (ret)
		return ret;
	mask_for_each(n, &online) {
		pos[n] = nonline++;
		ret = read_rel(ld, 0, "node/node%u/cpulist", n);
		if (!ret)
			ret = parse_text_list(ld, XS_MAX_CPUS, &cpus);
		if (ret)
			return ret;
		mask_and(&cpus, &ld->usable);
		if (!mask_weight(&cpus)) {
			/* memory-only, or none of its CPUs usable */
			if (topo->nother_nodes == XS_MAX_NODES) {
				xs_topology_err(ld->path, "more than %d nodes hold no usable CPU",
						XS_MAX_NODES);
				return -E2BIG;
			}
			topo->other_node_ids[topo->nother_nodes++] = n;
			continue;
		}
		idx = add_node(ld, ld->path, n);
		if (idx < 0)
			return idx;
		mask_for_each(cpu, &cpus) {
			if (ld->node_of[cpu] != NO_NODE) {
				xs_topology_err(ld->path, "lists cpu%u, which node%u lists too", cpu,
					 topo->node_ids[ld->node_of[cpu]]);
				return -EINVAL;
			}
			ld->node_of[cpu] = (uint32_t)idx;
		}
	}
	mask_for_each(cpu, &ld->usable) {
		if (ld->node_of[cpu] == NO_NODE) {
			snprintf(ld->path, sizeof(ld->path), "%s/node", ld->root);
			xs_topology_err(ld->path, "cpu%u is in no online node's cpulist", cpu);
			return -EINVAL;
		}
	}
	for (uint32_t a = 0; a < topo->nnodes; a++) {
		long row[XS_MAX_CPUS];
		uint32_t len = 0;
		char *p, *end, q[64];

		ret = read_rel(ld, 0, "node/node%u/distance", topo->node_ids[a]);
		if (ret)
			return ret;
		for (p = ld->text; len < nonline; p = end) {
			errno = 0;
			row[len] = strtol(p, &end, 10);
			if (end == p || errno || !(isspace((unsigned char)*end) || !*end))
				break;
			len++;
		}
		while (isspace((unsigned char)*p))
			p++;
		if (len != nonline || *p) {
			xs_topology_err(ld->path, "bad content \"%s\": expected %u distances (one per "
				 "node in node/online)", quote(ld->text, q, sizeof(q)), nonline);
			return -EINVAL;
		}
		for (uint32_t b = 0; b < topo->nnodes; b++) {
			long d = row[pos[topo->node_ids[b]]];

			ret = check_distance(ld->path, topo->node_ids[a], topo->node_ids[b], d);
			if (ret)
				return ret;
			topo->distance[a][b] = (uint8_t)d;
		}
	}
	return 0;
}

/* ---- the whole load -------------------------------------------------------- */

static uint32_t count_packages(const struct xs_topology *topo)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < topo->ncpus; i++) {
		uint32_t j = 0;

		while (j < i && topo->cpus[j].package != topo->cpus[i].package)
			j++;
		n += j == i;
	}
	return n;
}

/*
 * The per-CPU arrays are indexed by CPU number, and only by usable ones:
 * every sharing set is masked by ld->usable before its members are looked
 * up. So they need entries up to the highest usable CPU, not XS_MAX_CPUS
 * (256 KiB of masks, allocated and zeroed for every load).
 */
static int alloc_per_cpu(struct loader *ld)
{
	uint32_t cpu, n = 0;

	mask_for_each(cpu, &ld->usable)
		n = cpu + 1;
	ld->ncpu_ids = n;
	ld->smt = calloc(n, sizeof(*ld->smt));
	ld->llc = calloc(n, sizeof(*ld->llc));
	ld->llc_index = calloc(n, sizeof(*ld->llc_index));
	ld->node_of = malloc(n * sizeof(*ld->node_of));
	ld->group = calloc(n, sizeof(*ld->group));
	if (!ld->smt || !ld->llc || !ld->llc_index || !ld->node_of || !ld->group)
		return -ENOMEM;
	memset(ld->node_of, 0xff, n * sizeof(*ld->node_of)); /* NO_NODE */
	return 0;
}

struct xs_topology *xs_topology_load(const char *sysfs_root)
{
	return xs_topology_load_from(sysfs_root, &fs_files);
}

struct xs_topology *xs_topology_load_from(const char *sysfs_root,
					  const struct xs_topology_files *files)
{
	struct loader *ld;
	struct xs_topology *topo = NULL;
	uint32_t cpu, i = 0;
	size_t root_len;
	int ret = -ENOMEM;

	if (!sysfs_root)
		return xs_machine_load(); /* the real machine: hwloc's, not files */
	ld = calloc(1, sizeof(*ld));
	if (!ld)
		goto out;
	ld->topo = calloc(1, sizeof(*ld->topo));
	if (!ld->topo)
		goto out;
	topo = ld->topo;

	ld->files = files;
	ld->root = sysfs_root;
	root_len = strlen(ld->root);
	while (root_len > 1 && ld->root[root_len - 1] == '/')
		root_len--;
	if (!root_len) {
		xs_topology_err("XSCHED_SYSFS_ROOT", "empty path: expected a directory laid out "
			 "like /sys/devices/system");
		ret = -EINVAL;
		goto out;
	}
	if (root_len >= sizeof(topo->source)) {
		xs_topology_err(ld->root, "synthetic sysfs root longer than %zu bytes",
			 sizeof(topo->source) - 1);
		ret = -ENAMETOOLONG;
		goto out;
	}
	memcpy(topo->source, ld->root, root_len);
	ld->root = topo->source;

	ret = load_usable(ld);
	if (!ret)
		ret = alloc_per_cpu(ld);
	if (ret)
		goto out;
	mask_for_each(cpu, &ld->usable) {
		topo->cpus[i].cpu = cpu;
		ret = load_cpu(ld, &topo->cpus[i++]);
		if (ret)
			goto out;
	}
	topo->ncpus = i;
	topo->npackages = count_packages(topo);

	ret = number_groups(ld, ld->smt, 0);
	if (ret < 0)
		goto out;
	topo->ncores = (uint32_t)ret;
	for (i = 0; i < topo->ncpus; i++)
		topo->cpus[i].core_group = ld->group[i];
	ret = number_groups(ld, ld->llc, 1);
	if (ret < 0)
		goto out;
	topo->nllcs = (uint32_t)ret;
	for (i = 0; i < topo->ncpus; i++)
		topo->cpus[i].llc = ld->group[i];

	ret = load_nodes_sysfs(ld);
	if (ret)
		goto out;
	for (i = 0; i < topo->ncpus; i++)
		topo->cpus[i].node = ld->node_of[topo->cpus[i].cpu];
	topo->nkinds = 1; /* the tree format has no CPU kinds: all alike */
	ret = 0;
out:
	if (ld) {
		free(ld->smt);
		free(ld->llc);
		free(ld->llc_index);
		free(ld->node_of);
		free(ld->group);
		if (ret)
			free(ld->topo);
		free(ld);
	}
	if (ret) {
		errno = -ret;
		return NULL;
	}
	return topo;
}

void xs_topology_free(struct xs_topology *topo)
{
	free(topo);
}

int xs_topology_cpu_index(const struct xs_topology *topo, uint32_t cpu)
{
	uint32_t lo = 0, hi = topo->ncpus;

	/* cpus[] is sorted by cpu number */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (topo->cpus[mid].cpu == cpu)
			return (int)mid;
		if (topo->cpus[mid].cpu < cpu)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
