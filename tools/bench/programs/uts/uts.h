/* SPDX-License-Identifier: MIT */
/*
 * uts.h - Unbalanced Tree Search on a binomial tree (UTS, Olivier et al.,
 * LCPC 2006; BOTS uts), counting its nodes.
 *
 * Tree:   the root has n children (root branching factor b0 = n). Every
 *         other node has UTS_M children with probability UTS_Q and none
 *         otherwise: q*m = 0.999, so subtrees are finite but their sizes
 *         have a heavy tail - the tree is as unbalanced as UTS's T3 (same
 *         q and m; T3 has b0 = 2000).
 * Hash:   a node is a 64-bit state; child i of state s is
 *         mix64(s + (i + 1) * UTS_GOLDEN) and a node has children when
 *         (s >> 11) < q * 2^53. splitmix64's mixer stands in for UTS's
 *         SHA-1: the tree is just as deterministic, a node costs ~4 ns
 *         instead of ~300 ns, so this is a fine-grained, unbalanced search.
 * Depth:  not limited; the default tree is 4839 levels deep.
 * Size:   n = 250000 (~0.8 s serial here): 209,689,329 nodes of which
 *         183,509,412 leaves. n = 1000 (--quick): 90,201 nodes.
 * Tasks:  one per node but the root, as in BOTS.
 */
#ifndef XSCHED_BENCH_UTS_H
#define XSCHED_BENCH_UTS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../harness/bench.h"

#define UTS_M 8
#define UTS_Q 0.124875
#define UTS_Q53 ((uint64_t)(UTS_Q * 9007199254740992.0))	/* q * 2^53 */
#define UTS_GOLDEN 0xd1b54a32d192ed03ull
#define UTS_SEED 42

struct uts_state {
	long b0;
	uint64_t nodes;
	uint64_t *root_counts;	/* b0 slots for the root's children */
};

BENCH_C_LINKAGE void uts_tbb(void *st);

static inline uint64_t uts_child(uint64_t s, int i)
{
	return bench_mix64(s + (uint64_t)(i + 1) * UTS_GOLDEN);
}

static inline int uts_nchildren(uint64_t s)
{
	return (s >> 11) < UTS_Q53 ? UTS_M : 0;
}

/* Nodes in the subtree of @s. */
static inline uint64_t uts_seq(uint64_t s)
{
	uint64_t nodes = 1;
	int nc = uts_nchildren(s);

	for (int i = 0; i < nc; i++)
		nodes += uts_seq(uts_child(s, i));
	return nodes;
}

static inline void *uts_setup(long n)
{
	struct uts_state *st = (struct uts_state *)calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->b0 = n;
	st->root_counts = (uint64_t *)calloc((size_t)n, sizeof(uint64_t));
	if (!st->root_counts) {
		free(st);
		return NULL;
	}
	return st;
}

static inline void uts_teardown(void *p)
{
	struct uts_state *st = (struct uts_state *)p;

	free(st->root_counts);
	free(st);
}

static inline void uts_reset(void *p)
{
	struct uts_state *st = (struct uts_state *)p;

	st->nodes = 0;
	memset(st->root_counts, 0, sizeof(uint64_t) * (size_t)st->b0);
}

static inline void uts_serial(void *p)
{
	struct uts_state *st = (struct uts_state *)p;
	uint64_t nodes = 1;

	for (long i = 0; i < st->b0; i++)
		nodes += uts_seq(uts_child(UTS_SEED, (int)i));
	st->nodes = nodes;
}

/* Parallel versions: the root spawns its b0 children into root_counts. */
static inline uint64_t uts_root_sum(const struct uts_state *st)
{
	uint64_t nodes = 1;

	for (long i = 0; i < st->b0; i++)
		nodes += st->root_counts[i];
	return nodes;
}

static inline uint64_t uts_checksum(const void *p)
{
	return ((const struct uts_state *)p)->nodes;
}

/* The sizes this file documents, as UTS checks its named trees. */
static inline int uts_verify(const void *p, char *why, int len)
{
	const struct uts_state *st = (const struct uts_state *)p;
	uint64_t expect;

	if (st->b0 == 250000)
		expect = 209689329;
	else if (st->b0 == 1000)
		expect = 90201;
	else
		return 0;
	if (st->nodes == expect)
		return 0;
	snprintf(why, (size_t)len, "b0 %ld: %llu nodes, expected %llu",
		 st->b0, (unsigned long long)st->nodes,
		 (unsigned long long)expect);
	return -EINVAL;
}

static inline uint64_t uts_tasks(const void *p)
{
	return ((const struct uts_state *)p)->nodes - 1;
}

#ifndef __cplusplus
static const struct bench_problem uts_problem = {
	.name = "uts",
	.doc = "unbalanced binomial tree, n root children, q 0.124875, m 8",
	.n_default = 250000,
	.n_quick = 1000,
	.n_min = 1,
	.n_max = 100000000,
	.setup = uts_setup,
	.teardown = uts_teardown,
	.reset = uts_reset,
	.serial = uts_serial,
	.checksum = uts_checksum,
	.verify = uts_verify,
	.tasks = uts_tasks,
};
#endif

#endif /* XSCHED_BENCH_UTS_H */
