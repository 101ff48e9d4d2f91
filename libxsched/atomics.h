/* SPDX-License-Identifier: MIT */
/*
 * atomics.h - named wrappers over C11 atomics.
 *
 * Every shared access in libxsched goes through one of these, so that the
 * ordering it needs is spelled out at the call site and can be grepped for.
 * The comment at each call site says what the access publishes or observes
 * and which access it pairs with.
 */
#ifndef XSCHED_ATOMICS_H
#define XSCHED_ATOMICS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define XS_CACHE_LINE 64
#define xs_cache_aligned _Alignas(XS_CACHE_LINE)

/* Memory that starts on a cache line; aligned_alloc() wants the size to be
 * a multiple of the alignment, so round it up. */
static inline void *xs_alloc_cache_aligned(size_t size)
{
	return aligned_alloc(XS_CACHE_LINE, (size + XS_CACHE_LINE - 1) & ~(size_t)(XS_CACHE_LINE - 1));
}

#define xs_likely(x) __builtin_expect(!!(x), 1)
#define xs_unlikely(x) __builtin_expect(!!(x), 0)

#define xs_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define xs_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define xs_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define xs_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define xs_exchange_acq_rel(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define xs_fetch_add_release(p, v) atomic_fetch_add_explicit((p), (v), memory_order_release)
#define xs_cas_acquire(p, expected, desired)                                       \
	atomic_compare_exchange_strong_explicit((p), (expected), (desired),        \
						memory_order_acquire, memory_order_relaxed)
/* Relaxed loads and stores of memory that is not _Atomic: the structs of
 * xsched/abi.h, which other processes (or the kernel) write. */
#define xs_load_relaxed_plain(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define xs_store_relaxed_plain(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define xs_cas_weak_release(p, expected, desired)                                  \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired),          \
					      memory_order_release, memory_order_relaxed)

/* Fences. xs_fence_seq_cst() orders everything before against
 * everything after on this CPU; xs_fence_compiler() only stops the compiler
 * (used where a membarrier() on the other side supplies the CPU fence). */
#define xs_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)
/* Acquire fence: loads before it (a system call's included, as pread's
 * copy of a shared file) are ordered before every access after it. */
#define xs_fence_acquire() atomic_thread_fence(memory_order_acquire)
#define xs_fence_compiler() atomic_signal_fence(memory_order_seq_cst)

/*
 * Owner-written counter: only the owning worker ever writes it, readers on
 * other threads (statistics, xsched-top) take relaxed snapshots. A relaxed
 * load + store is enough (no read-modify-write) because there is one writer.
 */
typedef _Atomic uint64_t xs_counter_t;

static inline void xs_counter_add(xs_counter_t *c, uint64_t n)
{
	xs_store_relaxed(c, xs_load_relaxed(c) + n);
}

static inline void xs_counter_inc(xs_counter_t *c)
{
	xs_counter_add(c, 1);
}

static inline void xs_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	xs_fence_compiler();
#endif
}

#endif /* XSCHED_ATOMICS_H */
