// SPDX-License-Identifier: MIT
/*
 * XSCHED_SHOW_STATS=1 prints a per-worker counter table at destroy whose
 * totals agree with xs_runtime_stats(); tasks executed by their creator and
 * by another worker add up to the queued tasks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xsched.h"
#include "xs_test.h"
#include "capture-stderr.h"

static void leaf(void *arg)
{
	(void)arg;
}

static void root(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5000; i++)
		xs_task_spawn(leaf, &i, sizeof i);
}

TEST(show_stats_table_matches_api)
{
	char out[8192], *total;
	unsigned long long executed, self, local, remote, immediate, pushes;
	struct xs_runtime *rt;
	struct xs_stats st;
	struct capture c;

	setenv("XSCHED_SHOW_STATS", "1", 1);
	rt = xs_runtime_create(3);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	EXPECT_EQ(5000, st.tasks_executed);
	EXPECT_EQ(st.static_pushes, st.tasks_self + st.tasks_local + st.tasks_remote);
	EXPECT_EQ(5000, st.static_pushes + st.immediate);
	ASSERT_EQ(0, capture_begin(&c));
	xs_runtime_destroy(rt);
	capture_end(&c, out, sizeof out);
	EXPECT_NE(NULL, strstr(out, "xsched: statistics for 3 workers")) TH_LOG("%s", out);
	total = strstr(out, "\ntotal");
	ASSERT_NE(NULL, total) TH_LOG("%s", out);
	/* Columns: tasks_executed, then XS_COUNTERS in order. */
	ASSERT_EQ(6, sscanf(total, "\ntotal %llu %llu %llu %llu %llu %llu", &executed, &self,
			    &local, &remote, &immediate, &pushes));
	EXPECT_EQ(st.tasks_executed, executed);
	EXPECT_EQ(st.tasks_self, self);
	EXPECT_EQ(st.tasks_local, local);
	EXPECT_EQ(st.tasks_remote, remote);
	EXPECT_EQ(st.immediate, immediate);
	EXPECT_EQ(st.static_pushes, pushes);
}

TEST_HARNESS_MAIN
