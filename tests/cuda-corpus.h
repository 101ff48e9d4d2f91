/* SPDX-License-Identifier: MIT */
/*
 * cuda-corpus.h - the matrices the CUDA module's tests run on (handmade
 * edge cases, RMAT at several skews, and the Debian r-cran-matrix files
 * when installed), and a tolerance compare against the CPU references.
 * Shared by the GPU tests and the SIMT-emulator tests.
 */
#ifndef XSCHED_TESTS_CUDA_CORPUS_H
#define XSCHED_TESTS_CUDA_CORPUS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "xsched/cuda.h"

#define RMATRIX_DIR "/usr/lib/R/library/Matrix/external/"

/* Corpus entry i into *m (0 past the end, 1 made, -1 not available here).
 * name gets a printable name. */
static inline int corpus_get(int i, struct xs_csr *m, char *name, size_t len)
{
	static const char *const debian[] = { "jgl009.mtx", "lund_a.mtx",
					      "pores_1.mtx" };
	static const struct {
		int scale, ef;
		double a, b, c;
	} rmat[] = {
		{ 8, 4, 0.25, 0.25, 0.25 },	/* flat */
		{ 10, 8, 0.57, 0.19, 0.19 },	/* Graph500 skew */
		{ 12, 16, 0.70, 0.10, 0.10 },	/* heavy hubs */
		{ 14, 8, 0.57, 0.19, 0.19 },	/* > 10^4 nnz: merge-path */
	};
	char err[256], path[256];

	switch (i) {
	case 0: {	/* empty rows, a long row, a 1x1 */
		int32_t ri[300], ci[300], n = 0, k;
		float v[300];

		for (k = 0; k < 200; k++, n++) {	/* row 3: 200 nnz */
			ri[n] = 3;
			ci[n] = k;
			v[n] = (float)(k % 7) - 3;
		}
		for (k = 0; k < 50; k++, n++) {
			ri[n] = 5 + 2 * k;
			ci[n] = (k * 37) % 200;
			v[n] = 1.5f;
		}
		snprintf(name, len, "handmade-skewed");
		return xs_csr_from_triplets(m, 120, 200, n, ri, ci, v) ? -1 : 1;
	}
	case 1:
		snprintf(name, len, "empty-5x5");
		return xs_csr_alloc(m, 5, 5, 0) ? -1 : 1;
	case 2:
	case 3:
	case 4:
	case 5: {
		int r = i - 2;

		snprintf(name, len, "rmat-s%d-ef%d-a%.2f", rmat[r].scale,
			 rmat[r].ef, rmat[r].a);
		return xs_rmat_generate(m, rmat[r].scale, rmat[r].ef, rmat[r].a,
					rmat[r].b, rmat[r].c, 1234 + r) ? -1 : 1;
	}
	case 6:
	case 7:
	case 8:
		snprintf(path, sizeof(path), RMATRIX_DIR "%s", debian[i - 6]);
		snprintf(name, len, "%s", debian[i - 6]);
		if (access(path, R_OK))
			return -1;
		return xs_mtx_read(path, m, err, sizeof(err)) ? -1 : 1;
	default:
		return 0;
	}
}

/* |got - want| within float rounding of a sum of @mag magnitude. */
static inline int close_enough(float got, float want, double mag)
{
	return fabs((double)got - want) <= 1e-5 * mag + 1e-5;
}

/* The SpMV problem of the tests on matrix @a: x (a->cols) gets small
 * integers, ref = A x by the CPU reference, mag[r] = sum of |a_rk x_k| for
 * the tolerance (a->rows). */
static inline void corpus_spmv_problem(const struct xs_csr *a, float *x,
				       float *ref, double *mag)
{
	int32_t r, k;

	for (k = 0; k < a->cols; k++)
		x[k] = (float)((k * 7) % 11) - 5;
	xs_ref_spmv(a, x, ref);
	for (r = 0; r < a->rows; r++) {
		mag[r] = 0;
		for (k = a->offsets[r]; k < a->offsets[r + 1]; k++)
			mag[r] += fabs(a->values[k] * x[a->indices[k]]);
	}
}

/* The vertex with the most edges: where the traversal tests start. */
static inline int32_t corpus_hub(const struct xs_csr *g)
{
	int32_t v, hub = 0;

	for (v = 0; v < g->rows; v++)
		if (g->offsets[v + 1] - g->offsets[v] >
		    g->offsets[hub + 1] - g->offsets[hub])
			hub = v;
	return hub;
}

/* xorshift64: the tests' seeded inputs. */
static inline uint32_t corpus_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)*s;
}

/* n hash-table upserts over @distinct keys (never XS_EMPTY_KEY), deltas in
 * [-500, 500). */
static inline void corpus_hash_inputs(uint32_t *keys, int32_t *deltas,
				      int32_t n, uint32_t distinct,
				      uint64_t *s)
{
	int32_t i;

	for (i = 0; i < n; i++) {
		keys[i] = corpus_rand(s) % distinct * 2654435761u % 0xfffffff0u;
		deltas[i] = (int32_t)(corpus_rand(s) % 1000) - 500;
	}
}

#endif /* XSCHED_TESTS_CUDA_CORPUS_H */
