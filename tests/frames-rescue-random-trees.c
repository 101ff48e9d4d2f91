// SPDX-License-Identifier: MIT
/*
 * Random spawn trees whose tasks sometimes sleep between their spawns and
 * their join (stranded for a while, frames private), with the rescue
 * threshold at its minimum, XSCHED_RESCUE_US=1: thieves publish other
 * workers' private frames all the time, mostly while those workers are
 * running, spawning, claiming frames and lowering top - the victim "wakes
 * mid-claim" at every point (libxsched/deque_rescue.c). Every node adds
 * its value into its parent's slot, so the root's sum checks that each
 * node ran exactly once and that every join waited for its children.
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

#define MAXFAN 5

static void visit(void *arg)
{
	const struct node *n = arg;
	uint64_t r = tree_mix(n->seed), sub[MAXFAN] = { 0 }, total = r & 0xffff;
	int fan = n->depth > 0 ? 1 + (int)(r % MAXFAN) : 0;

	for (int i = 0; i < fan; i++) {
		struct node c = { tree_mix(r + (uint64_t)i), n->depth - 1, &sub[i] };

		if ((r >> (8 + i)) & 1)
			xs_spawn(visit, &c, sizeof c);
		else
			xs_task_spawn(visit, &c, sizeof c);
	}
	if (fan && (r >> 24) % 4 == 0) {
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
	int fan = depth > 0 ? 1 + (int)(r % MAXFAN) : 0;

	for (int i = 0; i < fan; i++)
		total += serial(tree_mix(r + (uint64_t)i), depth - 1);
	return total;
}

FIXTURE(frames) {};
FIXTURE_SETUP(frames) {}
FIXTURE_TEARDOWN(frames) {}

TEST_F_TIMEOUT(frames, rescued_random_trees_match_serial_sum, 600)
{
	setenv("XSCHED_DLB", "ws", 1);
	setenv("XSCHED_DAEMON", "off", 1);
	setenv("XSCHED_RESCUE_US", "1", 1);
	for (unsigned int nw = 2; nw <= 4; nw++) {
		struct xs_runtime *rt = xs_runtime_create(nw);

		ASSERT_NE(NULL, rt);
		for (uint64_t t = 0; t < 24 / test_scale() + 1; t++) {
			uint64_t seed = nw * 7919 + t, got = 0;
			int depth = 4 + (int)(t % 3);
			struct node root = { seed, depth, &got };

			ASSERT_EQ(0, xs_runtime_run(rt, visit, &root));
			ASSERT_EQ(serial(seed, depth), got) {
				TH_LOG("%u workers, tree %llu", nw, (unsigned long long)t);
			}
		}
		xs_runtime_destroy(rt);
	}
}

TEST_HARNESS_MAIN
