/* SPDX-License-Identifier: MIT */
/*
 * knapsack.h - 0/1 knapsack by branch and bound, a task per branch.
 *
 * Input:  n items, item i of weight 1 + splitmix64(i) mod KS_RANGE and
 *         value weight + KS_RANGE / 10 (a "strongly correlated" instance,
 *         the hard kind for branch and bound); capacity: half the total
 *         weight. The items are sorted by value density, best first (ties
 *         by index), so the same instance comes out everywhere.
 * Search: a node has decided items 0..i-1 and holds weight w and value v.
 *         It offers v as the best value (a shared atomic max), stops at
 *         i = n, and is pruned when its upper bound is not above the best
 *         value; otherwise it spawns "take item i" (when it fits) and then
 *         "leave item i", a task each, and waits for both.
 * Bound:  the fractional (Dantzig) bound: v, plus the items from i on in
 *         density order while they fit, plus the fitting fraction of the
 *         next one, rounded down (values are integers). Prefix sums and a
 *         binary search make it O(log n) per node.
 * Order:  the serial search takes before it leaves, so it goes straight to
 *         the greedy solution and prunes most of the tree with it. A
 *         runtime that runs the newest child first (LIFO: oneTBB, libgomp,
 *         libomp) leaves first and explores 50x more nodes at n = 45 (67 M
 *         against 1.34 M), 1000x and more at some other n. That is why n is
 *         45 (serial ~20 ms) and not the 60 that would run ~0.5 s
 *         serially: there a leave-first search runs for hours. Every run
 *         reports the nodes it explored; the best value never depends on
 *         the order, it is the checksum.
 * Nodes:  every task counts itself and adds what its children counted
 *         (slots in the parent's frame, summed after the wait): nothing
 *         shared is written per node but the best value, and only when a
 *         node improves it.
 * Verify: the serial best value against a dynamic programme over the
 *         capacity.
 */
#ifndef XSCHED_BENCH_KNAPSACK_H
#define XSCHED_BENCH_KNAPSACK_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../harness/bench.h"

#define KS_MAX_ITEMS 64
#define KS_RANGE 1000		/* weights 1..KS_RANGE */
#define KS_SEED 0x6b6e6170ull	/* "knap" */

struct knapsack_state {
	int n;
	long cap;
	long wt[KS_MAX_ITEMS], val[KS_MAX_ITEMS];	/* by density, best first */
	long pw[KS_MAX_ITEMS + 1], pv[KS_MAX_ITEMS + 1];	/* prefix sums */
	long best;		/* shared: see ks_offer() */
	uint64_t nodes;		/* explored by the last run */
	uint64_t serial_nodes;	/* explored by the first serial run */
};

BENCH_C_LINKAGE void knapsack_tbb(void *st);

/* The best value so far. Relaxed: a stale value only prunes less. */
static inline long ks_best(struct knapsack_state *st)
{
	return __atomic_load_n(&st->best, __ATOMIC_RELAXED);
}

/* Raise the best value to @v. Relaxed: the value is all that is shared,
 * and the driver reads it after the run has joined every task. */
static inline void ks_offer(struct knapsack_state *st, long v)
{
	long cur = ks_best(st);

	while (v > cur)
		if (__atomic_compare_exchange_n(&st->best, &cur, v, true,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return;
}

/* The fractional bound of a node at item @i with weight @w, value @v. */
static inline long ks_bound(const struct knapsack_state *st, int i, long w,
			    long v)
{
	long room = st->cap - w + st->pw[i];	/* in prefix-sum units */
	int lo = i, hi = st->n;

	/* The last j in [i, n] with pw[j] <= room: items i..j-1 fit whole. */
	while (lo < hi) {
		int mid = (lo + hi + 1) / 2;

		if (st->pw[mid] <= room)
			lo = mid;
		else
			hi = mid - 1;
	}
	v += st->pv[lo] - st->pv[i];
	if (lo < st->n)
		v += (room - st->pw[lo]) * st->val[lo] / st->wt[lo];
	return v;
}

enum ks_step { KS_DONE, KS_BRANCH };

/* A node's own work: offer its value, then whether to branch on item @i. */
static inline enum ks_step ks_visit(struct knapsack_state *st, int i, long w,
				    long v)
{
	long best = ks_best(st);

	if (v > best) {
		ks_offer(st, v);
		best = v;
	}
	if (i == st->n || ks_bound(st, i, w, v) <= best)
		return KS_DONE;
	return KS_BRANCH;
}

/* Whether item @i fits beside weight @w. */
static inline bool ks_fits(const struct knapsack_state *st, int i, long w)
{
	return w + st->wt[i] <= st->cap;
}

static inline uint64_t ks_serial_node(struct knapsack_state *st, int i,
				      long w, long v)
{
	uint64_t nodes = 1;

	if (ks_visit(st, i, w, v) == KS_DONE)
		return nodes;
	if (ks_fits(st, i, w))
		nodes += ks_serial_node(st, i + 1, w + st->wt[i], v + st->val[i]);
	return nodes + ks_serial_node(st, i + 1, w, v);
}

/* Item a before item b: higher val/wt first, then lower index. */
static inline bool ks_before(long wa, long va, int ia, long wb, long vb,
			     int ib)
{
	long l = va * wb, r = vb * wa;

	return l > r || (l == r && ia < ib);
}

static inline void *ks_setup(long n)
{
	struct knapsack_state *st =
		(struct knapsack_state *)calloc(1, sizeof(*st));
	int idx[KS_MAX_ITEMS];
	long wt[KS_MAX_ITEMS], total = 0;

	if (!st)
		return NULL;
	st->n = (int)n;
	for (int i = 0; i < st->n; i++) {
		wt[i] = 1 + (long)(bench_mix64(KS_SEED + (uint64_t)i) % KS_RANGE);
		total += wt[i];
		idx[i] = i;
	}
	/* insertion sort by density: n is small */
	for (int i = 1; i < st->n; i++) {
		int k = idx[i], j = i;

		while (j > 0 && ks_before(wt[k], wt[k] + KS_RANGE / 10, k,
					  wt[idx[j - 1]],
					  wt[idx[j - 1]] + KS_RANGE / 10,
					  idx[j - 1])) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = k;
	}
	for (int i = 0; i < st->n; i++) {
		st->wt[i] = wt[idx[i]];
		st->val[i] = wt[idx[i]] + KS_RANGE / 10;
		st->pw[i + 1] = st->pw[i] + st->wt[i];
		st->pv[i + 1] = st->pv[i] + st->val[i];
	}
	st->cap = total / 2;
	return st;
}

static inline void ks_teardown(void *st)
{
	free(st);
}

static inline void ks_reset(void *p)
{
	struct knapsack_state *st = (struct knapsack_state *)p;

	st->best = -1;		/* below the empty knapsack: a run must offer */
	st->nodes = 0;
}

static inline void ks_serial(void *p)
{
	struct knapsack_state *st = (struct knapsack_state *)p;

	st->nodes = ks_serial_node(st, 0, 0, 0);
	if (!st->serial_nodes)
		st->serial_nodes = st->nodes;
}

static inline uint64_t ks_checksum(const void *p)
{
	return (uint64_t)((const struct knapsack_state *)p)->best;
}

/* The best value against a dynamic programme over the capacity. */
static inline int ks_verify(const void *p, char *why, int len)
{
	const struct knapsack_state *st = (const struct knapsack_state *)p;
	long *dp = (long *)calloc((size_t)st->cap + 1, sizeof(long));

	if (!dp) {
		snprintf(why, (size_t)len, "out of memory for the check");
		return -EINVAL;
	}
	for (int i = 0; i < st->n; i++)
		for (long c = st->cap; c >= st->wt[i]; c--)
			if (dp[c - st->wt[i]] + st->val[i] > dp[c])
				dp[c] = dp[c - st->wt[i]] + st->val[i];
	if (dp[st->cap] != st->best) {
		snprintf(why, (size_t)len, "best value %ld, dynamic programme %ld",
			 st->best, dp[st->cap]);
		free(dp);
		return -EINVAL;
	}
	free(dp);
	return 0;
}

static inline uint64_t ks_tasks(const void *p)
{
	return ((const struct knapsack_state *)p)->serial_nodes;
}

static inline uint64_t ks_nodes(const void *p)
{
	return ((const struct knapsack_state *)p)->nodes;
}

#ifndef __cplusplus
static const struct bench_problem knapsack_problem = {
	.name = "knapsack",
	.doc = "0/1 knapsack of n items by branch and bound, a task per branch",
	.n_default = 45,
	.n_quick = 24,
	.n_min = 1,
	.n_max = KS_MAX_ITEMS,
	.setup = ks_setup,
	.teardown = ks_teardown,
	.reset = ks_reset,
	.serial = ks_serial,
	.checksum = ks_checksum,
	.verify = ks_verify,
	.tasks = ks_tasks,
	.nodes = ks_nodes,
};
#endif

#endif /* XSCHED_BENCH_KNAPSACK_H */
