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

/*
 * Names: xs_<operation>_<order>. A compare-exchange names its success
 * order; it fails with that order's load half, as C++'s one-order
 * compare_exchange does (relaxed and release fail relaxed, acquire and
 * acq_rel fail acquire), unless a second order names the failure's
 * (xs_cas_weak_release_acquire: release on success, acquire on failure).
 * Weak CASes may fail spuriously and belong in loops. Every call site says
 * what the access publishes or observes and the access it pairs with.
 *
 * Two families:
 *  - xs_load_*, xs_store_*, xs_exchange_*, xs_fetch_*, xs_cas_*,
 *    xs_flag_*: on _Atomic objects (C11 <stdatomic.h>);
 *  - xs_plain_*: the same on a plain (not _Atomic) object that its owner
 *    also reads and writes with ordinary accesses, e.g. a deque's top:
 *    an _Atomic would turn every owner access into a seq_cst one. They
 *    use the compiler's __atomic builtins, which C11's macros do not
 *    accept on plain objects under clang.
 */

/* Loads and stores. */
#define xs_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define xs_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define xs_load_seq_cst(p) atomic_load_explicit((p), memory_order_seq_cst)
#define xs_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define xs_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define xs_store_seq_cst(p, v) atomic_store_explicit((p), (v), memory_order_seq_cst)

/* Exchange. */
#define xs_exchange_relaxed(p, v) atomic_exchange_explicit((p), (v), memory_order_relaxed)
#define xs_exchange_acquire(p, v) atomic_exchange_explicit((p), (v), memory_order_acquire)
#define xs_exchange_release(p, v) atomic_exchange_explicit((p), (v), memory_order_release)
#define xs_exchange_acq_rel(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)

/* Read-modify-write arithmetic and bits; each returns the old value. */
#define xs_fetch_add_relaxed(p, v) atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#define xs_fetch_add_release(p, v) atomic_fetch_add_explicit((p), (v), memory_order_release)
#define xs_fetch_add_acq_rel(p, v) atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define xs_fetch_add_seq_cst(p, v) atomic_fetch_add_explicit((p), (v), memory_order_seq_cst)
#define xs_fetch_sub_relaxed(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_relaxed)
#define xs_fetch_sub_release(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_release)
#define xs_fetch_sub_acq_rel(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_acq_rel)
#define xs_fetch_or_relaxed(p, v) atomic_fetch_or_explicit((p), (v), memory_order_relaxed)
#define xs_fetch_or_release(p, v) atomic_fetch_or_explicit((p), (v), memory_order_release)
#define xs_fetch_and_relaxed(p, v) atomic_fetch_and_explicit((p), (v), memory_order_relaxed)
#define xs_fetch_and_acquire(p, v) atomic_fetch_and_explicit((p), (v), memory_order_acquire)
#define xs_fetch_and_release(p, v) atomic_fetch_and_explicit((p), (v), memory_order_release)

/* Compare-exchange: true if *p was *expected and is now desired; else
 * *expected is what *p held. */
#define xs_cas_weak_relaxed(p, expected, desired)                                  \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired),          \
					      memory_order_relaxed, memory_order_relaxed)
#define xs_cas_weak_release(p, expected, desired)                                  \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired),          \
					      memory_order_release, memory_order_relaxed)
#define xs_cas_weak_release_acquire(p, expected, desired)                          \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired),          \
					      memory_order_release, memory_order_acquire)
#define xs_cas_weak_acquire(p, expected, desired)                                  \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired),          \
					      memory_order_acquire, memory_order_acquire)
#define xs_cas_weak_acq_rel(p, expected, desired)                                  \
	atomic_compare_exchange_weak_explicit((p), (expected), (desired),          \
					      memory_order_acq_rel, memory_order_acquire)
#define xs_cas_strong_relaxed(p, expected, desired)                                \
	atomic_compare_exchange_strong_explicit((p), (expected), (desired),        \
						memory_order_relaxed, memory_order_relaxed)
#define xs_cas_strong_acquire(p, expected, desired)                                \
	atomic_compare_exchange_strong_explicit((p), (expected), (desired),        \
						memory_order_acquire, memory_order_acquire)
#define xs_cas_strong_acquire_relaxed(p, expected, desired)                        \
	atomic_compare_exchange_strong_explicit((p), (expected), (desired),        \
						memory_order_acquire, memory_order_relaxed)
#define xs_cas_strong_acq_rel(p, expected, desired)                                \
	atomic_compare_exchange_strong_explicit((p), (expected), (desired),        \
						memory_order_acq_rel, memory_order_acquire)
#define xs_cas_strong_seq_cst(p, expected, desired)                                \
	atomic_compare_exchange_strong_explicit((p), (expected), (desired),        \
						memory_order_seq_cst, memory_order_seq_cst)

/* atomic_flag: a test-and-set spin lock's word. */
typedef atomic_flag xs_flag_t;
#define XS_FLAG_INIT ATOMIC_FLAG_INIT
#define xs_flag_test_and_set_acquire(f)                                            \
	atomic_flag_test_and_set_explicit((f), memory_order_acquire)
#define xs_flag_clear_relaxed(f) atomic_flag_clear_explicit((f), memory_order_relaxed)
#define xs_flag_clear_release(f) atomic_flag_clear_explicit((f), memory_order_release)

/* The same on plain (not _Atomic) objects, see above. */
#define xs_plain_load_relaxed(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define xs_plain_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define xs_plain_store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define xs_plain_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define xs_plain_fetch_or_relaxed(p, v) __atomic_fetch_or((p), (v), __ATOMIC_RELAXED)
#define xs_plain_fetch_and_relaxed(p, v) __atomic_fetch_and((p), (v), __ATOMIC_RELAXED)
#define xs_plain_fetch_and_release(p, v) __atomic_fetch_and((p), (v), __ATOMIC_RELEASE)
#define xs_plain_cas_strong_relaxed(p, expected, desired)                          \
	__atomic_compare_exchange_n((p), (expected), (desired), 0, __ATOMIC_RELAXED, \
				    __ATOMIC_RELAXED)
#define xs_plain_cas_strong_acq_rel_relaxed(p, expected, desired)                  \
	__atomic_compare_exchange_n((p), (expected), (desired), 0, __ATOMIC_ACQ_REL, \
				    __ATOMIC_RELAXED)

/* Fences. xs_fence_seq_cst() orders everything before against
 * everything after on this CPU; xs_fence_acquire() makes the relaxed loads
 * before it acquire loads, xs_fence_release() the relaxed stores after it
 * release stores; xs_fence_compiler() only stops the compiler (used where
 * a membarrier() on the other side supplies the CPU fence). */
#define xs_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)
#define xs_fence_acquire() atomic_thread_fence(memory_order_acquire)
#define xs_fence_release() atomic_thread_fence(memory_order_release)
#define xs_fence_compiler() atomic_signal_fence(memory_order_seq_cst)

/*
 * Owner-written count: only the owning thread ever writes it, readers on
 * other threads take relaxed snapshots. A relaxed load + store is enough (no
 * read-modify-write) because there is one writer. The barrier's termination
 * counts (core/barrier.h) and the few counts the scheduler itself reads back
 * are of this kind and always counted.
 */
typedef _Atomic uint64_t xs_owned_t;

static inline void xs_owned_add(xs_owned_t *c, uint64_t n)
{
	/* Relaxed: one writer; readers want a snapshot, not an order. */
	xs_store_relaxed(c, xs_load_relaxed(c) + n);
}

static inline void xs_owned_inc(xs_owned_t *c)
{
	xs_owned_add(c, 1);
}

/*
 * Statistics counter: an owner-written count that only statistics read
 * (obs/, XSCHED_SHOW_STATS, the stats page, the profile). -DXS_NO_STATS
 * compiles the increments out (they read as 0): nothing the scheduler
 * decides may depend on one (`make check-nostats` runs the termination
 * tests so).
 */
typedef xs_owned_t xs_counter_t;

static inline void xs_counter_add(xs_counter_t *c, uint64_t n)
{
#ifdef XS_NO_STATS
	(void)c;
	(void)n;
#else
	xs_owned_add(c, n);
#endif
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
