/* SPDX-License-Identifier: MIT */
/*
 * mpi_int.h - the inside of libxsched-mpi, the PMPI interposition layer
 * (docs/mpi.md). One concern per file:
 *
 *   interpose.c  the MPI_* entry points: account, maybe lend, call PMPI_*
 *   account.c    per-thread and per-process time in MPI, by call class
 *   summary.c    MPI_Finalize: gather every rank's numbers, write the JSON
 *   lend.c       lending the rank's CPUs but one while it waits (opt-in)
 *   options.c    the XSCHED_MPI_* options table
 *   page.c       the rank's live statistics page (xsched-top's job view)
 *                and the CPUs xschedd's shares lend it, sampled
 *
 * The module sees the public headers (include/xsched/abi.h for the
 * daemon's message layout), libxsched/ext.h for the runtime's atomics and
 * clock (header-only: the module does not link libxsched), and mpi.h of
 * the MPI it is built against; the same sources are built once per MPI
 * (Open MPI, MPICH), whose ABIs differ.
 */
#ifndef XSCHED_MPI_INT_H
#define XSCHED_MPI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ext.h"

/* ---- options (options.c) ---- */
enum xs_mpi_opt {
	XS_MPI_OPT_LEND,       /* XSCHED_MPI_LEND: 0 off, 1 lend while blocked */
	XS_MPI_OPT_SPIN_US,    /* XSCHED_MPI_SPIN_US: wait this long before lending */
	XS_MPI_OPT_TEST_SPIN,  /* XSCHED_MPI_TEST_SPIN: failed MPI_Test calls before lending */
	XS_MPI_OPT_KEEP,       /* XSCHED_MPI_KEEP: CPUs a lending rank keeps */
	XS_MPI_OPT_RECLAIM_WAIT_US, /* XSCHED_MPI_RECLAIM_WAIT_US: wait for the daemon's word */
	XS_MPI_OPT_PAGE,       /* XSCHED_MPI_PAGE: publish a statistics page, sample borrowing */
	XS_MPI_OPT_VERBOSE,    /* XSCHED_MPI_VERBOSE: print the effective values */
	XS_MPI_NOPTS
};

/* Parse every XSCHED_MPI_* variable once (MPI_Init); a bad value gets one
 * line naming the variable and its range, and the default. */
void xs_mpi_options_load(int rank);
int64_t xs_mpi_opt(enum xs_mpi_opt o);
/* XSCHED_MPI_SUMMARY: the JSON summary's path (NULL: none), with %j the
 * job id, %p rank 0's pid, %% a percent sign. */
const char *xs_mpi_summary_path(void);

/* ---- accounting (account.c) ---- */

/* Call classes, the columns of the summary's per-class MPI time. */
enum xs_mpi_class {
	XS_MPI_C_SEND,       /* MPI_Send */
	XS_MPI_C_RECV,       /* MPI_Recv, MPI_Probe */
	XS_MPI_C_SENDRECV,   /* MPI_Sendrecv */
	XS_MPI_C_WAIT,       /* MPI_Wait, Waitall, Waitany, Waitsome */
	XS_MPI_C_TEST,       /* MPI_Test */
	XS_MPI_C_BARRIER,    /* MPI_Barrier */
	XS_MPI_C_COLL,       /* Allreduce, Reduce, Bcast, Allgather, Alltoall, Gather, Scatter */
	XS_MPI_NCLASSES
};

extern const char *const xs_mpi_class_name[XS_MPI_NCLASSES];

/*
 * Per-thread state. Invariant: written only by its thread (the owner);
 * ns[] and calls[] are also read by the thread in MPI_Finalize, after
 * every other thread has left MPI (the standard requires it), with
 * relaxed loads: the counters are single-writer, stored with relaxed
 * stores, so a reader sees a whole value and no read-modify-write is needed.
 */
struct xs_mpi_thread {
	_Atomic uint64_t ns[XS_MPI_NCLASSES];    /* wall time inside calls */
	_Atomic uint64_t calls[XS_MPI_NCLASSES];
	uint64_t last_ns[XS_MPI_NCLASSES];       /* the last call's time: lend predictor */
	uint64_t enter_ns;                        /* when the outermost call began */
	uint32_t depth;                           /* nested MPI calls (0: outside) */
	uint32_t test_fails;                      /* consecutive MPI_Test without completion */
	struct xs_mpi_thread *next;               /* the registry, for MPI_Finalize */
};

/* This thread's state, created on first use (NULL if out of memory: the
 * call then goes through unaccounted). */
struct xs_mpi_thread *xs_mpi_self(void);

/* Enter and leave an MPI call of class @c. Returns the enter time. */
uint64_t xs_mpi_enter(struct xs_mpi_thread *t, enum xs_mpi_class c);
void xs_mpi_leave(struct xs_mpi_thread *t, enum xs_mpi_class c, uint64_t t0);

/* Whether accounting runs: between MPI_Init's return and MPI_Finalize. */
bool xs_mpi_active(void);
void xs_mpi_account_start(void);      /* MPI_Init(_thread) returned */

/* The process's totals, summed over threads at MPI_Finalize. */
struct xs_mpi_totals {
	uint64_t elapsed_ns;                 /* MPI_Init's return .. MPI_Finalize's entry */
	uint64_t mpi_ns;                     /* time with at least one thread in MPI */
	uint64_t class_ns[XS_MPI_NCLASSES];  /* summed over threads */
	uint64_t class_calls[XS_MPI_NCLASSES];
	uint64_t lent_cpu_ns;                /* CPU-ns lent (lend.c) */
	uint64_t borrowed_cpu_ns;            /* CPU-ns xschedd's shares lent it (page.c) */
	uint64_t lends;                      /* lends made */
	uint64_t reclaim_p50_ns;             /* time the owner spent reclaiming: median */
	uint64_t reclaim_p99_ns;             /* and 99th percentile */
	uint64_t reclaim_max_ns;             /* and the longest */
	uint64_t reclaims_late;              /* reclaims whose replies missed the wait */
};
void xs_mpi_account_stop(struct xs_mpi_totals *out); /* MPI_Finalize's entry */
/* From another thread (page.c), while accounting runs: the time since
 * MPI_Init's return and the rank's MPI time so far at @now, the call in
 * progress included. A closing period may be missing for an instant (it
 * is added just after its close), never counted twice; mpi <= elapsed. */
void xs_mpi_account_live(uint64_t now, uint64_t *elapsed_ns, uint64_t *mpi_ns);

/* ---- summary (summary.c) ---- */
/* At MPI_Finalize's entry, on every rank of MPI_COMM_WORLD: gathers the
 * ranks' totals to rank 0 (PMPI_Gather), which writes the JSON when
 * XSCHED_MPI_SUMMARY is set. Returns 0 or -errno (rank 0 says why). */
int xs_mpi_summary_write(const struct xs_mpi_totals *tot);

/* ---- lending (lend.c) ---- */
int xs_mpi_lend_init(int rank);       /* MPI_Init: connect when XSCHED_MPI_LEND=1 */
bool xs_mpi_lend_thread(void);        /* the calling thread may lend (the MPI_Init one) */
void xs_mpi_lend(void);               /* lend the CPUs but XSCHED_MPI_KEEP */
void xs_mpi_reclaim(void);            /* take them back (no-op if not lent) */
void xs_mpi_lend_totals(struct xs_mpi_totals *tot); /* the lend fields */
void xs_mpi_lend_fini(void);          /* MPI_Finalize: reclaim, close */
/* From any thread: CPU-ns lent so far at @now (the lend in progress
 * included), lends counted, and CPUs lent now (0: none). */
void xs_mpi_lend_live(uint64_t now, uint64_t *lent_cpu_ns, uint64_t *lends, uint32_t *lent_now);

/* ---- the rank's statistics page (page.c) ---- */
/* MPI_Init, before xs_mpi_account_start() (the page shows nothing until
 * the accounting runs): create the page of rank @rank
 * of @size in job @job (the same string on every rank) and start the
 * sampler thread (XSCHED_MPI_PAGE=1); failing is one warning, never an
 * error of the program. */
void xs_mpi_page_start(int rank, int size, const char *job);
/* MPI_Finalize's entry: stop the sampler, remove the page; the CPU-ns
 * borrowed (0 when nothing sampled). */
uint64_t xs_mpi_page_stop(void);
/* The job id of %j (summary.c), [A-Za-z0-9._-] only. */
void xs_mpi_job_id(char *out, size_t len);

#endif /* XSCHED_MPI_INT_H */
