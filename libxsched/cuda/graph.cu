// SPDX-License-Identifier: MIT
/*
 * graph.cu - BFS and SSSP as repeated neighbourhood expansion: frontier in,
 * frontier out, every expansion load-balanced by a schedule of
 * lb_kernels.cuh.
 *
 * The tile set of one expansion is the frontier itself: tile i is vertex
 * frontier[i], its atoms are that vertex's edges, and the offsets are the
 * exclusive scan of the frontier's degrees (cub::DeviceScan). Atom a of
 * tile i is edge graph_offsets[frontier[i]] + a - scan[i].
 *
 * Output frontier: a vertex is appended (atomicAdd on a counter) by the one
 * thread that wins a claim on it, so it holds no duplicates: BFS claims by
 * CAS of depth from -1; SSSP by exchange of an in-frontier flag, which the
 * expansion's set-up clears for the vertices of the input frontier.
 */
#include <cub/device/device_scan.cuh>
#include <math.h>
#include <stdlib.h>

#include "lb_kernels.cuh"

namespace {

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
__global__ void frontier_degrees(const int32_t *g_off, const int32_t *front,
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

__global__ void init_source(int32_t *depth, float *dist, int32_t *front,
			    int32_t src)
{
	if (depth)
		depth[src] = 0;
	if (dist)
		dist[src] = 0.0f;
	front[0] = src;
}

__global__ void fill_inf(float *d, int32_t n)
{
	for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x)
		d[i] = INFINITY;
}

} /* namespace */

/* Everything one traversal needs on the device; freed in one place. */
struct traversal {
	int32_t *front[2], *deg, *scan, *counts, *depth, *inq;
	float *dist;
	void *tmp;
	size_t tmp_bytes;
};

static void traversal_free(struct traversal *t)
{
	cudaFree(t->front[0]);
	cudaFree(t->front[1]);
	cudaFree(t->deg);
	cudaFree(t->scan);
	cudaFree(t->counts);
	cudaFree(t->depth);
	cudaFree(t->inq);
	cudaFree(t->dist);
	cudaFree(t->tmp);
}

static int traverse(struct xs_cuda_matrix *m, const struct xs_cuda_launch *lin,
		    int32_t source, int32_t *depth, float *dist)
{
	struct xs_cuda_ctx *ctx = m->ctx;
	struct traversal t = {};
	struct xs_cuda_launch l;
	size_t nb = sizeof(int32_t) * ((size_t)m->rows + 1);
	int32_t n = m->rows, nf = 1, level = 0, cur = 0;
	int ret;

	if (m->rows != m->cols || source < 0 || source >= n ||
	    (dist && !m->nonneg))
		return -EINVAL;
	ret = xs_cuda_launch_resolve(m, lin, &l);
	if (ret)
		return ret;
	ret = XS_CU(ctx, cudaSetDevice(ctx->device));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&t.front[0], nb));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&t.front[1], nb));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&t.deg, nb));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&t.scan, nb));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&t.counts, 2 * sizeof(int32_t)));
	if (!ret && depth) {
		ret = XS_CU(ctx, cudaMalloc(&t.depth, nb));
		if (!ret)
			ret = XS_CU(ctx, cudaMemsetAsync(t.depth, 0xff, nb,
							 ctx->stream));
	}
	if (!ret && dist) {
		ret = XS_CU(ctx, cudaMalloc(&t.dist, sizeof(float) * (size_t)n));
		if (!ret)
			ret = XS_CU(ctx, cudaMalloc(&t.inq, nb));
		if (!ret)
			ret = XS_CU(ctx, cudaMemsetAsync(t.inq, 0, nb, ctx->stream));
		if (!ret) {
			fill_inf<<<xs_grid(ctx, n, 256), 256, 0, ctx->stream>>>(
				t.dist, n);
			ret = XS_CU(ctx, cudaGetLastError());
		}
	}
	if (!ret)
		ret = XS_CU(ctx, cub::DeviceScan::ExclusiveSum(NULL, t.tmp_bytes,
							       t.deg, t.scan,
							       n + 1, ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&t.tmp, t.tmp_bytes));
	if (!ret) {
		init_source<<<1, 1, 0, ctx->stream>>>(t.depth, t.dist,
						      t.front[0], source);
		ret = XS_CU(ctx, cudaGetLastError());
	}
	while (!ret && nf > 0) {
		int32_t natoms = 0;

		/* Bellman-Ford needs at most n - 1 rounds; BFS n levels. */
		if (level > n) {
			ret = -EIO;
			break;
		}
		frontier_degrees<<<xs_grid(ctx, nf + 1, 256), 256, 0,
				   ctx->stream>>>(m->d_offsets, t.front[cur], nf,
						  t.deg, t.inq);
		ret = XS_CU(ctx, cudaGetLastError());
		if (!ret)
			ret = XS_CU(ctx, cub::DeviceScan::ExclusiveSum(
					    t.tmp, t.tmp_bytes, t.deg, t.scan,
					    nf + 1, ctx->stream));
		if (!ret)
			ret = XS_CU(ctx, cudaMemsetAsync(t.counts, 0,
							 sizeof(int32_t),
							 ctx->stream));
		if (!ret)
			ret = XS_CU(ctx, cudaMemcpyAsync(&natoms, t.scan + nf,
							 sizeof(int32_t),
							 cudaMemcpyDeviceToHost,
							 ctx->stream));
		if (!ret)
			ret = XS_CU(ctx, cudaStreamSynchronize(ctx->stream));
		if (ret)
			break;
		if (depth) {
			bfs_op op;

			op.g_off = m->d_offsets;
			op.g_idx = m->d_indices;
			op.front = t.front[cur];
			op.scan = t.scan;
			op.out = t.front[cur ^ 1];
			op.out_n = t.counts;
			op.depth = t.depth;
			op.next = level + 1;
			ret = xs::launch(ctx, &l, t.scan, nf, natoms, op);
		} else {
			sssp_op op;

			op.g_off = m->d_offsets;
			op.g_idx = m->d_indices;
			op.front = t.front[cur];
			op.scan = t.scan;
			op.out = t.front[cur ^ 1];
			op.out_n = t.counts;
			op.w = m->d_values;
			op.dist = t.dist;
			op.inq = t.inq;
			ret = xs::launch(ctx, &l, t.scan, nf, natoms, op);
		}
		if (!ret)
			ret = XS_CU(ctx, cudaMemcpyAsync(&nf, t.counts,
							 sizeof(int32_t),
							 cudaMemcpyDeviceToHost,
							 ctx->stream));
		if (!ret)
			ret = XS_CU(ctx, cudaStreamSynchronize(ctx->stream));
		cur ^= 1;
		level++;
	}
	if (!ret && depth)
		ret = XS_CU(ctx, cudaMemcpy(depth, t.depth, sizeof(int32_t) * (size_t)n,
					    cudaMemcpyDeviceToHost));
	if (!ret && dist)
		ret = XS_CU(ctx, cudaMemcpy(dist, t.dist, sizeof(float) * (size_t)n,
					    cudaMemcpyDeviceToHost));
	traversal_free(&t);
	return ret ? ret : level;
}

extern "C" int xs_cuda_bfs(struct xs_cuda_matrix *m,
			   const struct xs_cuda_launch *l, int32_t source,
			   int32_t *depth)
{
	if (!m || !depth)
		return -EINVAL;
	return traverse(m, l, source, depth, NULL);
}

extern "C" int xs_cuda_sssp(struct xs_cuda_matrix *m,
			    const struct xs_cuda_launch *l, int32_t source,
			    float *dist)
{
	if (!m || !dist)
		return -EINVAL;
	return traverse(m, l, source, NULL, dist);
}
