// SPDX-License-Identifier: MIT
/*
 * The team barrier releases only when every task has run: workers arrive
 * while random task trees (theirs and others') are still spawning, some of
 * them in the middle of their implicit task. After each barrier every
 * worker checks that every task created so far ran exactly once. More
 * workers than CPUs.
 *
 * Every child a task spawns is joined by it (a task's end joins what it
 * left), so spawned trees alone are over by the time their root's worker
 * arrives. What only the barrier waits for are continuations: some nodes
 * create one (a subtree of its own once it runs) that a helper thread,
 * not a worker, makes ready a little later - often after its creator
 * arrived. A barrier that released early (tests/mutants/check.sh builds
 * such mutants of barrier.c) leaves some not run at the check: the test
 * fails. A watchdog turns a hang into a failure that says where it hung.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"
#include "tree-mix.h"

#define WORKERS 6
#define ROUNDS 200
#define MAX_TASKS (1 << 20)

/* Watchdog: no progress for this long is a hang, reported as a failure. */
#define WATCHDOG_S 120
#define MAX_PENDING 4096

static _Atomic uint32_t created;          /* ids handed out */
static _Atomic uint8_t runs[MAX_TASKS];   /* per task id: times it ran */
static _Atomic int failures;
static _Atomic uint64_t progress;         /* nodes run and barriers passed */
static _Atomic uint32_t conts_created, conts_readied;
static _Atomic int round_now = -1;

/* Continuations waiting for the helper thread to make them ready. */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
static struct xs_continuation *pending[MAX_PENDING];
static int npending;
static _Atomic int helper_stop;

struct node {
	uint64_t seed;
	uint32_t id;
	int depth;
};

static void spawn_node(uint64_t seed, int depth);
static void counted_node(void *arg);
static void make_continuation(uint64_t seed, int depth);

static void tree_node(void *arg)
{
	struct node *n = arg;
	uint64_t r = tree_mix(n->seed);
	int fanout = n->depth > 0 ? (int)(r % 4) : 0;
	volatile unsigned spin = (unsigned)(r >> 40) % 2000;

	while (spin)
		spin--; /* uneven task sizes */
	for (int i = 0; i < fanout; i++)
		spawn_node(tree_mix(r + (uint64_t)i), n->depth - 1);
	/* One node in 16 leaves a continuation behind. */
	if (n->depth > 0 && (r >> 8) % 16 == 0)
		make_continuation(tree_mix(r ^ 0xc0), n->depth - 1);
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
	atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
	tree_node(arg);
}

/* A node as a continuation, handed to the helper to be made ready. If the
 * helper's list is full it is made ready here (still a continuation). */
static void make_continuation(uint64_t seed, int depth)
{
	struct node n = { seed, atomic_fetch_add(&created, 1), depth };
	struct xs_continuation *c;

	if (n.id >= MAX_TASKS) {
		atomic_fetch_add(&failures, 1);
		return;
	}
	c = xs_continuation_create(counted_node, &n, sizeof n);
	if (!c) {
		atomic_fetch_add(&failures, 1);
		return;
	}
	atomic_fetch_add(&conts_created, 1);
	pthread_mutex_lock(&pending_lock);
	if (npending < MAX_PENDING) {
		pending[npending++] = c;
		c = NULL;
	}
	pthread_mutex_unlock(&pending_lock);
	if (c) {
		atomic_fetch_add(&conts_readied, 1);
		xs_continuation_ready(c);
	}
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

/* Not a worker: makes the pending continuations ready every 500 us. */
static void *helper(void *arg)
{
	(void)arg;
	while (!atomic_load(&helper_stop)) {
		struct xs_continuation *batch[MAX_PENDING];
		int n;

		sleep_us(500);
		pthread_mutex_lock(&pending_lock);
		n = npending;
		for (int i = 0; i < n; i++)
			batch[i] = pending[i];
		npending = 0;
		pthread_mutex_unlock(&pending_lock);
		for (int i = 0; i < n; i++) {
			atomic_fetch_add(&conts_readied, 1);
			xs_continuation_ready(batch[i]);
		}
	}
	return NULL;
}

/* Fails the test, saying where, when nothing progressed for WATCHDOG_S. */
static void *watchdog(void *arg)
{
	uint64_t last = UINT64_MAX;
	int still = 0;

	(void)arg;
	for (;;) {
		uint64_t now = atomic_load(&progress);

		sleep_us(1000000);
		if (now != last) {
			last = now;
			still = 0;
			continue;
		}
		if (++still < WATCHDOG_S)
			continue;
		fprintf(stderr, "# hang: no progress for %d s in round %d: %u tasks created, "
			"%u continuations created, %u made ready\n", WATCHDOG_S,
			atomic_load(&round_now), atomic_load(&created),
			atomic_load(&conts_created), atomic_load(&conts_readied));
		fflush(stderr);
		abort();
	}
	return NULL;
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
		for (int i = 0; i < 1 + (int)(tree_mix(base + b) % 4); i++)
			spawn_node(tree_mix(base * 31 + (uint64_t)(b * 8 + i)), 5);
		if (xs_barrier_wait())
			atomic_fetch_add(&failures, 1);
		atomic_fetch_add_explicit(&progress, 1, memory_order_relaxed);
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
	pthread_t help, dog;

	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, pthread_create(&dog, NULL, watchdog, NULL));
	ASSERT_EQ(0, pthread_detach(dog));
	ASSERT_EQ(0, pthread_create(&help, NULL, helper, NULL));
	for (uintptr_t round = 0; round < ROUNDS / test_scale(); round++) {
		atomic_store(&round_now, (int)round);
		atomic_store(&created, 0);
		for (uint32_t i = 0; i < MAX_TASKS; i++)
			atomic_store_explicit(&runs[i], 0, memory_order_relaxed);
		ASSERT_EQ(0, xs_runtime_parallel(rt, implicit, (void *)round));
		check_all_ran();
		if (atomic_load(&failures))
			TH_LOG("round %d: a barrier released before every task ran",
			       (int)round);
		ASSERT_EQ(0, atomic_load(&failures));
	}
	atomic_store(&helper_stop, 1);
	ASSERT_EQ(0, pthread_join(help, NULL));
	TH_LOG("%u continuations, each a subtree, made ready by a helper thread",
	       atomic_load(&conts_created));
	EXPECT_GT(atomic_load(&conts_created), 0);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
