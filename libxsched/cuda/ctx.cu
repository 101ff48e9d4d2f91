// SPDX-License-Identifier: MIT
/*
 * ctx.cu - device discovery, the context (one device, its own stream; the
 * worker streams are offload.cu's), device matrices, and CUDA error
 * conversion. Every runtime call is checked: "no device" is a status
 * (-ENODEV), not a crash.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.cuh"

int xs_cuda_fail(struct xs_cuda_ctx *ctx, cudaError_t e, const char *what)
{
	/* Workers of a runtime share ctx and may fail at once: the lock
	 * keeps the message whole (one of them wins). */
	if (ctx) {
		pthread_mutex_lock(&ctx->error_lock);
		snprintf(ctx->error, sizeof(ctx->error), "%s: %s (%s)", what,
			 cudaGetErrorString(e), cudaGetErrorName(e));
		pthread_mutex_unlock(&ctx->error_lock);
	}
	switch (e) {
	case cudaErrorNoDevice:
	case cudaErrorInsufficientDriver:
	case cudaErrorInvalidDevice:
	case cudaErrorDevicesUnavailable:
	case cudaErrorSystemDriverMismatch:
	case cudaErrorCompatNotSupportedOnDevice:
	case cudaErrorInitializationError:
	case cudaErrorStubLibrary:
	case cudaErrorNoKernelImageForDevice:
		return -ENODEV;
	case cudaErrorMemoryAllocation:
		return -ENOMEM;
	case cudaErrorInvalidValue:
	case cudaErrorInvalidConfiguration:
	case cudaErrorCooperativeLaunchTooLarge:
		return -EINVAL;
	default:
		return -EIO;
	}
}

extern "C" int xs_cuda_probe(char *why, size_t len)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);

	if (e != cudaSuccess || n <= 0) {
		if (why && len)
			snprintf(why, len, "%s", e != cudaSuccess ?
				 cudaGetErrorString(e) : "no CUDA device found");
		/* Clear the sticky error state of the runtime API. */
		cudaGetLastError();
		return -ENODEV;
	}
	if (why && len)
		why[0] = '\0';
	return n;
}

/* Why the last xs_cuda_ctx_create() of this thread failed, for
 * xs_cuda_ctx_error(NULL). */
static __thread char create_error[256];

/* Exists only to ask whether this binary has code for the device. */
__global__ static void image_probe(void)
{
}

extern "C" struct xs_cuda_ctx *xs_cuda_ctx_create(int device)
{
	struct xs_cuda_ctx *ctx;
	struct cudaDeviceProp prop;
	int n, ret;

	n = xs_cuda_probe(create_error, sizeof(create_error));
	if (n < 0) {
		errno = ENODEV;
		return NULL;
	}
	if (device < 0 || device >= n) {
		snprintf(create_error, sizeof(create_error),
			 "device %d out of range (%d devices)", device, n);
		errno = EINVAL;
		return NULL;
	}
	ctx = (struct xs_cuda_ctx *)calloc(1, sizeof(*ctx));
	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_init(&ctx->error_lock, NULL);
	ctx->device = device;
	ret = XS_CU(ctx, cudaSetDevice(device));
	if (!ret)
		ret = XS_CU(ctx, cudaGetDeviceProperties(&prop, device));
	if (!ret) {
		/* Built for sm_80 and sm_90 only: a device of another major
		 * architecture has no kernel image, and is "no device". */
		struct cudaFuncAttributes fa;
		cudaError_t e = cudaFuncGetAttributes(&fa, (const void *)image_probe);

		if (e != cudaSuccess) {
			xs_cuda_fail(ctx, e, "kernel image");
			snprintf(ctx->error, sizeof(ctx->error),
				 "no kernel image for sm_%d%d (built for sm_80, "
				 "sm_90): %s", prop.major, prop.minor,
				 cudaGetErrorString(e));
			cudaGetLastError();
			ret = -ENODEV;
		}
	}
	if (!ret)
		ret = XS_CU(ctx, cudaStreamCreateWithFlags(&ctx->stream,
							   cudaStreamNonBlocking));
	if (ret) {
		snprintf(create_error, sizeof(create_error), "%s", ctx->error);
		pthread_mutex_destroy(&ctx->error_lock);
		free(ctx);
		errno = -ret;
		return NULL;
	}
	snprintf(ctx->name, sizeof(ctx->name), "%.127s", prop.name);
	ctx->sm_count = prop.multiProcessorCount;
	ctx->max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
	ctx->cooperative = prop.cooperativeLaunch;
	ctx->mempools = prop.memoryPoolsSupported;
	create_error[0] = '\0';
	return ctx;
}

extern "C" void xs_cuda_ctx_destroy(struct xs_cuda_ctx *ctx)
{
	if (!ctx)
		return;
	cudaSetDevice(ctx->device);
	xs_cuda_streams_destroy(ctx);
	cudaStreamDestroy(ctx->stream);
	pthread_mutex_destroy(&ctx->error_lock);
	free(ctx);
}

extern "C" int xs_cuda_ctx_check(struct xs_cuda_ctx *ctx)
{
	cudaError_t e;
	int ret;

	if (!ctx)
		return -EINVAL;
	ret = XS_CU(ctx, cudaSetDevice(ctx->device));
	if (ret)
		return ret;
	/* A device error is sticky: every later call of the context, this
	 * query included, returns it. Busy is not an error. */
	e = cudaStreamQuery(ctx->stream);
	if (e == cudaSuccess || e == cudaErrorNotReady)
		return 0;
	return xs_cuda_fail(ctx, e, "device");
}

extern "C" const char *xs_cuda_ctx_error(const struct xs_cuda_ctx *ctx)
{
	return ctx ? ctx->error : create_error;
}

extern "C" int xs_cuda_ctx_info(const struct xs_cuda_ctx *ctx, char *name,
				size_t len, int *sm_count)
{
	if (!ctx)
		return -EINVAL;
	if (name && len)
		snprintf(name, len, "%s", ctx->name);
	if (sm_count)
		*sm_count = ctx->sm_count;
	return 0;
}

static int csr_check(const struct xs_csr *a)
{
	int32_t r, k;

	if (!a || a->rows < 0 || a->cols < 0 || a->nnz < 0 || !a->offsets ||
	    (a->nnz && (!a->indices || !a->values)))
		return -EINVAL;
	if (a->offsets[0] != 0 || a->offsets[a->rows] != a->nnz)
		return -EINVAL;
	for (r = 0; r < a->rows; r++) {
		if (a->offsets[r + 1] < a->offsets[r])
			return -EINVAL;
		for (k = a->offsets[r]; k < a->offsets[r + 1]; k++)
			if (a->indices[k] < 0 || a->indices[k] >= a->cols)
				return -EINVAL;
	}
	return 0;
}

extern "C" struct xs_cuda_matrix *xs_cuda_matrix_create(struct xs_cuda_ctx *ctx,
							const struct xs_csr *a)
{
	struct xs_cuda_matrix *m;
	double mean;
	int32_t k;
	int ret;

	if (!ctx || csr_check(a)) {
		errno = EINVAL;
		return NULL;
	}
	m = (struct xs_cuda_matrix *)calloc(1, sizeof(*m));
	if (!m) {
		errno = ENOMEM;
		return NULL;
	}
	m->ctx = ctx;
	m->rows = a->rows;
	m->cols = a->cols;
	m->nnz = a->nnz;
	m->nonneg = 1;
	for (k = 0; k < a->nnz; k++)
		if (!(a->values[k] >= 0))
			m->nonneg = 0;
	xs_csr_row_stats(a, &mean, &m->row_cv);
	ret = xs_cuda_matrix_upload(m, a->indices, a->values);
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpy(m->d_offsets, a->offsets,
					    sizeof(int32_t) * ((size_t)a->rows + 1),
					    cudaMemcpyHostToDevice));
	if (ret) {
		xs_cuda_matrix_destroy(m);
		errno = -ret;
		return NULL;
	}
	return m;
}

int xs_cuda_matrix_upload(struct xs_cuda_matrix *m, const int32_t *indices,
			  const float *values)
{
	struct xs_cuda_ctx *ctx = m->ctx;
	int ret;

	ret = XS_CU(ctx, cudaSetDevice(ctx->device));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&m->d_offsets,
					    sizeof(int32_t) * ((size_t)m->rows + 1)));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&m->d_indices,
					    sizeof(int32_t) * ((size_t)m->nnz + 1)));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&m->d_values,
					    sizeof(float) * ((size_t)m->nnz + 1)));
	if (!ret && m->nnz)
		ret = XS_CU(ctx, cudaMemcpy(m->d_indices, indices,
					    sizeof(int32_t) * (size_t)m->nnz,
					    cudaMemcpyHostToDevice));
	if (!ret && m->nnz)
		ret = XS_CU(ctx, cudaMemcpy(m->d_values, values,
					    sizeof(float) * (size_t)m->nnz,
					    cudaMemcpyHostToDevice));
	return ret;
}

extern "C" void xs_cuda_matrix_destroy(struct xs_cuda_matrix *m)
{
	if (!m)
		return;
	cudaFree(m->d_offsets);
	cudaFree(m->d_indices);
	cudaFree(m->d_values);
	free(m);
}

int xs_cuda_launch_resolve(const struct xs_cuda_matrix *m,
			   const struct xs_cuda_launch *in,
			   struct xs_cuda_launch *out)
{
	struct xs_cuda_launch l = {};

	if (in)
		l = *in;
	if (l.block_size == 0)
		l.block_size = 256;
	if (l.group_size == 0)
		l.group_size = 32;
	if (l.block_size < 32 || l.block_size > 1024 || l.block_size % 32)
		return -EINVAL;
	if (l.group_size < 1 || l.group_size > l.block_size ||
	    (l.group_size & (l.group_size - 1)) ||
	    l.block_size % l.group_size)
		return -EINVAL;
	if ((unsigned int)l.schedule >= XS_CUDA_SCHED_NR)
		return -EINVAL;
	if (l.schedule == XS_CUDA_SCHED_AUTO)
		l.schedule = xs_cuda_schedule_pick(m->rows, m->cols, m->nnz,
						   m->row_cv);
	*out = l;
	return 0;
}
