/* SPDX-License-Identifier: MIT */
/*
 * cuda-gpu-helpers.h - shared pieces of the GPU tests: open the device or
 * SKIP with the CUDA runtime's reason, the test corpus (handmade edge
 * cases, RMAT at several skews, and the Debian r-cran-matrix files when
 * installed), and a tolerance compare against the CPU references.
 */
#ifndef XSCHED_TESTS_CUDA_GPU_HELPERS_H
#define XSCHED_TESTS_CUDA_GPU_HELPERS_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xsched/cuda.h"

/* In a TEST body: ctx = an open device, or SKIP naming the reason. */
#define CUDA_OPEN_OR_SKIP(ctx)                                              \
	do {                                                                \
		char why_[256];                                             \
		if (xs_cuda_probe(why_, sizeof(why_)) < 0)                  \
			SKIP(return, "no CUDA device: %s", why_);           \
		(ctx) = xs_cuda_ctx_create(0);                              \
		if (!(ctx) && errno == ENODEV)                              \
			SKIP(return, "CUDA device unusable: %s",            \
			     xs_cuda_ctx_error(NULL));                      \
		ASSERT_NE(NULL, (ctx)) TH_LOG("xs_cuda_ctx_create: %s: %s", \
					      strerror(errno),              \
					      xs_cuda_ctx_error(NULL));     \
	} while (0)

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

/* Launches to try: every schedule, several group sizes and block sizes. */
static const struct xs_cuda_launch test_launches[] = {
	{ XS_CUDA_SCHED_AUTO, 0, 0, { 0 } },
	{ XS_CUDA_SCHED_THREAD_MAPPED, 0, 0, { 0 } },
	{ XS_CUDA_SCHED_WARP_MAPPED, 0, 128, { 0 } },
	{ XS_CUDA_SCHED_BLOCK_MAPPED, 0, 256, { 0 } },
	{ XS_CUDA_SCHED_BLOCK_MAPPED, 0, 1024, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 1, 256, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 4, 256, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 32, 256, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 128, 256, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 512, 512, { 0 } },
	{ XS_CUDA_SCHED_MERGE_PATH, 0, 0, { 0 } },
	{ XS_CUDA_SCHED_MERGE_PATH, 0, 64, { 0 } },
};
#define N_TEST_LAUNCHES (sizeof(test_launches) / sizeof(test_launches[0]))

#endif
