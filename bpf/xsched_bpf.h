/* SPDX-License-Identifier: MIT */
/*
 * bpf/xsched_bpf.h - what crosses between bpf/xsched.bpf.c and xschedd (and
 * nothing else: the state clients see is include/xsched/abi.h).
 *
 * cpu_stats[cpu] (BPF_F_MMAPABLE array, one entry per possible CPU): only
 * the sched_switch program on that CPU writes it, except migrations_in
 * (atomic adds from any CPU). It brackets its writes with seq (odd while
 * writing) so that xschedd's unlocked read can detect a torn copy.
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
	__u32 seq;            /* odd while sched_switch updates this entry */
	__u32 cur;            /* kind running since last_ns, + 1; 0 = none seen */
	__u64 last_ns;        /* bpf_ktime_get_ns() of the last switch here */
	__u64 ns[XS_BPF_KINDS]; /* time run by each kind, up to last_ns */
	__u64 switches;
	__u64 rq_lat_ns;      /* sum of wakeup-to-run latencies of tasks run here */
	__u64 rq_lat_count;
	__u64 migrations_in;  /* sched_migrate_task to this CPU (atomic) */
	__u64 reserved[6];
} __attribute__((aligned(64)));

_Static_assert(sizeof(struct xs_bpf_cpu) == 128, "xs_bpf_cpu: two cache lines");

/*
 * Argument of the xs_slot_set program (BPF_PROG_RUN by xschedd): the
 * worker-state map is frozen, so user space, xschedd included, writes a
 * slot only through this program.
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
