// SPDX-License-Identifier: MIT
/*
 * The caller of an elastic loop that closes it while a helper is still
 * inside waits for that helper, and is woken when it leaves
 * (libxsched/loops/loop.c, "Elastic loops"): a helper that leaves an open
 * loop notifies nobody, the last one out of a closed loop notifies
 * worker 0. A loop of two iterations, one chunk each (dynamic): the
 * caller's iteration holds it until the helper has started the other,
 * which then sleeps long past the spin window, so the caller closes with
 * the helper inside and parks. Asserted, over ROUNDS loops: every loop
 * returns 0 and only after the helper's iteration has ended. A helper that
 * did not notify on leaving a closed loop leaves the caller parked for
 * good (the harness's timeout fails the test); a caller that did not wait
 * returns before the iteration ended.
 */
#include <time.h>
#include "xsched.h"
#include "xs_test.h"

#define ROUNDS 20

struct round {
	int helper_started; /* __atomic: set by the helper's iteration */
	int helper_done;
	int timed_out;
};

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	nanosleep(&ts, NULL);
}

static void body(void *arg, int64_t first, uint64_t count)
{
	struct round *r = arg;

	(void)first, (void)count;
	if (xs_worker_id() != 0) {
		/* Release/acquire: the caller reads done after the loop. */
		__atomic_store_n(&r->helper_started, 1, __ATOMIC_RELEASE);
		pause_ms(20); /* well past XSCHED_SPIN_US: the caller parks */
		__atomic_store_n(&r->helper_done, 1, __ATOMIC_RELEASE);
		return;
	}
	/* The caller's iteration: until the helper runs the other (10 s at
	 * most: a helper that never comes is allowed, and not this test). */
	for (int i = 0; i < 10000 && !__atomic_load_n(&r->helper_started, __ATOMIC_ACQUIRE); i++)
		pause_ms(1);
	if (!__atomic_load_n(&r->helper_started, __ATOMIC_ACQUIRE))
		r->timed_out = 1;
}

TEST(caller_parks_until_helper_leaves)
{
	static const struct xs_loop_sched dyn = { .kind = XS_LOOP_DYNAMIC, .chunk = 1 };
	struct xs_runtime *rt = xs_runtime_create(2);

	ASSERT_NE(NULL, rt);
	for (int k = 0; k < ROUNDS; k++) {
		struct round r = { 0 };

		ASSERT_EQ(0, xs_parallel_for(rt, 0, 2, 1, &dyn, body, &r));
		if (r.timed_out)
			SKIP(break, "the helper never came in 10 s (machine too loaded)");
		ASSERT_EQ(1, __atomic_load_n(&r.helper_done, __ATOMIC_ACQUIRE)) TH_LOG("loop %d", k);
	}
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
