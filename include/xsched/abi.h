/* SPDX-License-Identifier: MIT */
/*
 * xsched/abi.h - the one boundary between the kernel side (bpf/), xschedd,
 * libxsched and the tools.
 *
 * Three things cross it:
 *
 *   1. The state file (<runtime-dir>/state, mode 0444), written by xschedd
 *      only, mapped read-only by everyone else:
 *
 *        struct xs_abi_header                      at 0
 *        struct xs_abi_cpu     cpus[ncpus]         at cpu_off
 *        struct xs_abi_node    nodes[nnodes]       at node_off
 *        struct xs_abi_victim  victims[ncpus][ncpus - 1]  at victim_off
 *        struct xs_abi_worker  workers[nslots]     at worker_off
 *        struct xs_abi_share   shares[nshares]     at share_off
 *
 *      Everything after the first cache line of the header changes only
 *      inside a seqlock write section (header.seq odd); readers copy what
 *      they need with xs_abi_read_begin()/xs_abi_read_retry() and drop the
 *      copy when the sequence moved. The layout fields (sizes, offsets,
 *      counts) are written once, before the file is renamed into place.
 *
 *   2. The worker-state array (struct xs_abi_worker[nslots]): a
 *      BPF_F_MMAPABLE array map that the BPF programs keep current at every
 *      context switch, handed to clients as a read-only file descriptor. In
 *      degraded mode (no BPF) a plain file of the same layout that xschedd
 *      refreshes every tick. Single writer per slot field; readers accept a
 *      value that is one switch old.
 *
 *   3. Client messages on <runtime-dir>/socket (SOCK_SEQPACKET): every
 *      request is exactly one struct xs_abi_request, every reply exactly
 *      one struct xs_abi_reply; anything else is malformed.
 *
 * Fixed-width types only, explicit padding, no pointers; every struct's
 * size is asserted below. An ABI change bumps XS_ABI_VERSION and is its own
 * commit.
 */
#ifndef XSCHED_ABI_H
#define XSCHED_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define XS_ABI_MAGIC 0x3144534843535856ULL /* "VXSCHSD1" little-endian */
#define XS_ABI_VERSION 4u /* 2: PREEMPTED and STOPPED worker states; 3: CPU shares;
			    * 4: LEND and RECLAIM, shares[].lent and .borrowed */

#define XS_ABI_STATE_FILE "state"
#define XS_ABI_WORKERS_FILE "workers" /* degraded mode's worker-state file */
#define XS_ABI_SOCKET_FILE "socket"
#define XS_ABI_DEFAULT_RUNTIME_DIR "/run/xsched"

/* header.mode */
#define XS_ABI_MODE_BPF 1u      /* load and worker state from the BPF programs */
#define XS_ABI_MODE_DEGRADED 2u /* from /proc and sysfs, per tick */

/* header.flags */
#define XS_ABI_F_EXITED (1u << 0)    /* xschedd has stopped: state is final */
#define XS_ABI_F_NUMA_EVENTS (1u << 1) /* NUMA balancing tracepoints attached */

/*
 * struct xs_abi_worker.state. Off its CPU, a worker is one of:
 *   PREEMPTED  switched out while runnable (TASK_RUNNING at sched_switch:
 *              a hog, a co-running program, its time slice ran out): it
 *              was working and will go on when it gets a CPU again; the
 *              work it holds is stranded until then (since_ns: the
 *              switch-out);
 *   STOPPED    switched out stopped or traced (SIGSTOP, ptrace): likewise
 *              stranded, until SIGCONT;
 *   BLOCKED    switched out asleep (futex, I/O): a parked worker, which
 *              holds no work of its own;
 *   RUNNABLE   woken from BLOCKED or STOPPED, waiting for a CPU (since_ns:
 *              the wakeup).
 * Degraded mode (from /proc) cannot tell PREEMPTED from ON_CPU: both are
 * ON_CPU there.
 */
#define XS_ABI_WORKER_FREE 0u      /* slot unused */
#define XS_ABI_WORKER_ON_CPU 1u    /* running on .cpu since .since_ns */
#define XS_ABI_WORKER_RUNNABLE 2u  /* woken, waiting for a CPU */
#define XS_ABI_WORKER_BLOCKED 3u   /* sleeping (futex, I/O) */
#define XS_ABI_WORKER_UNKNOWN 4u   /* registered, not yet switched since */
#define XS_ABI_WORKER_PREEMPTED 5u /* switched out while runnable, since .since_ns */
#define XS_ABI_WORKER_STOPPED 6u   /* switched out stopped or traced */

#define XS_ABI_CACHE_LINE 64

/* The layout asserts in C11 and in C++11 and later: the header is public
 * (tools in C++ read the state file too) and C++ has no _Static_assert. */
#ifdef __cplusplus
#define XS_ABI_STATIC_ASSERT static_assert
#else
#define XS_ABI_STATIC_ASSERT _Static_assert
#endif

struct xs_abi_header {
	/* Lines 0-1: layout, written once before publication. */
	__u64 magic;         /* XS_ABI_MAGIC */
	__u32 abi_version;   /* XS_ABI_VERSION */
	__u32 header_size;   /* sizeof(struct xs_abi_header) */
	__u64 total_size;    /* file size in bytes */
	__u32 ncpus;         /* CPUs in cpus[] and victim rows */
	__u32 nnodes;        /* entries in nodes[] */
	__u32 row_len;       /* victims per row: ncpus - 1 */
	__u32 nslots;        /* worker slots */
	__u32 cpu_off, node_off, victim_off, worker_off; /* byte offsets */
	__u32 cpu_size, node_size, victim_size, worker_size; /* struct sizes */
	__u32 share_off;     /* byte offset of shares[] */
	__u32 share_size;    /* sizeof(struct xs_abi_share) */
	__u32 nshares;       /* entries in shares[]: nslots (a counted process holds a slot) */
	__u32 reserved_layout;
	/* Lines 2-3: the seqlock and what changes with it. */
	__u64 seq __attribute__((aligned(XS_ABI_CACHE_LINE))); /* odd: write in progress */
	__u64 generation;    /* ticks published since start */
	__u64 heartbeat_ns;  /* CLOCK_MONOTONIC of the last publication */
	__u64 tick_ns;       /* configured tick */
	__u32 mode;          /* XS_ABI_MODE_* */
	__u32 flags;         /* XS_ABI_F_* */
	__u32 daemon_pid;
	__u32 share_cpus;    /* CPUs xsched processes may use now (see struct xs_abi_share) */
	__u64 numa_events[4]; /* move, swap, stick task; misplaced pages migrated */
	__u32 share_active;  /* processes in the division (using a CPU), those left
			      * with 0 CPUs included */
	__u32 share_count;   /* shares[0..share_count) in use, the rest zero */
	__u64 reserved[5];
} __attribute__((aligned(XS_ABI_CACHE_LINE)));

struct xs_abi_cpu {
	__u32 cpu;            /* logical CPU number */
	__u32 node;           /* node index into nodes[] */
	__u32 foreign_permille; /* decayed share of time run by non-xsched tasks */
	__u32 worker_permille;  /* ... by registered xsched workers */
	__u32 idle_permille;    /* ... idle */
	__u32 rq_latency_us;  /* decayed mean wakeup-to-run latency */
	__u64 migrations_in;  /* tasks migrated to this CPU since start */
	__u64 switches;       /* context switches on this CPU since start */
	__u32 share_pid;      /* the process this CPU is given to (shares[]), 0: none */
	__u32 reserved;
};

struct xs_abi_node {
	__u32 node;           /* sysfs node number */
	__u32 reserved0;
	__u64 mem_free_kib;
	__u64 mem_total_kib;
	__u64 reserved;
};

/* Same layout as libxsched's struct xs_victim (topology.h). */
struct xs_abi_victim {
	__u32 cpu_index;      /* index into cpus[] */
	__u16 locality;       /* SMT 0, LLC 1, NODE 2, REMOTE 3 (struct xs_victim's class) */
	__u16 weight;         /* 1..65535, load-adjusted; rows sorted by it */
};

struct xs_abi_worker {
	__u32 tid;            /* registered thread, 0 = slot free */
	__u32 pid;            /* its process */
	__u32 state;          /* XS_ABI_WORKER_* */
	__u32 cpu;            /* CPU it runs or last ran on */
	__u64 since_ns;       /* CLOCK_MONOTONIC of the last state change */
	__u64 switches;       /* times switched in */
};

/*
 * Machine-wide arbitration: each tick, the CPUs xsched processes may use
 * (header.share_cpus: the CPUs less the whole CPUs that other work keeps
 * busy, at least 1) divided among the listed processes that use a CPU
 * (a worker on a CPU or waiting for one, or threads whose CPU time grew;
 * header.share_active of them): in equal parts per user first, then per
 * process within each user. A process that went idle stays listed with
 * cpus 0 and its part goes to the others. The parts never add up to more
 * than share_cpus; with more active processes than CPUs the last get 0.
 * cpus[].share_pid gives each active process a disjoint set of its share's size where the CPUs suffice,
 * handed out node by node (every CPU of a node before the next node's), so
 * that a share of whole nodes is node-aligned. A process without an entry
 * or with cpus 0 that starts work should take share_cpus / (the other
 * processes listed + 1), at least 1, until the next tick counts it (two
 * programs started together were both idle just before). Advice: nothing
 * enforces it.
 *
 * Lending (XS_ABI_LEND, XS_ABI_RECLAIM): a process waiting (an MPI rank in
 * a blocking call) lends CPUs of its share; its cpus shrink by lent (it
 * keeps at least 1) and the lent CPUs are added to the cpus of the other
 * active processes, those of the lender's user first, as borrowed. cpus
 * is what a process may use, lending included; cpus - borrowed is its own
 * part of the division. share_cpus still bounds the sum of cpus.
 */
struct xs_abi_share {
	__u32 pid;            /* a process holding worker slots; 0: entry unused */
	__u32 cpus;           /* CPUs it may use now; 0: idle, not counted */
	__u32 workers;        /* worker slots it holds */
	__u32 running;        /* of them, on a CPU or waiting for one at the tick */
	__u64 active_ns;      /* CLOCK_MONOTONIC when one of them last ran (0: never seen) */
	__u32 lent;           /* CPUs of its part it has lent (cpus already less them) */
	__u32 borrowed;       /* CPUs lent by others that cpus includes */
};

XS_ABI_STATIC_ASSERT(sizeof(struct xs_abi_header) == 256, "xs_abi_header layout");
XS_ABI_STATIC_ASSERT(__builtin_offsetof(struct xs_abi_header, seq) == 2 * XS_ABI_CACHE_LINE,
	       "the seqlock starts a cache line after the layout");
XS_ABI_STATIC_ASSERT(sizeof(struct xs_abi_cpu) == 48, "xs_abi_cpu layout");
XS_ABI_STATIC_ASSERT(sizeof(struct xs_abi_node) == 32, "xs_abi_node layout");
XS_ABI_STATIC_ASSERT(sizeof(struct xs_abi_victim) == 8, "xs_abi_victim layout");
XS_ABI_STATIC_ASSERT(sizeof(struct xs_abi_worker) == 32, "xs_abi_worker layout");
XS_ABI_STATIC_ASSERT(sizeof(struct xs_abi_share) == 32, "xs_abi_share layout");
XS_ABI_STATIC_ASSERT(__builtin_offsetof(struct xs_abi_header, reserved_layout) + 4 <=
		     2 * XS_ABI_CACHE_LINE, "the layout fields fit lines 0-1");

/* ---- client protocol ---- */

#define XS_ABI_MSG_MAGIC 0x58534d31u /* "1MSX" little-endian */
#define XS_ABI_MSG_VERSION 1u
#define XS_ABI_MAX_TIDS 32u

/* request.type */
#define XS_ABI_HELLO 1u      /* reply: status, nslots; fds: state, workers */
#define XS_ABI_REGISTER 2u   /* tids[0..count) -> reply slots[0..count) */
#define XS_ABI_UNREGISTER 3u /* tids[0..count) of this client */
/*
 * Lending, a lease on the connection: LEND (count 1, tids[0] = the CPUs
 * offered, > 0) lends CPUs of the caller's share until RECLAIM (count 0)
 * or until the connection closes (the process exited, crashed, was
 * killed), whichever comes first. The daemon takes at most the caller's
 * own part less one (reply.count: the CPUs taken, 0 when it has none to
 * give), republishes the shares and then replies: a reply means the other
 * processes can see the change. A second LEND before RECLAIM, or RECLAIM
 * without a LEND, is answered -EALREADY / -ENOENT and changes nothing.
 */
#define XS_ABI_LEND 4u       /* tids[0] = CPUs offered -> reply count = CPUs taken */
#define XS_ABI_RECLAIM 5u    /* -> reply after the shares without the lend are published */
/* reply.type is the request's, or XS_ABI_ERROR for a malformed request */
#define XS_ABI_ERROR 0xffffu

struct xs_abi_request {
	__u32 magic;     /* XS_ABI_MSG_MAGIC */
	__u16 version;   /* XS_ABI_MSG_VERSION */
	__u16 type;
	__u32 size;      /* sizeof(struct xs_abi_request) */
	__u32 count;     /* tids used, <= XS_ABI_MAX_TIDS */
	__u32 tids[XS_ABI_MAX_TIDS];
};

struct xs_abi_reply {
	__u32 magic;
	__u16 version;
	__u16 type;
	__u32 size;      /* sizeof(struct xs_abi_reply) */
	__s32 status;    /* 0 or -errno; for REGISTER, the first failure */
	__u32 count;     /* slots[] entries */
	__u32 nslots;    /* HELLO: worker slots; else slots this client holds */
	__u32 mode;      /* XS_ABI_MODE_* */
	__u32 reserved;
	__u32 slots[XS_ABI_MAX_TIDS]; /* slot of tids[i], or UINT32_MAX */
};

XS_ABI_STATIC_ASSERT(sizeof(struct xs_abi_request) == 144, "xs_abi_request layout");
XS_ABI_STATIC_ASSERT(sizeof(struct xs_abi_reply) == 160, "xs_abi_reply layout");

/* ---- readers (user space only) ---- */
#ifndef __bpf__

/* Torn copies a reader retries at once; after them it sleeps a little
 * between tries (the writer may be waiting for its CPU). */
#define XS_ABI_READ_RETRIES 64
/* How long a reader retries a state being rewritten before it gives up.
 * A write section is a few microseconds every tick, but a daemon
 * descheduled inside one on a loaded machine holds seq odd for a time
 * slice or several (tens of ms with many runnable tasks per CPU); only a
 * writer that died mid-write holds it odd for good. A count of tries
 * without a pause would take the first for the second. */
#define XS_ABI_READ_WAIT_NS 50000000ull

/*
 * Seqlock read side. Pairs with xs_abi_write_begin()/xs_abi_write_end():
 *
 *   for (tries = 0; ; tries++) {
 *           seq = xs_abi_read_begin(h);     // acquire: sees the data of seq
 *           ... copy ...
 *           if (!xs_abi_read_retry(h, seq)) break;   // consistent copy
 *           if (XS_ABI_READ_WAIT_NS have passed) fail;
 *           if (tries >= XS_ABI_READ_RETRIES) sleep 50 us;
 *   }
 *
 * The data is read with plain loads that may race with the writer; a copy
 * made while seq moved is thrown away, never used (the intended race of a
 * seqlock). Returns the sequence, or an odd value when a write is in
 * progress (the retry then fails).
 */
static inline __u64 xs_abi_read_begin(const struct xs_abi_header *h)
{
	/* Acquire: pairs with the release in xs_abi_write_end(), so the copy
	 * sees everything written before seq became this even value. */
	return __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
}

static inline int xs_abi_read_retry(const struct xs_abi_header *h, __u64 seq)
{
	/* Acquire fence: orders the copy's loads before the re-read of seq,
	 * pairs with the release fence in xs_abi_write_begin(). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return (seq & 1) || __atomic_load_n(&h->seq, __ATOMIC_RELAXED) != seq;
}

/* Writer (xschedd only): seq odd, data, seq even. */
static inline void xs_abi_write_begin(struct xs_abi_header *h)
{
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELAXED);
	/* Release fence: the odd seq is visible before any data store, pairs
	 * with the acquire fence in xs_abi_read_retry(). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void xs_abi_write_end(struct xs_abi_header *h)
{
	/* Release: publishes the data written since xs_abi_write_begin(),
	 * pairs with the acquire in xs_abi_read_begin(). */
	__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE);
}

static inline __u64 xs_abi_align(__u64 x, __u64 to)
{
	return (x + to - 1) / to * to;
}

/*
 * The layout of a state file for @ncpus CPUs, @nnodes nodes and @nslots
 * worker slots (and as many share entries), the one definition that the
 * daemon writes and the tests forge: fills @h (zeroed by the caller) with the identification, counts,
 * offsets and sizes that xs_abi_check_layout() checks, and returns the
 * file's size: each array on its own cache lines, the whole a multiple of
 * @page bytes.
 */
static inline __u64 xs_abi_layout(struct xs_abi_header *h, __u32 ncpus, __u32 nnodes,
				  __u32 nslots, __u64 page)
{
	__u64 off = sizeof(*h);

	h->magic = XS_ABI_MAGIC;
	h->abi_version = XS_ABI_VERSION;
	h->header_size = sizeof(*h);
	h->ncpus = ncpus;
	h->nnodes = nnodes;
	h->row_len = ncpus ? ncpus - 1 : 0;
	h->nslots = nslots;
	h->cpu_size = sizeof(struct xs_abi_cpu);
	h->node_size = sizeof(struct xs_abi_node);
	h->victim_size = sizeof(struct xs_abi_victim);
	h->worker_size = sizeof(struct xs_abi_worker);
	h->share_size = sizeof(struct xs_abi_share);
	h->nshares = nslots;
	h->cpu_off = (__u32)off;
	off = xs_abi_align(off + (__u64)ncpus * h->cpu_size, XS_ABI_CACHE_LINE);
	h->node_off = (__u32)off;
	off = xs_abi_align(off + (__u64)nnodes * h->node_size, XS_ABI_CACHE_LINE);
	h->victim_off = (__u32)off;
	off = xs_abi_align(off + (__u64)ncpus * h->row_len * h->victim_size, XS_ABI_CACHE_LINE);
	h->worker_off = (__u32)off;
	off = xs_abi_align(off + (__u64)nslots * h->worker_size, XS_ABI_CACHE_LINE);
	h->share_off = (__u32)off;
	off = xs_abi_align(off + (__u64)h->nshares * h->share_size, page);
	h->total_size = off;
	return off;
}

/*
 * Check the layout fields of a mapped state of @size bytes: magic, version,
 * sizes, and that every array lies inside the file, on a cache line of its
 * own. Returns 0 or -EPROTO (other daemon or ABI), -EBADMSG (inconsistent
 * layout).
 */
static inline int xs_abi_check_layout(const struct xs_abi_header *h, __u64 size)
{
	__u64 rows;

	if (size < sizeof(*h) || h->magic != XS_ABI_MAGIC ||
	    h->abi_version != XS_ABI_VERSION || h->header_size != sizeof(*h))
		return -71; /* -EPROTO */
	if (h->total_size != size || !h->ncpus || h->ncpus > 65536 ||
	    h->row_len != h->ncpus - 1 || h->nnodes > 65536 || h->nslots > (1u << 20) ||
	    h->cpu_size != sizeof(struct xs_abi_cpu) ||
	    h->node_size != sizeof(struct xs_abi_node) ||
	    h->victim_size != sizeof(struct xs_abi_victim) ||
	    h->worker_size != sizeof(struct xs_abi_worker) ||
	    h->share_size != sizeof(struct xs_abi_share) || h->nshares != h->nslots)
		return -74; /* -EBADMSG */
	rows = (__u64)h->ncpus * h->row_len;
	if ((__u64)h->cpu_off + (__u64)h->ncpus * h->cpu_size > size ||
	    (__u64)h->node_off + (__u64)h->nnodes * h->node_size > size ||
	    (__u64)h->victim_off + rows * h->victim_size > size ||
	    (__u64)h->worker_off + (__u64)h->nslots * h->worker_size > size ||
	    (__u64)h->share_off + (__u64)h->nshares * h->share_size > size ||
	    h->cpu_off < sizeof(*h) || h->node_off < sizeof(*h) ||
	    h->victim_off < sizeof(*h) || h->worker_off < sizeof(*h) ||
	    h->share_off < sizeof(*h))
		return -74;
	/* Each array starts on a cache line (xs_abi_layout()): readers load
	 * its fields atomically, which a misaligned offset would break. */
	if ((h->cpu_off | h->node_off | h->victim_off | h->worker_off | h->share_off) %
	    XS_ABI_CACHE_LINE)
		return -74;
	return 0;
}

/*
 * Whether a state read under the seqlock (its heartbeat and flags copied
 * inside the same read section) is fresh at CLOCK_MONOTONIC @now_ns: not
 * exited and published within @max_age_ns. A reader that gets 0 uses its
 * own tables.
 */
static inline int xs_abi_fresh(__u64 heartbeat_ns, __u32 flags, __u64 now_ns,
			       __u64 max_age_ns)
{
	if (flags & XS_ABI_F_EXITED)
		return 0;
	return heartbeat_ns <= now_ns ? now_ns - heartbeat_ns <= max_age_ns
				      : heartbeat_ns - now_ns <= max_age_ns;
}

static inline const void *xs_abi_at(const struct xs_abi_header *h, __u32 off)
{
	return (const char *)h + off;
}

#endif /* !__bpf__ */
#endif /* XSCHED_ABI_H */
