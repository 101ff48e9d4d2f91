/* SPDX-License-Identifier: MIT */
/*
 * cutoff_omp.c - fib, nqueens and floorplan as their OpenMP versions, with
 * BOTS's cut-offs (cutoff.h): if(0), final, manual.
 */
#include <alloca.h>
#include <omp.h>
#include <string.h>
#include "cutoff.h"

enum cut { CUT_IF0, CUT_FINAL, CUT_MANUAL };

/* ---- fib ---- */

/* Tasks at depth d < FIB_CUTOFF are deferred; past it, as @c says. */
static long fib_cut(int n, int d, enum cut c)
{
	long x, y;

	if (n < 2)
		return n;
	if (c == CUT_MANUAL && d >= FIB_CUTOFF)
		return fib_seq(n);
	if (c == CUT_IF0) {
#pragma omp task shared(x) firstprivate(n, d, c) if(d < FIB_CUTOFF)
		x = fib_cut(n - 1, d + 1, c);
#pragma omp task shared(y) firstprivate(n, d, c) if(d < FIB_CUTOFF)
		y = fib_cut(n - 2, d + 1, c);
	} else {
#pragma omp task shared(x) firstprivate(n, d, c) final(d + 1 >= FIB_CUTOFF)
		x = fib_cut(n - 1, d + 1, c);
#pragma omp task shared(y) firstprivate(n, d, c) final(d + 1 >= FIB_CUTOFF)
		y = fib_cut(n - 2, d + 1, c);
	}
#pragma omp taskwait
	return x + y;
}

static void fib_run(void *p, enum cut c)
{
	struct fib_state *st = (struct fib_state *)p;

#pragma omp parallel
#pragma omp single
	st->result = fib_cut(st->n, 0, c);
}

/* ---- nqueens ---- */

static long nq_cut(int n, int j, const char *a, enum cut c);

/* The task for column @i of row @j. */
static void nq_child(int n, int j, int i, const char *a, long *sol, enum cut c)
{
	char *b = (char *)alloca((size_t)n);

	memcpy(b, a, (size_t)j);
	b[j] = (char)i;
	if (!nqueens_ok(j + 1, b))
		*sol = 0;
	else if (j + 1 == n)
		*sol = 1;
	else if (c == CUT_MANUAL && j + 1 >= NQ_CUTOFF)
		*sol = nqueens_seq(n, j + 1, b);
	else
		*sol = nq_cut(n, j + 1, b, c);
}

static long nq_cut(int n, int j, const char *a, enum cut c)
{
	long sols[NQ_MAX];
	long sum = 0;

	for (int i = 0; i < n; i++) {
		if (c == CUT_IF0) {
#pragma omp task firstprivate(i) shared(sols) if(j < NQ_CUTOFF)
			nq_child(n, j, i, a, &sols[i], c);
		} else {
#pragma omp task firstprivate(i) shared(sols) final(j + 1 >= NQ_CUTOFF)
			nq_child(n, j, i, a, &sols[i], c);
		}
	}
#pragma omp taskwait
	for (int i = 0; i < n; i++)
		sum += sols[i];
	return sum;
}

static void nq_run(void *p, enum cut c)
{
	struct nqueens_state *st = (struct nqueens_state *)p;
	char empty[NQ_MAX] = { 0 };

#pragma omp parallel
#pragma omp single
	st->solutions = nq_cut(st->n, 0, empty, c);
}

/* ---- floorplan ---- */

/* Serial search below the cut-off, without the serial run's counters. */
static void fp_seq(struct floorplan_state *st, const struct fp_layout *l, int id)
{
	struct fp_move mv[FP_ROWS];
	struct fp_layout child;

	for (int s = 0; s < st->cell[id].nshapes; s++) {
		int n = fp_moves(st, l, id, s, mv);

		for (int j = 0; j < n; j++)
			if (fp_step(st, l, &mv[j], &child) == FP_INNER)
				fp_seq(st, &child, id + 1);
	}
}

static void fp_cut(struct floorplan_state *st, const struct fp_layout *l, int id, enum cut c)
{
	struct fp_move mv[FP_ROWS];

	if (c == CUT_MANUAL && id >= FP_CUTOFF) {
		fp_seq(st, l, id);
		return;
	}
	for (int s = 0; s < st->cell[id].nshapes; s++) {
		int n = fp_moves(st, l, id, s, mv);

		for (int j = 0; j < n; j++) {
			struct fp_move m = mv[j];

			if (c == CUT_IF0) {
#pragma omp task firstprivate(m, c) if(id < FP_CUTOFF)
				{
					struct fp_layout child;

					if (fp_step(st, l, &m, &child) == FP_INNER)
						fp_cut(st, &child, m.id + 1, c);
				}
			} else {
#pragma omp task firstprivate(m, c) final(id + 1 >= FP_CUTOFF)
				{
					struct fp_layout child;

					if (fp_step(st, l, &m, &child) == FP_INNER)
						fp_cut(st, &child, m.id + 1, c);
				}
			}
		}
	}
#pragma omp taskwait
}

static void fp_run(void *p, enum cut c)
{
	struct floorplan_state *st = (struct floorplan_state *)p;

#pragma omp parallel
#pragma omp single
	fp_cut(st, &st->root, 1, c);
}

#define CUTOFF_OMP(base, kind, docstr, FIELDS, tasksfn) \
	static void base##_##kind##_omp(void *st) \
	{ \
		base##_run_kind(st, #kind); \
	} \
	const struct bench_omp bench_omp_##base##_##kind = { \
		.problem = &base##_##kind##_problem, \
		.omp = base##_##kind##_omp, \
	};

static enum cut cut_of(const char *kind)
{
	return kind[0] == 'i' ? CUT_IF0 : kind[0] == 'f' ? CUT_FINAL : CUT_MANUAL;
}

static void fib_run_kind(void *st, const char *kind)
{
	fib_run(st, cut_of(kind));
}

static void nqueens_run_kind(void *st, const char *kind)
{
	nq_run(st, cut_of(kind));
}

static void floorplan_run_kind(void *st, const char *kind)
{
	fp_run(st, cut_of(kind));
}

CUTOFF_PROBLEMS(CUTOFF_OMP)
