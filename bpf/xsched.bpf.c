// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * xsched.bpf.c - the kernel side of xschedd (CO-RE, tp_btf).
 *
 *  sched_switch          per-CPU time split idle / registered worker / other
 *                        (cpu_stats), run-queue latency of the task switched
 *                        in, and the on/off-CPU state of registered workers
 *                        (workers[], mmapped read-only by clients)
 *  sched_wakeup(_new)    start of a run-queue wait (wakeup_ts), and a
 *                        sleeping worker becomes RUNNABLE
 *  sched_migrate_task    migrations per destination CPU; a worker's CPU
 *  NUMA balancing        sched_move_numa, sched_swap_numa, sched_stick_numa,
 *                        mm_migrate_pages (misplaced pages): counted in
 *                        numa_events[]; xschedd loads these only when the
 *                        kernel has the tracepoints.
 *
 * registry (tid -> slot) is written by xschedd only. workers[] is frozen
 * after load: no user-space write, by bpf(2) or by a mapping, so that the
 * descriptor clients get maps read-only. xschedd sets a slot's identity
 * (tid, pid) through the xs_slot_set program before the tid enters the
 * registry and clears it after the tid left; the tracepoint programs write
 * only state, cpu, since_ns and switches.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "xsched_bpf.h"
#include "xsched/abi.h"

char LICENSE[] SEC("license") = "Dual MIT/GPL";

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

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);   /* tid */
	__type(value, __u32); /* slot */
	__uint(max_entries, 1); /* xschedd: worker slots */
} registry SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);   /* tid */
	__type(value, __u64); /* when it became runnable */
	__uint(max_entries, 16384);
} wakeup_ts SEC(".maps");

/* Kernels before 5.14 call task_struct::__state `state`. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return (unsigned int)BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

static __always_inline struct xs_abi_worker *worker_of(__u32 tid)
{
	__u32 *slot;

	if (!tid)
		return NULL;
	slot = bpf_map_lookup_elem(&registry, &tid);
	return slot ? bpf_map_lookup_elem(&workers, slot) : NULL;
}

static __always_inline void runnable_since(__u32 tid, __u64 now)
{
	if (tid)
		bpf_map_update_elem(&wakeup_ts, &tid, &now, BPF_ANY);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(xs_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	__u32 cpu = bpf_get_smp_processor_id(), prev_tid = prev->pid, next_tid = next->pid;
	struct xs_abi_worker *wp = worker_of(prev_tid), *wn = worker_of(next_tid);
	unsigned int running = preempt || task_state(prev) == 0; /* TASK_RUNNING */
	__u64 now = bpf_ktime_get_ns(), *ts;
	struct xs_bpf_cpu *c;

	c = bpf_map_lookup_elem(&cpu_stats, &cpu);
	if (!c)
		return 0;
	/* Only this CPU writes *c (sched_switch runs with the rq locked and
	 * interrupts off); seq lets xschedd discard a torn copy. BPF has no
	 * fences: barrier() (bpf_helpers.h, a compiler barrier) keeps the stores in program order, and
	 * the JIT emits them in that order, which x86 (TSO) makes visible in
	 * that order. On weaker CPUs a torn copy can escape the check; xschedd
	 * clamps every delta, so it costs one tick's accuracy, no more. */
	c->seq++;
	barrier();
	if (c->cur && now > c->last_ns) {
		__u32 k = c->cur - 1;

		if (k < XS_BPF_KINDS)
			c->ns[k] += now - c->last_ns;
	}
	c->last_ns = now;
	c->cur = 1 + (!next_tid ? XS_BPF_IDLE : wn ? XS_BPF_WORKER : XS_BPF_OTHER);
	c->switches++;
	ts = next_tid ? bpf_map_lookup_elem(&wakeup_ts, &next_tid) : NULL;
	if (ts) {
		if (now > *ts) {
			c->rq_lat_ns += now - *ts;
			c->rq_lat_count++;
		}
		bpf_map_delete_elem(&wakeup_ts, &next_tid);
	}
	barrier();
	c->seq++;

	if (running)
		runnable_since(prev_tid, now);
	if (wp) {
		wp->state = running ? XS_ABI_WORKER_RUNNABLE : XS_ABI_WORKER_BLOCKED;
		wp->cpu = cpu;
		wp->since_ns = now;
	}
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
	__u32 tid = p->pid;
	__u64 now = bpf_ktime_get_ns();
	struct xs_abi_worker *w = worker_of(tid);

	runnable_since(tid, now);
	/* Only BLOCKED -> RUNNABLE, atomically: the wakee may already be
	 * switched in on another CPU, and ON_CPU must not be overwritten. */
	if (w && __sync_val_compare_and_swap(&w->state, XS_ABI_WORKER_BLOCKED,
					     XS_ABI_WORKER_RUNNABLE) == XS_ABI_WORKER_BLOCKED)
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
	struct xs_abi_worker *w = worker_of(p->pid);

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
		return -1;
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
