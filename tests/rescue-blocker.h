/* SPDX-License-Identifier: MIT */
/*
 * rescue-blocker.h - how the rescue tests keep a victim's children
 * private: the victim spawns rescue_blocker() and publishes it, the other
 * worker takes it and spins in it until the victim has spawned its
 * children (`spawned`), so nobody asks the victim to publish meanwhile.
 */
#ifndef XSCHED_TESTS_RESCUE_BLOCKER_H
#define XSCHED_TESTS_RESCUE_BLOCKER_H

#include <stdatomic.h>
#include <time.h>

static _Atomic int blocker_started, spawned;

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
