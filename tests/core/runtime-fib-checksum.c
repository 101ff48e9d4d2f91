// SPDX-License-Identifier: MIT
/*
 * Recursive fib with one spawn per call and no cut-off gives the right
 * answer for 1..8 workers, repeatedly on one runtime, and every spawned
 * task is accounted for in the counters.
 */
#include <errno.h>

#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"
#include "fib-task.h"

FIXTURE(runtime) {};
FIXTURE_SETUP(runtime) {}
FIXTURE_TEARDOWN(runtime) {}

TEST_F_TIMEOUT(runtime, fib_all_worker_counts, 600)
{
	/* fib(25) = 75025; calls with n >= 2 spawn once: fib(26) - 1. Under
	 * sanitizers fib(20) = 6765 with fib(21) - 1 spawns. */
	const int n = test_scale() > 1 ? 20 : 25;
	const long expect = n == 25 ? 75025 : 6765, spawns = n == 25 ? 121392 : 10945;

	for (unsigned p = 1; p <= 8; p++) {
		struct xs_runtime *rt = xs_runtime_create(p);
		struct xs_stats st;
		int rc;

		ASSERT_NE(NULL, rt);
		ASSERT_EQ(p, xs_runtime_workers(rt));
		for (int rep = 0; rep < 5; rep++) {
			if (rep && test_scale() > 1)
				break;
			long out = -1;
			struct fib_arg a = { n, &out };

			ASSERT_EQ(0, xs_runtime_run(rt, fib_task, &a));
			ASSERT_EQ(expect, out);
		}
		rc = xs_runtime_stats(rt, &st);
		if (rc == -EOPNOTSUPP) {
			/* make check-nostats: the answers are checked, the
			 * counts cannot be. */
			xs_runtime_destroy(rt);
			continue;
		}
		ASSERT_EQ(0, rc);
		EXPECT_EQ((uint64_t)(test_scale() > 1 ? 1 : 5) * spawns, st.tasks_executed);
		EXPECT_EQ(st.static_pushes, st.tasks_self + st.tasks_local + st.tasks_remote);
		EXPECT_EQ(st.tasks_executed, st.static_pushes + st.immediate);
		xs_runtime_destroy(rt);
	}
}

TEST_HARNESS_MAIN
