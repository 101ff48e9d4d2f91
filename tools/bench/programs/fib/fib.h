/* SPDX-License-Identifier: MIT */
/*
 * fib.h - fib(n) by naive recursion, BOTS style: every variant spawns
 * both fib(n-1) and fib(n-2) as tasks and waits for them, with no cut-off,
 * so a task does almost nothing but spawn: this measures the runtime's
 * per-task cost.
 */
#ifndef XSCHED_BENCH_FIB_H
#define XSCHED_BENCH_FIB_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "../../harness/bench.h"

struct fib_state {
	int n;
	long result;
};

BENCH_C_LINKAGE void fib_tbb(void *st);

static inline long fib_seq(int n)
{
	if (n < 2)
		return n;
	return fib_seq(n - 1) + fib_seq(n - 2);
}

static inline void *fib_setup(long n)
{
	struct fib_state *st = (struct fib_state *)calloc(1, sizeof(*st));

	if (st)
		st->n = (int)n;
	return st;
}

static inline void fib_teardown(void *st)
{
	free(st);
}

static inline void fib_reset(void *p)
{
	((struct fib_state *)p)->result = -1;
}

static inline void fib_serial(void *p)
{
	struct fib_state *st = (struct fib_state *)p;

	st->result = fib_seq(st->n);
}

static inline uint64_t fib_checksum(const void *p)
{
	return (uint64_t)((const struct fib_state *)p)->result;
}

static inline int fib_verify(const void *p, char *why, int len)
{
	const struct fib_state *st = (const struct fib_state *)p;
	long a = 0, b = 1;

	for (int i = 0; i < st->n; i++) {
		long t = a + b;

		a = b;
		b = t;
	}
	if (st->result == a)
		return 0;
	snprintf(why, (size_t)len, "fib(%d) = %ld, expected %ld", st->n,
		 st->result, a);
	return -EINVAL;
}

/* The spawns of fib(n) with @per_call spawns in every call with n >= 2:
 * s(n) = per_call + s(n-1) + s(n-2), s(0..1) = 0. */
static inline uint64_t fib_spawn_count(int n, uint64_t per_call)
{
	uint64_t a = 0, b = 0;	/* s(i-1), s(i) */

	for (int i = 1; i < n; i++) {
		uint64_t t = per_call + a + b;

		a = b;
		b = t;
	}
	return b;
}

/* BOTS: both calls spawned. */
static inline uint64_t fib_tasks(const void *p)
{
	return fib_spawn_count(((const struct fib_state *)p)->n, 2);
}

#ifndef __cplusplus
/* The fields every version of the program shares (cutoff.h), all but
 * the tasks it creates; FIB_PROBLEM_FIELDS_N: with another default size. */
#define FIB_PROBLEM_FIELDS FIB_PROBLEM_FIELDS_N(35)
#define FIB_PROBLEM_FIELDS_N(n) \
	.n_default = (n), \
	.n_quick = 20, \
	.n_min = 0, \
	.n_max = 50, \
	.setup = fib_setup, \
	.teardown = fib_teardown, \
	.reset = fib_reset, \
	.serial = fib_serial, \
	.checksum = fib_checksum, \
	.verify = fib_verify,

static const struct bench_problem fib_problem = {
	.name = "fib",
	.doc = "fib(n), both calls spawned as tasks (BOTS), no cut-off",
	FIB_PROBLEM_FIELDS
	.tasks = fib_tasks,
};
#endif

#endif /* XSCHED_BENCH_FIB_H */
