// SPDX-License-Identifier: MIT
/*
 * state.c - the published state file (include/xsched/abi.h has its layout).
 *
 * Created as <dir>/.state.tmp, laid out, then renamed to <dir>/state, so a
 * reader never opens a half-initialized file; mode 0444 (xschedd keeps its
 * own writable descriptor from the creation). Every tick rewrites the
 * changing part inside one seqlock write section. At exit the header says
 * XS_ABI_F_EXITED (mappings that outlive the file see it) and the files go.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xschedd.h"

static size_t xsd_align(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

static int xsd_path(const struct xsd *d, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", d->opt.runtime_dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A file of @size bytes in the runtime dir, mode 0444, mapped rw at *@map;
 * *@ro_fd is a read-only descriptor of it for clients. */
static int xsd_publish_file(struct xsd *d, const char *name, size_t size, void **map,
			    int *rw_fd, int *ro_fd)
{
	char tmp[PATH_MAX], path[PATH_MAX], tmpname[64];
	int fd = -1, rfd = -1, ret;
	void *p = MAP_FAILED;

	snprintf(tmpname, sizeof(tmpname), ".%s.tmp", name);
	if (xsd_path(d, tmpname, tmp, sizeof(tmp)) || xsd_path(d, name, path, sizeof(path)))
		return -ENAMETOOLONG;
	unlink(tmp);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
	if (fd < 0 || fchmod(fd, 0444) || ftruncate(fd, (off_t)size))
		goto fail_errno;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		goto fail_errno;
	rfd = open(tmp, O_RDONLY | O_CLOEXEC);
	if (rfd < 0)
		goto fail_errno;
	*map = p;
	*rw_fd = fd;
	*ro_fd = rfd;
	return 0;

fail_errno:
	ret = -errno;
	xsd_log("%s: %s\n", tmp, strerror(errno));
	if (p != MAP_FAILED)
		munmap(p, size);
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	return ret;
}

static int xsd_rename_into_place(struct xsd *d, const char *name)
{
	char tmp[PATH_MAX], path[PATH_MAX], tmpname[64];

	snprintf(tmpname, sizeof(tmpname), ".%s.tmp", name);
	if (xsd_path(d, tmpname, tmp, sizeof(tmp)) || xsd_path(d, name, path, sizeof(path)))
		return -ENAMETOOLONG;
	if (rename(tmp, path)) {
		xsd_log("rename %s -> %s: %s\n", tmp, path, strerror(errno));
		return -errno;
	}
	return 0;
}

int xsd_workers_file_create(struct xsd *d)
{
	int ret;
	void *p;

	d->workers_size = xsd_align((size_t)d->nslots * sizeof(struct xs_abi_worker),
				    (size_t)sysconf(_SC_PAGESIZE));
	ret = xsd_publish_file(d, XS_ABI_WORKERS_FILE, d->workers_size, &p, &d->workers_fd,
			       &d->workers_ro_fd);
	if (ret)
		return ret;
	d->workers = p;
	return xsd_rename_into_place(d, XS_ABI_WORKERS_FILE);
}

int xsd_state_create(struct xsd *d)
{
	const struct xs_topology *t = d->topo;
	uint32_t n = t->ncpus;
	struct xs_abi_header layout;
	struct xs_abi_header *h;
	uint64_t size;
	int ret;
	void *p;

	memset(&layout, 0, sizeof(layout));
	size = xs_abi_layout(&layout, n, t->nnodes, d->nslots, (uint64_t)sysconf(_SC_PAGESIZE));
	if (size > UINT32_MAX) {
		xsd_log("state file would be %llu bytes: too many CPUs or slots\n",
			(unsigned long long)size);
		return -E2BIG;
	}
	d->state_size = (size_t)size;
	ret = xsd_publish_file(d, XS_ABI_STATE_FILE, d->state_size, &p, &d->state_fd,
			       &d->state_ro_fd);
	if (ret)
		return ret;
	h = d->state = p;
	*h = layout; /* the file is new: nothing to order against */
	h->tick_ns = (uint64_t)d->opt.tick_ms * 1000000u;
	h->mode = d->mode;
	h->daemon_pid = (uint32_t)getpid();
	h->flags = xsd_bpf_numa_attached(d) ? XS_ABI_F_NUMA_EVENTS : 0;

	struct xs_abi_cpu *cpus = (struct xs_abi_cpu *)((char *)h + h->cpu_off);
	struct xs_abi_node *nodes = (struct xs_abi_node *)((char *)h + h->node_off);

	for (uint32_t i = 0; i < n; i++) {
		cpus[i].cpu = t->cpus[i].cpu;
		cpus[i].node = t->cpus[i].node;
		cpus[i].idle_permille = 1000;
	}
	for (uint32_t i = 0; i < t->nnodes; i++)
		nodes[i].node = t->node_ids[i];
	xsd_state_publish(d, xsd_now_ns());
	return xsd_rename_into_place(d, XS_ABI_STATE_FILE);
}

/* "Node N MemFree:   123 kB" from sysfs, or /proc/meminfo without NUMA. */
static void xsd_node_mem(const struct xsd *d, uint32_t node_id, uint64_t *free_kib,
			 uint64_t *total_kib)
{
	char path[PATH_MAX + 64], line[256];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/node/node%u/meminfo",
		 *d->opt.sysfs_root ? d->opt.sysfs_root : "/sys/devices/system", node_id);
	f = fopen(path, "re");
	if (!f && d->topo->nnodes == 1)
		f = fopen("/proc/meminfo", "re");
	while (f && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "MemFree:");

		if (p && sscanf(p + 8, "%llu", &v) == 1)
			*free_kib = v;
		p = strstr(line, "MemTotal:");
		if (p && sscanf(p + 9, "%llu", &v) == 1)
			*total_kib = v;
	}
	if (f)
		fclose(f);
}

void xsd_state_publish(struct xsd *d, uint64_t now_ns)
{
	struct xs_abi_header *h = d->state;
	const struct xs_topology *t = d->topo;
	struct xs_abi_cpu *cpus = (struct xs_abi_cpu *)((char *)h + h->cpu_off);
	struct xs_abi_node *nodes = (struct xs_abi_node *)((char *)h + h->node_off);
	struct xs_abi_share *shares = (struct xs_abi_share *)((char *)h + h->share_off);
	uint64_t numa[4], free_kib[XS_MAX_NODES] = { 0 }, total_kib[XS_MAX_NODES] = { 0 };

	/* everything slow happens before the write section */
	for (uint32_t i = 0; i < t->nnodes; i++)
		xsd_node_mem(d, t->node_ids[i], &free_kib[i], &total_kib[i]);
	xsd_bpf_numa_events(d, numa);

	xs_abi_write_begin(h);
	for (uint32_t i = 0; i < t->ncpus; i++) {
		const struct xsd_cpu_sample *s = d->cpu ? &d->cpu[i] : NULL;

		if (!s || !s->primed)
			continue;
		cpus[i].foreign_permille = s->foreign;
		cpus[i].worker_permille = s->worker;
		cpus[i].idle_permille = s->idle;
		cpus[i].rq_latency_us = s->rq_us;
		cpus[i].switches = s->switches;
		cpus[i].migrations_in = s->migrations;
	}
	for (uint32_t i = 0; i < t->ncpus && d->cpu_owner; i++)
		cpus[i].share_pid = d->cpu_owner[i];
	/* The entries of this tick, then zeros where the last tick had more. */
	if (d->nprocs)
		memcpy(shares, d->procs, (size_t)d->nprocs * sizeof(*shares));
	if (d->published_procs > d->nprocs)
		memset(shares + d->nprocs, 0,
		       (size_t)(d->published_procs - d->nprocs) * sizeof(*shares));
	d->published_procs = d->nprocs;
	h->share_count = d->nprocs;
	h->share_cpus = d->share_cpus ? d->share_cpus : t->ncpus;
	h->share_active = d->share_active;
	for (uint32_t i = 0; i < t->nnodes; i++) {
		nodes[i].mem_free_kib = free_kib[i];
		nodes[i].mem_total_kib = total_kib[i];
	}
	if (d->rows && h->row_len)
		memcpy((char *)h + h->victim_off, d->rows,
		       (size_t)h->ncpus * h->row_len * sizeof(struct xs_abi_victim));
	if (d->workers)
		memcpy((char *)h + h->worker_off, d->workers,
		       (size_t)h->nslots * sizeof(struct xs_abi_worker));
	memcpy(h->numa_events, numa, sizeof(numa));
	h->mode = d->mode;
	h->heartbeat_ns = now_ns;
	h->tick_ns = (uint64_t)d->opt.tick_ms * 1000000u;
	h->generation++;
	xs_abi_write_end(h);
}

void xsd_state_remove(struct xsd *d)
{
	char path[PATH_MAX];

	if (d->state) {
		xs_abi_write_begin(d->state);
		d->state->flags |= XS_ABI_F_EXITED;
		xs_abi_write_end(d->state);
		if (!xsd_path(d, XS_ABI_STATE_FILE, path, sizeof(path)))
			unlink(path);
		munmap(d->state, d->state_size);
		close(d->state_fd);
		close(d->state_ro_fd);
		d->state = NULL;
	}
	if (d->mode == XS_ABI_MODE_DEGRADED && d->workers) {
		if (!xsd_path(d, XS_ABI_WORKERS_FILE, path, sizeof(path)))
			unlink(path);
		munmap(d->workers, d->workers_size);
		close(d->workers_fd);
		close(d->workers_ro_fd);
		d->workers = NULL;
	}
}
