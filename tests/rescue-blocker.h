/* SPDX-License-Identifier: MIT */
/*
 * rescue-blocker.h - how the rescue tests keep a victim's children
 * private: the victim spawns rescue_blocker() and publishes it, the other
 * worker takes it and spins in it until the victim has spawned its
 * children (`spawned`), so nobody asks the victim to publish meanwhile.
 * rescue_child() counts where each of the victim's NCHILD children ran
 * (the includer defines NCHILD first).
 */
#ifndef XSCHED_TESTS_RESCUE_BLOCKER_H
#define XSCHED_TESTS_RESCUE_BLOCKER_H

#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static _Atomic int blocker_started, spawned;
static _Atomic int ran[NCHILD], elsewhere, finished;
static _Atomic uint64_t sum __attribute__((unused));

/* Child @i of the victim (worker 0): ran once, where, and a checksum. */
static __attribute__((unused)) void rescue_child(void *arg)
{
	int i = *(const int *)arg;

	atomic_fetch_add(&ran[i], 1);
	if (xs_worker_id() != 0)
		atomic_fetch_add(&elsewhere, 1);
	atomic_fetch_add(&sum, (uint64_t)(i + 1) * 1000003u);
	atomic_fetch_add(&finished, 1);
}

static void rescue_blocker(void *arg)
{
	(void)arg;
	atomic_store(&blocker_started, 1);
	while (!atomic_load(&spawned))
		;
}

static inline long elapsed_ms(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

#endif
