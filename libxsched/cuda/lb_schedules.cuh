/* SPDX-License-Identifier: MIT */
/*
 * lb_schedules.cuh - the device side of the load-balancing schedules.
 *
 * A schedule walks a tile set (an offsets array, see lb.h) and calls an
 * application "op" for the work; the op never knows which schedule runs
 * it, and the schedule never knows what the work is:
 *
 *   struct op {
 *     // value of one atom of a tile (0 when the op works by side effect)
 *     __device__ float atom(int32_t tile, int32_t atom) const;
 *     // the sum of a tile's atoms; complete == false means other threads
 *     // hold the rest of the tile, and the op must combine atomically
 *     __device__ void tile(int32_t tile, float sum, bool complete) const;
 *   };
 *
 * The partition decisions are the host-tested functions of lb.h; this file
 * adds only the parallel mechanics (shuffles, shared memory, barriers).
 * Every schedule is a grid-stride loop, so any grid size is correct.
 *
 * Nothing here needs the CUDA runtime: the host SIMT emulator of the tests
 * (tests/simt/) runs these kernels too. lb_kernels.cuh launches them.
 */
#ifndef XSCHED_CUDA_LB_SCHEDULES_CUH
#define XSCHED_CUDA_LB_SCHEDULES_CUH

#include <stddef.h>
#include <stdint.h>

#include "device.cuh"
#include "lb.h"

namespace xs {
namespace cg = cooperative_groups;

static __device__ __forceinline__ float warp_sum(float v)
{
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, d);
	return v;
}

/* Thread-mapped: one tile per thread, its atoms in sequence. */
template <class Op>
__device__ void thread_mapped(const int32_t *off, int32_t ntiles, const Op &op)
{
	int32_t nworkers = gridDim.x * blockDim.x;
	int32_t w = blockIdx.x * blockDim.x + threadIdx.x;

	for (int32_t t = xs_tpw_first_tile(w); t < ntiles;
	     t += xs_tpw_tile_stride(nworkers)) {
		float sum = 0;

		for (int32_t a = off[t]; a < off[t + 1]; a++)
			sum += op.atom(t, a);
		op.tile(t, sum, true);
	}
}

/* Warp-mapped: one tile per warp, atoms strided over the lanes, shuffle
 * reduction. The tile loop is warp-uniform, so full-mask shuffles are
 * safe. */
template <class Op>
__device__ void warp_mapped(const int32_t *off, int32_t ntiles, const Op &op)
{
	int32_t lane = threadIdx.x & 31;
	int32_t nworkers = (gridDim.x * blockDim.x) >> 5;
	int32_t w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;

	for (int32_t t = xs_tpw_first_tile(w); t < ntiles;
	     t += xs_tpw_tile_stride(nworkers)) {
		float sum = 0;

		for (int32_t a = off[t] + lane; a < off[t + 1]; a += 32)
			sum += op.atom(t, a);
		sum = warp_sum(sum);
		if (lane == 0)
			op.tile(t, sum, true);
	}
}

/* Block-mapped: one tile per block, atoms strided over the block, warp
 * sums combined in shared memory. Block-uniform loop; two barriers per
 * tile keep the partials array from being overwritten early. */
template <class Op>
__device__ void block_mapped(const int32_t *off, int32_t ntiles, const Op &op)
{
	__shared__ float partial[32];
	int32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
	int32_t nwarps = blockDim.x >> 5;

	for (int32_t t = xs_tpw_first_tile(blockIdx.x); t < ntiles;
	     t += xs_tpw_tile_stride(gridDim.x)) {
		float sum = 0;

		for (int32_t a = off[t] + threadIdx.x; a < off[t + 1];
		     a += blockDim.x)
			sum += op.atom(t, a);
		sum = warp_sum(sum);
		if (lane == 0)
			partial[warp] = sum;
		__syncthreads();
		if (warp == 0) {
			sum = lane < nwarps ? partial[lane] : 0;
			sum = warp_sum(sum);
			if (lane == 0)
				op.tile(t, sum, true);
		}
		__syncthreads();
	}
}

/*
 * Group-mapped (cooperative groups, any power-of-two g dividing the
 * block). Dynamic shared memory: per group g + 1 prefix ints, 2 * g scan
 * scratch ints and g float sums, i.e. xs::group_mapped_smem(block, g)
 * bytes. Groups of up to a warp synchronize as a CG tile; larger groups
 * use the block barrier, which is safe because every group of the grid
 * runs the same number of rounds (xs_gm_rounds) and the same number of
 * barriers per round.
 */
static inline size_t group_mapped_smem(int block, int g)
{
	return (size_t)(block / g) * ((size_t)g + 1 + 2 * g) * sizeof(int32_t) +
	       (size_t)block * sizeof(float);
}

struct group_sync {
	cg::thread_block block;
	cg::thread_group tile;
	int32_t g;

	__device__ void sync()
	{
		if (g <= 32)
			tile.sync();
		else
			block.sync();
	}
};

template <class Op>
__device__ void group_mapped(const int32_t *off, int32_t ntiles, int32_t g,
			     const Op &op)
{
	XS_EXTERN_SHARED(int32_t, xs_gm_smem);
	cg::thread_block block = cg::this_thread_block();
	group_sync gs = { block, cg::tiled_partition(block, g <= 32 ? g : 32), g };
	int32_t q_local = threadIdx.x / g, rank = threadIdx.x % g;
	int32_t per_block = blockDim.x / g;
	int32_t ngroups = gridDim.x * per_block;
	int32_t q = blockIdx.x * per_block + q_local;
	int32_t *pre = xs_gm_smem + q_local * (g + 1);
	int32_t *scan = xs_gm_smem + per_block * (g + 1) + q_local * 2 * g;
	float *sums = (float *)(xs_gm_smem + per_block * (3 * g + 1)) +
		      q_local * g;
	int32_t rounds = xs_gm_rounds(ntiles, ngroups, g);

	for (int32_t r = 0; r < rounds; r++) {
		int32_t first = xs_gm_first_tile(r, ngroups, q, g);
		int32_t mine = first + rank;
		int32_t cur = 0;

		/* Atom count of this rank's tile into shared memory. */
		scan[rank] = mine < ntiles ? xs_tile_atoms(off, mine) : 0;
		sums[rank] = 0;
		gs.sync();
		/* Hillis-Steele inclusive scan: read, barrier, write. */
		for (int32_t d = 1; d < g; d <<= 1) {
			int32_t v = xs_scan_step(scan + cur * g, rank, d);

			cur ^= 1;
			scan[cur * g + rank] = v;
			gs.sync();
		}
		pre[rank + 1] = scan[cur * g + rank];
		if (rank == 0)
			pre[0] = 0;
		gs.sync();
		/* The group's atoms, strided over its ranks. */
		int32_t total = pre[g];

		for (int32_t i = rank; i < total; i += g) {
			int32_t tl = xs_tile_of_atom(pre, g, i);
			int32_t t = first + tl;

			atomicAdd(&sums[tl], op.atom(t, off[t] + i - pre[tl]));
		}
		gs.sync();
		if (mine < ntiles)
			op.tile(mine, sums[rank], true);
		gs.sync();
	}
}

/*
 * Merge-path: every thread gets an equal share of (tiles + atoms), found by
 * two 2-D binary searches over the offsets (lb.h). Complete tiles are
 * finished with a plain store; a tile split between threads is finished by
 * each of them with complete == false (the op adds atomically, so the
 * output must start at zero).
 */
template <class Op>
__device__ void merge_path(const int32_t *off, int32_t ntiles, int32_t natoms,
			   const Op &op)
{
	int32_t nworkers = gridDim.x * blockDim.x;
	int32_t w = blockIdx.x * blockDim.x + threadIdx.x;
	struct xs_mp_coord b, e;
	int32_t x, y;

	xs_mp_range(w, nworkers, off, ntiles, natoms, &b, &e);
	y = b.y;
	for (x = b.x; x < e.x; x++) {
		int32_t end = off[x + 1];
		float sum = 0;

		for (; y < end; y++)
			sum += op.atom(x, y);
		op.tile(x, sum, xs_mp_complete(x, &b, off));
	}
	if (y < e.y) {
		float sum = 0;

		for (; y < e.y; y++)
			sum += op.atom(e.x, y);
		op.tile(e.x, sum, false);
	}
}

/* One kernel per (schedule, op): the schedule (an XS_CUDA_SCHED_* value)
 * is a template parameter so that the op inlines into the loops. */

template <int S, class Op>
__global__ void __launch_bounds__(1024)
run(const int32_t *off, int32_t ntiles, int32_t natoms, int32_t g, Op op)
{
	if (S == XS_CUDA_SCHED_THREAD_MAPPED)
		thread_mapped(off, ntiles, op);
	else if (S == XS_CUDA_SCHED_WARP_MAPPED)
		warp_mapped(off, ntiles, op);
	else if (S == XS_CUDA_SCHED_BLOCK_MAPPED)
		block_mapped(off, ntiles, op);
	else if (S == XS_CUDA_SCHED_GROUP_MAPPED)
		group_mapped(off, ntiles, g, op);
	else
		merge_path(off, ntiles, natoms, op);
}

} /* namespace xs */

#endif /* XSCHED_CUDA_LB_SCHEDULES_CUH */
