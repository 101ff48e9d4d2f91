// SPDX-License-Identifier: MIT
/*
 * Typed tasks (xsched/task_typed.h): fib with both calls spawned as typed
 * children and joined newest first gives the right answer for 1..8
 * workers on however many CPUs there are, repeatedly on one runtime, and
 * the counters account for every typed child once (task_typed.h,
 * Counting), joined by a direct call or not: each run by its spawner
 * unless a thief ran it.
 */
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"

XS_TASK_1(long, tfib, int, n)
{
	if (n < 2)
		return n;
	tfib_spawn(n - 1);
	tfib_spawn(n - 2);
	long y = tfib_join();
	long x = tfib_join();

	return x + y;
}

struct tfib_run {
	int n;
	long out;
};

static void tfib_root(void *p)
{
	struct tfib_run *r = p;

	r->out = tfib(r->n);
}

/* fib(n) and the spawns of tfib(n) (two per call with n >= 2), by
 * iteration. */
static void expected(int n, long *fib, uint64_t *spawns)
{
	long a = 0, b = 1;
	uint64_t s0 = 0, s1 = 0;

	for (int i = 0; i < n; i++) {
		long t = a + b;

		a = b;
		b = t;
	}
	for (int i = 1; i < n; i++) {
		uint64_t t = 2 + s0 + s1;

		s0 = s1;
		s1 = t;
	}
	*fib = a;
	*spawns = n < 2 ? 0 : s1;
}

FIXTURE(typed) {};
FIXTURE_SETUP(typed) {}
FIXTURE_TEARDOWN(typed) {}

TEST_F_TIMEOUT(typed, fib_all_worker_counts, 600)
{
	const int n = test_scale() > 1 ? 18 : 24;
	const int reps = test_scale() > 1 ? 1 : 5;
	uint64_t spawns;
	long expect;

	expected(n, &expect, &spawns);
	for (unsigned p = 1; p <= 8; p++) {
		struct xs_runtime *rt = xs_runtime_create(p);
		struct xs_stats st;

		ASSERT_NE(NULL, rt);
		for (int rep = 0; rep < reps; rep++) {
			struct tfib_run r = { n, -1 };

			ASSERT_EQ(0, xs_runtime_run(rt, tfib_root, &r));
			ASSERT_EQ(expect, r.out);
		}
		ASSERT_EQ(0, xs_runtime_stats(rt, &st));
		TH_LOG("%u workers: %llu frames taken by thieves", p,
		       (unsigned long long)st.frames_taken);
		EXPECT_EQ((uint64_t)reps * spawns, st.static_pushes);
		EXPECT_EQ((uint64_t)reps * spawns, st.tasks_executed);
		EXPECT_LE(st.frames_taken, st.static_pushes);
		EXPECT_EQ(st.static_pushes, st.tasks_self + st.tasks_local + st.tasks_remote);
		/* A thief's frame is found stolen at least once (twice when a
		 * rescue republished its slot meanwhile). */
		EXPECT_LE(st.frames_taken, st.frames_stolen);
		xs_runtime_destroy(rt);
	}
}

TEST_HARNESS_MAIN
