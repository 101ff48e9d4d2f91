/* SPDX-License-Identifier: MIT */
/*
 * atomics.cuh - named memory-ordering wrappers for device code. Every use
 * says what it publishes or observes and what it pairs with.
 *
 * GPU scope (.gpu) because producers and consumers are thread blocks that
 * may sit on different SMs, whose L1 caches are not coherent: plain loads
 * of shared global state could be served stale from L1, so such loads are
 * either these acquire loads or volatile.
 */
#ifndef XSCHED_CUDA_ATOMICS_CUH
#define XSCHED_CUDA_ATOMICS_CUH

#include <stdint.h>

#include "device.cuh"

namespace xs {

#ifdef XS_SIMT
/* The host SIMT emulator: a sync point, then a plain access (its fibers
 * share one OS thread, so every store is visible at once). */
static inline uint32_t ld_acquire(const uint32_t *p)
{
	simt::yield("ld_acquire");
	return *(const volatile uint32_t *)p;
}

static inline void st_release(uint32_t *p, uint32_t v)
{
	simt::yield("st_release");
	*(volatile uint32_t *)p = v;
}

static inline uint32_t ld_relaxed(const uint32_t *p)
{
	simt::yield("ld_relaxed");
	return *(const volatile uint32_t *)p;
}
#else

static __device__ __forceinline__ uint32_t ld_acquire(const uint32_t *p)
{
	uint32_t v;

	asm volatile("ld.acquire.gpu.global.u32 %0, [%1];"
		     : "=r"(v) : "l"(p) : "memory");
	return v;
}

static __device__ __forceinline__ void st_release(uint32_t *p, uint32_t v)
{
	asm volatile("st.release.gpu.global.u32 [%0], %1;"
		     :: "l"(p), "r"(v) : "memory");
}

/* A relaxed GPU-scope load: never served stale from L1, no ordering. */
static __device__ __forceinline__ uint32_t ld_relaxed(const uint32_t *p)
{
	uint32_t v;

	asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];"
		     : "=r"(v) : "l"(p) : "memory");
	return v;
}

#endif /* XS_SIMT */

} /* namespace xs */

#endif /* XSCHED_CUDA_ATOMICS_CUH */
