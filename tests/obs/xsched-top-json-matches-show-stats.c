// SPDX-License-Identifier: MIT
/*
 * A workload publishes its counters: `xsched-top --json -n 3` lists its pid
 * with tasks executed that grow from one refresh to the next while it runs;
 * once it is done (before it destroys its runtime), the published totals
 * are exactly what its own XSCHED_SHOW_STATS table says at exit; after it
 * exits its page is gone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"

/* Column @col (0 = tasks_executed, then XS_COUNTERS in order) of the
 * "total" row of an XSCHED_SHOW_STATS table in @text. */
static long long stats_total(const char *text, int col)
{
	const char *p = strstr(text, "\ntotal");
	long long v = -1;

	if (!p)
		return -1;
	p += strlen("\ntotal");
	for (int i = 0; i <= col; i++) {
		char *end;

		v = strtoll(p, &end, 10);
		if (end == p)
			return -1;
		p = end;
	}
	return v;
}

enum { COL_EXECUTED, COL_SELF, COL_LOCAL, COL_REMOTE, COL_IMMEDIATE, COL_PUSHES,
       COL_CONTINUATIONS, COL_SENT, COL_HANDLED, COL_WITH_STEAL, COL_SOURCE_EMPTY,
       COL_TARGET_FULL, COL_STOLEN_LOCAL, COL_STOLEN_REMOTE };

TEST(json_counters_grow_and_match_show_stats)
{
	static char out[1 << 20], stats[65536];
	char line[1 << 16], statsfile[] = "/tmp/xsched-top-stats-XXXXXX";
	long long prev = -1, grew = 0;
	struct tt_workload wl = { 0 };
	const char *p;
	char path[4200];
	FILE *f;
	size_t n;
	int fd;

	fd = mkstemp(statsfile);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, tt_workload_start(&wl, 2, 20, 1, statsfile));
	tt_sleep_ms(200);

	/* While it runs: three refreshes, its pid in each, counters growing. */
	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n 3 -d 0.3 -p %d", (int)wl.pid));
	for (int i = 0; i < 3; i++) {
		long long executed;

		ASSERT_NE(NULL, tt_line(out, i, line, sizeof(line))) TH_LOG("%s", out);
		p = tt_json_proc(line, wl.pid);
		ASSERT_NE(NULL, p) TH_LOG("refresh %d: %s", i, line);
		executed = tt_json_num(p, "tasks_executed");
		EXPECT_LE(prev, executed);
		if (prev >= 0 && executed > prev)
			grew++;
		prev = executed;
		EXPECT_EQ(2, tt_json_num(p, "workers"));
	}
	EXPECT_EQ(2, grew) TH_LOG("tasks_executed did not grow at every refresh: %s", out);
	EXPECT_EQ(NULL, tt_line(out, 3, line, sizeof(line)));

	/* Done, runtime not destroyed yet: the page is final after a period. */
	ASSERT_EQ(0, tt_workload_stop(&wl));
	tt_sleep_ms(350);
	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n 1 -p %d", (int)wl.pid));
	p = tt_json_proc(out, wl.pid);
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	p = strstr(p, "\"path\":\"");
	ASSERT_NE(NULL, p);
	n = strcspn(p + 8, "\"");
	ASSERT_LT(n, sizeof(path));
	memcpy(path, p + 8, n);
	path[n] = '\0';
	p = tt_json_proc(out, wl.pid);
	EXPECT_EQ(0, access(path, R_OK));
	EXPECT_EQ(1, tt_json_num(p, "idle_pct") >= 0);

	ASSERT_EQ(0, tt_workload_end(&wl));
	f = fopen(statsfile, "r");
	ASSERT_NE(NULL, f);
	n = fread(stats, 1, sizeof(stats) - 1, f);
	stats[n] = '\0';
	fclose(f);
	unlink(statsfile);
	ASSERT_LT(0, stats_total(stats, COL_EXECUTED)) TH_LOG("%s", stats);
	EXPECT_EQ(stats_total(stats, COL_EXECUTED), tt_json_num(p, "tasks_executed"));
	EXPECT_EQ(stats_total(stats, COL_PUSHES) + stats_total(stats, COL_IMMEDIATE),
		  tt_json_num(p, "tasks_created"));
	EXPECT_EQ(stats_total(stats, COL_IMMEDIATE), tt_json_num(p, "immediate"));
	EXPECT_EQ(stats_total(stats, COL_SENT), tt_json_num(p, "requests_sent"));
	EXPECT_EQ(stats_total(stats, COL_HANDLED), tt_json_num(p, "requests_handled"));
	EXPECT_EQ(stats_total(stats, COL_WITH_STEAL), tt_json_num(p, "requests_with_steal"));
	EXPECT_EQ(stats_total(stats, COL_STOLEN_LOCAL), tt_json_num(p, "stolen_local"));
	EXPECT_EQ(stats_total(stats, COL_STOLEN_REMOTE), tt_json_num(p, "stolen_remote"));
	EXPECT_EQ(0, tt_json_num(p, "queue_depth"));

	/* Destroyed: the page is gone, and the tool no longer lists it. */
	EXPECT_NE(0, access(path, F_OK));
	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n 1 -p %d", (int)wl.pid));
	EXPECT_EQ(NULL, tt_json_proc(out, wl.pid)) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
