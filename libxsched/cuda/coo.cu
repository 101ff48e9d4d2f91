// SPDX-License-Identifier: MIT
/*
 * coo.cu - a COO matrix as a tile set. The atoms are the nonzeros in row
 * order; tile t starts at the lower bound of t in the row array
 * (xs_coo_tile_begin, host-tested in tests/cuda/cuda-lb-coo-tiles.c), computed
 * on the device by one thread per tile. After that the matrix is the same
 * device object as a CSR one, so every schedule and application runs on it.
 */
#include <math.h>
#include <stdlib.h>

#include "internal.cuh"
#include "lb.h"

__global__ static void coo_offsets(const int32_t *row_idx, int32_t nnz,
				   int32_t rows, int32_t *offsets)
{
	for (int32_t t = blockIdx.x * blockDim.x + threadIdx.x; t <= rows;
	     t += gridDim.x * blockDim.x)
		offsets[t] = xs_coo_tile_begin(row_idx, nnz, t);
}

static int coo_check(const struct xs_coo *a)
{
	int32_t k;

	if (!a || a->rows < 0 || a->cols < 0 || a->nnz < 0 ||
	    (a->nnz && (!a->row_idx || !a->col_idx || !a->values)))
		return -EINVAL;
	for (k = 0; k < a->nnz; k++) {
		if (a->row_idx[k] < 0 || a->row_idx[k] >= a->rows ||
		    a->col_idx[k] < 0 || a->col_idx[k] >= a->cols)
			return -EINVAL;
		if (k && a->row_idx[k] < a->row_idx[k - 1])
			return -EINVAL;	/* must be sorted by row */
	}
	return 0;
}

extern "C" struct xs_cuda_matrix *xs_cuda_matrix_create_coo(struct xs_cuda_ctx *ctx,
							    const struct xs_coo *a)
{
	struct xs_cuda_matrix *m;
	int32_t *d_rows = NULL, k;
	double sum = 0, sq = 0, mean;
	int32_t *count;
	int ret;

	if (!ctx || coo_check(a)) {
		errno = EINVAL;
		return NULL;
	}
	m = (struct xs_cuda_matrix *)calloc(1, sizeof(*m));
	count = (int32_t *)calloc((size_t)a->rows + 1, sizeof(*count));
	if (!m || !count) {
		free(m);
		free(count);
		errno = ENOMEM;
		return NULL;
	}
	m->ctx = ctx;
	m->rows = a->rows;
	m->cols = a->cols;
	m->nnz = a->nnz;
	m->nonneg = 1;
	for (k = 0; k < a->nnz; k++) {
		count[a->row_idx[k]]++;
		if (!(a->values[k] >= 0))
			m->nonneg = 0;
	}
	for (k = 0; k < a->rows; k++) {
		sum += count[k];
		sq += (double)count[k] * count[k];
	}
	mean = a->rows ? sum / a->rows : 0;
	m->row_cv = mean > 0 ? sqrt(fmax(sq / a->rows - mean * mean, 0)) / mean : 0;
	free(count);

	ret = xs_cuda_matrix_upload(m, a->col_idx, a->values);
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_rows,
					    sizeof(int32_t) * ((size_t)a->nnz + 1)));
	if (!ret && a->nnz)
		ret = XS_CU(ctx, cudaMemcpy(d_rows, a->row_idx,
					    sizeof(int32_t) * (size_t)a->nnz,
					    cudaMemcpyHostToDevice));
	if (!ret) {
		coo_offsets<<<xs_grid(ctx, (int64_t)a->rows + 1, 256), 256, 0,
			      ctx->stream>>>(d_rows, a->nnz, a->rows,
					     m->d_offsets);
		ret = XS_CU(ctx, cudaGetLastError());
	}
	if (!ret)
		ret = XS_CU(ctx, cudaStreamSynchronize(ctx->stream));
	cudaFree(d_rows);
	if (ret) {
		xs_cuda_matrix_destroy(m);
		errno = -ret;
		return NULL;
	}
	return m;
}
