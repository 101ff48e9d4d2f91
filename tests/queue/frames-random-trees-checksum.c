// SPDX-License-Identifier: MIT
/*
 * Random spawn trees on 1..8 workers (more workers than CPUs): uneven
 * fan-out and task sizes, some tasks joining early, some twice, some not
 * at all (the implicit join), through the inline (xs_spawn, xs_sync) and
 * the out-of-line (xs_task_spawn, xs_task_wait) calls alike. Every node
 * adds its value into its parent's slot, so the root's sum checks that
 * each node ran exactly once and that every join waited for its children.
 *
 * The same trees with the rescue (libxsched/core/deque_rescue.c): some tasks
 * sleep between their spawns and their join (stranded for a while, frames
 * private) and the threshold is at its minimum, XSCHED_RESCUE_US=1, so
 * thieves publish other workers' private frames all the time, mostly while
 * those workers run, spawn, claim frames and lower top: the victim "wakes
 * mid-claim" at every point.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"
#include "tree-mix.h"

struct node {
	uint64_t seed;
	int depth;
	uint64_t *out;
};

#define MAXFAN 6

/* Set by the rescue test, before its runtimes start. */
static int strand;

static void visit(void *arg)
{
	const struct node *n = arg;
	uint64_t r = tree_mix(n->seed), sub[MAXFAN] = { 0 }, total = r & 0xffff;
	int fan = n->depth > 0 ? (int)(r % (MAXFAN + 1)) : 0;
	volatile unsigned spin = (unsigned)(r >> 48) % 500;

	while (spin)
		spin--;
	for (int i = 0; i < fan; i++) {
		struct node c = { tree_mix(r + (uint64_t)i), n->depth - 1, &sub[i] };

		if ((r >> (8 + i)) & 1)
			xs_spawn(visit, &c, sizeof c);
		else
			xs_task_spawn(visit, &c, sizeof c);
		if (i == fan / 2 && (r >> 20) & 1)
			xs_sync(); /* an early join, then more children */
	}
	if (strand && fan && (r >> 24) % 4 == 0) {
		/* stranded with private frames for up to 200 us */
		struct timespec t = { 0, (long)((r >> 32) % 200000) };

		nanosleep(&t, NULL);
	}
	if ((r >> 21) & 1)
		xs_task_wait();
	else
		xs_sync();
	for (int i = 0; i < fan; i++)
		total += sub[i];
	*n->out = total;
}

static uint64_t serial(uint64_t seed, int depth)
{
	uint64_t r = tree_mix(seed), total = r & 0xffff;
	int fan = depth > 0 ? (int)(r % (MAXFAN + 1)) : 0;

	for (int i = 0; i < fan; i++)
		total += serial(tree_mix(r + (uint64_t)i), depth - 1);
	return total;
}

FIXTURE(frames) {};
FIXTURE_SETUP(frames) {}
FIXTURE_TEARDOWN(frames) {}

static void run_trees(struct __test_metadata *_metadata, unsigned int from, unsigned int to,
		      int min_depth)
{
	for (unsigned int nw = from; nw <= to; nw++) {
		struct xs_runtime *rt = xs_runtime_create(nw);

		ASSERT_NE(NULL, rt);
		for (uint64_t t = 0; t < 24 / test_scale() + 1; t++) {
			uint64_t seed = nw * 1000 + t, got = 0;
			int depth = min_depth + (int)(t % 3);
			struct node root = { seed, depth, &got };

			ASSERT_EQ(0, xs_runtime_run(rt, visit, &root));
			ASSERT_EQ(serial(seed, depth), got) {
				TH_LOG("%u workers, tree %llu", nw, (unsigned long long)t);
			}
		}
		xs_runtime_destroy(rt);
	}
}

TEST_F_TIMEOUT(frames, random_trees_match_serial_sum, 600)
{
	run_trees(_metadata, 1, 8, 5);
}

TEST_F_TIMEOUT(frames, rescued_random_trees_match_serial_sum, 600)
{
	setenv("XSCHED_DLB", "ws", 1);
	setenv("XSCHED_DAEMON", "off", 1);
	setenv("XSCHED_RESCUE_US", "1", 1);
	strand = 1;
	run_trees(_metadata, 2, 4, 4);
}

TEST_HARNESS_MAIN
