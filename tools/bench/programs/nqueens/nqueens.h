/* SPDX-License-Identifier: MIT */
/*
 * nqueens.h - count the placements of n queens on an n x n board, BOTS
 * style: at row j a node spawns one task per column i; the task copies the
 * board, puts its queen at (j, i), checks the whole board with ok() and, if
 * it holds, goes on with row j + 1. No cut-off.
 */
#ifndef XSCHED_BENCH_NQUEENS_H
#define XSCHED_BENCH_NQUEENS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "../../harness/bench.h"

#define NQ_MAX 16	/* the board travels inline in a task argument */

struct nqueens_state {
	int n;
	long solutions;
};

BENCH_C_LINKAGE void nqueens_tbb(void *st);

/* BOTS ok(): do the queens in rows 0..n-1 of @a leave each other alone? */
static inline int nqueens_ok(int n, const char *a)
{
	for (int i = 0; i < n; i++) {
		char p = a[i];

		for (int j = i + 1; j < n; j++) {
			char q = a[j];

			if (q == p || q == p - (j - i) || q == p + (j - i))
				return 0;
		}
	}
	return 1;
}

/* Rows 0..j-1 of @a are placed and ok; count the completions. */
static inline long nqueens_seq(int n, int j, char *a)
{
	long sols = 0;

	if (j == n)
		return 1;
	for (int i = 0; i < n; i++) {
		a[j] = (char)i;
		if (nqueens_ok(j + 1, a))
			sols += nqueens_seq(n, j + 1, a);
	}
	return sols;
}

/* Nodes that spawn: the root and every ok partial board with j < n. */
static inline uint64_t nqueens_nodes(int n, int j, char *a)
{
	uint64_t nodes = 1;

	for (int i = 0; i < n; i++) {
		a[j] = (char)i;
		if (j + 1 < n && nqueens_ok(j + 1, a))
			nodes += nqueens_nodes(n, j + 1, a);
	}
	return nodes;
}

static inline void *nqueens_setup(long n)
{
	struct nqueens_state *st =
		(struct nqueens_state *)calloc(1, sizeof(*st));

	if (st)
		st->n = (int)n;
	return st;
}

static inline void nqueens_teardown(void *st)
{
	free(st);
}

static inline void nqueens_reset(void *p)
{
	((struct nqueens_state *)p)->solutions = -1;
}

static inline void nqueens_serial(void *p)
{
	struct nqueens_state *st = (struct nqueens_state *)p;
	char a[NQ_MAX];

	st->solutions = nqueens_seq(st->n, 0, a);
}

static inline uint64_t nqueens_checksum(const void *p)
{
	return (uint64_t)((const struct nqueens_state *)p)->solutions;
}

/* OEIS A000170 */
static inline int nqueens_verify(const void *p, char *why, int len)
{
	static const long known[NQ_MAX + 1] = {
		1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712,
		365596, 2279184, 14772512,
	};
	const struct nqueens_state *st = (const struct nqueens_state *)p;

	if (st->solutions == known[st->n])
		return 0;
	snprintf(why, (size_t)len, "%d queens: %ld solutions, expected %ld",
		 st->n, st->solutions, known[st->n]);
	return -EINVAL;
}

/* Every spawning node spawns n tasks. */
static inline uint64_t nqueens_tasks(const void *p)
{
	int n = ((const struct nqueens_state *)p)->n;
	char a[NQ_MAX];

	return n ? (uint64_t)n * nqueens_nodes(n, 0, a) : 0;
}

#ifndef __cplusplus
/* The fields every version of the program shares (cutoff.h), all but
 * the tasks it creates. */
#define NQUEENS_PROBLEM_FIELDS \
	.n_default = 12, \
	.n_quick = 7, \
	.n_min = 1, \
	.n_max = NQ_MAX, \
	.setup = nqueens_setup, \
	.teardown = nqueens_teardown, \
	.reset = nqueens_reset, \
	.serial = nqueens_serial, \
	.checksum = nqueens_checksum, \
	.verify = nqueens_verify,

static const struct bench_problem nqueens_problem = {
	.name = "nqueens",
	.doc = "n queens on an n x n board, a task per column and row (BOTS)",
	NQUEENS_PROBLEM_FIELDS
	.tasks = nqueens_tasks,
};
#endif

#endif /* XSCHED_BENCH_NQUEENS_H */
