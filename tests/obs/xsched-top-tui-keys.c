// SPDX-License-Identifier: MIT
/*
 * The screen, driven through tmux: with two workloads (an idle one started
 * first, a busy one after it), the process table shows both rows, busiest
 * first; `s` three times sorts by pid (the idle one, older, first); Enter
 * opens the detail view of the selected process with one row per worker;
 * `h` shows the help screen with the keys; `q` quits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"
#include "tmux-test.h"

/* Line number of the first line of @screen starting with @pid's row. */
static int row_of(const char *screen, int pid)
{
	char key[32];
	int line = 0;

	snprintf(key, sizeof(key), "%-8d ", pid);
	for (const char *p = screen; p && *p; line++) {
		if (!strncmp(p, key, strlen(key)))
			return line;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

/* Line number of the first line of @screen starting with @text. */
static int line_starting(const char *screen, const char *text)
{
	int line = 0;

	for (const char *p = screen; p && *p; line++) {
		if (!strncmp(p, text, strlen(text)))
			return line;
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return -1;
}

TEST(tui_rows_sort_detail_help)
{
	static char screen[65536];
	struct tt_workload idle = { 0 }, busy = { 0 };
	char text[128], keys[1024];

	if (system("tmux -V >/dev/null 2>&1"))
		SKIP(return, "tmux is not installed (scripts/deps.sh installs it)");
	snprintf(tmux_sock, sizeof(tmux_sock), "xsched-top-test-%d", (int)getpid());
	ASSERT_EQ(0, tt_workload_start(&idle, 2, 0, 0, NULL));
	ASSERT_EQ(0, tt_workload_stop(&idle)); /* created, no jobs: idle */
	ASSERT_EQ(0, tt_workload_start(&busy, 2, 18, 1, NULL));
	ASSERT_LT(idle.pid, busy.pid) TH_LOG("pids wrapped; the sort check needs order");

	ASSERT_EQ(0, tmux("new-session -d -x 160 -y 50 \"TERM=xterm '%s' -d 0.3 "
			  "--runtime-dir /nonexistent-xsched-top-test\"",
			  tt_tool()));
	snprintf(text, sizeof(text), "%-8d ", (int)busy.pid);
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), text)) TH_LOG("%s", screen);
	tt_sleep_ms(700); /* a refresh with rates for both */
	tmux_capture(screen, sizeof(screen));
	EXPECT_NE(NULL, strstr(screen, "daemon absent")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "TASKS/S")) TH_LOG("%s", screen);
	ASSERT_LE(0, row_of(screen, idle.pid)) TH_LOG("%s", screen);
	ASSERT_LE(0, row_of(screen, busy.pid)) TH_LOG("%s", screen);
	EXPECT_LT(row_of(screen, busy.pid), row_of(screen, idle.pid))
		TH_LOG("sorted by tasks/s, the busy one comes first:\n%s", screen);

	/* s: steals/s, idle%, pid */
	tmux("send-keys s s s");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "sort pid")) TH_LOG("%s", screen);
	EXPECT_LT(row_of(screen, idle.pid), row_of(screen, busy.pid))
		TH_LOG("sorted by pid, the older (idle) one comes first:\n%s", screen);

	/* Select the busy one: to the top row, then down to its row (other
	 * xsched processes of the machine may be listed too). */
	keys[0] = '\0';
	for (int i = 0; i < 40; i++)
		strcat(keys, " Up");
	for (int i = line_starting(screen, "PID ") + 1; i < row_of(screen, busy.pid); i++)
		strcat(keys, " Down");
	tmux("send-keys%s", keys);
	tt_sleep_ms(100);
	tmux("send-keys Enter");
	snprintf(text, sizeof(text), "workers of %d", (int)busy.pid);
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), text)) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "WKR")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "\n0    ")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "\n1    ")) TH_LOG("%s", screen);

	tmux("send-keys h");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "xsched-top help")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "quit")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "sort by")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "pause")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "delay")) TH_LOG("%s", screen);

	/* Any key leaves the help; Esc the detail view; q quits. */
	tmux("send-keys x");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), text)) TH_LOG("%s", screen);
	tmux("send-keys Escape");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "TASKS/S")) TH_LOG("%s", screen);
	tmux("send-keys q");
	for (int i = 0; i < 40 && !tmux("has-session 2>/dev/null"); i++)
		tt_sleep_ms(50);
	EXPECT_NE(0, tmux("has-session 2>/dev/null")) TH_LOG("xsched-top did not quit on q");
	tmux("kill-server 2>/dev/null");

	ASSERT_EQ(0, tt_workload_stop(&busy));
	EXPECT_EQ(0, tt_workload_end(&busy));
	EXPECT_EQ(0, tt_workload_end(&idle));
}

TEST_HARNESS_MAIN
