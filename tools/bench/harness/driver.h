/* SPDX-License-Identifier: MIT */
/*
 * driver.h - xsched-bench's driver, between its files (not the programs):
 *   bench.c     options, the loop over programs x runtimes x threads
 *   runtime.c   the runtimes and how one cell is measured and verified
 *   xsched.c    the xsched cells: a row per load-balancing strategy
 *   sweep.c     --sweep: task size x steal size under ws and rp
 *   omp_child.c the libgomp, libomp and xgomp cells, run in xsched-bench-omp
 *   micro.c     --micro: OpenMP runtime overheads, run in xsched-bench-omp
 *   report.c    the human table, the JSON lines and the ratio sections
 *   report_dlb.c  the xsched counters and "DLB vs SLB"
 */
#ifndef XSCHED_BENCH_DRIVER_H
#define XSCHED_BENCH_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include <xsched.h>
#include "bench.h"
#include "../../common/json_write.h"

#define PROG "xsched-bench"
#define MAX_THREAD_COUNTS 256
#define MAX_THREADS 4096
#define MAX_DLB 4		/* slb, ws, rp, auto */
#define MAX_GROUP 64		/* xsched cells measured in turn */

struct options {
	const struct bench **only;	/* programs to run, in table order */
	int nonly;
	long *n;			/* per program in only[]: its size */
	int threads[MAX_THREAD_COUNTS];	/* thread counts, as given */
	int nthreads;
	unsigned runtimes;		/* bit i: runtimes[i] is measured */
	long repeat;			/* runs per cell, at most */
	/* --rounds: child processes per OpenMP cell, the OpenMP runtimes
	 * taking turns (libgomp, libomp, xgomp, libgomp, ...); each makes
	 * up to repeat runs within budget */
	long rounds;
	/* --warmup: untimed runs at the start of every OpenMP child */
	long warmup;
	double budget;			/* seconds per cell after which to stop */
	double timeout;			/* seconds an OpenMP run may take */
	bool json;
	int dlb[MAX_DLB];		/* --dlb: strategies, as given */
	int ndlb;			/* 0: XSCHED_DLB's, one row "xsched" */
	bool sweep;			/* --sweep instead of the programs */
	bool quick;			/* --quick */
	const char *omp_path;		/* xsched-bench-omp */
	const char *libomp_path;	/* LLVM libomp, NULL: not found */
	const char *libomp_why;		/* why libomp_path is NULL */
	const char *xgomp_path;		/* libxsched-gomp.so.1, NULL: none */
	const char *xgomp_why;		/* why xgomp_path is NULL */
	bool micro;			/* --micro instead of the programs */
	long iters;			/* --iters: micro-benchmark iterations */
	bool dgemm;			/* --dgemm instead of the programs */
	bool affinity;			/* --affinity instead of the programs */
	const char *affinity_only;	/* --affinity=LIST: kernels, NULL: all */
	int corun;			/* --corun=K: copies; 0: not this mode */
	unsigned noise;			/* --noise: bit i, corun_noise[i] */
	bool repeat_set, timeout_set;	/* given on the command line */
	bool only_set, n_set;
	const char *corun_child;	/* --corun-child RUNTIME (internal) */
};

/* One program while it runs: its state and the serial reference. */
struct program_run {
	const struct bench *b;
	long n;
	void *st;
	bool have_ref;
	uint64_t ref;		/* checksum of the first serial run */
	uint64_t tasks;
};

enum cell_status { CELL_OK, CELL_SKIPPED, CELL_TIMEOUT, CELL_ERROR };

/* One (program, runtime, threads) measurement. */
struct cell {
	const struct bench *b;
	const struct runtime *rt;
	long n;
	int threads;
	enum cell_status status;
	int reps;
	double *times;		/* reps of them, sorted once finished */
	int cap;		/* room in times */
	int child_base;		/* runs recorded before the current child */
	double min_s, median_s;
	uint64_t tasks;
	/* Programs with nodes(): nodes explored, summed over the runs; an
	 * OpenMP cell reads a run's count from its child's line (run_nodes)
	 * since the state is in the child. */
	uint64_t nodes;
	bool child_nodes;
	uint64_t run_nodes;
	/* xsched: the load balancing asked for (-1 fields: the runtime's
	 * default from XSCHED_DLB*), the one it ran with, and the counters
	 * of xs_runtime_stats() summed over the runs. */
	struct dlb_choice {
		int strategy, victims, steal, timeout;
	} want;
	bool named;		/* reported as xsched/<strategy> */
	struct xs_dlb_config dlb;
	bool have_stats;
	struct xs_stats stats;
	/* Peak resident KiB of the cell's runs (rss.c), valid if rss_ok;
	 * xsched: pools_kib, the RSS that creating the runtime added. */
	long peak_kib, pools_kib;
	bool rss_ok;
	/* xsched: ns the process's threads waited for a CPU during the runs
	 * (runq.c) and the runs' seconds, summed; runq_bad once a run could
	 * not read it. */
	uint64_t runq_ns;
	double runq_s;
	bool runq_bad;
	char lib[256];		/* OpenMP runtimes: the library that ran */
	char why[512];		/* skipped or error: why */
};

struct runtime {
	const char *name;
	bool parallel;		/* false: serial, measured once per program */
	void (*measure)(struct cell *c, struct program_run *x,
			const struct options *o);
	/* xsched: several cells (strategies) of one thread count at once,
	 * run by run in turn; NULL for the others. */
	void (*measure_group)(struct cell *c, int ncells,
			      struct program_run *x, const struct options *o);
	bool peer;		/* another project's runtime: its failures are
				 * reported, not counted in the exit status */
};

extern const struct runtime runtimes[];
extern const int nruntimes;
enum { RT_SERIAL, RT_XSCHED };	/* their places in runtimes[] */

/* runtime.c */
/* A cell of @x on @rt at @threads, ready for up to @repeat runs; strategy
 * and the rest of want at the runtime's defaults. */
void cell_init(struct cell *c, const struct runtime *rt,
	       const struct program_run *x, int threads, long repeat);
typedef int (*run_fn)(void *handle, struct program_run *x);
void measure_runs(struct cell *c, struct program_run *x,
		  const struct options *o, run_fn run, void *handle);
void cell_fail(struct cell *c, enum cell_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cell_record(struct cell *c, struct program_run *x,
		 const struct options *o, double t, uint64_t checksum,
		 bool *stop);
void cell_finish(struct cell *c);
long rss_kib(const char *name);
bool rss_peak_reset(void);
void rss_track(struct cell *c, bool before);

/* runq.c: the ns every thread of this process spent runnable but waiting
 * for a CPU so far (schedstat), or -errno; one schedstat line parsed
 * ("RUN WAIT SLICES"): 0 or -EINVAL. */
int64_t runq_ns(void);
int runq_parse(const char *line, uint64_t *run_ns, uint64_t *wait_ns);
void measure_serial(struct cell *c, struct program_run *x,
		    const struct options *o);

/* xsched.c */
extern const char *const dlb_names[MAX_DLB];	/* by enum xs_dlb_strategy */
void measure_xsched(struct cell *c, int ncells, struct program_run *x,
		    const struct options *o);

/* sweep.c */
int sweep_run(const struct options *o);

/* dgemm.c: --dgemm, the DGEMM schedules against OpenBLAS and BLIS */
int dgemm_run(const struct options *o);

/* affinity.c: --affinity, the affinity-graph seed's kernels */
int affinity_run(const struct options *o);

/* omp_child.c */
/* One run of xsched-bench-omp under an OpenMP runtime. */
struct child_line;

struct omp_call {
	const struct options *o;
	const char *runtime;	/* "libgomp", "libomp" or "xgomp" */
	char **args;		/* its arguments, NULL-terminated */
	/* Each line whose libraries checked out; *stop: read no more. */
	/* A result line, read (@l, child_line.h) and as written (@line, for
	 * messages). */
	void (*line)(struct omp_call *call, const struct child_line *l, const char *line,
		     bool *stop);
	void *ctx;
	struct program_run *prog;
	int lines;		/* lines the callback took */
	enum cell_status status;
	char lib[256];		/* the library that served GOMP_parallel */
	char err[256];		/* the child's last line on stderr */
	char why[512];		/* not ok: why */
};
void omp_call_run(struct omp_call *call);
void omp_call_fail(struct omp_call *call, enum cell_status s,
		   const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void measure_libgomp(struct cell *c, struct program_run *x,
		     const struct options *o);
void measure_libomp(struct cell *c, struct program_run *x,
		    const struct options *o);
void measure_xgomp(struct cell *c, struct program_run *x,
		   const struct options *o);
const char *find_libomp(const char **why);
const char *find_xgomp(const char **why);

/* omp_child.c: what corun.c shares with the OpenMP cells */
char **bench_child_env(const char *preload, const char *const *set);
void bench_child_env_free(char **env);
bool omp_lib_matches(const struct options *o, const char *runtime, const char *lib);
const char *omp_preload_of(const struct options *o, const char *runtime,
			   const char **preload);

/* corun.c: --corun, and the child side of it in xsched-bench */
#define CORUN_NOISES 3		/* quiet, hog50, hog100 */
extern const char *const corun_noise[CORUN_NOISES];
int corun_run(const struct options *o, const struct bench *const *programs,
	      int nprograms);
int corun_child(const struct options *o);

/* micro.c */
int micro_run(const struct options *o);

/* report.c */
void report_start(const struct options *o, int ncpus);
/* core_latency.c: ns per round trip of a cache line between the first two
 * CPUs of our mask (set in *a, *b), or < 0 with fewer than two. */
double core_round_trip_ns(int *cpu_a, int *cpu_b);
/* cpu_ceiling.c: the sum of the rates of an ALU loop run on the first @p
 * CPUs of our mask at once (set in @cpus), each over the rate of the
 * first one alone (in @rel; medians of rounds): the most T1/Tp can be
 * now for work that shares nothing. < 0 when fewer than @p (2..64) CPUs. */
double cpu_ceiling(int p, int *cpus, double *rel);
void report_program(const struct options *o, const struct program_run *x);
void report_cell(const struct options *o, const struct cell *c,
		 const struct cell *serial, const struct cell *t1);
void report_ratios(const struct options *o, const struct cell *cells,
		   int ncells);
const char *cell_name(const struct cell *c, char *buf, size_t len);
bool cell_ok(const struct cell *c);
const struct cell *find_cell(const struct cell *cells, int ncells,
			     const struct bench *b, const char *rt, int dlb,
			     int threads);

/* report_dlb.c */
void json_dlb(const struct cell *c);
void report_counters(const struct options *o, const struct cell *cells,
		     int ncells);
void report_dlb_ratios(const struct options *o, const struct cell *cells,
		       int ncells);

#endif /* XSCHED_BENCH_DRIVER_H */
