// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xsched.bpf.c - the kernel side of xschedd (CO-RE, tp_btf).
 *
 *  sched_switch          per-CPU time split idle / registered worker / other
 *                        (cpu_stats), run-queue latency of the task switched
 *                        in, and the on/off-CPU state of registered workers
 *                        (workers[], mmapped read-only by clients)
 *  sched_wakeup(_new)    a sleeping or stopped worker becomes RUNNABLE: xschedd
 *                        attaches these only while workers are registered
 *                        (and for good on kernels without CONFIG_SCHED_INFO,
 *                        where they also stamp every task's run-queue wait)
 *  sched_migrate_task    migrations per destination CPU; a worker's CPU
 *  NUMA balancing        sched_move_numa, sched_swap_numa, sched_stick_numa,
 *                        mm_migrate_pages (misplaced pages): counted in
 *                        numa_events[]; xschedd loads these only when the
 *                        kernel has the tracepoints.
 *
 * sched_switch runs at every context switch, so its cost is the daemon's
 * cost (tools/xschedd-bench, "daemon cost"). Its path for tasks that are
 * not workers is: one inlined array lookup (this CPU's lines, written by
 * this CPU only), two loads that find no task local storage, reads of
 * prev's and next's sched_info, and a clock read only when the kind
 * running on the CPU changes (idle / worker / other). No hash map, no
 * lock, no atomic, no cache line another CPU writes. (The clock read is
 * most of the rest: bpf_ktime_get_ns() costs about as much as the
 * tracepoint's own call into the program.)
 *
 *  - Who is a worker: task local storage (worker_of), created by the
 *    xs_task_register program that xschedd runs when a client registers a
 *    tid, deleted by xs_task_unregister; it dies with the task. A task
 *    without it is not a worker, which the lookup says without hashing.
 *  - Run-queue latency: the kernel itself sums each task's waits on a
 *    run queue (enqueued by a wakeup, or preempted and still runnable,
 *    until switched in) in task->sched_info (CONFIG_SCHED_INFO), the
 *    measure /proc/PID/schedstat reports. This CPU notes the sum of the
 *    task it switches in and credits the difference at its switch-out
 *    (rq_wait_sched_info). On a kernel without sched_info (xschedd sets
 *    xs_rq_stamps) the programs stamp the tasks themselves in task local
 *    storage (queued_at) at wakeup and at a preempted task's switch-out,
 *    which costs a storage update per wakeup.
 *
 * Registration runs as a task iterator (xs_task_register below), which
 * Linux 6.1 has; no kfunc is used, so this loads on Debian 12's kernel.
 *
 * workers[] is frozen after load: no user-space write, by bpf(2) or by a
 * mapping, so that the descriptor clients get maps read-only. xschedd sets
 * a slot's identity (tid, pid) through the xs_slot_set program before the
 * tid is registered and clears it after the tid left; the tracepoint
 * programs write only state, cpu, since_ns and switches, and only into the
 * slot whose tid is the task's.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "xsched_bpf.h"
#include "xsched/abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

/* Set by xschedd before load: 1 when the kernel lacks task_struct::
 * sched_info (CONFIG_SCHED_INFO). A load-time constant: the verifier
 * drops the path not taken. */
const volatile __u32 xs_rq_stamps = 0;

__u64 numa_events[4];

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct xs_bpf_cpu);
	__uint(max_entries, 1); /* xschedd: possible CPUs */
} cpu_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, struct xs_abi_worker);
	__uint(max_entries, 1); /* xschedd: worker slots */
} workers SEC(".maps");

/* A registered worker's slot, on the worker's task. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u32);
} worker_of SEC(".maps");

/* Only with xs_rq_stamps: when the task became runnable (0: not queued). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, __u64);
} queued_at SEC(".maps");

/* task_struct::__state bits (include/linux/sched.h), stable since 2.6. */
#define XS_TASK_STOPPED 0x0004 /* __TASK_STOPPED: SIGSTOP, group stop */
#define XS_TASK_TRACED 0x0008  /* __TASK_TRACED: ptrace stop */

/* Kernels before 5.14 call task_struct::__state `state`. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return (unsigned int)((struct task_struct___pre514 *)t)->state;
}

/* The worker slot of @t, or NULL when @t is not a registered worker. */
static __always_inline struct xs_abi_worker *worker_of_task(struct task_struct *t)
{
	struct xs_abi_worker *w;
	__u32 *slot;

	/* Most tasks have no local storage at all: say so without a call. */
	if (bpf_core_field_exists(t->bpf_storage) && !t->bpf_storage)
		return NULL;
	slot = bpf_task_storage_get(&worker_of, t, NULL, 0);
	if (!slot)
		return NULL;
	w = bpf_map_lookup_elem(&workers, slot);
	return w && w->tid == (__u32)t->pid ? w : NULL;
}

/* xs_rq_stamps only: @t is runnable from @now on. */
static __always_inline void stamp_queued(struct task_struct *t, __u64 now)
{
	__u64 *q = bpf_task_storage_get(&queued_at, t, NULL,
					BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (q)
		*q = now;
}

/*
 * Run-queue wait from the kernel's sched_info (xs_rq_stamps == 0). The
 * kernel adds the wait that ends at a switch-in to next->sched_info.
 * run_delay (and counts it in pcount) in sched_info_arrive(), just after
 * this tracepoint, and in that same clock. So this CPU keeps what
 * the task switched in had before (line 1 of *c, this CPU's only); at its
 * switch-out, the next switch here, the difference is that wait. A task
 * does not leave a CPU it runs on, so prev is always the task switched in
 * last; in_task guards the first switch seen.
 */
static __always_inline void rq_wait_sched_info(struct xs_bpf_cpu *c,
					       struct task_struct *prev,
					       struct task_struct *next, __u32 next_tid)
{
	if (c->in_task == (__u64)prev && c->in_task) {
		__u64 n = prev->sched_info.pcount - c->in_pcount;

		if (n) {
			c->rq_lat_ns += prev->sched_info.run_delay - c->in_run_delay;
			c->rq_lat_count += n;
		}
	}
	if (next_tid) {
		c->in_task = (__u64)next;
		c->in_run_delay = next->sched_info.run_delay;
		c->in_pcount = next->sched_info.pcount;
	} else {
		c->in_task = 0; /* the idle task has no sched_info */
	}
}

/* Run-queue wait from our own stamps (xs_rq_stamps == 1). */
static __always_inline void rq_wait_stamps(struct xs_bpf_cpu *c, struct task_struct *next,
					   __u32 next_tid, __u64 now)
{
	__u64 *q = next_tid ? bpf_task_storage_get(&queued_at, next, NULL, 0) : NULL;

	if (q && *q) {
		if (now > *q) {
			c->rq_lat_ns += now - *q;
			c->rq_lat_count++;
		}
		*q = 0;
	}
}

SEC("tp_btf/sched_switch")
int BPF_PROG(xs_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id(), next_tid = next->pid, cur;
	struct xs_abi_worker *wp = NULL, *wn = next_tid ? worker_of_task(next) : NULL;
	struct xs_bpf_cpu *c;
	unsigned int running, prev_state;
	__u64 now = 0;

	c = bpf_map_lookup_elem(&cpu_stats, &cpu);
	if (!c)
		return 0;
	cur = 1 + (!next_tid ? XS_BPF_IDLE : wn ? XS_BPF_WORKER : XS_BPF_OTHER);
	if (prev->pid)
		wp = worker_of_task(prev);
	/* The clock only when something needs it: a change of kind on this
	 * CPU, a worker, our own stamps. A switch between two tasks of the
	 * same kind (the usual switch on a busy CPU) reads no clock: the
	 * kind's time runs on from last_ns. */
	if (cur != c->cur || wp || wn || xs_rq_stamps)
		now = bpf_ktime_get_ns();
	/* Only this CPU writes *c (sched_switch runs with the rq locked and
	 * interrupts off); seq lets xschedd discard a torn copy. BPF has no
	 * fences: barrier() (bpf_helpers.h, a compiler barrier) keeps the
	 * stores in program order, and the JIT emits them in that order,
	 * which x86 (TSO) makes visible in that order. On weaker CPUs a torn
	 * copy can escape the check; xschedd clamps every delta, so it costs
	 * one tick's accuracy, no more. */
	c->seq++;
	barrier();
	if (cur != c->cur) {
		if (c->cur && now > c->last_ns) {
			__u32 k = c->cur - 1;

			if (k < XS_BPF_KINDS)
				c->ns[k] += now - c->last_ns;
		}
		c->last_ns = now;
		c->cur = cur;
	}
	c->switches++;
	if (xs_rq_stamps)
		rq_wait_stamps(c, next, next_tid, now);
	else
		rq_wait_sched_info(c, prev, next, next_tid);
	barrier();
	c->seq++;

	if (!wp && !xs_rq_stamps)
		goto next;
	prev_state = task_state(prev);
	running = preempt || prev_state == 0; /* TASK_RUNNING */
	if (xs_rq_stamps && running && prev->pid)
		stamp_queued(prev, now);
	if (wp) {
		/* Preempted (its work waits for a CPU), stopped or traced
		 * (it waits for SIGCONT), or asleep: abi.h. */
		wp->state = running ? XS_ABI_WORKER_PREEMPTED :
			    prev_state & (XS_TASK_STOPPED | XS_TASK_TRACED) ?
			    XS_ABI_WORKER_STOPPED : XS_ABI_WORKER_BLOCKED;
		wp->cpu = cpu;
		wp->since_ns = now;
	}
next:
	if (wn) {
		wn->state = XS_ABI_WORKER_ON_CPU;
		wn->cpu = cpu;
		wn->since_ns = now;
		wn->switches++;
	}
	return 0;
}

static __always_inline int on_wakeup(struct task_struct *p)
{
	struct xs_abi_worker *w = worker_of_task(p);
	__u64 now;

	if (!w && !xs_rq_stamps)
		return 0;
	now = bpf_ktime_get_ns();
	if (xs_rq_stamps)
		stamp_queued(p, now);
	/* Only BLOCKED or STOPPED (SIGCONT) -> RUNNABLE, atomically: the
	 * wakee may already be switched in on another CPU, and ON_CPU must
	 * not be overwritten. */
	if (w && (__sync_val_compare_and_swap(&w->state, XS_ABI_WORKER_BLOCKED,
					      XS_ABI_WORKER_RUNNABLE) == XS_ABI_WORKER_BLOCKED ||
		  __sync_val_compare_and_swap(&w->state, XS_ABI_WORKER_STOPPED,
					      XS_ABI_WORKER_RUNNABLE) == XS_ABI_WORKER_STOPPED))
		w->since_ns = now;
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(xs_sched_wakeup, struct task_struct *p)
{
	return on_wakeup(p);
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(xs_sched_wakeup_new, struct task_struct *p)
{
	return on_wakeup(p);
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(xs_sched_migrate_task, struct task_struct *p, int dest_cpu)
{
	__u32 cpu = dest_cpu;
	struct xs_bpf_cpu *c = bpf_map_lookup_elem(&cpu_stats, &cpu);
	struct xs_abi_worker *w = worker_of_task(p);

	/* Any CPU adds here: migrations_in has a cache line of its own
	 * (xsched_bpf.h), away from the one this CPU's switches write. */
	if (c)
		__sync_fetch_and_add(&c->migrations_in, 1);
	if (w && w->state != XS_ABI_WORKER_ON_CPU)
		w->cpu = cpu;
	return 0;
}

SEC("tp_btf/sched_move_numa")
int BPF_PROG(xs_sched_move_numa)
{
	__sync_fetch_and_add(&numa_events[XS_BPF_NUMA_MOVE], 1);
	return 0;
}

SEC("tp_btf/sched_swap_numa")
int BPF_PROG(xs_sched_swap_numa)
{
	__sync_fetch_and_add(&numa_events[XS_BPF_NUMA_SWAP], 1);
	return 0;
}

SEC("tp_btf/sched_stick_numa")
int BPF_PROG(xs_sched_stick_numa)
{
	__sync_fetch_and_add(&numa_events[XS_BPF_NUMA_STICK], 1);
	return 0;
}

SEC("syscall")
int xs_slot_set(struct xs_bpf_slot_args *a)
{
	__u32 slot = a->slot;
	struct xs_abi_worker *w = bpf_map_lookup_elem(&workers, &slot);

	if (!w)
		return -22; /* -EINVAL */
	if (a->flags & XS_BPF_SLOT_IF_UNKNOWN) {
		if (w->state == XS_ABI_WORKER_UNKNOWN) {
			w->cpu = a->cpu;
			w->state = a->state;
		}
		return 0;
	}
	w->tid = a->tid;
	w->pid = a->pid;
	w->cpu = a->cpu;
	w->since_ns = bpf_ktime_get_ns();
	w->switches = 0;
	w->state = a->state;
	return 0;
}

/*
 * Registration: the task iterator (iter/task), not a syscall program with
 * the bpf_task_from_pid kfunc, which Linux 6.1 (Debian 12) lacks. xschedd
 * attaches these with the link's tid filter (Linux 6.1), so the iterator
 * visits that one thread (looked up in xschedd's PID namespace, where it
 * checked /proc/PID/task/TID) or none, and reads it: the program writes
 * its result (an int, 0 or -errno) into the read; nothing read means no
 * such thread. Its arguments are xs_call, set by xschedd just before the
 * read (xschedd is single-threaded: one call at a time).
 */
struct xs_bpf_slot_args xs_call;

/* Make thread xs_call.tid of process xs_call.pid the worker of slot
 * xs_call.slot: writes 0, -ESRCH (that thread is not in that process),
 * -EEXIST (already a worker) or -ENOMEM. */
SEC("iter/task")
int xs_task_register(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	int ret = -3; /* -ESRCH */
	__u32 *slot;

	if (!t)
		return 0; /* the end of the iteration */
	if ((__u32)t->pid != xs_call.tid || (__u32)t->tgid != xs_call.pid)
		goto out;
	ret = -17; /* -EEXIST */
	if (bpf_task_storage_get(&worker_of, t, NULL, 0))
		goto out;
	ret = -12; /* -ENOMEM */
	slot = bpf_task_storage_get(&worker_of, t, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (slot) {
		*slot = xs_call.slot;
		ret = 0;
	}
out:
	bpf_seq_write(ctx->meta->seq, &ret, sizeof(ret));
	return 0;
}

/* Thread xs_call.tid is no longer the worker of slot xs_call.slot (if it
 * still is and still lives; a task that exited took its storage with it).
 * Writes 0. */
SEC("iter/task")
int xs_task_unregister(struct bpf_iter__task *ctx)
{
	struct task_struct *t = ctx->task;
	int ret = 0;
	__u32 *slot;

	if (!t)
		return 0;
	if ((__u32)t->pid == xs_call.tid) {
		slot = bpf_task_storage_get(&worker_of, t, NULL, 0);
		if (slot && *slot == xs_call.slot)
			bpf_task_storage_delete(&worker_of, t);
	}
	bpf_seq_write(ctx->meta->seq, &ret, sizeof(ret));
	return 0;
}

/* mm_migrate_pages(succeeded, failed, thp_succeeded, thp_failed, thp_split,
 * [large_folio_split,] mode, reason): `reason` is the 8th argument since
 * Linux 6.6, the 7th before. Two programs; xschedd loads the one that
 * matches the prototype in the kernel's BTF. */
static __always_inline int on_migrate_pages(__u64 succeeded, __u64 reason)
{
	if (reason == (__u64)bpf_core_enum_value(enum migrate_reason, MR_NUMA_MISPLACED))
		__sync_fetch_and_add(&numa_events[XS_BPF_NUMA_PAGES], succeeded);
	return 0;
}

SEC("tp_btf/mm_migrate_pages")
int xs_mm_migrate_pages(__u64 *ctx)
{
	return on_migrate_pages(ctx[0], ctx[7]);
}

SEC("tp_btf/mm_migrate_pages")
int xs_mm_migrate_pages_7args(__u64 *ctx)
{
	return on_migrate_pages(ctx[0], ctx[6]);
}
