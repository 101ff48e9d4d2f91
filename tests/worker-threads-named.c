// SPDX-License-Identifier: MIT
/*
 * Worker threads carry their names (libxsched/base/thread_name.h): a runtime of
 * four workers shows threads named xsched-w1, xsched-w2 and xsched-w3 in
 * /proc/self/task/TID/comm, each once, and the main thread (worker 0)
 * keeps the program's name.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include "xsched.h"
#include "xs_test.h"

/* How many threads of this process are named @name. */
static int threads_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = 0;
		fclose(f);
		n += !strcmp(comm, name);
	}
	closedir(d);
	return n;
}

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
	EXPECT_EQ(1, threads_named("xsched-w1"));
	EXPECT_EQ(1, threads_named("xsched-w2"));
	EXPECT_EQ(1, threads_named("xsched-w3"));
	EXPECT_EQ(0, threads_named("xsched-w0"));
	EXPECT_EQ(0, threads_named("xsched-w4"));
	f = fopen("/proc/thread-self/comm", "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(self, sizeof(self), f));
	fclose(f);
	EXPECT_EQ(0, strncmp(self, "worker-threads", 14)) TH_LOG("main thread is '%s'", self);
	xs_runtime_destroy(rt);
	EXPECT_EQ(0, threads_named("xsched-w1"));
}

TEST_HARNESS_MAIN
