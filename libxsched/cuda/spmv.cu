// SPDX-License-Identifier: MIT
/*
 * spmv.cu - SpMV and SpMM on CSR under any schedule of lb_kernels.cuh;
 * the ops are in spmv_ops.cuh.
 */
#include <stdlib.h>

#include "lb_kernels.cuh"
#include "spmv_ops.cuh"

/* y (device) = A x (device), enqueued on stream s. Merge-path adds split
 * rows into y, so y is zeroed first for it; every other schedule stores
 * each row once. */
int xs_cuda_spmv_enqueue(struct xs_cuda_matrix *m,
			 const struct xs_cuda_launch *l, const float *d_x,
			 float *d_y, cudaStream_t s)
{
	struct xs_cuda_ctx *ctx = m->ctx;
	xs::spmv_op op = { m->d_indices, m->d_values, d_x, d_y };
	int ret = 0;

	if (l->schedule == XS_CUDA_SCHED_MERGE_PATH)
		ret = XS_CU(ctx, cudaMemsetAsync(d_y, 0,
						 sizeof(float) * (size_t)m->rows,
						 s));
	if (ret)
		return ret;
	return xs::launch(ctx, s, l, m->d_offsets, m->rows, m->nnz, op);
}

static int spmv_device(struct xs_cuda_matrix *m, const struct xs_cuda_launch *l,
		       const float *d_x, float *d_y)
{
	return xs_cuda_spmv_enqueue(m, l, d_x, d_y, m->ctx->stream);
}

extern "C" int xs_cuda_spmv(struct xs_cuda_matrix *m,
			    const struct xs_cuda_launch *lin, const float *x,
			    float *y)
{
	struct xs_cuda_launch l;
	struct xs_cuda_ctx *ctx;
	float *d_x = NULL, *d_y = NULL;
	int ret;

	if (!m || !x || !y)
		return -EINVAL;
	ctx = m->ctx;
	ret = xs_cuda_launch_resolve(m, lin, &l);
	if (ret)
		return ret;
	ret = XS_CU(ctx, cudaSetDevice(ctx->device));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_x, sizeof(float) * ((size_t)m->cols + 1)));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_y, sizeof(float) * ((size_t)m->rows + 1)));
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpyAsync(d_x, x, sizeof(float) * (size_t)m->cols,
						 cudaMemcpyHostToDevice, ctx->stream));
	if (!ret)
		ret = spmv_device(m, &l, d_x, d_y);
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpyAsync(y, d_y, sizeof(float) * (size_t)m->rows,
						 cudaMemcpyDeviceToHost, ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaStreamSynchronize(ctx->stream));
	cudaFree(d_x);
	cudaFree(d_y);
	return ret;
}

extern "C" int xs_cuda_spmm(struct xs_cuda_matrix *m,
			    const struct xs_cuda_launch *lin, const float *b,
			    int32_t n, float *c)
{
	struct xs_cuda_launch l;
	struct xs_cuda_ctx *ctx;
	float *d_b = NULL, *d_c = NULL;
	size_t bsz, csz;
	int ret;

	if (!m || !b || !c || n < 1)
		return -EINVAL;
	ctx = m->ctx;
	ret = xs_cuda_launch_resolve(m, lin, &l);
	if (ret)
		return ret;
	bsz = sizeof(float) * (size_t)m->cols * n;
	csz = sizeof(float) * (size_t)m->rows * n;
	ret = XS_CU(ctx, cudaSetDevice(ctx->device));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_b, bsz + sizeof(float)));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_c, csz + sizeof(float)));
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpyAsync(d_b, b, bsz, cudaMemcpyHostToDevice,
						 ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaMemsetAsync(d_c, 0, csz, ctx->stream));
	for (int32_t col = 0; !ret && col < n; col++) {
		xs::spmm_op op = { m->d_indices, m->d_values, d_b, d_c, n, col };

		ret = xs::launch(ctx, &l, m->d_offsets, m->rows, m->nnz, op);
	}
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpyAsync(c, d_c, csz, cudaMemcpyDeviceToHost,
						 ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaStreamSynchronize(ctx->stream));
	cudaFree(d_b);
	cudaFree(d_c);
	return ret;
}

__global__ static void fill_ones(float *x, int32_t n)
{
	for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x)
		x[i] = 1.0f;
}

int xs_cuda_timing_begin(struct xs_cuda_matrix *m, struct xs_cuda_timing *t)
{
	struct xs_cuda_ctx *ctx = m->ctx;
	int ret;

	*t = (struct xs_cuda_timing){ NULL, NULL, NULL, NULL };
	ret = XS_CU(ctx, cudaSetDevice(ctx->device));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&t->d_x, sizeof(float) * ((size_t)m->cols + 1)));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&t->d_y, sizeof(float) * ((size_t)m->rows + 1)));
	if (!ret)
		ret = XS_CU(ctx, cudaEventCreate(&t->start));
	if (!ret)
		ret = XS_CU(ctx, cudaEventCreate(&t->stop));
	if (!ret && m->cols) {
		fill_ones<<<xs_grid(ctx, m->cols, 256), 256, 0, ctx->stream>>>(
			t->d_x, m->cols);
		ret = XS_CU(ctx, cudaGetLastError());
	}
	return ret;
}

int xs_cuda_timing_stop(struct xs_cuda_matrix *m, struct xs_cuda_timing *t, int ret,
			int reps, double *ms, float *y)
{
	struct xs_cuda_ctx *ctx = m->ctx;
	float elapsed = 0;

	if (!ret)
		ret = XS_CU(ctx, cudaEventRecord(t->stop, ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaEventSynchronize(t->stop));
	if (!ret)
		ret = XS_CU(ctx, cudaEventElapsedTime(&elapsed, t->start, t->stop));
	if (!ret && y)
		ret = XS_CU(ctx, cudaMemcpy(y, t->d_y, sizeof(float) * (size_t)m->rows,
					    cudaMemcpyDeviceToHost));
	if (!ret)
		*ms = elapsed / reps;
	return ret;
}

void xs_cuda_timing_free(struct xs_cuda_timing *t)
{
	if (t->start)
		cudaEventDestroy(t->start);
	if (t->stop)
		cudaEventDestroy(t->stop);
	cudaFree(t->d_x);
	cudaFree(t->d_y);
}

extern "C" int xs_cuda_spmv_time(struct xs_cuda_matrix *m,
				 const struct xs_cuda_launch *lin, int reps,
				 double *ms, float *y)
{
	struct xs_cuda_timing t;
	struct xs_cuda_launch l;
	int ret;

	if (!m || reps < 1 || !ms)
		return -EINVAL;
	ret = xs_cuda_launch_resolve(m, lin, &l);
	if (ret)
		return ret;
	ret = xs_cuda_timing_begin(m, &t);
	/* One warm-up run, then the timed ones. */
	if (!ret)
		ret = spmv_device(m, &l, t.d_x, t.d_y);
	if (!ret)
		ret = XS_CU(m->ctx, cudaEventRecord(t.start, m->ctx->stream));
	for (int i = 0; !ret && i < reps; i++)
		ret = spmv_device(m, &l, t.d_x, t.d_y);
	ret = xs_cuda_timing_stop(m, &t, ret, reps, ms, y);
	xs_cuda_timing_free(&t);
	return ret;
}
