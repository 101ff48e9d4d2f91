/* SPDX-License-Identifier: MIT */
/*
 * alignment.h - all-pairs global alignment of n random protein sequences,
 * in the spirit of BOTS alignment (which aligns every pair of a protein
 * set with Myers-Miller): here Gotoh's affine-gap Needleman-Wunsch score
 * of each pair, in linear space.
 *
 * Input: sequence i has 200 + (mix64(i) % 200) residues over 20 letters,
 * all from splitmix64 with a fixed seed; the substitution matrix is
 * symmetric, +4..+8 on the diagonal and -4..+1 off it, also from the
 * seed; a gap of length L costs 10 + L.
 *
 * Tasks: one per pair i < j, n (n - 1) / 2, all spawned by one thread,
 * then one wait (BOTS's single version). Scores are integers: exact. The
 * serial result is checked by recomputing 8 pairs with the textbook
 * three-matrix Gotoh recurrence.
 */
#ifndef XSCHED_BENCH_ALIGNMENT_H
#define XSCHED_BENCH_ALIGNMENT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../harness/bench.h"

#define ALN_SEED 0xa11917ull
#define ALN_LETTERS 20
#define ALN_MIN_LEN 200
#define ALN_MAX_LEN 400		/* exclusive */
#define ALN_OPEN 10
#define ALN_EXTEND 1
#define ALN_NEG (-1000000000)

struct alignment_state {
	int n;
	unsigned char **seq;
	int *len;
	int sub[ALN_LETTERS][ALN_LETTERS];
	int *score;		/* n x n, the pairs i < j */
};

BENCH_C_LINKAGE void alignment_tbb(void *st);

/* The global alignment score of @a and @b, Gotoh in linear space:
 * h[j] best ending anywhere, f[j] best ending in a gap in a (vertical). */
static inline int aln_score(const struct alignment_state *st, int ia, int ib)
{
	const unsigned char *a = st->seq[ia], *b = st->seq[ib];
	int la = st->len[ia], lb = st->len[ib];
	int h[ALN_MAX_LEN + 1], f[ALN_MAX_LEN + 1];

	h[0] = 0;
	for (int j = 1; j <= lb; j++) {
		h[j] = -(ALN_OPEN + ALN_EXTEND * j);
		f[j] = ALN_NEG;
	}
	for (int i = 1; i <= la; i++) {
		const int *row = st->sub[a[i - 1]];
		int diag = h[0], e = ALN_NEG;

		h[0] = -(ALN_OPEN + ALN_EXTEND * i);
		for (int j = 1; j <= lb; j++) {
			int up = h[j], best;

			e = e - ALN_EXTEND > h[j - 1] - ALN_OPEN - ALN_EXTEND ?
			    e - ALN_EXTEND : h[j - 1] - ALN_OPEN - ALN_EXTEND;
			f[j] = f[j] - ALN_EXTEND > up - ALN_OPEN - ALN_EXTEND ?
			       f[j] - ALN_EXTEND : up - ALN_OPEN - ALN_EXTEND;
			best = diag + row[b[j - 1]];
			if (e > best)
				best = e;
			if (f[j] > best)
				best = f[j];
			diag = up;
			h[j] = best;
		}
	}
	return h[lb];
}

static inline void alignment_teardown(void *p)
{
	struct alignment_state *st = (struct alignment_state *)p;

	if (!st)
		return;
	for (int i = 0; st->seq && i < st->n; i++)
		free(st->seq[i]);
	free(st->seq);
	free(st->len);
	free(st->score);
	free(st);
}

static inline void *alignment_setup(long n)
{
	struct alignment_state *st =
		(struct alignment_state *)calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->n = (int)n;
	st->seq = (unsigned char **)calloc((size_t)n, sizeof(*st->seq));
	st->len = (int *)calloc((size_t)n, sizeof(*st->len));
	st->score = (int *)calloc((size_t)n * (size_t)n, sizeof(*st->score));
	if (!st->seq || !st->len || !st->score)
		goto nomem;
	for (int i = 0; i < n; i++) {
		uint64_t h = bench_mix64(ALN_SEED + (uint64_t)i);

		st->len[i] = ALN_MIN_LEN + (int)(h % (ALN_MAX_LEN - ALN_MIN_LEN));
		st->seq[i] = (unsigned char *)malloc((size_t)st->len[i]);
		if (!st->seq[i])
			goto nomem;
		for (int k = 0; k < st->len[i]; k++)
			st->seq[i][k] = (unsigned char)(bench_mix64(h + (uint64_t)k) %
							ALN_LETTERS);
	}
	for (int x = 0; x < ALN_LETTERS; x++)
		for (int y = x; y < ALN_LETTERS; y++) {
			uint64_t h = bench_mix64(ALN_SEED ^ (uint64_t)(x * 64 + y) << 32);
			int v = x == y ? 4 + (int)(h % 5) : -4 + (int)(h % 6);

			st->sub[x][y] = st->sub[y][x] = v;
		}
	return st;
nomem:
	alignment_teardown(st);
	errno = ENOMEM;
	return NULL;
}

static inline void alignment_reset(void *p)
{
	struct alignment_state *st = (struct alignment_state *)p;

	for (long k = 0; k < (long)st->n * st->n; k++)
		st->score[k] = ALN_NEG;
}

static inline void alignment_serial(void *p)
{
	struct alignment_state *st = (struct alignment_state *)p;

	for (int i = 0; i < st->n; i++)
		for (int j = i + 1; j < st->n; j++)
			st->score[i * st->n + j] = aln_score(st, i, j);
}

static inline uint64_t alignment_checksum(const void *p)
{
	const struct alignment_state *st = (const struct alignment_state *)p;
	uint64_t h = (uint64_t)st->n;

	for (long k = 0; k < (long)st->n * st->n; k++)
		h = bench_mix64(h ^ (uint32_t)st->score[k]);
	return h;
}

static inline int aln_max3(int x, int y, int z)
{
	int m = x > y ? x : y;

	return m > z ? m : z;
}

/* The same score the textbook way: M, X (gap in b), Y (gap in a), full
 * matrices. */
static inline int aln_score_full(const struct alignment_state *st, int ia,
				 int ib)
{
	const unsigned char *a = st->seq[ia], *b = st->seq[ib];
	int la = st->len[ia], lb = st->len[ib], w = lb + 1, r;
	int *m = (int *)malloc(3 * sizeof(int) * (size_t)(la + 1) * (size_t)w);
	int *x = m + (la + 1) * w, *y = x + (la + 1) * w;

	if (!m)
		return ALN_NEG;
	for (int i = 0; i <= la; i++)
		for (int j = 0; j <= lb; j++) {
			int k = i * w + j;

			if (!i && !j) {
				m[k] = 0;
				x[k] = y[k] = ALN_NEG;
			} else if (!i) {
				m[k] = x[k] = ALN_NEG;
				y[k] = -(ALN_OPEN + ALN_EXTEND * j);
			} else if (!j) {
				m[k] = y[k] = ALN_NEG;
				x[k] = -(ALN_OPEN + ALN_EXTEND * i);
			} else {
				int d = k - w - 1, u = k - w, l = k - 1;

				m[k] = aln_max3(m[d], x[d], y[d]) +
				       st->sub[a[i - 1]][b[j - 1]];
				x[k] = aln_max3(m[u] - ALN_OPEN, x[u], y[u] - ALN_OPEN) -
				       ALN_EXTEND;
				y[k] = aln_max3(m[l] - ALN_OPEN, y[l], x[l] - ALN_OPEN) -
				       ALN_EXTEND;
			}
		}
	r = aln_max3(m[la * w + lb], x[la * w + lb], y[la * w + lb]);
	free(m);
	return r;
}

static inline int alignment_verify(const void *p, char *why, int len)
{
	const struct alignment_state *st = (const struct alignment_state *)p;

	for (int s = 0; s < 8 && st->n > 1; s++) {
		int i = (int)(bench_mix64(ALN_SEED + 100 + (uint64_t)s) %
			      (uint64_t)(st->n - 1));
		int j = i + 1 + (int)(bench_mix64(ALN_SEED + 200 + (uint64_t)s) %
				      (uint64_t)(st->n - 1 - i));
		int want = aln_score_full(st, i, j);

		if (st->score[i * st->n + j] != want) {
			snprintf(why, (size_t)len,
				 "pair (%d, %d) scored %d, the full Gotoh matrices give %d",
				 i, j, st->score[i * st->n + j], want);
			return -EINVAL;
		}
	}
	return 0;
}

static inline uint64_t alignment_tasks(const void *p)
{
	uint64_t n = (uint64_t)((const struct alignment_state *)p)->n;

	return n * (n - 1) / 2;
}

#ifndef __cplusplus
static const struct bench_problem alignment_problem = {
	.name = "alignment",
	.doc = "all-pairs Gotoh alignment of n random proteins (200-399 residues), a task per pair",
	.n_default = 90,
	.n_quick = 12,
	.n_min = 1,
	.n_max = 20000,
	.setup = alignment_setup,
	.teardown = alignment_teardown,
	.reset = alignment_reset,
	.serial = alignment_serial,
	.checksum = alignment_checksum,
	.verify = alignment_verify,
	.tasks = alignment_tasks,
};
#endif

#endif /* XSCHED_BENCH_ALIGNMENT_H */
