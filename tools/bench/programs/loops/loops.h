/* SPDX-License-Identifier: MIT */
/*
 * loops.h - the barrier-bound program: n parallel loops, one after the
 * other, over a ring of LOOPS_WIDTH 32-bit cells, each loop a few
 * nanoseconds of work per cell. Loop k reads buffer k % 2 and writes
 * buffer (k + 1) % 2, cell i from cells i and i + 1 of the previous loop,
 * so a runtime that let a loop start before the previous one ended
 * would read a half-written buffer and give another checksum: the
 * barrier between loops is the point, and it is checked.
 *
 * What a run costs is n fork/joins (or barriers) of the runtime: at the
 * default n = 50 000 the work itself is ~10 ms serial.
 */
#ifndef XSCHED_BENCH_LOOPS_H
#define XSCHED_BENCH_LOOPS_H

#include "../../harness/bench.h"

#define LOOPS_WIDTH 256

struct loops_state {
	long n;				/* loops */
	uint32_t buf[2][LOOPS_WIDTH];
};

/* Cells [lo, hi) of loop k. */
static inline void loops_body(struct loops_state *st, long k, long lo, long hi)
{
	const uint32_t *in = st->buf[k & 1];
	uint32_t *out = st->buf[(k + 1) & 1];

	for (long i = lo; i < hi; i++)
		out[i] = in[i] * 2654435761u + (in[(i + 1) % LOOPS_WIDTH] >> 7) +
			 (uint32_t)k;
}

static inline void loops_reset(void *p)
{
	struct loops_state *st = (struct loops_state *)p;

	for (long i = 0; i < LOOPS_WIDTH; i++) {
		st->buf[0][i] = (uint32_t)bench_mix64((uint64_t)i);
		st->buf[1][i] = 0xdeadbeef;	/* poison */
	}
}

static inline void *loops_setup(long n)
{
	struct loops_state *st = (struct loops_state *)calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->n = n;
	loops_reset(st);
	return st;
}

static inline void loops_teardown(void *p)
{
	free(p);
}

static inline void loops_serial(void *p)
{
	struct loops_state *st = (struct loops_state *)p;

	for (long k = 0; k < st->n; k++)
		loops_body(st, k, 0, LOOPS_WIDTH);
}

/* Digest of the buffer the last loop wrote. */
static inline uint64_t loops_checksum(const void *p)
{
	const struct loops_state *st = (const struct loops_state *)p;
	const uint32_t *out = st->buf[st->n & 1];
	uint64_t h = (uint64_t)st->n;

	for (long i = 0; i < LOOPS_WIDTH; i++)
		h = bench_mix64(h ^ out[i]);
	return h;
}

/* A parallel run forks and joins once per loop. */
static inline uint64_t loops_tasks(const void *p)
{
	return (uint64_t)((const struct loops_state *)p)->n;
}

BENCH_C_LINKAGE void loops_tbb(void *st);

#ifndef __cplusplus
static const struct bench_problem loops_problem = {
	.name = "loops",
	.doc = "n parallel loops of 256 tiny iterations, one after another (barrier-bound)",
	.n_default = 50000,
	.n_quick = 500,
	.n_min = 1,
	.n_max = 100000000,
	.setup = loops_setup,
	.teardown = loops_teardown,
	.reset = loops_reset,
	.serial = loops_serial,
	.checksum = loops_checksum,
	.verify = NULL,
	.tasks = loops_tasks,
};
#endif

#endif /* XSCHED_BENCH_LOOPS_H */
