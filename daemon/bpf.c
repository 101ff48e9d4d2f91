// SPDX-License-Identifier: MIT
/*
 * bpf.c - bpf/xsched.bpf.c through its skeleton: open, size the maps, pick
 * the optional programs the kernel can take, load, attach, map.
 *
 * The NUMA balancing tracepoints (sched_move_numa, sched_swap_numa,
 * sched_stick_numa, mm_migrate_pages) exist only with CONFIG_NUMA_BALANCING
 * and CONFIG_MIGRATION: each is loaded only when the kernel's BTF has its
 * btf_trace_<name> type, and a missing one is reported, not fatal.
 *
 * Run-queue latency comes from the waits the kernel sums per task
 * (task_struct::sched_info, CONFIG_SCHED_INFO); a kernel without it gets
 * the programs' own stamps instead (xs_rq_stamps), which cost a
 * task-storage update per wakeup.
 *
 * Kernel: BPF mode needs tp_btf, task local storage, BPF_F_MMAPABLE arrays
 * and task iterators with a tid filter (Linux 6.1: Debian 12's kernel;
 * tested on 6.1 and 6.18). Where the load fails xschedd runs degraded and
 * says why. Registration runs the xs_task_register iterator on the one
 * thread: no kfunc (bpf_task_from_pid is 6.2), and no pidfd
 * (pidfd_open() of a non-leader thread needs PIDFD_THREAD, 6.9).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "xschedd.h"
#include "xsched_bpf.h"
#include "xsched.skel.h"

struct xsd_bpf {
	struct xsched_bpf *skel;
	struct xs_bpf_cpu *cpus;   /* cpu_stats, mmapped read-only */
	size_t cpus_size;
	uint32_t ncpus_possible;
	bool numa;
	bool rq_stamps;            /* no sched_info: the programs stamp wakeups */
	uint32_t nregistered;      /* workers registered through xsd_bpf_register() */
	struct bpf_link *wakeup[2]; /* sched_wakeup(_new), attached while nregistered */
};

static int xsd_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	fputs("xschedd: libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

/* Whether the kernel keeps task_struct::sched_info (CONFIG_SCHED_INFO). */
static bool xsd_btf_has_sched_info(const struct btf *vmlinux)
{
	int id = btf__find_by_name_kind(vmlinux, "task_struct", BTF_KIND_STRUCT);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(vmlinux, id);

	for (uint32_t i = 0; t && i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(vmlinux, btf_members(t)[i].name_off),
			    "sched_info"))
			return true;
	return false;
}

/* Whether vmlinux BTF has tracepoint @tp; for mm_migrate_pages also the
 * index of its `reason` argument (the last one). */
static bool xsd_btf_has_tp(const struct btf *vmlinux, const char *tp, uint32_t *nargs)
{
	char name[128];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return false;
	if (nargs) {
		/* typedef -> pointer -> func_proto(void *, args...) */
		t = btf__type_by_id(vmlinux, btf__type_by_id(vmlinux, id)->type);
		t = t && btf_is_ptr(t) ? btf__type_by_id(vmlinux, t->type) : NULL;
		if (!t || !btf_is_func_proto(t))
			return false;
		*nargs = btf_vlen(t) - 1;
	}
	return true;
}

static size_t xsd_page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

int xsd_bpf_start(struct xsd *d)
{
	static const char *const numa_tps[] = { "sched_move_numa", "sched_swap_numa",
						"sched_stick_numa", "mm_migrate_pages" };
	struct xsd_bpf *b = calloc(1, sizeof(*b));
	struct btf *vmlinux = NULL;
	struct bpf_program *numa_progs[4];
	uint32_t reason_nargs = 0;
	char missing[128] = "";
	int ret, ncpus;

	if (!b)
		return -ENOMEM;
	libbpf_set_print(xsd_libbpf_print);
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		ret = -errno;
		xsd_log("bpf: no kernel BTF (/sys/kernel/btf/vmlinux): %s\n", strerror(-ret));
		goto fail;
	}
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		ret = ncpus ? ncpus : -EINVAL;
		goto fail;
	}
	b->ncpus_possible = (uint32_t)ncpus;
	b->skel = xsched_bpf__open();
	if (!b->skel) {
		ret = -errno;
		xsd_log("bpf: open: %s\n", strerror(-ret));
		goto fail;
	}
	bpf_map__set_max_entries(b->skel->maps.cpu_stats, b->ncpus_possible);
	bpf_map__set_max_entries(b->skel->maps.workers, d->nslots);
	b->rq_stamps = !xsd_btf_has_sched_info(vmlinux);
	b->skel->rodata->xs_rq_stamps = b->rq_stamps;

	numa_progs[0] = b->skel->progs.xs_sched_move_numa;
	numa_progs[1] = b->skel->progs.xs_sched_swap_numa;
	numa_progs[2] = b->skel->progs.xs_sched_stick_numa;
	numa_progs[3] = b->skel->progs.xs_mm_migrate_pages;
	b->numa = true;
	for (int i = 0; i < 4; i++) {
		bool have = xsd_btf_has_tp(vmlinux, numa_tps[i], i == 3 ? &reason_nargs : NULL);

		if (i == 3 && have && reason_nargs != 7 && reason_nargs != 8)
			have = false; /* a prototype we do not know */
		if (!have) {
			bpf_program__set_autoload(numa_progs[i], false);
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing),
				 " %s", numa_tps[i]);
			b->numa = false;
		}
	}
	/* mm_migrate_pages: one program per prototype, at most one loaded */
	if (reason_nargs == 7)
		bpf_program__set_autoload(numa_progs[3], false);
	else
		bpf_program__set_autoload(b->skel->progs.xs_mm_migrate_pages_7args, false);
	if (*missing)
		xsd_log("bpf: kernel lacks NUMA tracepoint(s)%s: NUMA events not counted\n",
			missing);

	/* The registration iterators run per call, on one thread each. */
	bpf_program__set_autoattach(b->skel->progs.xs_task_register, false);
	bpf_program__set_autoattach(b->skel->progs.xs_task_unregister, false);

	/* With sched_info the wakeup programs serve registered workers only
	 * (BLOCKED -> RUNNABLE): attached while there are some. */
	if (!b->rq_stamps) {
		bpf_program__set_autoattach(b->skel->progs.xs_sched_wakeup, false);
		bpf_program__set_autoattach(b->skel->progs.xs_sched_wakeup_new, false);
	}
	ret = xsched_bpf__load(b->skel);
	if (ret) {
		xsd_log("bpf: load: %s\n", strerror(-ret));
		goto fail;
	}
	ret = xsched_bpf__attach(b->skel);
	if (ret) {
		xsd_log("bpf: attach: %s\n", strerror(-ret));
		goto fail;
	}

	/* Frozen: from now on only the programs write the worker states, so
	 * that a client's descriptor (a dup of ours) maps read-only. */
	ret = bpf_map_freeze(bpf_map__fd(b->skel->maps.workers)) ? -errno : 0;
	if (ret) {
		xsd_log("bpf: freezing the worker map: %s\n", strerror(-ret));
		goto fail;
	}
	d->workers_size = xsd_page_round((size_t)d->nslots * sizeof(struct xs_abi_worker));
	d->workers = mmap(NULL, d->workers_size, PROT_READ, MAP_SHARED,
			  bpf_map__fd(b->skel->maps.workers), 0);
	b->cpus_size = xsd_page_round((size_t)b->ncpus_possible * sizeof(struct xs_bpf_cpu));
	b->cpus = mmap(NULL, b->cpus_size, PROT_READ, MAP_SHARED,
		       bpf_map__fd(b->skel->maps.cpu_stats), 0);
	if (b->cpus == MAP_FAILED || d->workers == MAP_FAILED) {
		ret = -errno;
		xsd_log("bpf: mmap of a map: %s\n", strerror(-ret));
		if (b->cpus != MAP_FAILED)
			munmap(b->cpus, b->cpus_size);
		if (d->workers != MAP_FAILED)
			munmap(d->workers, d->workers_size);
		b->cpus = NULL;
		d->workers = NULL;
		goto fail;
	}
	d->workers_fd = bpf_map__fd(b->skel->maps.workers);
	d->workers_ro_fd = fcntl(d->workers_fd, F_DUPFD_CLOEXEC, 3);
	if (d->workers_ro_fd < 0) {
		ret = -errno;
		goto fail;
	}
	btf__free(vmlinux);
	d->bpf = b;
	xsd_log("bpf: attached sched_switch, sched_migrate_task, %s%s (%u possible CPUs, "
		"%u worker slots)\n",
		b->rq_stamps ? "sched_wakeup, sched_wakeup_new"
			     : "sched_wakeup(_new) while workers are registered",
		b->numa ? " and the NUMA balancing tracepoints" : "", b->ncpus_possible,
		d->nslots);
	if (b->rq_stamps)
		xsd_log("bpf: kernel lacks task_struct::sched_info (CONFIG_SCHED_INFO): "
			"run-queue latency from our own wakeup stamps (costs more per "
			"wakeup)\n");
	return 0;

fail:
	if (d->workers) {
		munmap(d->workers, d->workers_size);
		d->workers = NULL;
	}
	if (b->cpus)
		munmap(b->cpus, b->cpus_size);
	if (d->workers_ro_fd >= 0) {
		close(d->workers_ro_fd);
		d->workers_ro_fd = -1;
	}
	d->workers_fd = -1;
	xsched_bpf__destroy(b->skel);
	btf__free(vmlinux);
	free(b);
	return ret;
}

/* The wakeup programs on (@on) or off; with sched_info only registered
 * workers need them (xs_rq_stamps: attached with the others, for good). */
static void xsd_bpf_wakeup_attach(struct xsd_bpf *b, bool on)
{
	struct bpf_program *progs[2] = { b->skel->progs.xs_sched_wakeup,
					 b->skel->progs.xs_sched_wakeup_new };

	for (int i = 0; i < 2; i++) {
		if (!on) {
			bpf_link__destroy(b->wakeup[i]);
			b->wakeup[i] = NULL;
		} else if (!b->wakeup[i]) {
			b->wakeup[i] = bpf_program__attach(progs[i]);
			if (!b->wakeup[i]) {
				/* the slots just miss BLOCKED -> RUNNABLE */
				xsd_log("bpf: attaching %s: %s\n", bpf_program__name(progs[i]),
					strerror(errno));
			}
		}
	}
}

void xsd_bpf_stop(struct xsd *d)
{
	struct xsd_bpf *b = d->bpf;

	if (!b)
		return;
	xsd_bpf_wakeup_attach(b, false);
	munmap(b->cpus, b->cpus_size);
	munmap(d->workers, d->workers_size);
	d->workers = NULL;
	close(d->workers_ro_fd);
	d->workers_ro_fd = -1;
	d->workers_fd = -1;
	xsched_bpf__destroy(b->skel);
	free(b);
	d->bpf = NULL;
}

/* Run syscall program @prog on @a: its return value, or -errno of bpf(2). */
static int xsd_bpf_call(struct bpf_program *prog, struct xs_bpf_slot_args *a)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = a, .ctx_size_in = sizeof(*a));

	if (bpf_prog_test_run_opts(bpf_program__fd(prog), &opts))
		return -errno;
	return (int)opts.retval;
}

int xsd_bpf_slot_set(struct xsd *d, uint32_t slot, const struct xs_abi_worker *w,
		     bool if_unknown)
{
	struct xs_bpf_slot_args a = { slot, w->tid, w->pid, w->state, w->cpu,
				      if_unknown ? XS_BPF_SLOT_IF_UNKNOWN : 0 };
	int ret = xsd_bpf_call(d->bpf->skel->progs.xs_slot_set, &a);

	return ret > 0 ? -EINVAL : ret;
}

/*
 * Run iterator @prog on thread @a->tid alone (the link's tid filter, looked
 * up in our PID namespace) with arguments @a: the int it wrote, or -ESRCH
 * when it visited no thread, or -errno of the link, the iterator or read.
 */
static int xsd_bpf_iter_call(struct xsd_bpf *b, struct bpf_program *prog,
			     const struct xs_bpf_slot_args *a)
{
	union bpf_iter_link_info info = { .task.tid = a->tid };
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info,
		    .link_info_len = sizeof(info));
	struct bpf_link *link;
	int32_t result;
	ssize_t n;
	int fd, ret;

	/* Read by the program during read() below, on this thread. */
	b->skel->bss->xs_call = *a;
	link = bpf_program__attach_iter(prog, &opts);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	do
		n = read(fd, &result, sizeof(result));
	while (n < 0 && errno == EINTR);
	ret = n == (ssize_t)sizeof(result) ? result : n == 0 ? -ESRCH : n < 0 ? -errno : -EIO;
	close(fd);
out:
	bpf_link__destroy(link);
	return ret;
}

int xsd_bpf_register(struct xsd *d, uint32_t pid, uint32_t tid, uint32_t slot)
{
	struct xs_bpf_slot_args a = { .slot = slot, .tid = tid, .pid = pid };
	int ret = xsd_bpf_iter_call(d->bpf, d->bpf->skel->progs.xs_task_register, &a);

	if (ret)
		return ret > 0 ? -EINVAL : ret;
	if (d->bpf->nregistered++ == 0 && !d->bpf->rq_stamps)
		xsd_bpf_wakeup_attach(d->bpf, true);
	return 0;
}

int xsd_bpf_unregister(struct xsd *d, uint32_t tid, uint32_t slot)
{
	struct xs_bpf_slot_args a = { .slot = slot, .tid = tid };
	int ret = xsd_bpf_iter_call(d->bpf, d->bpf->skel->progs.xs_task_unregister, &a);

	if (ret == -ESRCH)
		ret = 0; /* the thread exited: its storage went with it */
	if (d->bpf->nregistered && --d->bpf->nregistered == 0 && !d->bpf->rq_stamps)
		xsd_bpf_wakeup_attach(d->bpf, false);
	return ret > 0 ? -EINVAL : ret;
}

int xsd_bpf_read_cpu(struct xsd *d, uint32_t cpu, uint64_t now_ns,
		     struct xsd_cpu_sample *raw)
{
	const volatile struct xs_bpf_cpu *c;
	struct xs_bpf_cpu copy;

	if (!d->bpf || cpu >= d->bpf->ncpus_possible)
		return -EINVAL;
	c = &d->bpf->cpus[cpu];
	for (int tries = 0;; tries++) {
		/* Acquire: pairs with the program's seq increments (program
		 * order, see xsched.bpf.c); a copy across a change is dropped. */
		uint32_t seq = __atomic_load_n(&c->seq, __ATOMIC_ACQUIRE);

		memcpy(&copy, (const void *)c, offsetof(struct xs_bpf_cpu, in_task));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && seq == __atomic_load_n(&c->seq, __ATOMIC_RELAXED))
			break;
		if (tries == 16)
			return -EAGAIN;
	}
	for (uint32_t k = 0; k < XS_BPF_KINDS; k++)
		raw->total[k] = copy.ns[k];
	/* the interval still running is the current kind's, up to now */
	if (copy.cur && copy.cur - 1 < XS_BPF_KINDS && now_ns > copy.last_ns)
		raw->total[copy.cur - 1] += now_ns - copy.last_ns;
	raw->rq_lat_ns = copy.rq_lat_ns;
	raw->rq_lat_count = copy.rq_lat_count;
	raw->switches = copy.switches;
	/* Relaxed: a counter the programs add to atomically, outside seq. */
	raw->migrations = __atomic_load_n(&c->migrations_in, __ATOMIC_RELAXED);
	return copy.cur ? 0 : -ENODATA; /* no switch seen there yet */
}

void xsd_bpf_numa_events(struct xsd *d, uint64_t out[4])
{
	for (int i = 0; i < 4; i++)
		out[i] = d->bpf ? __atomic_load_n(&d->bpf->skel->bss->numa_events[i],
						  __ATOMIC_RELAXED)
				: 0;
}

bool xsd_bpf_numa_attached(const struct xsd *d)
{
	return d->bpf && d->bpf->numa;
}
