/* SPDX-License-Identifier: MIT */
/*
 * bpf/xsched_bpf.h - what crosses between bpf/xsched.bpf.c and xschedd (and
 * nothing else: the state clients see is include/xsched/abi.h).
 *
 * cpu_stats[cpu] (BPF_F_MMAPABLE array, one entry per possible CPU): only
 * the sched_switch program on that CPU writes its first two cache lines;
 * it brackets its writes of the first with seq (odd while writing) so that
 * xschedd's unlocked read can detect a torn copy. The third line holds
 * migrations_in alone: atomic adds from any CPU, kept off the lines the
 * switches write.
 */
#ifndef XSCHED_BPF_XSCHED_BPF_H
#define XSCHED_BPF_XSCHED_BPF_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Who ran on a CPU: index into xs_bpf_cpu.ns[] */
#define XS_BPF_IDLE 0u
#define XS_BPF_WORKER 1u  /* a registered xsched worker */
#define XS_BPF_OTHER 2u   /* anything else: the foreign load */
#define XS_BPF_KINDS 3u

/* numa_events[] (a global of the program) */
#define XS_BPF_NUMA_MOVE 0u
#define XS_BPF_NUMA_SWAP 1u
#define XS_BPF_NUMA_STICK 2u
#define XS_BPF_NUMA_PAGES 3u  /* pages migrated as misplaced (NUMA balancing) */

struct xs_bpf_cpu {
	/* Line 0: written by every switch on this CPU, under seq. */
	__u32 seq;            /* odd while sched_switch updates this entry */
	__u32 cur;            /* kind running since last_ns, + 1; 0 = none seen */
	__u64 last_ns;        /* bpf_ktime_get_ns() of the last switch here */
	__u64 ns[XS_BPF_KINDS]; /* time run by each kind, up to last_ns */
	__u64 switches;
	__u64 rq_lat_ns;      /* sum of wakeup-to-run latencies of tasks run here */
	__u64 rq_lat_count;
	/* Line 1: the program's own, not read by xschedd. The task switched
	 * in last (a task_struct address, 0 = idle or unknown) and its
	 * sched_info.run_delay and pcount before the kernel added the wait
	 * that ended there: at its switch-out the difference is that wait. */
	__u64 in_task __attribute__((aligned(64)));
	__u64 in_run_delay;
	__u64 in_pcount;
	__u64 reserved1[5];
	/* Line 2: any CPU. */
	__u64 migrations_in __attribute__((aligned(64))); /* sched_migrate_task to here (atomic) */
	__u64 reserved2[7];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct xs_bpf_cpu) == 192, "xs_bpf_cpu: three cache lines");
_Static_assert(__builtin_offsetof(struct xs_bpf_cpu, in_task) == 64,
	       "xs_bpf_cpu: the program's scratch starts line 1");
_Static_assert(__builtin_offsetof(struct xs_bpf_cpu, migrations_in) == 128,
	       "xs_bpf_cpu: migrations_in starts line 2");

/*
 * Argument of the xs_slot_set program (BPF_PROG_RUN by xschedd): the
 * worker-state map is frozen, so user space, xschedd included, writes a
 * slot only through this program. Also the arguments of the registration
 * iterators (xs_task_register, xs_task_unregister: the global xs_call).
 */
#define XS_BPF_SLOT_IF_UNKNOWN 1u /* set state/cpu only if still UNKNOWN */

struct xs_bpf_slot_args {
	__u32 slot;
	__u32 tid;
	__u32 pid;
	__u32 state;
	__u32 cpu;
	__u32 flags;
};

#endif /* XSCHED_BPF_XSCHED_BPF_H */
