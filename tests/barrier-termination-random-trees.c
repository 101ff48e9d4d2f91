// SPDX-License-Identifier: MIT
/*
 * The team barrier releases only when every task has run: workers arrive
 * while random task trees (theirs and others') are still spawning, some of
 * them in the middle of their implicit task. After each barrier every
 * worker checks that every task created so far ran exactly once. More
 * workers than CPUs.
 */
#include <stdatomic.h>
#include <stdint.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"

#define WORKERS 6
#define ROUNDS 200
#define MAX_TASKS (1 << 20)

static _Atomic uint32_t created;          /* ids handed out */
static _Atomic uint8_t runs[MAX_TASKS];   /* per task id: times it ran */
static _Atomic int failures;

struct node {
	uint64_t seed;
	uint32_t id;
	int depth;
};

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void spawn_node(uint64_t seed, int depth);
static void counted_node(void *arg);

static void tree_node(void *arg)
{
	struct node *n = arg;
	uint64_t r = mix(n->seed);
	int fanout = n->depth > 0 ? (int)(r % 4) : 0;
	volatile unsigned spin = (unsigned)(r >> 40) % 2000;

	while (spin)
		spin--; /* uneven task sizes */
	for (int i = 0; i < fanout; i++)
		spawn_node(mix(r + (uint64_t)i), n->depth - 1);
	/* Some tasks return without waiting: the implicit join does it. */
	if (r & 1)
		xs_task_wait();
}

static void spawn_node(uint64_t seed, int depth)
{
	struct node n = { seed, atomic_fetch_add(&created, 1), depth };

	if (n.id >= MAX_TASKS) {
		atomic_fetch_add(&failures, 1);
		return;
	}
	xs_task_spawn(counted_node, &n, sizeof n);
}

/* Count a run by id, then do the node's work. */
static void counted_node(void *arg)
{
	struct node *n = arg;

	atomic_fetch_add(&runs[n->id], 1);
	tree_node(arg);
}

static void check_all_ran(void)
{
	uint32_t total = atomic_load(&created);

	for (uint32_t i = 0; i < total && i < MAX_TASKS; i++)
		if (atomic_load(&runs[i]) != 1)
			atomic_fetch_add(&failures, 1);
}

static void implicit(void *arg)
{
	uint64_t base = (uint64_t)(uintptr_t)arg * 7919 + (uint64_t)xs_worker_id();

	for (int b = 0; b < 3; b++) {
		/* Worker-dependent amounts of work before arriving. */
		for (int i = 0; i < 1 + (int)(mix(base + b) % 4); i++)
			spawn_node(mix(base * 31 + (uint64_t)(b * 8 + i)), 5);
		if (xs_barrier_wait())
			atomic_fetch_add(&failures, 1);
		check_all_ran();
		/* Nobody may spawn until everyone has checked. */
		if (xs_barrier_wait())
			atomic_fetch_add(&failures, 1);
	}
}

FIXTURE(runtime) {};
FIXTURE_SETUP(runtime) {}
FIXTURE_TEARDOWN(runtime) {}

TEST_F_TIMEOUT(runtime, no_release_while_tasks_pending, 600)
{
	struct xs_runtime *rt = xs_runtime_create(WORKERS);

	ASSERT_NE(NULL, rt);
	for (uintptr_t round = 0; round < ROUNDS / test_scale(); round++) {
		atomic_store(&created, 0);
		for (uint32_t i = 0; i < MAX_TASKS; i++)
			atomic_store_explicit(&runs[i], 0, memory_order_relaxed);
		ASSERT_EQ(0, xs_runtime_parallel(rt, implicit, (void *)round));
		check_all_ran();
		ASSERT_EQ(0, atomic_load(&failures));
	}
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
