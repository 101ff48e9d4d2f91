/* SPDX-License-Identifier: MIT */
/*
 * cutoff.h - the cut-off versions of fib, nqueens and floorplan, OpenMP
 * only (cutoff_omp.c; BOTS's three ways to stop creating tasks below a
 * depth): `-if0` still creates every task but with if(0) past the depth
 * (undeferred), `-final` marks the tasks at the depth final (everything
 * below is an included task), `-manual` calls the serial code past the
 * depth. They measure what an undeferred and an included task cost next
 * to libgomp's. Same input, result and checks as the program they cut.
 */
#ifndef XSCHED_BENCH_CUTOFF_H
#define XSCHED_BENCH_CUTOFF_H

#include "../fib/fib.h"
#include "../floorplan/floorplan.h"
#include "../nqueens/nqueens.h"

/*
 * fib-manual's default size. Past depth 10 it is the serial fib_seq(),
 * which gcc compiles to about 14 ms for fib(35) on this machine's CPUs:
 * a run that short is a start-up and timer measurement, so the program
 * runs fib(40) by default (about 11x: 150 ms and more at 1 thread), the
 * same size under every runtime. The other versions keep fib's 35.
 */
#define FIB_MANUAL_PROBLEM_FIELDS FIB_PROBLEM_FIELDS_N(40)

/* Task depths (BOTS's default cut-off values; floorplan's: floorplan.h). */
#define FIB_CUTOFF 10
#define NQ_CUTOFF 3

/* fib-manual: tasks created above the cut-off by fib(n) at depth d. */
static inline uint64_t fib_tasks_cut(int n, int d)
{
	if (n < 2 || d >= FIB_CUTOFF)
		return 0;
	return 2 + fib_tasks_cut(n - 1, d + 1) + fib_tasks_cut(n - 2, d + 1);
}

static inline uint64_t fib_manual_tasks(const void *p)
{
	return fib_tasks_cut(((const struct fib_state *)p)->n, 0);
}

/* nqueens-manual: spawning nodes above the cut-off (rows j < NQ_CUTOFF). */
static inline uint64_t nq_nodes_cut(int n, int j, char *a)
{
	uint64_t nodes = 1;

	for (int i = 0; i < n; i++) {
		a[j] = (char)i;
		if (j + 1 < n && j + 1 < NQ_CUTOFF && nqueens_ok(j + 1, a))
			nodes += nq_nodes_cut(n, j + 1, a);
	}
	return nodes;
}

static inline uint64_t nqueens_manual_tasks(const void *p)
{
	int n = ((const struct nqueens_state *)p)->n;
	char a[NQ_MAX];

	return n ? (uint64_t)n * nq_nodes_cut(n, 0, a) : 0;
}

/* floorplan-manual: the serial run's spawns by cells above the cut-off. */
static inline uint64_t fp_manual_tasks(const void *p)
{
	return ((const struct floorplan_state *)p)->spawns_cut;
}

#define CUTOFF_PROBLEMS(X) \
	X(fib, if0, "fib(n) as fib, tasks past depth 10 with if(0)", FIB, fib_tasks) \
	X(fib, final, "fib(n) as fib, tasks at depth 10 final(1): included below", FIB, \
	  fib_tasks) \
	X(fib, manual, "fib(n) as fib, serial code past depth 10", FIB_MANUAL, \
	  fib_manual_tasks) \
	X(nqueens, if0, "n queens as nqueens, tasks past row 3 with if(0)", NQUEENS, \
	  nqueens_tasks) \
	X(nqueens, final, "n queens as nqueens, tasks at row 3 final(1)", NQUEENS, \
	  nqueens_tasks) \
	X(nqueens, manual, "n queens as nqueens, serial code past row 3", NQUEENS, \
	  nqueens_manual_tasks) \
	X(floorplan, if0, "floorplan, tasks past cell 5 with if(0)", FLOORPLAN, fp_tasks) \
	X(floorplan, final, "floorplan, tasks at cell 5 final(1)", FLOORPLAN, fp_tasks) \
	X(floorplan, manual, "floorplan, serial code past cell 5", FLOORPLAN, fp_manual_tasks)

#define CUTOFF_PROBLEM(base, kind, docstr, FIELDS, tasksfn) \
	static const struct bench_problem base##_##kind##_problem = { \
		.name = #base "-" #kind, \
		.doc = docstr, \
		FIELDS##_PROBLEM_FIELDS \
		.tasks = tasksfn, \
	};
CUTOFF_PROBLEMS(CUTOFF_PROBLEM)
#undef CUTOFF_PROBLEM

#endif /* XSCHED_BENCH_CUTOFF_H */
