// SPDX-License-Identifier: MIT
/*
 * sync_server.cu - the two applications of the synchronization server,
 * each with its global-lock baseline:
 *
 *   hash table  table[key] += delta (insert when absent), open addressing.
 *               Server s owns the keys with key % ns == s and a region of
 *               capacity / ns slots, so no other block ever touches the
 *               region; the baseline uses the whole table as one region.
 *   bank        balance[from] -= amount, balance[to] += amount. The server
 *               version sends one message per account (each owned by
 *               account % ns); the baseline takes both accounts' global
 *               locks in index order (no deadlock).
 *
 * The critical sections are the same code in both versions; only how they
 * are serialized differs (shared-memory locks in the owning server block
 * vs spin locks in global memory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash_table.h"
#include "internal.cuh"
#include "msgbuf.cuh"
#include "sync_ops.cuh"

/* Device memory of one run, freed in one place. */
struct sync_run {
	xs::msgbuf *bufs;
	xs::sync_ctl *ctl;
	uint32_t *locks;
	cudaEvent_t start, stop;
};

static void sync_run_free(struct sync_run *r)
{
	cudaFree(r->bufs);
	cudaFree(r->ctl);
	cudaFree(r->locks);
	if (r->start)
		cudaEventDestroy(r->start);
	if (r->stop)
		cudaEventDestroy(r->stop);
}

static int sync_opts_check(const struct xs_cuda_sync_opts *o)
{
	if (!o || (unsigned int)o->mode >= XS_CUDA_SYNC_NR)
		return -EINVAL;
	if (o->block_size && (o->block_size < 64 || o->block_size > 1024 ||
			      o->block_size % 32))
		return -EINVAL;
	if (o->server_blocks < 0 || o->server_blocks > XS_SYNC_MAX_SERVERS ||
	    o->client_blocks < 0)
		return -EINVAL;
	return 0;
}

/* Set up buffers and events; for the server mode also fix the block
 * counts from the occupancy of @kernel (all blocks must be co-resident). */
static int sync_setup(struct xs_cuda_ctx *ctx, struct xs_cuda_sync_opts *o,
		      const void *kernel, struct sync_run *r, int *block,
		      int *ns, int *nc, size_t *smem)
{
	int ret, per_sm = 0, max_blocks;

	*block = o->block_size ? o->block_size : 256;
	ret = XS_CU(ctx, cudaSetDevice(ctx->device));
	if (!ret)
		ret = XS_CU(ctx, cudaEventCreate(&r->start));
	if (!ret)
		ret = XS_CU(ctx, cudaEventCreate(&r->stop));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&r->ctl, sizeof(*r->ctl)));
	if (!ret)
		ret = XS_CU(ctx, cudaMemsetAsync(r->ctl, 0, sizeof(*r->ctl),
						 ctx->stream));
	if (ret || o->mode == XS_CUDA_SYNC_GLOBAL_LOCK) {
		if (!ret)
			ret = XS_CU(ctx, cudaMalloc(&r->locks, sizeof(uint32_t) *
						    XS_GLOBAL_LOCKS));
		if (!ret)
			ret = XS_CU(ctx, cudaMemsetAsync(r->locks, 0,
							 sizeof(uint32_t) *
							 XS_GLOBAL_LOCKS,
							 ctx->stream));
		return ret;
	}
	*smem = sizeof(xs::server_shared);
	if (xs::client_smem(*block) > *smem)
		*smem = xs::client_smem(*block);
	ret = XS_CU(ctx, cudaFuncSetAttribute(kernel,
					      cudaFuncAttributeMaxDynamicSharedMemorySize,
					      (int)*smem));
	if (!ret)
		ret = XS_CU(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
				    &per_sm, kernel, *block, *smem));
	if (ret)
		return ret;
	max_blocks = per_sm * ctx->sm_count;
	*ns = o->server_blocks ? o->server_blocks : ctx->sm_count / 4;
	if (*ns < 1)
		*ns = 1;
	if (*ns > XS_SYNC_MAX_SERVERS)
		*ns = XS_SYNC_MAX_SERVERS;
	*nc = o->client_blocks ? o->client_blocks : max_blocks - *ns;
	if (*nc < 1 || *ns + *nc > max_blocks) {
		snprintf(ctx->error, sizeof(ctx->error),
			 "%d server + %d client blocks do not fit the %d "
			 "co-resident blocks of this device", *ns, *nc,
			 max_blocks);
		return -EINVAL;
	}
	o->server_blocks = *ns;
	o->client_blocks = *nc;
	ret = XS_CU(ctx, cudaMalloc(&r->bufs, sizeof(xs::msgbuf) * (size_t)*ns));
	if (!ret)
		ret = XS_CU(ctx, cudaMemsetAsync(r->bufs, 0,
						 sizeof(xs::msgbuf) * (size_t)*ns,
						 ctx->stream));
	return ret;
}

/* Launch sync_kernel<Prod, CS> so that every block is co-resident. */
template <class Prod, class CS>
static int sync_launch(struct xs_cuda_ctx *ctx, struct sync_run *r, int block,
		       int ns, int nc, size_t smem, int32_t n, Prod prod, CS cs)
{
	void *args[] = { &r->bufs, &r->ctl, &ns, &nc, &n, &prod, &cs };
	const void *k = (const void *)xs::sync_kernel<Prod, CS>;

	if (ctx->cooperative)
		return XS_CU(ctx, cudaLaunchCooperativeKernel(k, ns + nc, block,
							      args, smem,
							      ctx->stream));
	/* Without cooperative launch, the occupancy bound of sync_setup()
	 * is what keeps all blocks resident. */
	xs::sync_kernel<Prod, CS><<<ns + nc, block, smem, ctx->stream>>>(
		r->bufs, r->ctl, ns, nc, n, prod, cs);
	return XS_CU(ctx, cudaGetLastError());
}

static int sync_finish(struct xs_cuda_ctx *ctx, struct sync_run *r,
		       struct xs_cuda_sync_opts *o, uint32_t *overflow)
{
	float ms = 0;
	int ret;

	ret = XS_CU(ctx, cudaEventRecord(r->stop, ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaEventSynchronize(r->stop));
	if (!ret)
		ret = XS_CU(ctx, cudaEventElapsedTime(&ms, r->start, r->stop));
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpy(overflow, &r->ctl->overflow,
					    sizeof(*overflow),
					    cudaMemcpyDeviceToHost));
	o->ms = ms;
	return ret;
}

extern "C" int xs_cuda_hash_upsert(struct xs_cuda_ctx *ctx,
				   struct xs_cuda_sync_opts *o,
				   const uint32_t *keys, const int32_t *deltas,
				   int32_t n, int32_t capacity,
				   uint32_t *out_keys, int64_t *out_vals)
{
	const void *kernel = (const void *)xs::sync_kernel<xs::hash_prod, xs::hash_cs>;
	struct sync_run r = {};
	uint32_t *d_in = NULL, *d_keys = NULL, overflow = 0;
	uint32_t *h_keys = NULL;
	int32_t *d_delta = NULL;
	long long *d_vals = NULL;
	int64_t *h_vals = NULL;
	int block = 0, ns = 0, nc = 0, ret;
	size_t smem = 0;
	int32_t i;

	if (!ctx || sync_opts_check(o) || n < 0 || (n && (!keys || !deltas)) ||
	    capacity < 32 || (capacity & (capacity - 1)) || !out_keys ||
	    !out_vals)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (keys[i] == XS_EMPTY_KEY)
			return -EINVAL;
	ret = sync_setup(ctx, o, kernel, &r, &block, &ns, &nc, &smem);
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_in, sizeof(uint32_t) * ((size_t)n + 1)));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_delta, sizeof(int32_t) * ((size_t)n + 1)));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_keys, sizeof(uint32_t) * (size_t)capacity));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_vals, sizeof(long long) * (size_t)capacity));
	if (!ret)
		ret = XS_CU(ctx, cudaMemsetAsync(d_keys, 0xff, sizeof(uint32_t) *
						 (size_t)capacity, ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaMemsetAsync(d_vals, 0, sizeof(long long) *
						 (size_t)capacity, ctx->stream));
	if (!ret && n)
		ret = XS_CU(ctx, cudaMemcpyAsync(d_in, keys, sizeof(uint32_t) * (size_t)n,
						 cudaMemcpyHostToDevice, ctx->stream));
	if (!ret && n)
		ret = XS_CU(ctx, cudaMemcpyAsync(d_delta, deltas,
						 sizeof(int32_t) * (size_t)n,
						 cudaMemcpyHostToDevice, ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaEventRecord(r.start, ctx->stream));
	if (!ret && n && o->mode == XS_CUDA_SYNC_SERVER) {
		xs::hash_prod prod = { d_in, d_delta };
		xs::hash_cs cs = { d_keys, d_vals, &r.ctl->overflow,
			       (uint32_t)capacity / (uint32_t)ns, ns, 0 };

		ret = sync_launch(ctx, &r, block, ns, nc, smem, n, prod, cs);
	} else if (!ret && n) {
		xs::hash_global_lock<<<xs_grid(ctx, n, block), block, 0, ctx->stream>>>(
			d_in, d_delta, n, d_keys, d_vals, (uint32_t)capacity,
			r.locks, &r.ctl->overflow);
		ret = XS_CU(ctx, cudaGetLastError());
	}
	if (!ret)
		ret = sync_finish(ctx, &r, o, &overflow);
	if (!ret && overflow)
		ret = -ENOSPC;
	if (!ret) {
		h_keys = (uint32_t *)malloc(sizeof(uint32_t) * (size_t)capacity);
		h_vals = (int64_t *)malloc(sizeof(int64_t) * (size_t)capacity);
		if (!h_keys || !h_vals)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpy(h_keys, d_keys, sizeof(uint32_t) *
					    (size_t)capacity, cudaMemcpyDeviceToHost));
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpy(h_vals, d_vals, sizeof(int64_t) *
					    (size_t)capacity, cudaMemcpyDeviceToHost));
	if (!ret)
		ret = xs_hash_table_collect(h_keys, h_vals, capacity, out_keys,
					    out_vals);
	free(h_keys);
	free(h_vals);
	cudaFree(d_in);
	cudaFree(d_delta);
	cudaFree(d_keys);
	cudaFree(d_vals);
	sync_run_free(&r);
	return ret;
}

extern "C" int xs_cuda_bank_transfer(struct xs_cuda_ctx *ctx,
				     struct xs_cuda_sync_opts *o,
				     int64_t *balances, int32_t naccounts,
				     const int32_t *from, const int32_t *to,
				     const int32_t *amounts, int32_t n)
{
	const void *kernel = (const void *)xs::sync_kernel<xs::bank_prod, xs::bank_cs>;
	struct sync_run r = {};
	int32_t *d_from = NULL, *d_to = NULL, *d_amt = NULL;
	long long *d_bal = NULL;
	uint32_t overflow = 0;
	size_t smem = 0, ib = sizeof(int32_t) * ((size_t)n + 1);
	size_t bb = sizeof(long long) * (size_t)naccounts;
	int block = 0, ns = 0, nc = 0, ret;
	int32_t i;

	if (!ctx || sync_opts_check(o) || naccounts < 1 || n < 0 || !balances ||
	    (n && (!from || !to || !amounts)))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (from[i] < 0 || from[i] >= naccounts || to[i] < 0 ||
		    to[i] >= naccounts)
			return -EINVAL;
	ret = sync_setup(ctx, o, kernel, &r, &block, &ns, &nc, &smem);
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_from, ib));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_to, ib));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_amt, ib));
	if (!ret)
		ret = XS_CU(ctx, cudaMalloc(&d_bal, bb));
	if (!ret && n)
		ret = XS_CU(ctx, cudaMemcpyAsync(d_from, from, ib - sizeof(int32_t),
						 cudaMemcpyHostToDevice, ctx->stream));
	if (!ret && n)
		ret = XS_CU(ctx, cudaMemcpyAsync(d_to, to, ib - sizeof(int32_t),
						 cudaMemcpyHostToDevice, ctx->stream));
	if (!ret && n)
		ret = XS_CU(ctx, cudaMemcpyAsync(d_amt, amounts, ib - sizeof(int32_t),
						 cudaMemcpyHostToDevice, ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpyAsync(d_bal, balances, bb,
						 cudaMemcpyHostToDevice, ctx->stream));
	if (!ret)
		ret = XS_CU(ctx, cudaEventRecord(r.start, ctx->stream));
	if (!ret && n && o->mode == XS_CUDA_SYNC_SERVER) {
		xs::bank_prod prod = { d_from, d_to, d_amt };
		xs::bank_cs cs = { d_bal, ns, 0 };

		ret = sync_launch(ctx, &r, block, ns, nc, smem, n, prod, cs);
	} else if (!ret && n) {
		xs::bank_global_lock<<<xs_grid(ctx, n, block), block, 0, ctx->stream>>>(
			d_from, d_to, d_amt, n, d_bal, r.locks);
		ret = XS_CU(ctx, cudaGetLastError());
	}
	if (!ret)
		ret = sync_finish(ctx, &r, o, &overflow);
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpy(balances, d_bal, bb,
					    cudaMemcpyDeviceToHost));
	cudaFree(d_from);
	cudaFree(d_to);
	cudaFree(d_amt);
	cudaFree(d_bal);
	sync_run_free(&r);
	return ret;
}
