// SPDX-License-Identifier: MIT
/*
 * park.c - futex parking and the membarrier-based asymmetric fence.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "queue/park.h"

bool xs_park_asymmetric;

static pthread_once_t xs_park_once = PTHREAD_ONCE_INIT;

static void xs_park_init_once(void)
{
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
		return;
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0))
		return;
	/* Written once before any worker exists; pthread_once orders it. */
	xs_park_asymmetric = true;
}

bool xs_park_global_init(void)
{
	pthread_once(&xs_park_once, xs_park_init_once);
	return xs_park_asymmetric;
}

/* The sleeper's fence (park.h): membarrier() unless @p is symmetric. */
static void xs_heavy_fence(const struct xs_parker *p)
{
	xs_fence_seq_cst();
	if (xs_park_asymmetric && !p->symmetric)
		syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
}

static void xs_futex_wait(_Atomic uint32_t *word, uint32_t val, const struct timespec *timeout)
{
	/* EINTR, EAGAIN (value changed), ETIMEDOUT and spurious returns all
	 * send the caller back to its condition loop. */
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, timeout, NULL, 0);
}

void xs_park_wake(struct xs_parker *p)
{
	/* Exchange so that of several notifiers exactly one issues the
	 * syscall; acq_rel orders it after the notifier's publication. */
	if (xs_exchange_acq_rel(&p->state, XS_PARK_AWAKE) == XS_PARK_SLEEPING)
		syscall(SYS_futex, &p->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/*
 * The stamp is a lateness heuristic for the owner's yield policy
 * (worker.c, xs_worker_yield()); it orders no data. Relaxed throughout:
 * the word carries its own value, a CAS from XS_YIELD_OPEN lets only the
 * first notifier of a yield stamp it, and one that comes after the owner's
 * exchange back to 0 fails and stamps nothing. A notifier preempted
 * between its clock read and its CAS stamps an early time: one yield is
 * then judged later than it was.
 */
void xs_park_stamp(struct xs_parker *p)
{
	uint64_t open = XS_YIELD_OPEN;

	xs_cas_strong_relaxed(&p->yield_stamp, &open, xs_now_ns());
}

void xs_park_yield_open(struct xs_parker *p)
{
	/* Relaxed: see xs_park_stamp(); only the owner opens and closes. */
	xs_store_relaxed(&p->yield_stamp, XS_YIELD_OPEN);
}

uint64_t xs_park_yield_close(struct xs_parker *p)
{
	uint64_t stamp, back;

	/* Relaxed (see xs_park_stamp()): closes the yield, and takes the
	 * stamp of the first notifier that CASed it in before. */
	stamp = xs_exchange_relaxed(&p->yield_stamp, 0);
	if (stamp <= XS_YIELD_OPEN)
		return 0;
	back = xs_now_ns();
	return back > stamp ? back - stamp : 1;
}

static bool xs_park_until(struct xs_parker *p, bool (*has_work)(void *arg), void *arg,
			  xs_counter_t *sleeps, const struct timespec *timeout)
{
	/* Relaxed: the fence below orders it; only the owner stores SLEEPING. */
	xs_store_relaxed(&p->state, XS_PARK_SLEEPING);
	/* Orders the SLEEPING store before the re-check below; pairs with the
	 * notifier's fence in xs_park_notify(). */
	xs_heavy_fence(p);
	if (has_work(arg)) {
		xs_store_relaxed(&p->state, XS_PARK_AWAKE);
		return false;
	}
	xs_counter_inc(sleeps);
	if (timeout) {
		/* One bounded wait; whoever returns first sets AWAKE (a late
		 * notifier's exchange then finds AWAKE and issues no wake). */
		xs_futex_wait(&p->state, XS_PARK_SLEEPING, timeout);
		xs_exchange_acq_rel(&p->state, XS_PARK_AWAKE);
		return true;
	}
	/* Acquire pairs with the waker's acq_rel exchange in xs_park_wake():
	 * what the notifier published is visible once we see AWAKE. */
	while (xs_load_acquire(&p->state) == XS_PARK_SLEEPING)
		xs_futex_wait(&p->state, XS_PARK_SLEEPING, NULL);
	return true;
}

bool xs_park(struct xs_parker *p, bool (*has_work)(void *arg), void *arg,
	     xs_counter_t *sleeps)
{
	return xs_park_until(p, has_work, arg, sleeps, NULL);
}

bool xs_park_timed(struct xs_parker *p, bool (*has_work)(void *arg), void *arg,
		   xs_counter_t *sleeps, uint64_t timeout_ns)
{
	struct timespec ts = { (time_t)(timeout_ns / 1000000000u),
			       (long)(timeout_ns % 1000000000u) };

	return xs_park_until(p, has_work, arg, sleeps, &ts);
}
