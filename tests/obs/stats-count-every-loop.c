// SPDX-License-Identifier: MIT
/*
 * Every parallel loop is a job on the stats page: a run of short static
 * loops (each one call on a runtime of one worker, libxsched/loops/loop.c)
 * and of hybrid ones, on one and on two workers, shows on the page as
 * xsched-top reads it (--json) exactly that many jobs, none in progress,
 * and every iteration ran once.
 *
 * Fails if a loop's bookkeeping is skipped to make short loops cheaper:
 * a loop that left out the stats page's job hook would show fewer jobs.
 */
#include <string.h>
#include <unistd.h>

#include "xsched.h"
#include "xs_test.h"
#include "xsched-top-test.h"

#define LOOPS 500
#define WIDTH 64

static void body(void *arg, int64_t first, uint64_t count)
{
	int *hits = arg;

	for (uint64_t i = 0; i < count; i++)
		hits[first + (int64_t)i]++;
}

FIXTURE(loops) {
	int unused;
};

FIXTURE_VARIANT(loops) {
	unsigned int workers;
};

FIXTURE_VARIANT_ADD(loops, one_worker) { .workers = 1 };
FIXTURE_VARIANT_ADD(loops, two_workers) { .workers = 2 };

FIXTURE_SETUP(loops)
{
	(void)self;
}

FIXTURE_TEARDOWN(loops)
{
	(void)self;
}

TEST_F(loops, page_counts_every_loop)
{
	static const struct xs_loop_sched sched[] = {
		{ .kind = XS_LOOP_STATIC },
		{ .kind = XS_LOOP_HYBRID, .ns = 2, .nd = 4, .grain = 50 },
	};
	static char out[1 << 20];
	static int hits[WIDTH];
	struct xs_runtime *rt = xs_runtime_create(variant->workers);
	const char *p;
	int missed = 0;

	ASSERT_NE(NULL, rt);
	for (int k = 0; k < LOOPS; k++)
		ASSERT_EQ(0, xs_parallel_for(rt, 0, WIDTH, 1, &sched[k % 2], body, hits));
	for (int i = 0; i < WIDTH; i++)
		missed += hits[i] != LOOPS;
	EXPECT_EQ(0, missed);

	/* The page, once a publication period has passed with every worker
	 * idle (it is final then). */
	tt_sleep_ms(350);
	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n 1 -p %d", (int)getpid()));
	p = tt_json_proc(out, getpid());
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	EXPECT_EQ(LOOPS, tt_json_num(p, "jobs")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(p, "\"in_job\":false")) TH_LOG("%s", out);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
