/* SPDX-License-Identifier: MIT */
/*
 * spawn.h - xs_task_spawn() and xs_task_wait() for the xsched versions,
 * through their inline fast paths xs_spawn() and xs_sync().
 *
 * Inside a task with a small argument neither can fail, but if one did, a
 * slot the parent sums would keep whatever the stack held - possibly the
 * right value from an earlier run. So a failure runs the task inline (the
 * answer stays right), and the first error code goes to bench_xs_error,
 * which the driver turns into an error for the whole cell.
 */
#ifndef XSCHED_BENCH_SPAWN_H
#define XSCHED_BENCH_SPAWN_H

#include <string.h>
#include <xsched.h>

extern int bench_xs_error;	/* 0, or the first -errno; see runtime.c */

void bench_xs_failed(int err);

static inline void bench_spawn(xs_task_fn fn, const void *arg, size_t size)
{
	int rc = xs_spawn(fn, arg, size);

	if (__builtin_expect(rc != 0, 0)) {
		unsigned char copy[XS_TASK_ARG_MAX];

		bench_xs_failed(rc);
		memcpy(copy, arg, size < sizeof(copy) ? size : sizeof(copy));
		fn(copy);
	}
}

static inline void bench_wait(void)
{
	int rc = xs_sync();

	if (__builtin_expect(rc != 0, 0))
		bench_xs_failed(rc);
}

#endif /* XSCHED_BENCH_SPAWN_H */
