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

#include "internal.cuh"
#include "msgbuf.cuh"

#define XS_EMPTY_KEY 0xffffffffu
#define XS_GLOBAL_LOCKS (1u << 16)

namespace {

__device__ __forceinline__ uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

/* Upsert into region [base, base + region); all callers of one key are
 * serialized by that key's lock, so the value update needs no atomic; the
 * key claim does, because keys of other locks probe the same slots.
 * volatile: the baseline's next lock holder may run on another SM. */
__device__ void hash_upsert_cs(uint32_t *keys, long long *vals, uint32_t base,
			       uint32_t region, uint32_t h, uint32_t key,
			       int32_t delta, uint32_t *overflow)
{
	volatile uint32_t *vk = keys;
	volatile long long *vv = vals;

	for (uint32_t p = 0; p < region; p++) {
		uint32_t s = base + (h + p) % region;
		uint32_t k = vk[s];

		if (k == XS_EMPTY_KEY) {
			/* Claim the slot; a lost race returns the winner's
			 * key, which never changes again. */
			uint32_t prev = atomicCAS(&keys[s], XS_EMPTY_KEY, key);

			k = prev == XS_EMPTY_KEY ? key : prev;
		}
		if (k == key) {
			vv[s] = vv[s] + delta;
			return;
		}
	}
	atomicOr(overflow, 1);
}

struct hash_prod {
	const uint32_t *keys;
	const int32_t *deltas;

	__device__ int operator()(int64_t i, xs::msg *m) const
	{
		m[0].id = keys[i];
		m[0].arg = deltas[i];
		m[0].op = 0;
		return 1;
	}
};

struct hash_cs {
	uint32_t *keys;
	long long *vals;
	uint32_t *overflow;
	uint32_t region;
	int32_t ns;
	int32_t server;		/* set by the kernel */

	__device__ uint32_t lock_of(const xs::msg &m) const
	{
		return (m.id / ns) % XS_SYNC_LOCKS;
	}

	__device__ void operator()(const xs::msg &m) const
	{
		hash_upsert_cs(keys, vals, server * region, region,
			       mix32(m.id / ns) % region, m.id, m.arg,
			       overflow);
	}
};

struct bank_prod {
	const int32_t *from, *to, *amount;

	__device__ int operator()(int64_t i, xs::msg *m) const
	{
		m[0].id = from[i];
		m[0].arg = -amount[i];
		m[1].id = to[i];
		m[1].arg = amount[i];
		return 2;
	}
};

struct bank_cs {
	long long *bal;
	int32_t ns;
	int32_t server;

	__device__ uint32_t lock_of(const xs::msg &m) const
	{
		return (m.id / ns) % XS_SYNC_LOCKS;
	}

	__device__ void operator()(const xs::msg &m) const
	{
		volatile long long *vb = bal;

		vb[m.id] = vb[m.id] + m.arg;
	}
};

/* Global spin lock. sm_70+ schedules diverged lanes independently, so the
 * holder progresses even when lanes of its warp spin. */
__device__ __forceinline__ void glock(uint32_t *l)
{
	while (atomicCAS(l, 0, 1) != 0)
		__nanosleep(32);
	/* Acquire: the previous holder's writes (before its fence) are
	 * visible to the critical section. */
	__threadfence();
}

__device__ __forceinline__ void gunlock(uint32_t *l)
{
	/* Release: the critical section's writes before the unlock. */
	__threadfence();
	atomicExch(l, 0);
}

__global__ void hash_global_lock(const uint32_t *in_keys, const int32_t *deltas,
				 int32_t n, uint32_t *keys, long long *vals,
				 uint32_t capacity, uint32_t *locks,
				 uint32_t *overflow)
{
	for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x) {
		uint32_t key = in_keys[i];
		uint32_t *l = &locks[mix32(key) % XS_GLOBAL_LOCKS];

		glock(l);
		hash_upsert_cs(keys, vals, 0, capacity, mix32(key) % capacity,
			       key, deltas[i], overflow);
		gunlock(l);
	}
}

__global__ void bank_global_lock(const int32_t *from, const int32_t *to,
				 const int32_t *amount, int32_t n,
				 long long *bal, uint32_t *locks)
{
	volatile long long *vb = bal;

	for (int32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x) {
		uint32_t a = from[i] % XS_GLOBAL_LOCKS;
		uint32_t b = to[i] % XS_GLOBAL_LOCKS;
		uint32_t lo = min(a, b), hi = max(a, b);

		glock(&locks[lo]);	/* in index order: no deadlock */
		if (hi != lo)
			glock(&locks[hi]);
		vb[from[i]] = vb[from[i]] - amount[i];
		vb[to[i]] = vb[to[i]] + amount[i];
		if (hi != lo)
			gunlock(&locks[hi]);
		gunlock(&locks[lo]);
	}
}

} /* namespace */

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

struct pair {
	uint32_t k;
	int64_t v;
};

static int pair_cmp(const void *a, const void *b)
{
	const struct pair *x = (const struct pair *)a, *y = (const struct pair *)b;

	return (x->k > y->k) - (x->k < y->k);
}

extern "C" int xs_cuda_hash_upsert(struct xs_cuda_ctx *ctx,
				   struct xs_cuda_sync_opts *o,
				   const uint32_t *keys, const int32_t *deltas,
				   int32_t n, int32_t capacity,
				   uint32_t *out_keys, int64_t *out_vals)
{
	const void *kernel = (const void *)xs::sync_kernel<hash_prod, hash_cs>;
	struct sync_run r = {};
	uint32_t *d_in = NULL, *d_keys = NULL, overflow = 0;
	uint32_t *h_keys = NULL;
	int32_t *d_delta = NULL;
	long long *d_vals = NULL, *h_vals = NULL;
	struct pair *pairs = NULL;
	int block = 0, ns = 0, nc = 0, ret;
	size_t smem = 0;
	int32_t i, m = 0;

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
		hash_prod prod = { d_in, d_delta };
		hash_cs cs = { d_keys, d_vals, &r.ctl->overflow,
			       (uint32_t)capacity / (uint32_t)ns, ns, 0 };

		ret = sync_launch(ctx, &r, block, ns, nc, smem, n, prod, cs);
	} else if (!ret && n) {
		hash_global_lock<<<xs_grid(ctx, n, block), block, 0, ctx->stream>>>(
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
		h_vals = (long long *)malloc(sizeof(long long) * (size_t)capacity);
		pairs = (struct pair *)malloc(sizeof(struct pair) * (size_t)capacity);
		if (!h_keys || !h_vals || !pairs)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpy(h_keys, d_keys, sizeof(uint32_t) *
					    (size_t)capacity, cudaMemcpyDeviceToHost));
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpy(h_vals, d_vals, sizeof(long long) *
					    (size_t)capacity, cudaMemcpyDeviceToHost));
	if (!ret) {
		for (i = 0; i < capacity; i++)
			if (h_keys[i] != XS_EMPTY_KEY)
				pairs[m++] = (struct pair){ h_keys[i], h_vals[i] };
		qsort(pairs, (size_t)m, sizeof(*pairs), pair_cmp);
		for (i = 0; i < m; i++) {
			out_keys[i] = pairs[i].k;
			out_vals[i] = pairs[i].v;
		}
	}
	free(h_keys);
	free(h_vals);
	free(pairs);
	cudaFree(d_in);
	cudaFree(d_delta);
	cudaFree(d_keys);
	cudaFree(d_vals);
	sync_run_free(&r);
	return ret ? ret : m;
}

extern "C" int xs_cuda_bank_transfer(struct xs_cuda_ctx *ctx,
				     struct xs_cuda_sync_opts *o,
				     int64_t *balances, int32_t naccounts,
				     const int32_t *from, const int32_t *to,
				     const int32_t *amounts, int32_t n)
{
	const void *kernel = (const void *)xs::sync_kernel<bank_prod, bank_cs>;
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
		bank_prod prod = { d_from, d_to, d_amt };
		bank_cs cs = { d_bal, ns, 0 };

		ret = sync_launch(ctx, &r, block, ns, nc, smem, n, prod, cs);
	} else if (!ret && n) {
		bank_global_lock<<<xs_grid(ctx, n, block), block, 0, ctx->stream>>>(
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
