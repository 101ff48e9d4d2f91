// SPDX-License-Identifier: MIT
/*
 * cusparse.cu - the baseline: cusparseSpMV on the same device matrix, timed
 * the same way as xs_cuda_spmv_time() (one warm-up run, then @reps runs
 * between two CUDA events on the context's stream).
 */
#include <cusparse.h>
#include <stdio.h>

#include "internal.cuh"

static int sp_fail(struct xs_cuda_ctx *ctx, cusparseStatus_t s, const char *what)
{
	snprintf(ctx->error, sizeof(ctx->error), "%s: %s", what,
		 cusparseGetErrorString(s));
	switch (s) {
	case CUSPARSE_STATUS_ALLOC_FAILED:
		return -ENOMEM;
	case CUSPARSE_STATUS_NOT_INITIALIZED:
	case CUSPARSE_STATUS_ARCH_MISMATCH:
		return -ENODEV;
	case CUSPARSE_STATUS_INVALID_VALUE:
	case CUSPARSE_STATUS_NOT_SUPPORTED:
		return -EINVAL;
	default:
		return -EIO;
	}
}

#define XS_SP(ctx, call)                                                   \
	({                                                                 \
		cusparseStatus_t xs_s_ = (call);                           \
		xs_s_ == CUSPARSE_STATUS_SUCCESS ? 0 :                     \
			sp_fail((ctx), xs_s_, #call);                      \
	})

extern "C" int xs_cuda_cusparse_spmv_time(struct xs_cuda_matrix *m, int reps,
					  double *ms, float *y)
{
	struct xs_cuda_ctx *ctx;
	cusparseHandle_t h = NULL;
	cusparseSpMatDescr_t a = NULL;
	cusparseDnVecDescr_t vx = NULL, vy = NULL;
	struct xs_cuda_timing t;
	float alpha = 1, beta = 0;
	void *buf = NULL;
	size_t bytes = 0;
	int ret;

	if (!m || reps < 1 || !ms)
		return -EINVAL;
	ctx = m->ctx;
	ret = xs_cuda_timing_begin(m, &t);
	if (!ret)
		ret = XS_SP(ctx, cusparseCreate(&h));
	if (!ret)
		ret = XS_SP(ctx, cusparseSetStream(h, ctx->stream));
	if (!ret)
		ret = XS_SP(ctx, cusparseCreateCsr(&a, m->rows, m->cols, m->nnz,
						   m->d_offsets, m->d_indices,
						   m->d_values, CUSPARSE_INDEX_32I,
						   CUSPARSE_INDEX_32I,
						   CUSPARSE_INDEX_BASE_ZERO,
						   CUDA_R_32F));
	if (!ret)
		ret = XS_SP(ctx, cusparseCreateDnVec(&vx, m->cols, t.d_x, CUDA_R_32F));
	if (!ret)
		ret = XS_SP(ctx, cusparseCreateDnVec(&vy, m->rows, t.d_y, CUDA_R_32F));
	if (!ret)
		ret = XS_SP(ctx, cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
							 &alpha, a, vx, &beta, vy,
							 CUDA_R_32F,
							 CUSPARSE_SPMV_ALG_DEFAULT,
							 &bytes));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&buf, bytes + 1));
	for (int i = 0; !ret && i <= reps; i++) {
		if (i == 1)	/* run 0 is the warm-up */
			ret = XS_CU(ctx, cudaEventRecord(t.start, ctx->stream));
		if (!ret)
			ret = XS_SP(ctx, cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
						      &alpha, a, vx, &beta, vy,
						      CUDA_R_32F,
						      CUSPARSE_SPMV_ALG_DEFAULT,
						      buf));
	}
	ret = xs_cuda_timing_stop(m, &t, ret, reps, ms, y);
	if (vx)
		cusparseDestroyDnVec(vx);
	if (vy)
		cusparseDestroyDnVec(vy);
	if (a)
		cusparseDestroySpMat(a);
	if (h)
		cusparseDestroy(h);
	cudaFree(buf);
	xs_cuda_timing_free(&t);
	return ret;
}
