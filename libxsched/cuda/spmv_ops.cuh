/* SPDX-License-Identifier: MIT */
/*
 * spmv_ops.cuh - SpMV and SpMM as ops of the load-balancing schedules
 * (lb_schedules.cuh). The whole application is the op: an atom is
 * values[k] * x[indices[k]], a tile is a row. Built by nvcc (spmv.cu) and
 * by the host SIMT emulator of the tests.
 */
#ifndef XSCHED_CUDA_SPMV_OPS_CUH
#define XSCHED_CUDA_SPMV_OPS_CUH

#include <stddef.h>
#include <stdint.h>

#include "device.cuh"

namespace xs {

struct spmv_op {
	const int32_t *indices;
	const float *values;
	const float *x;
	float *y;

	__device__ float atom(int32_t, int32_t k) const
	{
		return values[k] * __ldg(&x[indices[k]]);
	}

	__device__ void tile(int32_t row, float sum, bool complete) const
	{
		if (complete)
			y[row] = sum;
		else
			atomicAdd(&y[row], sum);
	}
};

/* One column of C = A B (row-major B and C with n columns); the SpMM
 * kernel is the SpMV schedule run once per column (Osama et al., listing
 * 5), so every schedule serves SpMM unchanged. */
struct spmm_op {
	const int32_t *indices;
	const float *values;
	const float *b;
	float *c;
	int32_t n, col;

	__device__ float atom(int32_t, int32_t k) const
	{
		return values[k] * b[(size_t)indices[k] * n + col];
	}

	__device__ void tile(int32_t row, float sum, bool complete) const
	{
		if (complete)
			c[(size_t)row * n + col] = sum;
		else
			atomicAdd(&c[(size_t)row * n + col], sum);
	}
};

} /* namespace xs */

#endif /* XSCHED_CUDA_SPMV_OPS_CUH */
