// SPDX-License-Identifier: MIT
/*
 * xsched-top picks and orders processes as top users ask, in batch mode,
 * against pages forged for three live processes (tasks/s 45.6G, 1.2M,
 * 2500): -p takes comma lists and repeats, and a list with a bad value is
 * refused naming it (exit 2); --filter keeps the processes whose full
 * command (case-insensitive) or pid contains the text, in -b and --json;
 * -r reverses the order of the sort key (tasks/s: lowest first; pid:
 * highest first). The command shown is the full argv[0] name where the
 * page's comm is its cut start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"

#define LONG_NAME "xsched-top-forged-simulation-alpha"

FIXTURE(forged)
{
	char dir[64], shm[128];
	pid_t a, b, c; /* tasks/s 1234567, 2500, 45.6e9 */
};

FIXTURE_SETUP(forged)
{
	struct xs_stats_worker w = { 0 };

	snprintf(self->dir, sizeof(self->dir), "/tmp/xsched-top-forged-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->shm, sizeof(self->shm), "%s/shm", self->dir);
	ASSERT_EQ(0, mkdir(self->shm, 0755));
	self->a = tt_sleeper(LONG_NAME);
	self->b = tt_sleeper("beta-solver");
	self->c = tt_sleeper("gamma");
	ASSERT_LT(0, self->a);
	ASSERT_LT(0, self->b);
	ASSERT_LT(0, self->c);
	w.tasks_executed = 1234567;
	ASSERT_EQ(0, tt_forge_page(self->shm, self->a, "xsched-top-forg", &w));
	w.tasks_executed = 2500;
	ASSERT_EQ(0, tt_forge_page(self->shm, self->b, "beta-solver", &w));
	w.tasks_executed = 45600000000ull;
	ASSERT_EQ(0, tt_forge_page(self->shm, self->c, "gamma", &w));
}

FIXTURE_TEARDOWN(forged)
{
	char cmd[256];

	tt_sleeper_end(self->a);
	tt_sleeper_end(self->b);
	tt_sleeper_end(self->c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		perror(cmd);
}

/* Line number of @pid's row in batch output @out, or -1. */
static int row_of(const char *out, int pid)
{
	char key[32], line[1024];

	snprintf(key, sizeof(key), "%-8d ", pid);
	for (int i = 0; tt_line(out, i, line, sizeof(line)); i++)
		if (!strncmp(line, key, strlen(key)))
			return i;
	return -1;
}

#define TOP_ARGS "--runtime-dir /nonexistent-xsched-top-test --shm-dir %s "

TEST_F(forged, pid_comma_lists_and_repeats)
{
	static char out[1 << 16];

	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "-bn1 -p %d,%d", self->shm, self->a,
			    self->c));
	EXPECT_LE(0, row_of(out, self->a)) TH_LOG("%s", out);
	EXPECT_EQ(-1, row_of(out, self->b)) TH_LOG("%s", out);
	EXPECT_LE(0, row_of(out, self->c)) TH_LOG("%s", out);

	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "-bn1 -p %d --pid=%d", self->shm,
			    self->a, self->b));
	EXPECT_LE(0, row_of(out, self->a)) TH_LOG("%s", out);
	EXPECT_LE(0, row_of(out, self->b)) TH_LOG("%s", out);
	EXPECT_EQ(-1, row_of(out, self->c)) TH_LOG("%s", out);

	/* One pid still reads that page alone. */
	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "--json -n1 -p %d", self->shm, self->b));
	EXPECT_NE(NULL, tt_json_proc(out, self->b)) TH_LOG("%s", out);
	EXPECT_EQ(NULL, tt_json_proc(out, self->a)) TH_LOG("%s", out);

	for (int i = 0; i < 4; i++) {
		static const char *const bad[] = { "%d,x", "%d,", "%d,,1", "%d,-3" };
		char val[64], want[96];

		snprintf(val, sizeof(val), bad[i], self->a);
		EXPECT_EQ(2, tt_run(out, sizeof(out), TOP_ARGS "-bn1 -p '%s' 2>&1", self->shm, val));
		snprintf(want, sizeof(want), "-p/--pid '%s'", val);
		EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	}
}

TEST_F(forged, filter_matches_full_command_or_pid)
{
	static char out[1 << 16];
	char pid[16];

	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "-bn1 --filter SIMULATION", self->shm));
	EXPECT_LE(0, row_of(out, self->a)) TH_LOG("%s", out);
	EXPECT_EQ(-1, row_of(out, self->b)) TH_LOG("%s", out);
	EXPECT_EQ(-1, row_of(out, self->c)) TH_LOG("%s", out);
	/* The full name, not the page's 15 characters. */
	EXPECT_NE(NULL, strstr(out, " " LONG_NAME " ")) TH_LOG("%s", out);

	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "--json -n1 --filter=simulation",
			    self->shm));
	EXPECT_NE(NULL, tt_json_proc(out, self->a)) TH_LOG("%s", out);
	EXPECT_EQ(NULL, tt_json_proc(out, self->b)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"command_full\":\"" LONG_NAME "\"")) TH_LOG("%s", out);

	snprintf(pid, sizeof(pid), "%d", self->b);
	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "-bn1 --filter %s", self->shm, pid));
	EXPECT_LE(0, row_of(out, self->b)) TH_LOG("%s", out);

	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "-bn1 --filter no-such-thing", self->shm));
	EXPECT_NE(NULL, strstr(out, "matching the filter")) TH_LOG("%s", out);
}

TEST_F(forged, reverse_order)
{
	static char out[1 << 16];

	/* tasks/s, highest first: c, a, b; reversed: b, a, c. */
	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "-bn1 -p %d,%d,%d", self->shm, self->a,
			    self->b, self->c));
	EXPECT_LT(row_of(out, self->c), row_of(out, self->a)) TH_LOG("%s", out);
	EXPECT_LT(row_of(out, self->a), row_of(out, self->b)) TH_LOG("%s", out);
	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "-bn1 -r -p %d,%d,%d", self->shm,
			    self->a, self->b, self->c));
	EXPECT_LE(0, row_of(out, self->c)) TH_LOG("%s", out);
	EXPECT_LT(row_of(out, self->b), row_of(out, self->a)) TH_LOG("%s", out);
	EXPECT_LT(row_of(out, self->a), row_of(out, self->c)) TH_LOG("%s", out);

	/* pid: lowest first; --reverse: highest first (forked in order). */
	ASSERT_EQ(0, tt_run(out, sizeof(out), TOP_ARGS "-bn1 -s pid --reverse -p %d,%d,%d",
			    self->shm, self->a, self->b, self->c));
	ASSERT_LT(self->a, self->c) TH_LOG("pids wrapped; the order check needs order");
	EXPECT_LE(0, row_of(out, self->c)) TH_LOG("%s", out);
	EXPECT_LT(row_of(out, self->c), row_of(out, self->a)) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
