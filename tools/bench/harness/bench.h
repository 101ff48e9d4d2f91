/* SPDX-License-Identifier: MIT */
/*
 * bench.h - the descriptors shared by the two benchmark programs.
 *
 *   xsched-bench      serial C, xsched and oneTBB in one process (bench.c),
 *                     and the driver that runs everything and reports;
 *   xsched-bench-omp  the OpenMP task versions (bench_omp.c), run by
 *                     xsched-bench as a child process: on GNU libgomp, with
 *                     LLVM's libomp in LD_PRELOAD, and with xsched's libgomp
 *                     drop-in (libxsched-gomp.so.1) in LD_PRELOAD.
 *
 * A program <p> is:
 *   <p>.h          its problem: state, input, the sequential kernels every
 *                  variant shares (static inline, so every runtime runs the
 *                  same leaf code and only the scheduling differs), the
 *                  serial version, the checksum, and p_problem (C only);
 *   <p>.c          the xsched version and the descriptor bench_<p>;
 *   <p>_tbb.cpp    the oneTBB version (tbb::task_group);
 *   <p>_omp.c      the OpenMP version (#pragma omp task) and bench_omp_<p>;
 * and one line in bench-list.h. Every file here compiles as C11 and every
 * header also as C++17, since the _tbb.cpp files include them.
 *
 * Verification: the serial result is checked on its own where the problem
 * can (verify), and every other run must give the same checksum as the
 * serial run; a run that does not is an error, never a timing.
 */
#ifndef XSCHED_BENCH_H
#define XSCHED_BENCH_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifdef __cplusplus
#define BENCH_C_LINKAGE extern "C"	/* the _tbb.cpp entry points */
extern "C" {
#else
#define BENCH_C_LINKAGE
#endif

struct xs_runtime;

struct bench_problem {
	const char *name;
	const char *doc;	/* one line: what the program is, what n is */
	long n_default;		/* ~0.5-1 s serial on a 2-core dev box */
	long n_quick;		/* a few ms: smoke runs (--quick) */
	long n_min, n_max;	/* accepted range of --n */
	/* Build the input for size @n; NULL and errno on failure. */
	void *(*setup)(long n);
	void (*teardown)(void *st);
	/* Untimed, before every run: restore the input and poison the result,
	 * so that a run that does nothing cannot pass for a correct one. */
	void (*reset)(void *st);
	/* The serial C version: the floor every runtime is measured against. */
	void (*serial)(void *st);
	/* Digest of the result of the last run; equal results, equal digests. */
	uint64_t (*checksum)(const void *st);
	/* Check a serial result without a reference: 0, or -EINVAL with a
	 * message in @why. May be NULL when nothing independent exists. */
	int (*verify)(const void *st, char *why, int len);
	/* Tasks one parallel run spawns (every variant spawns the same tree).
	 * Called once, after a serial run. */
	uint64_t (*tasks)(const void *st);
	/* Search nodes the last run explored, for a search whose work
	 * depends on the order tasks run in (branch and bound); reported per
	 * runtime next to its time. NULL: the work is the same every run. */
	uint64_t (*nodes)(const void *st);
};

/* A program as xsched-bench runs it. */
struct bench {
	const struct bench_problem *problem;
	/* Root task, run as xs_runtime_run(rt, xsched, st). */
	void (*xsched)(void *st);
	/* Instead of xsched: a run that drives the runtime itself from the
	 * calling thread (parallel loops); 0 or -errno. NULL: none. */
	int (*xsched_rt)(struct xs_runtime *rt, void *st);
	/* oneTBB version; runs inside the task_arena of the driver. NULL: none. */
	void (*tbb)(void *st);
};

/* A program as xsched-bench-omp runs it. */
struct bench_omp {
	const struct bench_problem *problem;
	/* Opens its own parallel region (omp_set_num_threads() already done). */
	void (*omp)(void *st);
};

/* oneTBB glue (bench_tbb.cpp): a task_arena of @threads threads under a
 * global_control limit of the same value. NULL on failure. */
struct bench_tbb;
struct bench_tbb *bench_tbb_open(int threads);
int bench_tbb_threads(const struct bench_tbb *t);
/* 0, or -ENOMEM when the run threw (std::bad_alloc or anything else). */
int bench_tbb_run(struct bench_tbb *t, void (*fn)(void *), void *st);
void bench_tbb_close(struct bench_tbb *t);

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* qsort() order of doubles, ascending (for mins and medians of runs). */
static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* splitmix64's output function: a cheap, well-mixed 64-bit hash. */
static inline uint64_t bench_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#ifdef __cplusplus
}
#endif
#endif /* XSCHED_BENCH_H */
