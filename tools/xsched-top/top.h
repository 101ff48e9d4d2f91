/* SPDX-License-Identifier: MIT */
/*
 * top.h - what the parts of xsched-top share: one refresh is a struct
 * top_snap (the daemon's state, every process's statistics page, and notes
 * about what could not be read), and the rates between two of them.
 *
 *   pages.c   statistics pages: scan, validate, copy, clean dead ones
 *   daemon.c  xschedd's state file: map read-only, seqlock copy, validate
 *   snap.c    a refresh, rates against the previous one, sorting
 *   text.c    batch output: -b (plain text) and --json
 *   jobs.c    the job view: MPI ranks' pages grouped by job, POP metrics
 *   tui.c     the ncurses screen
 *   guard.c   reading a mapping whose file may shrink (SIGBUS)
 */
#ifndef XSCHED_TOP_H
#define XSCHED_TOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "xsched/abi.h"
#include "xsched/stats_page.h"

#define TOP_MAX_NOTES 32
#define TOP_MAX_PIDS 256
#define TOP_FILTER_LEN 64

/* One runtime's page, copied. */
struct top_proc {
	char path[4200];
	struct xs_stats_header h;        /* copy of the header */
	struct xs_stats_worker *w;       /* copy of workers[h.nworkers] */
	char comm[17];
	/* Rates over the interval since the previous refresh (or since the
	 * page was created, on the first), per second; idle in percent. */
	double tasks_s, created_s, steals_local_s, steals_remote_s, sent_s, handled_s;
	double idle_pct, immediate_ratio;
	double *w_tasks_s, *w_idle_pct;  /* per worker */
	uint64_t executed, created, stolen_local, stolen_remote, sent, handled, with_steal;
	uint64_t immediate, queued, idle_ns;
	/* The full command name (snap.c): comm, or the name in
	 * /proc/<pid>/cmdline that comm is the truncated start of; printable
	 * ASCII, quote-free. */
	char cmd[128];
	/* Its CPU share in xschedd's arbitration (struct xs_abi_share): CPUs
	 * it may use now, and of its workers those running at the tick;
	 * share_cpus -1: no entry (no daemon, or it holds no worker slot). */
	int64_t share_cpus;
	uint32_t share_running;
};

/* An MPI rank, from its page (XS_STATS_F_MPI; jobs.c checked it). */
struct top_rank {
	uint64_t job;                    /* the job name's hash */
	char job_name[XS_STATS_MPI_JOB_LEN + 1]; /* [A-Za-z0-9._-] */
	uint32_t uid, pid, rank, size;
	uint64_t created_ns;             /* with pid: the same rank a refresh later */
	char comm[17];
	double elapsed_s, mpi_s, useful_s, lent_cpu_s, borrowed_cpu_s;
	double mpi_pct_int;              /* MPI% of the last interval, -1: none yet */
	double d_elapsed_s, d_useful_s;  /* over the last interval (mpi_pct_int >= 0) */
	uint64_t lends;
	uint32_t lent_now, borrowed_now;
	int daemon;                      /* its sampler reads xschedd's shares */
};

/* A job: its ranks on this node (consecutive in top_snap.ranks) and the
 * POP metrics over them. */
struct top_job {
	uint64_t id;
	uint32_t uid, size;
	char name[XS_STATS_MPI_JOB_LEN + 1];
	struct top_rank *ranks;
	size_t nranks;
	double runtime_s, useful_avg, useful_max, lb, ce, pe, lent_cpu_s, borrowed_cpu_s;
	uint32_t lent_now, borrowed_now;
	/* The same over the last interval, when every rank has one (has_int). */
	int has_int;
	double lb_int, ce_int, pe_int;
};

/* The daemon, as its state file says. */
struct top_daemon {
	int present;                     /* a consistent, valid state was read */
	const char *mode;                /* "BPF", "degraded" or "absent" */
	char why[4400];                  /* when absent or not fresh: why */
	int fresh;                       /* heartbeat recent and not exited */
	uint32_t pid;
	uint64_t tick_ns, generation, heartbeat_age_ns;
	uint32_t ncpus, nnodes, row_len;
	struct xs_abi_cpu *cpus;         /* copies */
	struct xs_abi_node *nodes;
	struct xs_abi_victim *victims;   /* [ncpus][row_len] */
	/* The arbitration: CPUs xsched processes may use, processes among
	 * which they are divided, and the entries in use (copies, checked:
	 * nshares 0 when the table is inconsistent, with a note). */
	uint32_t share_cpus, share_active, nshares;
	struct xs_abi_share *shares;
};

struct top_snap {
	uint64_t now_ns;                 /* CLOCK_MONOTONIC of the refresh */
	uint64_t real_ns;                /* CLOCK_REALTIME of it: ns since the epoch */
	struct top_daemon d;
	struct top_proc *procs;
	size_t nprocs;
	struct top_rank *ranks;          /* MPI ranks' pages, by uid, job, rank */
	size_t nranks;
	struct top_job *jobs;
	size_t njobs;
	char notes[TOP_MAX_NOTES][320];  /* skipped and cleaned pages, ... */
	size_t nnotes;
};

struct top_opts {
	double delay_s;                  /* -d */
	long iterations;                 /* -n; 0 = until q */
	uint32_t pid;                    /* -p; 0 = all */
	int batch, json;
	int jobs;                        /* -J: the job view */
	int sort;                        /* enum top_sort */
	char runtime_dir[4096];
	char shm_dir[4096];              /* XSCHED_TOP_SHM_DIR: tests only */
	uint32_t pids[TOP_MAX_PIDS];     /* -p, repeated or comma lists; pid is */
	size_t npids;                    /* pids[0] when npids == 1, else 0 */
	int reverse;                     /* -r, R: the sort key's other direction */
	char filter[TOP_FILTER_LEN];     /* --filter, /: command or pid contains */
};

enum top_sort { TOP_SORT_TASKS, TOP_SORT_STEALS, TOP_SORT_IDLE, TOP_SORT_PID, TOP_SORT_CMD,
		TOP_SORT_N };

extern const char *const top_sort_names[TOP_SORT_N];

uint64_t top_now_ns(void);
/* @real_ns (CLOCK_REALTIME) as ISO 8601 UTC, "2026-11-24T16:20:01.123Z". */
void top_format_time(uint64_t real_ns, char *buf, size_t len);
void top_note(struct top_snap *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* pages.c: add every valid page of @dir (and of process @pid, if not 0). */
void top_pages_scan(struct top_snap *s, const char *dir, uint32_t pid);

/* guard.c: run @fn(@arg), which copies from a shared mapping; 0, or
 * -EFAULT when a load of it hit a page the file no longer has (SIGBUS:
 * truncated meanwhile) and @fn was cut short. */
int top_guard(void (*fn)(void *arg), void *arg);

/* daemon.c: read <@runtime_dir>/state into s->d. */
void top_daemon_read(struct top_snap *s, const char *runtime_dir);
const char *top_victim_class(unsigned int c);

/* snap.c */
int top_snap_take(struct top_snap *s, const struct top_opts *o, const struct top_snap *prev);
void top_snap_free(struct top_snap *s);
void top_snap_sort(struct top_snap *s, int key, int reverse);
const char *top_dlb_name(uint32_t dlb);
void top_proc_free(struct top_proc *p);

/* text.c */
void top_print_legend(FILE *out);
void top_print_text(FILE *out, const struct top_snap *s, const struct top_opts *o);
void top_print_json(FILE *out, const struct top_snap *s);
/* Close a JSON snapshot's list, then its notes and the object; flush. */
void top_print_json_notes_end(FILE *out, const struct top_snap *s);

/* jobs.c: move the MPI ranks' pages of s->procs into s->ranks and
 * s->jobs (a corrupt one is dropped with a note); @prev for MPI%. */
void top_jobs_take(struct top_snap *s, const struct top_snap *prev);
void top_jobs_free(struct top_snap *s);
/* The job view as text (@header: the time line and the notes: -b), and
 * as one JSON line (--json -J). */
void top_print_jobs_text(FILE *out, const struct top_snap *s, int header);
void top_print_jobs_json(FILE *out, const struct top_snap *s);

/* tui.c: the interactive loop; returns the exit status. */
int top_tui(struct top_opts *o);

/* snap.c: whether --filter or / shows @p; drop those it does not (batch);
 * @v in at most 5 characters, "1234", "12.3K", "1.2M" (@base 1000: counts
 * and rates; 1024: sizes); the direction of @o's sort, "desc" or "asc". */
bool top_proc_shown(const struct top_proc *p, const struct top_opts *o);
void top_snap_filter(struct top_snap *s, const struct top_opts *o);
const char *top_human(char *buf, size_t len, double v, double base);
const char *top_sort_dir(const struct top_opts *o);

#endif /* XSCHED_TOP_H */
