/* SPDX-License-Identifier: MIT */
/*
 * simt.h - a host emulator of the CUDA device surface that libxsched-cuda's
 * kernels use, so that the very same kernel source (lb_schedules.cuh,
 * msgbuf.cuh, the *_ops.cuh) runs and is checked on a machine without a
 * GPU. Compiled by g++ with -DXS_SIMT; libxsched/cuda/device.cuh includes
 * this file instead of the CUDA headers.
 *
 * Model. Every GPU thread of a launch is a fiber (ucontext) on the calling
 * OS thread. A fiber runs until it reaches a *sync point* - an atomic, a
 * fence, an acquire/release access, __nanosleep, XS_SPIN_WAIT(), a block
 * barrier or a warp collective - where the scheduler switches to a runnable
 * fiber picked at random (seeded: xs_simt_seed()). So every interleaving of
 * sync points is possible, lanes of a warp are never in lock step (as on
 * sm_70+, where code that assumes implicit warp synchrony is a bug), and a
 * run is reproducible from its seed.
 *
 * What it checks, each with a message naming the block, thread and site:
 *   - deadlock: every live fiber waits in a barrier or collective;
 *   - a lane calling a collective with a mask that does not include it,
 *     or whose mask names a lane that has exited;
 *   - a shuffle reading a lane outside the mask;
 *   - livelock: a launch that runs longer than XS_SIMT_TIMEOUT seconds
 *     of CPU time (default 20), with every fiber's last sync point;
 *   - shared memory is filled with 0xa5 at block start, so that a read of
 *     shared memory no thread wrote shows up as garbage.
 *
 * What it does not model: the memory model (fibers of one OS thread see
 * every store at once; the orderings are checked by review and by the GPU
 * tests), timing, and memory spaces (device pointers are host pointers).
 *
 * Blocks. A launch with coresident == false runs its blocks one after the
 * other (as a GPU may); static __shared__ variables, which are plain
 * statics here, are then private to the running block. A coresident launch
 * (cooperative kernels) runs all blocks at once and may use only dynamic
 * shared memory (XS_EXTERN_SHARED).
 */
#ifndef XSCHED_TESTS_SIMT_H
#define XSCHED_TESTS_SIMT_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

/* ------------------------------------------------------------------------ */
/* The emulator                                                             */
/* ------------------------------------------------------------------------ */

struct dim3 {
	unsigned int x, y, z;
};

struct __attribute__((aligned(16))) int4 {
	int x, y, z, w;
};

namespace simt {

/* What device code reads as threadIdx, blockIdx, blockDim and gridDim. */
struct ids {
	dim3 thread_idx, block_idx, block_dim, grid_dim;
};

/* The ids of the running fiber (set by every switch). */
extern ids *current;

/* A sync point: let another fiber run. @site names it for diagnostics. */
void yield(const char *site);
/* __syncthreads(). */
void block_barrier();
/* Rendezvous of the lanes in @mask of the caller's warp; each deposits
 * @v, and every lane gets all 32 deposits in @out (lanes outside the mask
 * read 0). */
void warp_exchange(uint32_t mask, uint64_t v, uint64_t out[32],
		   const char *site);
/* The running block's dynamic shared memory. */
void *dynamic_smem();
unsigned int lane();

struct launch_cfg {
	unsigned int grid, block;
	size_t smem;		/* dynamic shared memory per block */
	bool coresident;	/* all blocks at once */
};

void launch(const launch_cfg &cfg, void (*body)(void *), void *arg);

/* Run @f() as the kernel body of every thread of the launch. */
template <class F>
void launch(const launch_cfg &cfg, F &&f)
{
	typedef typename std::remove_reference<F>::type fn;

	launch(cfg, [](void *p) { (*(fn *)p)(); }, (void *)&f);
}

template <class T>
static inline uint64_t to_bits(T v)
{
	static_assert(sizeof(T) <= 8, "a lane value is at most 8 bytes");
	uint64_t b = 0;

	memcpy(&b, &v, sizeof(v));
	return b;
}

template <class T>
static inline T from_bits(uint64_t b)
{
	T v;

	memcpy(&v, &b, sizeof(v));
	return v;
}

/* Abort the test with a message naming the running fiber. */
[[noreturn]] void fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

} /* namespace simt */

extern "C" void xs_simt_seed(uint64_t seed);

/* ------------------------------------------------------------------------ */
/* The CUDA surface                                                         */
/* ------------------------------------------------------------------------ */

#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(n)
#define __align__(n) alignas(n)
/* Plain statics: private to the block while blocks run one at a time. */
#define __shared__ static

#define threadIdx (simt::current->thread_idx)
#define blockIdx (simt::current->block_idx)
#define blockDim (simt::current->block_dim)
#define gridDim (simt::current->grid_dim)

#define XS_EXTERN_SHARED(type, name) type *name = (type *)simt::dynamic_smem()
#define XS_SPIN_WAIT() simt::yield("XS_SPIN_WAIT")

template <class A, class B>
static inline typename std::common_type<A, B>::type min(A a, B b)
{
	typedef typename std::common_type<A, B>::type t;

	return (t)a < (t)b ? (t)a : (t)b;
}

template <class A, class B>
static inline typename std::common_type<A, B>::type max(A a, B b)
{
	typedef typename std::common_type<A, B>::type t;

	return (t)a > (t)b ? (t)a : (t)b;
}

static inline int __ffs(unsigned int x) { return __builtin_ffs((int)x); }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }

static inline int __float_as_int(float f) { return simt::from_bits<int>(simt::to_bits(f)); }
static inline float __int_as_float(int i) { return simt::from_bits<float>(simt::to_bits(i)); }

template <class T>
static inline T __ldg(const T *p) { return *p; }
template <class T>
static inline T __ldcg(const T *p) { return *p; }

static inline void __syncthreads() { simt::block_barrier(); }
static inline void __threadfence() { simt::yield("__threadfence"); }
static inline void __threadfence_block() { simt::yield("__threadfence_block"); }
static inline void __nanosleep(unsigned int) { simt::yield("__nanosleep"); }

static inline void __syncwarp(unsigned int mask = 0xffffffffu)
{
	uint64_t all[32];

	simt::warp_exchange(mask, 0, all, "__syncwarp");
}

template <class T>
static inline T __shfl_sync(unsigned int mask, T v, int src, int width = 32)
{
	uint64_t all[32];
	unsigned int l = simt::lane();
	unsigned int s = (l & ~(unsigned int)(width - 1)) +
			 ((unsigned int)src & (unsigned int)(width - 1));

	simt::warp_exchange(mask, simt::to_bits(v), all, "__shfl_sync");
	if (!(mask >> s & 1))
		simt::fail("__shfl_sync reads lane %u outside mask %#x", s, mask);
	return simt::from_bits<T>(all[s]);
}

template <class T>
static inline T __shfl_down_sync(unsigned int mask, T v, unsigned int d,
				 int width = 32)
{
	uint64_t all[32];
	unsigned int l = simt::lane(), s = l + d;
	unsigned int seg = l & ~(unsigned int)(width - 1);

	simt::warp_exchange(mask, simt::to_bits(v), all, "__shfl_down_sync");
	if (s >= seg + (unsigned int)width)
		return v;	/* past the segment: the lane keeps its value */
	if (!(mask >> s & 1))
		simt::fail("__shfl_down_sync reads lane %u outside mask %#x", s,
			   mask);
	return simt::from_bits<T>(all[s]);
}

static inline unsigned int __ballot_sync(unsigned int mask, int pred)
{
	uint64_t all[32];
	unsigned int r = 0;

	simt::warp_exchange(mask, pred != 0, all, "__ballot_sync");
	for (int i = 0; i < 32; i++)
		if ((mask >> i & 1) && all[i])
			r |= 1u << i;
	return r;
}

static inline int __any_sync(unsigned int mask, int pred)
{
	return __ballot_sync(mask, pred) != 0;
}

static inline int __all_sync(unsigned int mask, int pred)
{
	return __ballot_sync(mask, pred) == mask;
}

/* Atomics: one fiber runs at a time, so a read-modify-write between two
 * sync points is atomic; the yield before it is the interleaving point. */
#define XS_SIMT_RMW(name, expr)                                            \
	template <class T, class U>                                        \
	static inline T name(T *p, U u)                                    \
	{                                                                  \
		T old, v = (T)u;                                           \
                                                                           \
		simt::yield(#name);                                        \
		old = *p;                                                  \
		*p = (expr);                                               \
		return old;                                                \
	}

XS_SIMT_RMW(atomicAdd, old + v)
XS_SIMT_RMW(atomicSub, old - v)
XS_SIMT_RMW(atomicExch, v)
XS_SIMT_RMW(atomicMin, v < old ? v : old)
XS_SIMT_RMW(atomicMax, v > old ? v : old)
XS_SIMT_RMW(atomicOr, old | v)
XS_SIMT_RMW(atomicAnd, old & v)

#undef XS_SIMT_RMW

template <class T, class U, class V>
static inline T atomicCAS(T *p, U expected, V desired)
{
	T old;

	simt::yield("atomicCAS");
	old = *p;
	if (old == (T)expected)
		*p = (T)desired;
	return old;
}

/* cooperative_groups: the block and tiles of up to a warp. */
namespace cooperative_groups {

struct thread_block {
	void sync() const { simt::block_barrier(); }
	unsigned int size() const { return blockDim.x; }
	unsigned int thread_rank() const { return threadIdx.x; }
};

struct thread_group {
	unsigned int n;		/* threads per tile, a power of two <= 32 */

	unsigned int size() const { return n; }
	unsigned int thread_rank() const { return simt::lane() % n; }
	void sync() const
	{
		uint64_t all[32];
		unsigned int base = simt::lane() / n * n;
		uint32_t mask = n == 32 ? 0xffffffffu : ((1u << n) - 1) << base;

		simt::warp_exchange(mask, 0, all, "thread_group::sync");
	}
};

static inline thread_block this_thread_block() { return thread_block(); }

static inline thread_group tiled_partition(const thread_block &, unsigned int n)
{
	if (n == 0 || n > 32 || (n & (n - 1)))
		simt::fail("tiled_partition(%u): not a power of two <= 32", n);
	return thread_group{ n };
}

} /* namespace cooperative_groups */

#endif /* XSCHED_TESTS_SIMT_H */
