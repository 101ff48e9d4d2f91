/* SPDX-License-Identifier: MIT */
/*
 * driver.h - xsched-bench's driver, between its files (not the programs):
 *   bench.c     options, the loop over programs x runtimes x threads
 *   runtime.c   the runtimes and how one cell is measured and verified
 *   omp_child.c the libgomp and libomp cells, run in xsched-bench-omp
 *   report.c    the human table, the JSON lines and the ratio section
 */
#ifndef XSCHED_BENCH_DRIVER_H
#define XSCHED_BENCH_DRIVER_H

#include <stdbool.h>
#include <stdint.h>
#include "bench.h"

#define PROG "xsched-bench"
#define MAX_THREAD_COUNTS 256
#define MAX_THREADS 4096

struct options {
	const struct bench **only;	/* programs to run, in table order */
	int nonly;
	long *n;			/* per program in only[]: its size */
	int threads[MAX_THREAD_COUNTS];	/* thread counts, as given */
	int nthreads;
	unsigned runtimes;		/* bit i: runtimes[i] is measured */
	long repeat;			/* runs per cell, at most */
	double budget;			/* seconds per cell after which to stop */
	double timeout;			/* seconds an OpenMP run may take */
	bool json;
	const char *omp_path;		/* xsched-bench-omp */
	const char *libomp_path;	/* LLVM libomp, NULL: not found */
	const char *libomp_why;		/* why libomp_path is NULL */
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
	double min_s, median_s;
	uint64_t tasks;
	char lib[256];		/* OpenMP runtimes: the library that ran */
	char why[512];		/* skipped or error: why */
};

struct runtime {
	const char *name;
	bool parallel;		/* false: serial, measured once per program */
	void (*measure)(struct cell *c, struct program_run *x,
			const struct options *o);
};

extern const struct runtime runtimes[];
extern const int nruntimes;

/* runtime.c */
typedef int (*run_fn)(void *handle, struct program_run *x);
void measure_runs(struct cell *c, struct program_run *x,
		  const struct options *o, run_fn run, void *handle);
void cell_fail(struct cell *c, enum cell_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cell_record(struct cell *c, struct program_run *x,
		 const struct options *o, double t, uint64_t checksum,
		 bool *stop);
void cell_finish(struct cell *c);

/* omp_child.c */
void measure_libgomp(struct cell *c, struct program_run *x,
		     const struct options *o);
void measure_libomp(struct cell *c, struct program_run *x,
		    const struct options *o);
const char *find_libomp(const char **why);

/* report.c */
void report_start(const struct options *o, int ncpus);
void report_program(const struct options *o, const struct program_run *x);
void report_cell(const struct options *o, const struct cell *c,
		 const struct cell *serial, const struct cell *t1);
void report_ratios(const struct options *o, const struct cell *cells,
		   int ncells);

#endif /* XSCHED_BENCH_DRIVER_H */
