// SPDX-License-Identifier: MIT
/*
 * lock.c - critical, atomic and the omp_*_lock API on one futex mutex.
 *
 * The mutex word is 0 (free), 1 (held) or 2 (held, maybe waiters): Drepper's
 * "futexes are tricky" mutex 2. Acquire on taking it, release on giving it
 * back. A waiter spins (xg_mutex_spin_ns(): at least 1 ms in a runtime
 * that spins at all), then sleeps on the futex with a timeout, answering
 * load-balancing requests between sleeps (and between looks while it
 * spins): a worker blocked here still lets thieves take the tasks queued
 * on it (with XSCHED_DLB=ws, rp or auto), so a task it holds cannot be
 * stranded behind the lock.
 *
 * omp_lock_t is 4 bytes (the word); omp_nest_lock_t is 16: the word, the
 * nesting count and the owning task. Unnamed critical sections share one
 * mutex; a named one uses the pointer-sized variable gcc passes for it,
 * zero-initialised, as its word.
 */
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gomp.h"
#include "ext.h"
#include "ompt.h"

typedef _Atomic uint32_t xg_mutex_t;

static void xg_futex_wait(xg_mutex_t *m, uint32_t val)
{
	struct timespec ts = { 0, 1000000 }; /* 1 ms: then serve requests */

	syscall(SYS_futex, m, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
}

static void xg_futex_wake(xg_mutex_t *m)
{
	syscall(SYS_futex, m, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline bool xg_mutex_trylock(xg_mutex_t *m)
{
	uint32_t free_ = 0;

	/* Acquire pairs with xg_mutex_unlock()'s release. */
	return xs_cas_strong_acquire_relaxed(m, &free_, 1);
}

/*
 * How long a waiter spins before it sleeps. Sleeping is not free for the
 * holder: while the word says 2 every unlock is a FUTEX_WAKE system call,
 * and the word says 2 from the first sleeper on until the lock is next
 * free with nobody asleep. A test-and-set lock fought over back to back
 * (EPCC's critical at 16 threads) is not fair: its last holder, whose
 * cache has the line, takes it again more often than not, and a waiter
 * can lose for tens of microseconds while the lock keeps moving. A waiter
 * that slept after the runtime's spin window (XSCHED_SPIN_US, 50 us) would
 * make every later section pay a system call (2.4x libgomp's critical at
 * 16 threads, docs/perf/sync.md); libgomp's waiter spins 300000 pauses
 * (milliseconds). So a lock waiter spins at least XG_MUTEX_SPIN_NS (1 ms,
 * which reaches libgomp's figure at 16 threads where 200 us does not),
 * more if the runtime's window is longer, and starts its window again
 * whenever it sees the lock free, since the holders then make progress.
 * It waits for a holder that runs (the runtime has no more workers than
 * CPUs), not for work that may never come as an idle worker does, so the
 * spin is short unless a section is long. Under OMP_WAIT_POLICY=passive
 * (a window of 0), outside any runtime, and in a runtime of more workers
 * than CPUs (the holder may be waiting for this CPU), a waiter spins a few
 * hundred looks (XG_MUTEX_SPINS) only.
 */
#define XG_MUTEX_SPINS 200
#define XG_MUTEX_SPIN_NS 1000000

static uint64_t xg_mutex_spin_ns(void)
{
	struct xs_worker *w = xs_self;

	if (!w || w->rt->oversubscribed || !w->rt->spin_ns)
		return 0;
	return w->rt->spin_ns > XG_MUTEX_SPIN_NS ? w->rt->spin_ns : XG_MUTEX_SPIN_NS;
}

static void xg_mutex_lock_slow(xg_mutex_t *m)
{
	uint64_t spin_ns = xg_mutex_spin_ns(), since = 0;

	for (uint32_t i = 1;; i++) {
		/* Relaxed peek; the trylock's CAS is what acquires. */
		if (xs_load_relaxed(m) == 0) {
			if (xg_mutex_trylock(m))
				return;
			since = 0;	/* it was free: the window starts again */
		}
		xs_cpu_relax();
		if (i < XG_MUTEX_SPINS || i % 64)
			continue;
		if (!spin_ns)
			break;
		if (!since)
			since = xs_now_ns();
		else if (xs_now_ns() - since >= spin_ns)
			break;
		/* A spinning worker still hands out its queued tasks. */
		if (xs_self)
			xs_dlb_poll(xs_self);
	}
	/* Acquire on the exchange that finds the word free. */
	while (xs_exchange_acquire(m, 2) != 0) {
		if (xs_self)
			xs_dlb_poll(xs_self);
		xg_futex_wait(m, 2);
	}
}

static inline void xg_mutex_lock(xg_mutex_t *m)
{
	if (xs_unlikely(!xg_mutex_trylock(m)))
		xg_mutex_lock_slow(m);
}

static inline void xg_mutex_unlock(xg_mutex_t *m)
{
	/* Release: the critical section happens-before the next owner's. */
	if (xs_exchange_release(m, 0) == 2)
		xg_futex_wake(m);
}

/* Each on a line of its own: the lock's line moves between the threads
 * that fight over it, and any other variable on it (the team pool's head,
 * the other lock) would move with it. */
static xs_cache_aligned xg_mutex_t xg_critical_lock;
static xs_cache_aligned xg_mutex_t xg_atomic_lock;

XG_EXPORT void GOMP_critical_start(void)
{
	XG_OMPT(acquire(&xg_critical_lock, XG_OMPT_CRITICAL));
	xg_mutex_lock(&xg_critical_lock);
	XG_OMPT(acquired(&xg_critical_lock, XG_OMPT_CRITICAL));
}

XG_EXPORT void GOMP_critical_end(void)
{
	xg_mutex_unlock(&xg_critical_lock);
	XG_OMPT(released(&xg_critical_lock, XG_OMPT_CRITICAL));
}

_Static_assert(sizeof(void *) >= sizeof(xg_mutex_t), "a named critical's word fits its variable");

XG_EXPORT void GOMP_critical_name_start(void **pptr)
{
	XG_OMPT(acquire(pptr, XG_OMPT_CRITICAL));
	xg_mutex_lock((xg_mutex_t *)pptr);
	XG_OMPT(acquired(pptr, XG_OMPT_CRITICAL));
}

XG_EXPORT void GOMP_critical_name_end(void **pptr)
{
	xg_mutex_unlock((xg_mutex_t *)pptr);
	XG_OMPT(released(pptr, XG_OMPT_CRITICAL));
}

XG_EXPORT void GOMP_atomic_start(void)
{
	XG_OMPT(acquire(&xg_atomic_lock, XG_OMPT_ATOMIC));
	xg_mutex_lock(&xg_atomic_lock);
	XG_OMPT(acquired(&xg_atomic_lock, XG_OMPT_ATOMIC));
}

XG_EXPORT void GOMP_atomic_end(void)
{
	xg_mutex_unlock(&xg_atomic_lock);
	XG_OMPT(released(&xg_atomic_lock, XG_OMPT_ATOMIC));
}

/* ---------------------------------------------------------------- */
/* omp_lock_t, omp_nest_lock_t (the OpenMP 3.0 ABI: OMP_3.0 versions) */

typedef struct { xg_mutex_t word; } xg_lock_t;
typedef struct {
	xg_mutex_t word;
	uint32_t count;      /* nesting depth; written by the owner only */
	void *owner;         /* owning task context; read racily by others */
} xg_nest_lock_t;

_Static_assert(sizeof(xg_lock_t) == 4, "omp_lock_t is 4 bytes in gcc's omp.h");
_Static_assert(sizeof(xg_nest_lock_t) == 16, "omp_nest_lock_t is 16 bytes in gcc's omp.h");

/* Initialisation is relaxed: a lock is published to other threads the way
 * any shared variable is (the region or task that hands it over). */
XG_EXPORT void omp_init_lock(xg_lock_t *l)
{
	xs_store_relaxed(&l->word, 0);
	XG_OMPT(lock_init(l, XG_OMPT_LOCK));
}

XG_EXPORT void omp_destroy_lock(xg_lock_t *l)
{
	(void)l;
	XG_OMPT(lock_destroy(l, XG_OMPT_LOCK));
}

XG_EXPORT void omp_set_lock(xg_lock_t *l)
{
	XG_OMPT(acquire(l, XG_OMPT_LOCK));
	xg_mutex_lock(&l->word);
	XG_OMPT(acquired(l, XG_OMPT_LOCK));
}

XG_EXPORT void omp_unset_lock(xg_lock_t *l)
{
	XG_OMPT(released(l, XG_OMPT_LOCK));
	xg_mutex_unlock(&l->word);
}

XG_EXPORT int omp_test_lock(xg_lock_t *l)
{
	return XG_OMPT_TESTED(xg_mutex_trylock(&l->word), l, XG_OMPT_TEST_LOCK);
}

XG_EXPORT void omp_init_nest_lock(xg_nest_lock_t *l)
{
	xs_store_relaxed(&l->word, 0);
	l->count = 0;
	l->owner = NULL;
	XG_OMPT(lock_init(l, XG_OMPT_NEST_LOCK));
}

XG_EXPORT void omp_destroy_nest_lock(xg_nest_lock_t *l)
{
	(void)l;
	XG_OMPT(lock_destroy(l, XG_OMPT_NEST_LOCK));
}

/* The owner is a task (OpenMP 3.0): only the owning task can find itself
 * in `owner`, which it wrote under the mutex, so the racy read by another
 * task can never match it. Every access to `owner` is relaxed for that
 * reason: it orders nothing, the mutex's acquire and release do. */
static inline void *xg_owner_self(void)
{
	return xg_task_self();
}

XG_EXPORT void omp_set_nest_lock(xg_nest_lock_t *l)
{
	void *me = xg_owner_self();

	XG_OMPT(acquire(l, XG_OMPT_NEST_LOCK));
	if (xs_plain_load_relaxed(&l->owner) != me) {
		xg_mutex_lock(&l->word);
		xs_plain_store_relaxed(&l->owner, me);
	}
	l->count++;
	XG_OMPT(nest_acquired(l, l->count));
}

XG_EXPORT void omp_unset_nest_lock(xg_nest_lock_t *l)
{
	XG_OMPT(nest_released(l, l->count - 1));
	if (--l->count == 0) {
		xs_plain_store_relaxed(&l->owner, NULL);
		xg_mutex_unlock(&l->word);
	}
}

XG_EXPORT int omp_test_nest_lock(xg_nest_lock_t *l)
{
	void *me = xg_owner_self();

	if (xs_plain_load_relaxed(&l->owner) != me) {
		if (!xg_mutex_trylock(&l->word))
			return 0;
		xs_plain_store_relaxed(&l->owner, me);
	}
	return XG_OMPT_TESTED((int)++l->count, l, XG_OMPT_TEST_NEST_LOCK);
}
