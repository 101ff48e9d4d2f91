// SPDX-License-Identifier: MIT
/*
 * Numbers humans read: in batch text the rates and totals of a process row
 * are at most five characters, 1234 as is, then 12.3K, 999K, 1.0M, 45.6G,
 * 5.0T (powers of 1000, rounded to what is printed); --json prints the
 * same counters exact. Pages forged for two live processes, whose first
 * rates are their counters (xsched-top-test.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"

/* The columns of @pid's row in batch output @out: TASKS/S, STEAL_L/S,
 * STEAL_R/S, REQ_SENT_TOTAL, REQ_HNDL_TOTAL, QUEUED_NOW. */
static int row_cols(const char *out, int pid, char col[6][16])
{
	char key[32], line[1024], cmd[256], dlb[16];
	double imm, idle;
	int p, rt, w;

	snprintf(key, sizeof(key), "%-8d ", pid);
	for (int i = 0; tt_line(out, i, line, sizeof(line)); i++)
		if (!strncmp(line, key, strlen(key)))
			return sscanf(line, "%d %d %255s %d %15s %15s %15s %15s %15s %lf %lf %15s %15s",
				      &p, &rt, cmd, &w, col[0], col[1], col[2], col[3], col[4], &imm,
				      &idle, dlb, col[5]) == 13;
	return 0;
}

TEST(rates_and_totals_in_k_m_g_exact_in_json)
{
	static char out[1 << 16];
	static const char *const want_a[6] = { "1.2M", "9999", "10.0K", "999K", "1.0M", "45.6G" };
	static const char *const want_b[6] = { "0", "99.9K", "100K", "5.0T", "1000", "42" };
	char dir[] = "/tmp/xsched-top-human-XXXXXX", shm[128], col[6][16], cmd[256];
	struct xs_stats_worker w = { 0 };
	pid_t a, b;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(shm, sizeof(shm), "%s/shm", dir);
	ASSERT_EQ(0, mkdir(shm, 0755));
	a = tt_sleeper("alpha");
	b = tt_sleeper("beta");
	ASSERT_LT(0, a);
	ASSERT_LT(0, b);
	w.tasks_executed = 1234567;
	w.stolen_local = 9999;
	w.stolen_remote = 10000;
	w.requests_sent = 999499;
	w.requests_handled = 999500;
	w.queue_depth = 45600000000ull;
	ASSERT_EQ(0, tt_forge_page(shm, a, "alpha", &w));
	memset(&w, 0, sizeof(w));
	w.stolen_local = 99949;
	w.stolen_remote = 99950;
	w.requests_sent = 5000000000000ull;
	w.requests_handled = 1000;
	w.queue_depth = 42;
	ASSERT_EQ(0, tt_forge_page(shm, b, "beta", &w));

	ASSERT_EQ(0, tt_run(out, sizeof(out),
			    "-bn1 --runtime-dir /nonexistent-xsched-top-test --shm-dir %s", shm));
	ASSERT_EQ(1, row_cols(out, a, col)) TH_LOG("%s", out);
	for (int i = 0; i < 6; i++) {
		EXPECT_STREQ(want_a[i], col[i]) TH_LOG("column %d:\n%s", i, out);
	}
	ASSERT_EQ(1, row_cols(out, b, col)) TH_LOG("%s", out);
	for (int i = 0; i < 6; i++) {
		EXPECT_STREQ(want_b[i], col[i]) TH_LOG("column %d:\n%s", i, out);
	}

	ASSERT_EQ(0, tt_run(out, sizeof(out),
			    "--json -n1 --runtime-dir /nonexistent-xsched-top-test --shm-dir %s",
			    shm));
	EXPECT_NE(NULL, strstr(tt_json_proc(out, a), "\"tasks_per_s\":1234567.0,"))
		TH_LOG("%s", out);
	EXPECT_EQ(999500, tt_json_num(tt_json_proc(out, a), "requests_handled"));
	EXPECT_EQ(45600000000ll, tt_json_num(tt_json_proc(out, a), "queue_depth"));
	EXPECT_EQ(5000000000000ll, tt_json_num(tt_json_proc(out, b), "requests_sent"));

	tt_sleeper_end(a);
	tt_sleeper_end(b);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
