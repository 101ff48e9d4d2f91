// SPDX-License-Identifier: MIT
/*
 * state.c - the published state file (include/xsched/abi.h has its layout).
 *
 * Created as <dir>/.state.tmp, laid out, then renamed to <dir>/state, so a
 * reader never opens a half-initialized file; mode 0444 (xschedd keeps its
 * own writable descriptor from the creation). Every tick rewrites the
 * changing part inside one seqlock write section. At exit the header says
 * XS_ABI_F_EXITED (mappings that outlive the file see it) and the files go.
 *
 * The daemon never trusts what is in the file: whoever can write it (root,
 * or the daemon's user) may change or truncate it under us. The layout
 * (offsets, counts), the sequence and generation counters and, in degraded
 * mode, the worker array live in private memory; a tick only writes the
 * file, from them. Before each write section the file's size and layout
 * lines are compared with ours and restored (with everything written once
 * at creation) if they differ; a truncation that races with the writes
 * raises SIGBUS, which ends the write section early (siglongjmp) and the
 * next tick restores the file.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
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
	/* the daemon's own copy: the file is a copy of it, written per tick */
	d->workers = calloc(1, d->workers_size);
	if (!d->workers)
		return -ENOMEM;
	ret = xsd_publish_file(d, XS_ABI_WORKERS_FILE, d->workers_size, &p, &d->workers_fd,
			       &d->workers_ro_fd);
	if (ret)
		return ret;
	d->workers_map = p;
	return xsd_rename_into_place(d, XS_ABI_WORKERS_FILE);
}

static sigjmp_buf xsd_bus_jmp;
static volatile sig_atomic_t xsd_bus_armed;
static struct xsd_ratelimit xsd_rl_state;

/* SIGBUS while writing a mapping of ours: the file was truncated. */
static void xsd_on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (xsd_bus_armed) {
		xsd_bus_armed = 0;
		siglongjmp(xsd_bus_jmp, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* What is written once: the layout lines, the CPU and node ids, and the
 * fields that change only at start. From private memory only. */
static void xsd_state_static(struct xsd *d)
{
	const struct xs_topology *t = d->topo;
	struct xs_abi_header *h = d->state;
	struct xs_abi_cpu *cpus = (struct xs_abi_cpu *)((char *)h + d->layout.cpu_off);
	struct xs_abi_node *nodes = (struct xs_abi_node *)((char *)h + d->layout.node_off);

	memcpy(h, &d->layout, offsetof(struct xs_abi_header, seq));
	__atomic_store_n(&h->seq, d->seq, __ATOMIC_RELAXED);
	h->daemon_pid = (uint32_t)getpid();
	h->flags = d->state_flags;
	for (uint32_t i = 0; i < d->layout.ncpus; i++) {
		cpus[i].cpu = t->cpus[i].cpu;
		cpus[i].node = t->cpus[i].node;
		if (!d->cpu || !d->cpu[i].primed)
			cpus[i].idle_permille = 1000;
	}
	for (uint32_t i = 0; i < d->layout.nnodes; i++)
		nodes[i].node = t->node_ids[i];
}

int xsd_state_create(struct xsd *d)
{
	const struct xs_topology *t = d->topo;
	struct sigaction sa = { .sa_sigaction = xsd_on_sigbus, .sa_flags = SA_SIGINFO };
	uint64_t size;
	int ret;
	void *p;

	memset(&d->layout, 0, sizeof(d->layout));
	size = xs_abi_layout(&d->layout, t->ncpus, t->nnodes, d->nslots,
			     (uint64_t)sysconf(_SC_PAGESIZE));
	if (size > UINT32_MAX) {
		xsd_log_at(XSD_LOG_ERR, "state file would be %llu bytes: too many CPUs or slots\n",
			   (unsigned long long)size);
		return -E2BIG;
	}
	d->layout.tick_ns = (uint64_t)d->opt.tick_ms * 1000000u;
	d->layout.mode = d->mode;
	d->state_flags = xsd_bpf_numa_attached(d) ? XS_ABI_F_NUMA_EVENTS : 0;
	d->state_size = (size_t)size;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	ret = xsd_publish_file(d, XS_ABI_STATE_FILE, d->state_size, &p, &d->state_fd,
			       &d->state_ro_fd);
	if (ret)
		return ret;
	d->state = p;
	/* the file is new: nothing to order against */
	memcpy(d->state, &d->layout, sizeof(d->layout));
	xsd_state_static(d);
	xsd_state_publish(d, xsd_now_ns());
	return xsd_rename_into_place(d, XS_ABI_STATE_FILE);
}

/* The size of the file behind @fd is @size, or is made so. false: it
 * was not (then what was cut is zeros now: to be rewritten). */
static bool xsd_file_size_ok(int fd, size_t size, const char *name)
{
	struct stat st = { .st_size = -1 };

	if (fd < 0 || (!fstat(fd, &st) && (uint64_t)st.st_size == size))
		return true;
	xsd_log_limited(&xsd_rl_state, XSD_LOG_ERR,
			"%s: someone changed its size to %lld bytes: restoring %zu\n", name,
			(long long)st.st_size, size);
	if (ftruncate(fd, (off_t)size))
		xsd_log_limited(&xsd_rl_state, XSD_LOG_ERR, "%s: %s\n", name, strerror(errno));
	return false;
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
	const struct xs_abi_header *lay = &d->layout;
	const struct xs_topology *t = d->topo;
	struct xs_abi_cpu *cpus = (struct xs_abi_cpu *)((char *)h + lay->cpu_off);
	struct xs_abi_node *nodes = (struct xs_abi_node *)((char *)h + lay->node_off);
	struct xs_abi_share *shares = (struct xs_abi_share *)((char *)h + lay->share_off);
	uint64_t numa[4], free_kib[XS_MAX_NODES] = { 0 }, total_kib[XS_MAX_NODES] = { 0 };

	/* everything slow happens before the write section */
	for (uint32_t i = 0; i < t->nnodes; i++)
		xsd_node_mem(d, t->node_ids[i], &free_kib[i], &total_kib[i]);
	xsd_bpf_numa_events(d, numa);
	if (!xsd_file_size_ok(d->state_fd, d->state_size, XS_ABI_STATE_FILE))
		d->state_repair = true;
	if (d->workers_map &&
	    !xsd_file_size_ok(d->workers_fd, d->workers_size, XS_ABI_WORKERS_FILE))
		d->state_repair = true;

	xsd_bus_armed = 1;
	if (sigsetjmp(xsd_bus_jmp, 1)) {
		/* truncated while we wrote: the next tick restores it */
		xsd_log_limited(&xsd_rl_state, XSD_LOG_ERR,
				"%s: truncated while being written (SIGBUS)\n", XS_ABI_STATE_FILE);
		d->state_repair = true;
		return;
	}
	if (!d->state_repair && memcmp(h, lay, offsetof(struct xs_abi_header, seq))) {
		xsd_log_limited(&xsd_rl_state, XSD_LOG_ERR,
				"%s: someone changed its layout: restoring it\n",
				XS_ABI_STATE_FILE);
		d->state_repair = true;
	}
	/* Seqlock write section, xs_abi_write_begin()'s protocol on our own
	 * count (the file's is not trusted): odd, data, even. */
	d->seq |= 1;
	__atomic_store_n(&h->seq, d->seq, __ATOMIC_RELAXED);
	/* Release fence: the odd seq is visible before any data store, pairs
	 * with the acquire fence in xs_abi_read_retry(). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (d->state_repair)
		xsd_state_static(d);
	for (uint32_t i = 0; i < lay->ncpus; i++) {
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
	for (uint32_t i = 0; i < lay->ncpus && d->cpu_owner; i++)
		cpus[i].share_pid = d->cpu_owner[i];
	/* The entries of this tick, then zeros where the last tick had more
	 * (all of them after a repair). */
	if (d->nprocs)
		memcpy(shares, d->procs, (size_t)d->nprocs * sizeof(*shares));
	if (d->state_repair)
		d->published_procs = lay->nshares;
	if (d->published_procs > d->nprocs)
		memset(shares + d->nprocs, 0,
		       (size_t)(d->published_procs - d->nprocs) * sizeof(*shares));
	d->published_procs = d->nprocs;
	h->share_count = d->nprocs;
	h->share_cpus = d->share_cpus ? d->share_cpus : t->ncpus;
	h->share_active = d->share_active;
	for (uint32_t i = 0; i < lay->nnodes; i++) {
		nodes[i].mem_free_kib = free_kib[i];
		nodes[i].mem_total_kib = total_kib[i];
	}
	if (d->rows && lay->row_len)
		memcpy((char *)h + lay->victim_off, d->rows,
		       (size_t)lay->ncpus * lay->row_len * sizeof(struct xs_abi_victim));
	if (d->workers) {
		memcpy((char *)h + lay->worker_off, d->workers,
		       (size_t)lay->nslots * sizeof(struct xs_abi_worker));
		if (d->workers_map)
			memcpy(d->workers_map, d->workers, d->workers_size);
	}
	memcpy(h->numa_events, numa, sizeof(numa));
	h->mode = d->mode;
	h->heartbeat_ns = now_ns;
	h->tick_ns = (uint64_t)d->opt.tick_ms * 1000000u;
	h->generation = ++d->generation;
	h->flags = d->state_flags;
	/* Release: publishes the data written since the odd seq, pairs with
	 * the acquire in xs_abi_read_begin(). */
	__atomic_store_n(&h->seq, ++d->seq, __ATOMIC_RELEASE);
	xsd_bus_armed = 0;
	d->state_repair = false;
}

void xsd_state_remove(struct xsd *d)
{
	char path[PATH_MAX];

	if (d->state) {
		d->state_flags |= XS_ABI_F_EXITED;
		xsd_bus_armed = 1;
		if (!sigsetjmp(xsd_bus_jmp, 1)) {
			__atomic_store_n(&d->state->seq, d->seq | 1, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_RELEASE);
			d->state->flags = d->state_flags;
			__atomic_store_n(&d->state->seq, (d->seq | 1) + 1, __ATOMIC_RELEASE);
		}
		xsd_bus_armed = 0;
		if (!xsd_path(d, XS_ABI_STATE_FILE, path, sizeof(path)))
			unlink(path);
		munmap(d->state, d->state_size);
		close(d->state_fd);
		close(d->state_ro_fd);
		d->state = NULL;
	}
	if (d->mode == XS_ABI_MODE_DEGRADED && d->workers_map) {
		if (!xsd_path(d, XS_ABI_WORKERS_FILE, path, sizeof(path)))
			unlink(path);
		munmap(d->workers_map, d->workers_size);
		close(d->workers_fd);
		close(d->workers_ro_fd);
		d->workers_map = NULL;
	}
	if (d->mode == XS_ABI_MODE_DEGRADED) {
		free(d->workers);
		d->workers = NULL;
	}
}
