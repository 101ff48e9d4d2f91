// SPDX-License-Identifier: MIT
/*
 * Worker threads carry their names (libxsched/base/thread_name.h): a runtime of
 * four workers shows threads named xsched-w1, xsched-w2 and xsched-w3 in
 * /proc/self/task/TID/comm, each once, and the main thread (worker 0)
 * keeps the program's name.
 */
#include <stdio.h>
#include <string.h>
#include "xsched.h"
#include "xs_test.h"
#include "xs_test_threads.h"

static void root(void *arg)
{
	(void)arg;
}

TEST(workers_named_by_id)
{
	struct xs_runtime *rt = xs_runtime_create(4);
	char self[32] = "";
	FILE *f;

	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
	EXPECT_EQ(1, xs_test_threads_named("xsched-w1", NULL));
	EXPECT_EQ(1, xs_test_threads_named("xsched-w2", NULL));
	EXPECT_EQ(1, xs_test_threads_named("xsched-w3", NULL));
	EXPECT_EQ(0, xs_test_threads_named("xsched-w0", NULL));
	EXPECT_EQ(0, xs_test_threads_named("xsched-w4", NULL));
	f = fopen("/proc/thread-self/comm", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(self, sizeof(self), f));
	fclose(f);
	EXPECT_EQ(0, strncmp(self, "worker-threads", 14)) TH_LOG("main thread is '%s'", self);
	xs_runtime_destroy(rt);
	EXPECT_EQ(0, xs_test_threads_named("xsched-w1", NULL));
}

TEST_HARNESS_MAIN
