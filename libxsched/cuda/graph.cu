// SPDX-License-Identifier: MIT
/*
 * graph.cu - BFS and SSSP as repeated neighbourhood expansion: frontier in,
 * frontier out, every expansion load-balanced by a schedule of
 * lb_kernels.cuh.
 *
 * The ops, the tile set of an expansion (the frontier, offsets from
 * cub::DeviceScan of its degrees) and the claim rules that keep the output
 * frontier free of duplicates are in graph_ops.cuh.
 */
#include <cub/device/device_scan.cuh>
#include <math.h>
#include <stdlib.h>

#include "graph_ops.cuh"
#include "lb_kernels.cuh"

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
			xs::fill_inf<<<xs_grid(ctx, n, 256), 256, 0, ctx->stream>>>(
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
		xs::init_source<<<1, 1, 0, ctx->stream>>>(t.depth, t.dist,
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
		xs::frontier_degrees<<<xs_grid(ctx, nf + 1, 256), 256, 0,
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
		xs::frontier_base f = { m->d_offsets, m->d_indices,
					t.front[cur], t.scan,
					t.front[cur ^ 1], t.counts };

		if (depth) {
			xs::bfs_op op = { f, t.depth, level + 1 };

			ret = xs::launch(ctx, &l, t.scan, nf, natoms, op);
		} else {
			xs::sssp_op op = { f, m->d_values, t.dist, t.inq };

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
