/* SPDX-License-Identifier: MIT */
/*
 * sync_ops.cuh - the device code of the synchronization server's two
 * applications (hash table, bank transfers): their message producers and
 * critical sections for msgbuf.cuh's server, and the global-lock baseline
 * kernels that run the same critical sections. sync_server.cu launches
 * them; the host SIMT emulator of the tests runs the same code.
 */
#ifndef XSCHED_CUDA_SYNC_OPS_CUH
#define XSCHED_CUDA_SYNC_OPS_CUH

#include <stdint.h>

#include "device.cuh"
#include "hash_table.h"
#include "msgbuf.cuh"

#define XS_GLOBAL_LOCKS (1u << 16)

namespace xs {

static __device__ __forceinline__ uint32_t mix32(uint32_t x)
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
static __device__ void hash_upsert_cs(uint32_t *keys, long long *vals, uint32_t base,
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

	__device__ int operator()(int64_t i, msg *m) const
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

	__device__ uint32_t lock_of(const msg &m) const
	{
		return (m.id / ns) % XS_SYNC_LOCKS;
	}

	__device__ void operator()(const msg &m) const
	{
		hash_upsert_cs(keys, vals, server * region, region,
			       mix32(m.id / ns) % region, m.id, m.arg,
			       overflow);
	}
};

struct bank_prod {
	const int32_t *from, *to, *amount;

	__device__ int operator()(int64_t i, msg *m) const
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

	__device__ uint32_t lock_of(const msg &m) const
	{
		return (m.id / ns) % XS_SYNC_LOCKS;
	}

	__device__ void operator()(const msg &m) const
	{
		volatile long long *vb = bal;

		vb[m.id] = vb[m.id] + m.arg;
	}
};

/* Global spin lock, the baseline the server is measured against, built
 * the way a careful user would: test before test-and-set (waiters read the
 * word and try the atomic only when it looks free) and exponential backoff
 * up to XS_GLOCK_BACKOFF_MAX_NS. With a plain CAS loop every waiter of the
 * whole grid queues an atomic on the same L2 line, and the holder's
 * release waits behind them: on an H200, 2^19 transfers between 4
 * accounts did not finish in 30 s. sm_70+ schedules diverged lanes
 * independently, so the holder progresses even when lanes of its warp
 * spin. */
#define XS_GLOCK_BACKOFF_MAX_NS 2048u

static __device__ __forceinline__ void glock(uint32_t *l)
{
	volatile uint32_t *word = l;
	unsigned int backoff = 32;

	while (*word != 0 || atomicCAS(l, 0, 1) != 0) {
		__nanosleep(backoff);
		if (backoff < XS_GLOCK_BACKOFF_MAX_NS)
			backoff *= 2;
	}
	/* Acquire: the previous holder's writes (before its fence) are
	 * visible to the critical section. */
	__threadfence();
}

static __device__ __forceinline__ void gunlock(uint32_t *l)
{
	/* Release: the critical section's writes before the unlock. */
	__threadfence();
	atomicExch(l, 0);
}

static __global__ void hash_global_lock(const uint32_t *in_keys, const int32_t *deltas,
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

static __global__ void bank_global_lock(const int32_t *from, const int32_t *to,
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

} /* namespace xs */

#endif /* XSCHED_CUDA_SYNC_OPS_CUH */
