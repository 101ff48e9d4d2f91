// SPDX-License-Identifier: MIT
/*
 * Every task is counted, whichever path created it: a job of known shape -
 * generic frames (xs_spawn()/xs_sync(), nested), typed children joined by
 * direct calls (task_typed.h) and children of xs_task_spawn() (frames
 * under ws and auto, descriptors under slb and rp, some run at once when
 * a queue is full) - run a few times, then the tasks executed and created
 * that xs_runtime_stats() reports, and those of the stats page as
 * xsched-top reads it (--json), are exactly the known total. With and
 * without XSCHED_PROFILE (which turns frames off for generic spawns).
 *
 * Fails if a fast path stops counting: before typed children joined by a
 * direct call were counted, the typed part of this job showed only the
 * children that thieves took (none with one worker).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xsched.h"
#include "xs_test.h"
#include "xsched-top-test.h"

#define INLINE_PARENTS 40
#define INLINE_CHILDREN 25
#define SPAWNED 300
#define TFIB_N 16
#define RUNS 3

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

/* Typed children of tfib(n): two per call with n >= 2. */
static uint64_t tfib_children(int n)
{
	return n < 2 ? 0 : 2 + tfib_children(n - 1) + tfib_children(n - 2);
}

static void leaf(void *arg)
{
	(void)arg;
}

static void inline_parent(void *arg)
{
	(void)arg;
	for (int i = 0; i < INLINE_CHILDREN; i++)
		xs_spawn(leaf, &i, sizeof(i));
	xs_sync();
}

struct job {
	long fib;
	int rc;
};

static void root(void *arg)
{
	struct job *j = arg;

	for (int i = 0; i < INLINE_PARENTS; i++)
		if (xs_spawn(inline_parent, &i, sizeof(i)))
			j->rc = -1;
	xs_sync();
	j->fib = tfib(TFIB_N);
	for (int i = 0; i < SPAWNED; i++)
		if (xs_task_spawn(leaf, &i, sizeof(i)))
			j->rc = -1;
	xs_task_wait();
}

static uint64_t job_tasks(void)
{
	return INLINE_PARENTS * (1 + INLINE_CHILDREN) + tfib_children(TFIB_N) + SPAWNED;
}

FIXTURE(count) {
	char profile[64];
};

FIXTURE_VARIANT(count) {
	const char *dlb;
	unsigned int workers;
	int profile;
};

FIXTURE_VARIANT_ADD(count, ws_one_worker) { .dlb = "ws", .workers = 1 };
FIXTURE_VARIANT_ADD(count, ws) { .dlb = "ws", .workers = 2 };
FIXTURE_VARIANT_ADD(count, auto_) { .dlb = "auto", .workers = 2 };
FIXTURE_VARIANT_ADD(count, slb) { .dlb = "slb", .workers = 2 };
FIXTURE_VARIANT_ADD(count, rp) { .dlb = "rp", .workers = 3 };
FIXTURE_VARIANT_ADD(count, ws_profile) { .dlb = "ws", .workers = 2, .profile = 1 };

FIXTURE_SETUP(count)
{
	setenv("XSCHED_DLB", variant->dlb, 1);
	/* Small queues: under slb some children run at once (immediate). */
	setenv("XSCHED_QUEUE_SIZE", "16", 1);
	self->profile[0] = '\0';
	if (variant->profile) {
		snprintf(self->profile, sizeof(self->profile), "/tmp/xs-count-%d.json",
			 (int)getpid());
		setenv("XSCHED_PROFILE", self->profile, 1);
	} else {
		unsetenv("XSCHED_PROFILE");
	}
}

FIXTURE_TEARDOWN(count)
{
	if (self->profile[0])
		unlink(self->profile);
}

TEST_F(count, readers_see_every_task)
{
	static char out[1 << 20];
	const uint64_t total = RUNS * job_tasks();
	struct xs_runtime *rt = xs_runtime_create(variant->workers);
	struct xs_stats st;
	const char *p;

	ASSERT_NE(NULL, rt);
	for (int r = 0; r < RUNS; r++) {
		struct job j = { -1, 0 };

		ASSERT_EQ(0, xs_runtime_run(rt, root, &j));
		ASSERT_EQ(0, j.rc);
		ASSERT_EQ(987, j.fib);
	}

	/* xs_stats: every task executed once, and created once. */
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	EXPECT_EQ(total, st.tasks_executed);
	EXPECT_EQ(total, st.static_pushes + st.immediate);
	EXPECT_EQ(st.static_pushes, st.tasks_self + st.tasks_local + st.tasks_remote);

	/* The stats page, as xsched-top reads it, once a publication period
	 * has passed with every worker idle (the page is final then). */
	tt_sleep_ms(350);
	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n 1 -p %d", (int)getpid()));
	p = tt_json_proc(out, getpid());
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	EXPECT_EQ((long long)total, tt_json_num(p, "tasks_executed")) TH_LOG("%s", out);
	EXPECT_EQ((long long)total, tt_json_num(p, "tasks_created")) TH_LOG("%s", out);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
