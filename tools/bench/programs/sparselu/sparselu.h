/* SPDX-License-Identifier: MIT */
/*
 * sparselu.h - LU factorization of a sparse blocked matrix, as BOTS
 * sparselu: n x n blocks of SLU_BS x SLU_BS doubles, BOTS's pattern of
 * empty blocks, no pivoting (the diagonal is made dominant). For each k:
 * lu0 on the diagonal block; fwd on each block of row k, bdiv on each
 * block of column k; bmod on each (i, j) below and right of them, with
 * fill-in where (i, j) was empty.
 *
 * The fill-in is known from the pattern alone, so setup computes it once
 * and gives every block that will ever hold a value its storage; reset
 * copies the input back and zeroes the fill-in. Each block then goes
 * through the same operations in the same order in every variant (its
 * bmods in order of k, then its lu0, fwd or bdiv), so every runtime gives
 * the same bits (exact checksum). The serial result is checked with a
 * random vector x: A x against L (U x).
 *
 * Tasks: one per lu0, fwd, bdiv and bmod. The OpenMP version chains them
 * with depend(in/inout) on the blocks and waits once, at the end (no
 * barrier between phases: a bmod of step k+1 may run while step k is
 * still going). xsched and oneTBB have no dependences: they run each step
 * in three phases, lu0; fwd and bdiv; bmod, waiting after each (BOTS's
 * sparselu_single), with the same tasks.
 */
#ifndef XSCHED_BENCH_SPARSELU_H
#define XSCHED_BENCH_SPARSELU_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../harness/bench.h"

#define SLU_BS 32
#define SLU_SEED 0x51u
#define SLU_BLOCK (SLU_BS * SLU_BS)

struct sparselu_state {
	int nb;
	double **a;		/* nb x nb blocks, NULL: stays empty */
	double **in;		/* the input's blocks, NULL: empty (fill-in) */
	double *store;		/* every block of a, then of in */
	long nblocks;		/* non-empty blocks after fill-in */
	uint64_t tasks;
};

BENCH_C_LINKAGE void sparselu_tbb(void *st);

/* BOTS genmat's pattern: is block (i, j) of the input empty? */
static inline int slu_empty(int i, int j)
{
	int e = 0;

	if (i < j && i % 3)
		e = 1;
	if (i > j && j % 3)
		e = 1;
	if (i % 2 == 1 || j % 2 == 1)
		e = 1;
	if (i == j || i == j - 1 || i - 1 == j)
		e = 0;
	return e;
}

__attribute__((noinline)) static void slu_lu0(double *__restrict d)
{
	for (int k = 0; k < SLU_BS; k++)
		for (int i = k + 1; i < SLU_BS; i++) {
			d[i * SLU_BS + k] /= d[k * SLU_BS + k];
			for (int j = k + 1; j < SLU_BS; j++)
				d[i * SLU_BS + j] -= d[i * SLU_BS + k] * d[k * SLU_BS + j];
		}
}

/* col = L^-1 col, L the unit lower triangle of diag: a block of U. */
__attribute__((noinline)) static void slu_fwd(const double *__restrict d, double *__restrict col)
{
	for (int k = 0; k < SLU_BS; k++)
		for (int j = k + 1; j < SLU_BS; j++)
			for (int i = 0; i < SLU_BS; i++)
				col[j * SLU_BS + i] -= d[j * SLU_BS + k] * col[k * SLU_BS + i];
}

/* row = row U^-1, U the upper triangle of diag: a block of L. */
__attribute__((noinline)) static void slu_bdiv(const double *__restrict d, double *__restrict row)
{
	for (int i = 0; i < SLU_BS; i++)
		for (int k = 0; k < SLU_BS; k++) {
			row[i * SLU_BS + k] /= d[k * SLU_BS + k];
			for (int j = k + 1; j < SLU_BS; j++)
				row[i * SLU_BS + j] -= row[i * SLU_BS + k] * d[k * SLU_BS + j];
		}
}

/* inner -= row x col */
__attribute__((noinline)) static void slu_bmod(const double *__restrict row,
					      const double *__restrict col,
					      double *__restrict inner)
{
	for (int i = 0; i < SLU_BS; i++)
		for (int k = 0; k < SLU_BS; k++) {
			double r = row[i * SLU_BS + k];

			for (int j = 0; j < SLU_BS; j++)
				inner[i * SLU_BS + j] -= r * col[k * SLU_BS + j];
		}
}

static inline void sparselu_teardown(void *p)
{
	struct sparselu_state *st = (struct sparselu_state *)p;

	if (!st)
		return;
	free(st->a);
	free(st->in);
	free(st->store);
	free(st);
}

static inline void *sparselu_setup(long n)
{
	struct sparselu_state *st = (struct sparselu_state *)calloc(1, sizeof(*st));
	int nb = (int)n;
	char *nz;
	long b = 0;

	if (!st)
		return NULL;
	st->nb = nb;
	st->a = (double **)calloc((size_t)nb * (size_t)nb, sizeof(*st->a));
	st->in = (double **)calloc((size_t)nb * (size_t)nb, sizeof(*st->in));
	nz = (char *)calloc((size_t)nb * (size_t)nb, 1);
	if (!st->a || !st->in || !nz)
		goto nomem;
	for (int i = 0; i < nb; i++)
		for (int j = 0; j < nb; j++)
			nz[i * nb + j] = (char)!slu_empty(i, j);
	/* symbolic factorization: the fill-in, and the tasks */
	for (int k = 0; k < nb; k++) {
		st->tasks++;	/* lu0 */
		for (int j = k + 1; j < nb; j++)
			st->tasks += (uint64_t)nz[k * nb + j];	/* fwd */
		for (int i = k + 1; i < nb; i++) {
			if (!nz[i * nb + k])
				continue;
			st->tasks++;	/* bdiv */
			for (int j = k + 1; j < nb; j++)
				if (nz[k * nb + j]) {
					nz[i * nb + j] = 1;
					st->tasks++;	/* bmod */
				}
		}
	}
	for (int i = 0; i < nb * nb; i++)
		st->nblocks += nz[i];
	st->store = (double *)malloc((size_t)st->nblocks * 2 * SLU_BLOCK *
				     sizeof(double));
	if (!st->store)
		goto nomem;
	for (int i = 0; i < nb; i++)
		for (int j = 0; j < nb; j++) {
			double *blk, *orig;

			if (!nz[i * nb + j])
				continue;
			blk = st->store + b * SLU_BLOCK;
			orig = st->store + (st->nblocks + b) * SLU_BLOCK;
			b++;
			st->a[i * nb + j] = blk;
			if (slu_empty(i, j))
				continue;	/* fill-in: zero at reset */
			st->in[i * nb + j] = orig;
			for (int e = 0; e < SLU_BLOCK; e++) {
				uint64_t h = bench_mix64(SLU_SEED ^ ((uint64_t)(i * nb + j) << 24) ^
							 (uint64_t)e);

				orig[e] = (double)(h >> 11) * (1.0 / 9007199254740992.0) - 0.5;
			}
			if (i == j)	/* dominant diagonal: no pivoting needed */
				for (int e = 0; e < SLU_BS; e++)
					orig[e * SLU_BS + e] += 2.0 * nb * SLU_BS;
		}
	free(nz);
	return st;
nomem:
	free(nz);
	sparselu_teardown(st);
	errno = ENOMEM;
	return NULL;
}

static inline void sparselu_reset(void *p)
{
	struct sparselu_state *st = (struct sparselu_state *)p;

	for (int i = 0; i < st->nb * st->nb; i++) {
		if (!st->a[i])
			continue;
		if (st->in[i])
			memcpy(st->a[i], st->in[i], SLU_BLOCK * sizeof(double));
		else
			memset(st->a[i], 0, SLU_BLOCK * sizeof(double));
	}
}

static inline void sparselu_serial(void *p)
{
	struct sparselu_state *st = (struct sparselu_state *)p;
	double **a = st->a;
	int nb = st->nb;

	for (int k = 0; k < nb; k++) {
		slu_lu0(a[k * nb + k]);
		for (int j = k + 1; j < nb; j++)
			if (a[k * nb + j])
				slu_fwd(a[k * nb + k], a[k * nb + j]);
		for (int i = k + 1; i < nb; i++)
			if (a[i * nb + k])
				slu_bdiv(a[k * nb + k], a[i * nb + k]);
		for (int i = k + 1; i < nb; i++) {
			if (!a[i * nb + k])
				continue;
			for (int j = k + 1; j < nb; j++)
				if (a[k * nb + j])
					slu_bmod(a[i * nb + k], a[k * nb + j],
						 a[i * nb + j]);
		}
	}
}

static inline uint64_t sparselu_checksum(const void *p)
{
	const struct sparselu_state *st = (const struct sparselu_state *)p;
	uint64_t h = (uint64_t)st->nb;

	for (int i = 0; i < st->nb * st->nb; i++)
		for (int e = 0; st->a[i] && e < SLU_BLOCK; e++) {
			uint64_t bits;

			memcpy(&bits, &st->a[i][e], sizeof(bits));
			h = bench_mix64(h ^ bits);
		}
	return h;
}

/* A x against L (U x) for a random x; U is the upper triangle of the
 * diagonal blocks and the blocks right of them, L the unit lower triangle
 * of the diagonal blocks and the blocks below. */
static inline int sparselu_verify(const void *p, char *why, int len)
{
	const struct sparselu_state *st = (const struct sparselu_state *)p;
	int nb = st->nb, nr = nb * SLU_BS;
	double *x = (double *)calloc((size_t)nr * 3, sizeof(double));
	double *ax = x + nr, *z = x + 2 * nr;
	double worst = 0, norm = 0;
	int at = 0;

	if (!x) {
		snprintf(why, (size_t)len, "out of memory");
		return -ENOMEM;
	}
	for (int r = 0; r < nr; r++)
		x[r] = (double)(bench_mix64(SLU_SEED + (uint64_t)r) >> 11) *
		       (1.0 / 9007199254740992.0) - 0.5;
	for (int bi = 0; bi < nb; bi++)
		for (int bj = 0; bj < nb; bj++) {
			const double *in = st->in[bi * nb + bj], *f = st->a[bi * nb + bj];

			for (int i = 0; i < SLU_BS && (in || f); i++)
				for (int j = 0; j < SLU_BS; j++) {
					int r = bi * SLU_BS + i, c = bj * SLU_BS + j;

					if (in)
						ax[r] += in[i * SLU_BS + j] * x[c];
					if (f && c >= r)	/* U */
						z[r] += f[i * SLU_BS + j] * x[c];
				}
		}
	for (int r = 0; r < nr; r++)	/* reuse x for L z */
		x[r] = z[r];
	for (int bi = 0; bi < nb; bi++)
		for (int bj = 0; bj <= bi; bj++) {
			const double *f = st->a[bi * nb + bj];

			for (int i = 0; f && i < SLU_BS; i++)
				for (int j = 0; j < SLU_BS; j++) {
					int r = bi * SLU_BS + i, c = bj * SLU_BS + j;

					if (c < r)
						x[r] += f[i * SLU_BS + j] * z[c];
				}
		}
	for (int r = 0; r < nr; r++) {
		double d = fabs(x[r] - ax[r]);

		norm = fmax(norm, fabs(ax[r]));
		if (!(d <= worst)) {
			worst = d;
			at = r;
		}
	}
	free(x);
	if (worst <= 1e-10 * norm)
		return 0;
	snprintf(why, (size_t)len, "(L U x)[%d] is off by %g, |A x| is %g", at,
		 worst, norm);
	return -EINVAL;
}

static inline uint64_t sparselu_tasks(const void *p)
{
	return ((const struct sparselu_state *)p)->tasks;
}

#ifndef __cplusplus
static const struct bench_problem sparselu_problem = {
	.name = "sparselu",
	.doc = "BOTS sparselu: LU of n x n sparse blocks of 32 x 32, a task per block op",
	.n_default = 100,
	.n_quick = 12,
	.n_min = 1,
	.n_max = 1000,
	.setup = sparselu_setup,
	.teardown = sparselu_teardown,
	.reset = sparselu_reset,
	.serial = sparselu_serial,
	.checksum = sparselu_checksum,
	.verify = sparselu_verify,
	.tasks = sparselu_tasks,
};
#endif

#endif /* XSCHED_BENCH_SPARSELU_H */
