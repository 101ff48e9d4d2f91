/* SPDX-License-Identifier: MIT */
/*
 * graph_ops.cuh - one BFS or SSSP neighbourhood expansion as an op of the
 * load-balancing schedules (lb_schedules.cuh), and the small kernels
 * around it. graph.cu drives the traversal; the host SIMT emulator of the
 * tests runs the same code.
 *
 * The tile set of one expansion is the frontier itself: tile i is vertex
 * frontier[i], its atoms are that vertex's edges, and the offsets are the
 * exclusive scan of the frontier's degrees. Atom a of tile i is edge
 * graph_offsets[frontier[i]] + a - scan[i].
 *
 * Output frontier: a vertex is appended (atomicAdd on a counter) by the one
 * thread that wins a claim on it, so it holds no duplicates: BFS claims by
 * CAS of depth from -1; SSSP by exchange of an in-frontier flag, which the
 * expansion's set-up (frontier_degrees) clears for the vertices of the
 * input frontier.
 */
#ifndef XSCHED_CUDA_GRAPH_OPS_CUH
#define XSCHED_CUDA_GRAPH_OPS_CUH

#include <math.h>
#include <stdint.h>

#include "device.cuh"

namespace xs {

struct frontier_base {
	const int32_t *g_off;	/* graph row offsets */
	const int32_t *g_idx;	/* graph column indices */
	const int32_t *front;	/* input frontier (vertices) */
	const int32_t *scan;	/* exclusive scan of their degrees */
	int32_t *out;		/* output frontier */
	int32_t *out_n;		/* its length */

	__device__ int32_t edge(int32_t t, int32_t a) const
	{
		return g_off[front[t]] + a - scan[t];
	}

	__device__ void tile(int32_t, float, bool) const
	{
	}
};

struct bfs_op : frontier_base {
	int32_t *depth;
	int32_t next;		/* depth of the vertices found now */

	__device__ float atom(int32_t t, int32_t a) const
	{
		int32_t v = g_idx[edge(t, a)];

		/* The CAS both claims v and publishes its depth; a loser
		 * saw it claimed, by this level or an earlier one. */
		if (atomicCAS(&depth[v], -1, next) == -1)
			out[atomicAdd(out_n, 1)] = v;
		return 0;
	}
};

struct sssp_op : frontier_base {
	const float *w;
	float *dist;		/* >= 0, so float order == int bit order */
	int32_t *inq;

	__device__ float atom(int32_t t, int32_t a) const
	{
		int32_t e = edge(t, a), v = g_idx[e];
		/* dist[u] may fall while we read it; the improved u is then
		 * in the next frontier and relaxes v again. */
		float nd = dist[front[t]] + w[e];
		int old = atomicMin((int *)&dist[v], __float_as_int(nd));

		if (nd < __int_as_float(old) && atomicExch(&inq[v], 1) == 0)
			out[atomicAdd(out_n, 1)] = v;
		return 0;
	}
};

/* deg[i] = degree of front[i] (deg[n] = 0, so the scan's last entry is the
 * number of atoms); clears inq of the input frontier for SSSP. */
static __global__ void frontier_degrees(const int32_t *g_off, const int32_t *front,
				 int32_t n, int32_t *deg, int32_t *inq)
{
	for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i <= n;
	     i += gridDim.x * blockDim.x) {
		if (i == n) {
			deg[i] = 0;
			continue;
		}
		int32_t u = front[i];

		deg[i] = g_off[u + 1] - g_off[u];
		if (inq)
			inq[u] = 0;
	}
}

static __global__ void init_source(int32_t *depth, float *dist, int32_t *front,
			    int32_t src)
{
	if (depth)
		depth[src] = 0;
	if (dist)
		dist[src] = 0.0f;
	front[0] = src;
}

static __global__ void fill_inf(float *d, int32_t n)
{
	for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x)
		d[i] = INFINITY;
}

} /* namespace xs */

#endif /* XSCHED_CUDA_GRAPH_OPS_CUH */
