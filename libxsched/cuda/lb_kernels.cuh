/* SPDX-License-Identifier: MIT */
/*
 * lb_kernels.cuh - launching the load-balancing schedules of
 * lb_schedules.cuh on a stream (host side, CUDA runtime).
 */
#ifndef XSCHED_CUDA_LB_KERNELS_CUH
#define XSCHED_CUDA_LB_KERNELS_CUH

#include <stdint.h>

#include "internal.cuh"
#include "lb_schedules.cuh"

namespace xs {

/*
 * Launch a schedule over a tile set of ntiles tiles and natoms atoms on
 * stream s (host side). The grid covers the work once where that is cheap
 * and is capped otherwise (xs_schedule_threads, xs_grid_size): every
 * schedule grid-strides. Returns 0 or -errno.
 */
template <class Op>
static int launch(struct xs_cuda_ctx *ctx, cudaStream_t s,
		  const struct xs_cuda_launch *l, const int32_t *d_off,
		  int32_t ntiles, int32_t natoms, const Op &op)
{
	int b = l->block_size, g = l->group_size;
	unsigned int grid;

	if (ntiles <= 0)
		return 0;
	grid = xs_grid(ctx, xs_schedule_threads(l->schedule, ntiles, natoms,
						b, g), b);
	switch (l->schedule) {
	case XS_CUDA_SCHED_THREAD_MAPPED:
		run<XS_CUDA_SCHED_THREAD_MAPPED><<<grid, b, 0, s>>>(
			d_off, ntiles, natoms, g, op);
		break;
	case XS_CUDA_SCHED_WARP_MAPPED:
		run<XS_CUDA_SCHED_WARP_MAPPED><<<grid, b, 0, s>>>(
			d_off, ntiles, natoms, g, op);
		break;
	case XS_CUDA_SCHED_BLOCK_MAPPED:
		run<XS_CUDA_SCHED_BLOCK_MAPPED><<<grid, b, 0, s>>>(
			d_off, ntiles, natoms, g, op);
		break;
	case XS_CUDA_SCHED_GROUP_MAPPED:
		run<XS_CUDA_SCHED_GROUP_MAPPED>
			<<<grid, b, group_mapped_smem(b, g), s>>>(
				d_off, ntiles, natoms, g, op);
		break;
	case XS_CUDA_SCHED_MERGE_PATH:
		run<XS_CUDA_SCHED_MERGE_PATH><<<grid, b, 0, s>>>(
			d_off, ntiles, natoms, g, op);
		break;
	default:
		return -EINVAL;
	}
	return XS_CU(ctx, cudaGetLastError());
}

/* The same on the context's own stream. */
template <class Op>
static int launch(struct xs_cuda_ctx *ctx, const struct xs_cuda_launch *l,
		  const int32_t *d_off, int32_t ntiles, int32_t natoms,
		  const Op &op)
{
	return launch(ctx, ctx->stream, l, d_off, ntiles, natoms, op);
}

} /* namespace xs */

#endif /* XSCHED_CUDA_LB_KERNELS_CUH */
