/* SPDX-License-Identifier: MIT */
/*
 * checksum-tree.h - irregular task trees whose every node is counted and
 * whose leaves' values are summed, so that a run on the runtime can be
 * compared exactly with the serial walk: no task lost, none run twice.
 *
 * A node's random value r decides everything about it: how many children
 * (usually 0-2, every wide_every-th node wide_fanout), how long it spins,
 * and how it waits (after some children, or only at the end, or never -
 * the implicit join then does it).
 */
#ifndef XS_CHECKSUM_TREE_H
#define XS_CHECKSUM_TREE_H

#include <stdatomic.h>
#include <stdint.h>

#include "xsched.h"
#include "tree-mix.h"

struct tree_shape {
	unsigned int wide_every;   /* 1 in wide_every nodes is wide */
	int wide_fanout;
	unsigned int spin_shift;   /* spin r >> spin_shift iterations; 0: none */
	unsigned int wait_each_mod;/* wait after each child when (r >> 8) % mod == 0 */
	int wait_at_end;           /* wait at the end when r is odd */
};

struct tree {
	uint64_t seed;
	int depth;
	const struct tree_shape *shape;
	_Atomic uint64_t *sum, *nodes;
};

_Static_assert(sizeof(struct tree) <= XS_TASK_ARG_MAX, "a tree node fits inline");


static inline int tree_fanout(const struct tree_shape *s, uint64_t r, int depth)
{
	if (depth <= 0)
		return 0;
	return r % s->wide_every == 0 ? s->wide_fanout : (int)(r % 3);
}

static void tree_node(void *arg)
{
	struct tree *t = arg;
	const struct tree_shape *s = t->shape;
	uint64_t r = tree_mix(t->seed);
	int fanout = tree_fanout(s, r, t->depth);
	volatile uint64_t spin = s->spin_shift ? r >> s->spin_shift : 0;

	while (spin)
		spin--;
	atomic_fetch_add_explicit(t->nodes, 1, memory_order_relaxed);
	if (!fanout)
		atomic_fetch_add_explicit(t->sum, r, memory_order_relaxed);
	for (int i = 0; i < fanout; i++) {
		struct tree c = { r ^ (uint64_t)(i + 1), t->depth - 1, s, t->sum, t->nodes };

		xs_task_spawn(tree_node, &c, sizeof c);
		if (s->wait_each_mod && (r >> 8) % s->wait_each_mod == 0)
			xs_task_wait();
	}
	if (s->wait_at_end && (r & 1))
		xs_task_wait();
}

/* The same walk without the runtime. */
static void tree_serial(const struct tree_shape *s, uint64_t seed, int depth, uint64_t *sum,
			uint64_t *nodes)
{
	uint64_t r = tree_mix(seed);
	int fanout = tree_fanout(s, r, depth);

	(*nodes)++;
	if (!fanout)
		*sum += r;
	for (int i = 0; i < fanout; i++)
		tree_serial(s, r ^ (uint64_t)(i + 1), depth - 1, sum, nodes);
}

#endif /* XS_CHECKSUM_TREE_H */
