/* SPDX-License-Identifier: MIT */
/*
 * xsched/stats_page.h - the statistics page every libxsched runtime
 * publishes, and that xsched-top reads.
 *
 * One file per runtime, named XS_STATS_PREFIX "<pid>.<runtime number>", in
 * xschedd's runtime directory when the daemon runs there and the process
 * may write it, else in /dev/shm (XS_STATS_SHM_DIR). Mode 0644: everyone
 * may read it, only its owner (and root) may remove it.
 *
 *        struct xs_stats_header                       at 0
 *        struct xs_stats_worker workers[nworkers]     at worker_off
 *
 * Writers and readers:
 *  - Lines 0-1 of the header (layout and identity) are written once,
 *    before the file is renamed into place; a reader checks them with
 *    xs_stats_check_layout() and skips a page that fails.
 *  - Everything else has one writer, the runtime's publisher thread, which
 *    copies the workers' owner-written counters every period_ns. Every
 *    field is a single 64- or 32-bit relaxed store and every counter only
 *    grows, so a reader's relaxed snapshot is a mix of two neighbouring
 *    publications at worst, never a torn value. `generation` is stored
 *    last with release: a reader that loads it with acquire first sees at
 *    least the counters of that publication (xs_stats_page_copy() here,
 *    xs_stats_page_published() in xsched/stats_page_file.h, which also
 *    creates and removes the file for both writers).
 *  - An MPI rank under libxsched-mpi publishes a page of its own
 *    (XS_STATS_F_MPI, runtime_id XS_STATS_MPI_RUNTIME_ID, one worker: the
 *    thread that called MPI_Init), by the same rules: the mpi_* fields
 *    are its job, rank and times (docs/mpi.md); they are 0 in every other
 *    page. Its publisher is the library's sampler thread.
 *  - The page is removed when the runtime is destroyed, and at process
 *    exit (atexit) for runtimes never destroyed. A page whose process is
 *    gone (no such pid, or a pid whose start time is not pid_start) is
 *    dead: readers that may remove it do.
 *
 * Fixed-width types only, explicit padding; sizes asserted below. A layout
 * change bumps XS_STATS_VERSION.
 */
#ifndef XSCHED_STATS_PAGE_H
#define XSCHED_STATS_PAGE_H

#include <linux/types.h>

/* Layout asserts that C11 and C++ compilers both take. */
#ifdef __cplusplus
#define XS_STATS_STATIC_ASSERT static_assert
#else
#define XS_STATS_STATIC_ASSERT _Static_assert
#endif

#define XS_STATS_MAGIC 0x3154535343535856ULL /* "VXSCSST1" little-endian */
#define XS_STATS_VERSION 1u
#define XS_STATS_PREFIX "xsched-stats."
#define XS_STATS_SHM_DIR "/dev/shm"
/* The largest page a reader maps: 1024 workers are 264 KiB. */
#define XS_STATS_MAX_WORKERS 1024u

/* header.dlb: XSCHED_DLB's values, in its order. */
#define XS_STATS_DLB_SLB 0u
#define XS_STATS_DLB_WS 1u
#define XS_STATS_DLB_RP 2u
#define XS_STATS_DLB_AUTO 3u

/* header.flags */
#define XS_STATS_F_RUNTIME_DIR (1u << 0) /* lives in xschedd's runtime directory */
#define XS_STATS_F_DAEMON (1u << 1)      /* connected to xschedd at the last job */
#define XS_STATS_F_IN_JOB (1u << 2)      /* a job is running */
#define XS_STATS_F_MPI (1u << 3)         /* an MPI rank's page: the mpi_* fields hold */

/* runtime_id (and the name's number) of an MPI rank's page: libxsched's
 * runtimes are numbered from 0 and never reach it. */
#define XS_STATS_MPI_RUNTIME_ID 0xffffffffu
/* Bytes of mpi_job_name: the job id as libxsched-mpi's %j (docs/mpi.md),
 * [A-Za-z0-9._-] only, cut to fit, NUL-padded. */
#define XS_STATS_MPI_JOB_LEN 24

/* worker.flags */
#define XS_STATS_W_IDLE (1u << 0)        /* idle (waiting, spinning or parked) now */

struct xs_stats_header {
	/* Lines 0-1: layout and identity, written once before publication. */
	__u64 magic;          /* XS_STATS_MAGIC */
	__u32 version;        /* XS_STATS_VERSION */
	__u32 header_size;    /* sizeof(struct xs_stats_header) */
	__u64 total_size;     /* file size in bytes */
	__u32 worker_off;     /* byte offset of workers[] */
	__u32 worker_size;    /* sizeof(struct xs_stats_worker) */
	__u32 nworkers;
	__u32 pid;
	__u64 pid_start;      /* the process's start time (/proc/<pid>/stat field 22) */
	__u32 uid;            /* real uid of the process */
	__u32 runtime_id;     /* runtimes this process created before this one */
	__u32 nnodes;         /* NUMA nodes the workers are placed on */
	__u32 queue_size;     /* slots per XQueue SPSC queue */
	__u8 comm[16];        /* the process's command (NUL-terminated) */
	__u64 created_ns;     /* CLOCK_MONOTONIC at creation */
	/* XS_STATS_F_MPI only (0 elsewhere): the rank in MPI_COMM_WORLD, of
	 * mpi_size, of the job named mpi_job_name whose 64-bit FNV-1a hash
	 * is mpi_job (ranks of one job agree on both). */
	__u64 mpi_job;
	__u32 mpi_rank;
	__u32 mpi_size;
	__u8 mpi_job_name[XS_STATS_MPI_JOB_LEN];
	/* Lines 2-3: the publisher thread's. */
	__u64 generation __attribute__((aligned(64))); /* publications; 0 = none yet */
	__u64 published_ns;   /* CLOCK_MONOTONIC of the last publication */
	__u64 period_ns;      /* publication period */
	__u64 jobs;           /* jobs started (xs_runtime_run, parallel regions, ...) */
	__u32 dlb;            /* XS_STATS_DLB_* configured for the current job */
	__u32 push;           /* XSCHED_PUSH: 0 auto, 1 rr, 2 local */
	__u32 flags;          /* XS_STATS_F_* */
	__u32 reserved1;
	/* XS_STATS_F_MPI only: since MPI_Init's return, the time elapsed, the
	 * time with a thread of the rank inside an MPI call (the current call
	 * included), the CPU-seconds (ns) it lent to xschedd and those
	 * xschedd's shares gave it from others' lends (shares[].borrowed over
	 * time, sampled every daemon tick), its lends; and now: CPUs lent,
	 * CPUs borrowed at the last sample. */
	__u64 mpi_elapsed_ns;
	__u64 mpi_ns;
	__u64 mpi_lent_cpu_ns;
	__u64 mpi_borrowed_cpu_ns;
	__u64 mpi_lends;
	__u32 mpi_lent_now;
	__u32 mpi_borrowed_now;
	__u64 reserved[4];
} __attribute__((aligned(64)));

/* One worker's counters (libxsched/obs/stats.h has what each one counts). */
struct xs_stats_worker {
	__u64 tasks_executed;  /* queued tasks run here + immediate */
	__u64 tasks_created;   /* static_pushes + immediate */
	__u64 tasks_self;
	__u64 tasks_local;
	__u64 tasks_remote;
	__u64 immediate;
	__u64 static_pushes;   /* tasks pushed: queued descriptors (any push
				* policy) and frames; the name predates frames */
	__u64 continuations;
	__u64 requests_sent;
	__u64 requests_handled;
	__u64 requests_with_steal;
	__u64 requests_source_empty;
	__u64 requests_target_full;
	__u64 stolen_local;
	__u64 stolen_remote;
	__u64 parks;
	__u64 barrier_waves;
	__u64 idle_ns;         /* time spent idle, including the current stretch */
	__u64 queue_depth;     /* tasks queued into this worker at the publication */
	__u32 tid;             /* its thread (worker 0: the thread that created it) */
	__u32 cpu;             /* the CPU it is placed on */
	__u32 node;            /* that CPU's NUMA node (sysfs number) */
	__u32 flags;           /* XS_STATS_W_* */
	__u64 reserved[11];
};

XS_STATS_STATIC_ASSERT(sizeof(struct xs_stats_header) == 256, "xs_stats_header layout");
XS_STATS_STATIC_ASSERT(__builtin_offsetof(struct xs_stats_header, generation) == 128,
	       "the publisher's fields start a cache line after the layout");
XS_STATS_STATIC_ASSERT(sizeof(struct xs_stats_worker) == 256, "xs_stats_worker layout");
XS_STATS_STATIC_ASSERT(__builtin_offsetof(struct xs_stats_header, mpi_job_name) +
		       XS_STATS_MPI_JOB_LEN == 128, "the MPI identity fills line 1");

/* Bytes of a page of @nworkers workers. */
static inline __u64 xs_stats_page_size(__u32 nworkers)
{
	return sizeof(struct xs_stats_header) + (__u64)nworkers * sizeof(struct xs_stats_worker);
}

/*
 * Check the layout of a mapped page of @size bytes. Returns 0, -EPROTO
 * (bad magic, other version: not a page this reader understands) or
 * -EBADMSG (sizes and offsets inconsistent with the file).
 */
static inline int xs_stats_check_layout(const struct xs_stats_header *h, __u64 size)
{
	if (size < sizeof(*h) || h->magic != XS_STATS_MAGIC || h->version != XS_STATS_VERSION ||
	    h->header_size != sizeof(*h))
		return -71; /* -EPROTO */
	if (h->total_size != size || h->worker_size != sizeof(struct xs_stats_worker) ||
	    !h->nworkers || h->nworkers > XS_STATS_MAX_WORKERS || h->worker_off < sizeof(*h) ||
	    (__u64)h->worker_off + (__u64)h->nworkers * h->worker_size > size || !h->pid)
		return -74; /* -EBADMSG */
	return 0;
}

/* Relaxed load of a page field written by the publisher thread. */
#define xs_stats_load(p) __atomic_load_n((p), __ATOMIC_RELAXED)

/*
 * A reader's copy of a mapped page of @size bytes (a multiple of 8) into
 * private memory @dst, the one copy it then checks and uses. Generation
 * first, with acquire: pairs with the release store of it in
 * xs_stats_page_published() (xsched/stats_page_file.h), so the copy holds
 * at least that publication's fields; then every 64-bit word relaxed (the
 * publisher's single stores: a mix of two neighbouring publications at
 * worst, never a torn word); the copy's generation is the one loaded
 * first. Another user may truncate the file under the mapping: a reader
 * that maps others' pages runs this where a SIGBUS is caught
 * (tools/xsched-top/guard.c).
 */
static inline void xs_stats_page_copy(void *dst, const void *map, __u64 size)
{
	const __u64 *src = (const __u64 *)map;
	__u64 *out = (__u64 *)dst;
	__u64 gen = __atomic_load_n(&((const struct xs_stats_header *)map)->generation,
				    __ATOMIC_ACQUIRE);

	for (__u64 k = 0; k < size / sizeof(__u64); k++)
		out[k] = xs_stats_load(&src[k]);
	((struct xs_stats_header *)dst)->generation = gen;
}

static inline const struct xs_stats_worker *xs_stats_worker_at(const struct xs_stats_header *h,
							       __u32 i)
{
	return (const struct xs_stats_worker *)((const char *)h + h->worker_off) + i;
}

#endif /* XSCHED_STATS_PAGE_H */
