// SPDX-License-Identifier: MIT
/*
 * The screen on an 80x24 terminal, driven through tmux: the header lines
 * are whole and a process row ends with its DLB column on its own line (not
 * cut, not wrapped); q on the help screen returns to the main view and q
 * again quits; a bad delay typed at the d prompt shows an error naming the
 * value, and the delay stays as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"
#include "tmux-test.h"

/* The line of @screen that starts with @prefix, trailing blanks cut. */
static int line_with(const char *screen, const char *prefix, char *out, size_t len)
{
	for (const char *p = screen; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (!strncmp(p, prefix, strlen(prefix))) {
			while (n && p[n - 1] == ' ')
				n--;
			snprintf(out, len, "%.*s", (int)n, p);
			return 1;
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

TEST(tui_fits_80x24_help_q_bad_delay)
{
	static char screen[16384];
	struct tt_workload busy = { 0 };
	char key[32], line[256];

	if (system("tmux -V >/dev/null 2>&1"))
		SKIP(return, "tmux is not installed (scripts/deps.sh installs it)");
	snprintf(tmux_sock, sizeof(tmux_sock), "xsched-top-80x24-%d", (int)getpid());
	ASSERT_EQ(0, tt_workload_start(&busy, 2, 18, 1, NULL));
	ASSERT_EQ(0, tmux("new-session -d -x 80 -y 24 \"TERM=xterm '%s' -d 0.3 -p %d "
			  "--runtime-dir /nonexistent-xsched-top-test\"",
			  tt_tool(), (int)busy.pid));
	snprintf(key, sizeof(key), "%-8d ", (int)busy.pid);
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), key)) TH_LOG("%s", screen);

	/* Header: whole lines, the keys line last. */
	ASSERT_EQ(1, line_with(screen, "xsched-top", line, sizeof(line))) TH_LOG("%s", screen);
	EXPECT_TRUE(ends_with(line, "showing what processes publish")) TH_LOG("'%s'", line);
	ASSERT_EQ(1, line_with(screen, "delay ", line, sizeof(line))) TH_LOG("%s", screen);
	EXPECT_TRUE(ends_with(line, "q quit")) TH_LOG("'%s'", line);
	/* The row ends with its DLB on the same line. */
	ASSERT_EQ(1, line_with(screen, key, line, sizeof(line))) TH_LOG("%s", screen);
	EXPECT_TRUE(ends_with(line, " slb") || ends_with(line, " ws") || ends_with(line, " rp") ||
		    ends_with(line, " auto"))
		TH_LOG("row cut or wrapped: '%s'\n%s", line, screen);
	ASSERT_EQ(1, line_with(screen, "PID ", line, sizeof(line))) TH_LOG("%s", screen);
	EXPECT_TRUE(ends_with(line, "DLB")) TH_LOG("'%s'", line);

	/* q on the help screen: back to the main view, still running. */
	tmux("send-keys h");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "xsched-top help")) TH_LOG("%s", screen);
	tmux("send-keys q");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "STEAL_L/S")) TH_LOG("%s", screen);
	EXPECT_EQ(0, tmux("has-session 2>/dev/null")) TH_LOG("q on the help screen quit");

	/* A bad delay is named and the delay stays. */
	tmux("send-keys d");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "delay in seconds")) TH_LOG("%s", screen);
	tmux("send-keys abc Enter");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "delay 'abc' rejected")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "delay 0.3 s")) TH_LOG("%s", screen);

	/* q on the main view quits. */
	tmux("send-keys q");
	for (int i = 0; i < 40 && !tmux("has-session 2>/dev/null"); i++)
		tt_sleep_ms(50);
	EXPECT_NE(0, tmux("has-session 2>/dev/null")) TH_LOG("xsched-top did not quit on q");
	tmux("kill-server 2>/dev/null");

	ASSERT_EQ(0, tt_workload_stop(&busy));
	EXPECT_EQ(0, tt_workload_end(&busy));
}

TEST_HARNESS_MAIN
