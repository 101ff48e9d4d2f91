/* SPDX-License-Identifier: MIT */
/*
 * strassen.h - BOTS strassen: C = A x B for n x n doubles by Strassen's
 * recursion, with a task per product.
 *
 * A node of even size m > STRASSEN_CUTOFF splits A, B and C into quadrants,
 * spawns the 7 products M1..M7 as tasks (each forms its own operand sums
 * into scratch, then recurses), waits, and combines them into C:
 *   M1 = (A11 + A22)(B11 + B22)   M5 = (A11 + A12) B22
 *   M2 = (A21 + A22) B11          M6 = (A21 - A11)(B11 + B12)
 *   M3 = A11 (B12 - B22)          M7 = (A12 - A22)(B21 + B22)
 *   M4 = A22 (B21 - B11)
 *   C11 = M1 + M4 - M5 + M7   C12 = M3 + M5
 *   C21 = M2 + M4             C22 = M1 - M2 + M3 + M6
 * Other nodes multiply directly (i-k-j loops): with n = 1280 the leaves
 * are 40 x 40, 5 levels down.
 * A node's scratch (7 m/2 x m/2 blocks for the products) and a product's
 * (2 blocks for its operand sums) come from malloc when they start, as
 * BOTS's do, and are freed when they end: coarse tasks with their own data.
 *
 * Every node does the same floating-point operations in the same order
 * whatever the schedule, so all runtimes give the same bits and the
 * checksum is exact. The serial result is also checked against a plain
 * blocked multiply: |C - C_ref| <= 1e-9 n (entries are sums of n products
 * of numbers in [-1, 1]).
 * Tasks: 7 per node that splits.
 */
#ifndef XSCHED_BENCH_STRASSEN_H
#define XSCHED_BENCH_STRASSEN_H

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../harness/bench.h"

#define STRASSEN_CUTOFF 64
#define STRASSEN_BLOCK 64	/* of the reference multiply */

struct strassen_state {
	long n;
	double *a, *b, *c;
};

/* One product of a node: M = x y, where x is a quadrant of the node's A or
 * a sum of two formed in scratch, and y likewise from B. */
struct strassen_product {
	const double *a, *b;	/* the node's A and B */
	double *m;		/* h x h result, leading dimension h */
	int lda, ldb, h;	/* A's and B's leading dimensions; m / 2 */
	int k;			/* 0..6: M1..M7 */
};

BENCH_C_LINKAGE void strassen_tbb(void *st);

/* Whether a node of size m splits: above the cut-off, into halves. */
static inline bool strassen_splits(long m)
{
	return m > STRASSEN_CUTOFF && m % 2 == 0;
}

/* C (m x m, ldc) = A (lda) x B (ldb). */
static inline void strassen_mul(double *c, long ldc, const double *a, long lda,
				const double *b, long ldb, long m)
{
	for (long i = 0; i < m; i++) {
		double *ci = c + i * ldc;

		for (long j = 0; j < m; j++)
			ci[j] = 0;
		for (long k = 0; k < m; k++) {
			double aik = a[i * lda + k];
			const double *bk = b + k * ldb;

			for (long j = 0; j < m; j++)
				ci[j] += aik * bk[j];
		}
	}
}

/* d (h x h, ld h) = x (ldx) + sign * y (ldy). */
static inline void strassen_add(double *d, const double *x, long ldx,
				const double *y, long ldy, double sign, long h)
{
	for (long i = 0; i < h; i++)
		for (long j = 0; j < h; j++)
			d[i * h + j] = x[i * ldx + j] + sign * y[i * ldy + j];
}

/* Quadrant q (0: 11, 1: 12, 2: 21, 3: 22) of a matrix of half-size h. */
static inline const double *strassen_q(const double *x, long ld, long h, int q)
{
	return x + (q >> 1) * h * ld + (q & 1) * h;
}

/* One operand: quadrant q, or q + sign * q2 formed in @scratch (q2 >= 0). */
static inline const double *strassen_operand(const double *x, long ld, long h,
					     int q, int q2, int sign,
					     double *scratch, long *ld_out)
{
	*ld_out = ld;
	if (q2 < 0)
		return strassen_q(x, ld, h, q);
	strassen_add(scratch, strassen_q(x, ld, h, q), ld,
		     strassen_q(x, ld, h, q2), ld, sign, h);
	*ld_out = h;
	return scratch;
}

/* Form the operands of product @p (scratch: 2 h x h blocks) into *x, *y. */
static inline void strassen_operands(const struct strassen_product *p,
				     double *scratch, const double **x,
				     long *ldx, const double **y, long *ldy)
{
	/* A: quadrant qa (+ sa * qa2); B: qb (+ sb * qb2); -1: no second. */
	static const signed char ops[7][6] = {
		/* qa, qa2, sa, qb, qb2, sb */
		{ 0, 3, 1, 0, 3, 1 },	/* M1 = (A11 + A22)(B11 + B22) */
		{ 2, 3, 1, 0, -1, 0 },	/* M2 = (A21 + A22) B11 */
		{ 0, -1, 0, 1, 3, -1 },	/* M3 = A11 (B12 - B22) */
		{ 3, -1, 0, 2, 0, -1 },	/* M4 = A22 (B21 - B11) */
		{ 0, 1, 1, 3, -1, 0 },	/* M5 = (A11 + A12) B22 */
		{ 2, 0, -1, 0, 1, 1 },	/* M6 = (A21 - A11)(B11 + B12) */
		{ 1, 3, -1, 2, 3, 1 },	/* M7 = (A12 - A22)(B21 + B22) */
	};
	const signed char *o = ops[p->k];
	long h = p->h;

	*x = strassen_operand(p->a, p->lda, h, o[0], o[1], o[2], scratch, ldx);
	*y = strassen_operand(p->b, p->ldb, h, o[3], o[4], o[5],
			      scratch + h * h, ldy);
}

/* The 7 products of a node of size m, into 7 h x h blocks at @m7. */
static inline void strassen_products(const double *a, long lda,
				     const double *b, long ldb, long m,
				     double *m7, struct strassen_product p[7])
{
	int h = (int)(m / 2);

	for (int k = 0; k < 7; k++)
		p[k] = (struct strassen_product){ a, b, m7 + (long)k * h * h,
						  (int)lda, (int)ldb, h, k };
}

/* C (ldc) from the 7 products of its node. */
static inline void strassen_combine(double *c, long ldc, long m,
				    const double *m7)
{
	long h = m / 2, hh = h * h;
	const double *M1 = m7, *M2 = M1 + hh, *M3 = M2 + hh, *M4 = M3 + hh;
	const double *M5 = M4 + hh, *M6 = M5 + hh, *M7 = M6 + hh;

	for (long i = 0; i < h; i++) {
		double *c1 = c + i * ldc, *c2 = c1 + h * ldc;

		for (long j = 0; j < h; j++) {
			long e = i * h + j;

			c1[j] = M1[e] + M4[e] - M5[e] + M7[e];
			c1[j + h] = M3[e] + M5[e];
			c2[j] = M2[e] + M4[e];
			c2[j + h] = M1[e] - M2[e] + M3[e] + M6[e];
		}
	}
}

/*
 * Scratch, from malloc as BOTS's nodes take it: @blocks h x h blocks. A
 * node that cannot get it leaves its block of C as reset poisoned it, so
 * the run fails verification instead of crashing.
 */
static inline double *strassen_scratch(long h, int blocks)
{
	return (double *)malloc(sizeof(double) * (size_t)blocks * (size_t)(h * h));
}

/* A node's recursion, as each variant writes it. */
typedef void strassen_node_fn(double *c, long ldc, const double *a, long lda,
			      const double *b, long ldb, long m);

/*
 * The first half of a node: at the cut-off, multiply and return NULL;
 * else fill @p with the 7 products and return their blocks (NULL when
 * there is no memory). The caller runs the products, then
 * strassen_node_join().
 */
static inline double *strassen_node_split(double *c, long ldc, const double *a,
					  long lda, const double *b, long ldb,
					  long m, struct strassen_product p[7])
{
	double *m7;

	if (!strassen_splits(m)) {
		strassen_mul(c, ldc, a, lda, b, ldb, m);
		return NULL;
	}
	m7 = strassen_scratch(m / 2, 7);
	if (m7)
		strassen_products(a, lda, b, ldb, m, m7, p);
	return m7;
}

static inline void strassen_node_join(double *c, long ldc, long m, double *m7)
{
	strassen_combine(c, ldc, m, m7);
	free(m7);
}

/* A product: form its operands, recurse with @node, free them. */
static inline void strassen_product_run(const struct strassen_product *p,
					strassen_node_fn *node)
{
	double *s = strassen_scratch(p->h, 2);
	const double *x, *y;
	long ldx, ldy;

	if (!s)
		return;
	strassen_operands(p, s, &x, &ldx, &y, &ldy);
	node(p->m, p->h, x, ldx, y, ldy, p->h);
	free(s);
}

static inline void strassen_serial_node(double *c, long ldc, const double *a,
					long lda, const double *b, long ldb,
					long m)
{
	struct strassen_product p[7];
	double *m7 = strassen_node_split(c, ldc, a, lda, b, ldb, m, p);

	if (!m7)
		return;
	for (int k = 0; k < 7; k++)
		strassen_product_run(&p[k], strassen_serial_node);
	strassen_node_join(c, ldc, m, m7);
}

static inline void strassen_teardown(void *p)
{
	struct strassen_state *st = (struct strassen_state *)p;

	free(st->a);
	free(st->b);
	free(st->c);
	free(st);
}

static inline void *strassen_setup(long n)
{
	struct strassen_state *st;
	size_t nn = (size_t)(n * n);

	st = (struct strassen_state *)calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->n = n;
	st->a = (double *)malloc(sizeof(double) * nn);
	st->b = (double *)malloc(sizeof(double) * nn);
	st->c = (double *)malloc(sizeof(double) * nn);
	if (!st->a || !st->b || !st->c) {
		strassen_teardown(st);
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < nn; i++) {
		st->a[i] = (double)(bench_mix64(i) >> 11) * 0x1p-52 - 1.0;
		st->b[i] = (double)(bench_mix64(i + nn) >> 11) * 0x1p-52 - 1.0;
	}
	return st;
}

static inline void strassen_reset(void *p)
{
	struct strassen_state *st = (struct strassen_state *)p;

	for (long i = 0; i < st->n * st->n; i++)
		st->c[i] = NAN;
}

static inline void strassen_serial(void *p)
{
	struct strassen_state *st = (struct strassen_state *)p;

	strassen_serial_node(st->c, st->n, st->a, st->n, st->b, st->n, st->n);
}

static inline uint64_t strassen_checksum(const void *p)
{
	const struct strassen_state *st = (const struct strassen_state *)p;
	uint64_t h = 0;

	for (long i = 0; i < st->n * st->n; i++) {
		uint64_t bits;

		memcpy(&bits, &st->c[i], sizeof(bits));
		h = (h ^ bits) * 0x100000001b3ull;
	}
	return h;
}

/* ref += block (i0, k0) of A x block (k0, j0) of B; blocks of bs x bs. */
static inline void strassen_ref_block(double *ref, const double *a,
				      const double *b, long n, long bs,
				      long i0, long k0, long j0)
{
	long i1 = i0 + bs < n ? i0 + bs : n, k1 = k0 + bs < n ? k0 + bs : n;
	long j1 = j0 + bs < n ? j0 + bs : n;

	for (long i = i0; i < i1; i++)
		for (long k = k0; k < k1; k++) {
			double aik = a[i * n + k];

			for (long j = j0; j < j1; j++)
				ref[i * n + j] += aik * b[k * n + j];
		}
}

/* Against a plain blocked multiply. */
static inline int strassen_verify(const void *p, char *why, int len)
{
	const struct strassen_state *st = (const struct strassen_state *)p;
	long n = st->n, bs = STRASSEN_BLOCK;
	double *ref = (double *)calloc((size_t)(n * n), sizeof(double));
	double tol = 1e-9 * (double)n, worst = 0;
	long at = 0;

	if (!ref) {
		snprintf(why, (size_t)len, "no memory for the reference product");
		return -EINVAL;
	}
	for (long i0 = 0; i0 < n; i0 += bs)
		for (long k0 = 0; k0 < n; k0 += bs)
			for (long j0 = 0; j0 < n; j0 += bs)
				strassen_ref_block(ref, st->a, st->b, n, bs, i0, k0, j0);
	for (long i = 0; i < n * n; i++) {
		double d = fabs(st->c[i] - ref[i]);

		if (!(d <= worst)) {	/* NaN too */
			worst = d;
			at = i;
		}
	}
	free(ref);
	if (worst <= tol)
		return 0;
	snprintf(why, (size_t)len, "C[%ld][%ld] is off by %g (tolerance %g)",
		 at / n, at % n, worst, tol);
	return -EINVAL;
}

/* 7 per node that splits: 7 + 7^2 + ... over the levels that split. */
static inline uint64_t strassen_tasks(const void *p)
{
	uint64_t tasks = 0, level = 7;

	for (long m = ((const struct strassen_state *)p)->n; strassen_splits(m);
	     m /= 2, level *= 7)
		tasks += level;
	return tasks;
}

#ifndef __cplusplus
static const struct bench_problem strassen_problem = {
	.name = "strassen",
	.doc = "BOTS strassen: C = A x B of n x n doubles, a task per product",
	.n_default = 1280,
	.n_quick = 256,
	.n_min = 1,
	.n_max = 8192,
	.setup = strassen_setup,
	.teardown = strassen_teardown,
	.reset = strassen_reset,
	.serial = strassen_serial,
	.checksum = strassen_checksum,
	.verify = strassen_verify,
	.tasks = strassen_tasks,
};
#endif

#endif /* XSCHED_BENCH_STRASSEN_H */
