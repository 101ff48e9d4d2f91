// SPDX-License-Identifier: MIT
/*
 * The messaging protocol under racing thieves (8 workers, 2 CPUs): every
 * worker's round only grows while an observer samples it, a victim serves
 * each request at most once (requests handled never exceed requests sent),
 * and with NA-WS every handled request advances the round exactly once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>
#include "core/runtime.h"
#include "xs_test.h"
#include "test-scale.h"

#define WORKERS 8

static _Atomic int stop;
static _Atomic long nonmonotonic;
static struct xs_runtime *rt;

static void *observe_rounds(void *arg)
{
	uint64_t last[WORKERS] = { 0 };

	(void)arg;
	while (!atomic_load(&stop)) {
		for (int i = 0; i < WORKERS; i++) {
			uint64_t r = atomic_load(&rt->workers[i]->cells.round);

			if (r < last[i])
				atomic_fetch_add(&nonmonotonic, 1);
			last[i] = r;
		}
	}
	return NULL;
}

struct tree {
	uint64_t seed;
	int depth;
};

static void node(void *arg)
{
	struct tree *t = arg;
	volatile unsigned spin = (unsigned)(t->seed % 3000);

	while (spin)
		spin--;
	for (int i = 0; t->depth > 0 && i < (int)(t->seed % 4); i++) {
		struct tree c = { t->seed * 6364136223846793005ull + (uint64_t)i + 1, t->depth - 1 };

		xs_task_spawn(node, &c, sizeof c);
	}
}

FIXTURE(runtime) {};
FIXTURE_SETUP(runtime) {}
FIXTURE_TEARDOWN(runtime) {}

TEST_F_TIMEOUT(runtime, rounds_grow_and_requests_are_served_once, 300)
{
	uint64_t handled = 0, sent = 0, advanced = 0;
	pthread_t observer;
	struct xs_stats st;

	setenv("XSCHED_DLB", "ws", 1);
	setenv("XSCHED_DLB_TIMEOUT", "1", 1); /* ask at every idle visit */
	rt = xs_runtime_create(WORKERS);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, pthread_create(&observer, NULL, observe_rounds, NULL));
	for (uint64_t seed = 1; seed <= 200 / test_scale(); seed++) {
		struct tree root = { seed * 7 + 3, 9 };

		ASSERT_EQ(0, xs_runtime_run(rt, node, &root));
	}
	atomic_store(&stop, 1);
	pthread_join(observer, NULL);
	/* A request sent just before the last job ended is served by its
	 * victim while it waits for the next job: let the counters settle
	 * (they only grow), then read them all at one quiet moment. */
	for (int tries = 0; tries < 1000; tries++) {
		uint64_t h = 0, se = 0, adv = 0;

		for (int i = 0; i < WORKERS; i++) {
			h += atomic_load(&rt->workers[i]->ctr.requests_handled);
			se += atomic_load(&rt->workers[i]->ctr.requests_sent);
			adv += atomic_load(&rt->workers[i]->cells.round) - 1;
		}
		ASSERT_EQ(0, xs_runtime_stats(rt, &st));
		if (tries && h == handled && se == sent && adv == advanced &&
		    st.requests_handled == h)
			break;
		handled = h, sent = se, advanced = adv;
		usleep(1000);
	}
	TH_LOG("sent %llu handled %llu with steal %llu", (unsigned long long)sent,
	       (unsigned long long)handled, (unsigned long long)st.requests_with_steal);
	EXPECT_EQ(0, atomic_load(&nonmonotonic));
	EXPECT_GT(handled, 0);
	EXPECT_LE(handled, sent);
	EXPECT_EQ(handled, advanced);
	EXPECT_EQ(st.requests_handled, handled);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
