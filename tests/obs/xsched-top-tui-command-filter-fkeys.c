// SPDX-License-Identifier: MIT
/*
 * The screen as htop users drive it, through tmux, against pages forged
 * for three live processes (tasks/s 45.6G, 1.2M, 2500): at 200 columns
 * the COMMAND column shows a 50-character argv[0] whole (the page has its
 * first 15) with TASKS/S as 45.6G, 1.2M, 2500; R reverses the order and
 * the header says asc; / and typed text keep the matching rows only, Esc
 * brings the others back; F1 shows the help, F10 quits. At 80 columns the
 * name is cut and the row still ends with its DLB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"
#include "tmux-test.h"

#define LONG_NAME "xsched-top-forged-simulation-with-a-long-name-alph"

FIXTURE(forged)
{
	char dir[64], shm[128];
	pid_t a, b, c; /* tasks/s 1234567, 2500, 45.6e9 */
};

FIXTURE_SETUP(forged)
{
	struct xs_stats_worker w = { 0 };

	if (system("tmux -V >/dev/null 2>&1"))
		SKIP(return, "tmux is not installed (scripts/deps.sh installs it)");
	snprintf(tmux_sock, sizeof(tmux_sock), "xsched-top-fkeys-%d", (int)getpid());
	snprintf(self->dir, sizeof(self->dir), "/tmp/xsched-top-fkeys-XXXXXX");
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

	tmux("kill-server 2>/dev/null");
	tt_sleeper_end(self->a);
	tt_sleeper_end(self->b);
	tt_sleeper_end(self->c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (self->dir[0] && system(cmd))
		perror(cmd);
}

/* Line number of @pid's row on @screen, or -1; the row into @row. */
static int row_of(const char *screen, int pid, char *row, size_t len)
{
	char key[32];

	snprintf(key, sizeof(key), "%-8d ", pid);
	for (int i = 0; tt_line(screen, i, row, len); i++)
		if (!strncmp(row, key, strlen(key)))
			return i;
	return -1;
}

/* Start xsched-top in a @cols x @rows pane; wait for the row of @pid. The
 * delay is long: the forged pages do not change, the first rates stay. */
static int start(FIXTURE_DATA(forged) *self, int cols, int rows, char *screen, size_t len)
{
	char key[32];

	if (tmux("new-session -d -x %d -y %d \"TERM=xterm '%s' -d 3600 -p %d,%d,%d "
		 "--runtime-dir /nonexistent-xsched-top-test --shm-dir %s\"",
		 cols, rows, tt_tool(), (int)self->a, (int)self->b, (int)self->c, self->shm))
		return 0;
	snprintf(key, sizeof(key), "%-8d ", (int)self->a);
	return tmux_wait_for(screen, len, key);
}

static int quit_within_2s(void)
{
	for (int i = 0; i < 40 && !tmux("has-session 2>/dev/null"); i++)
		tt_sleep_ms(50);
	return tmux("has-session 2>/dev/null") != 0;
}

TEST_F(forged, full_command_reverse_filter_f1_f10_at_200)
{
	static char screen[65536];
	char row[512], t[32];

	ASSERT_EQ(1, start(self, 200, 50, screen, sizeof(screen))) TH_LOG("%s", screen);
	ASSERT_LE(0, row_of(screen, self->a, row, sizeof(row))) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(row, " " LONG_NAME " ")) TH_LOG("name cut: '%s'", row);
	EXPECT_NE(NULL, strstr(row, " 1.2M ")) TH_LOG("'%s'", row);
	ASSERT_LE(0, row_of(screen, self->c, row, sizeof(row))) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(row, " 45.6G ")) TH_LOG("'%s'", row);
	ASSERT_LE(0, row_of(screen, self->b, row, sizeof(row))) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(row, " 2500 ")) TH_LOG("'%s'", row);
	EXPECT_NE(NULL, strstr(screen, "sort tasks/s desc")) TH_LOG("%s", screen);
	EXPECT_LT(row_of(screen, self->c, row, sizeof(row)), row_of(screen, self->a, row, sizeof(row)))
		TH_LOG("%s", screen);
	EXPECT_LT(row_of(screen, self->a, row, sizeof(row)), row_of(screen, self->b, row, sizeof(row)))
		TH_LOG("%s", screen);

	/* R: lowest first. */
	tmux("send-keys R");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "sort tasks/s asc")) TH_LOG("%s", screen);
	EXPECT_LT(row_of(screen, self->b, row, sizeof(row)), row_of(screen, self->a, row, sizeof(row)))
		TH_LOG("%s", screen);
	EXPECT_LT(row_of(screen, self->a, row, sizeof(row)), row_of(screen, self->c, row, sizeof(row)))
		TH_LOG("%s", screen);

	/* /: the table follows the text typed; Enter keeps it; Esc clears. */
	tmux("send-keys /");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "filter (Enter")) TH_LOG("%s", screen);
	tmux("send-keys -l SOLV");
	tmux("send-keys Enter");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "/SOLV")) TH_LOG("%s", screen);
	EXPECT_LE(0, row_of(screen, self->b, row, sizeof(row))) TH_LOG("%s", screen);
	EXPECT_EQ(-1, row_of(screen, self->a, row, sizeof(row))) TH_LOG("%s", screen);
	EXPECT_EQ(-1, row_of(screen, self->c, row, sizeof(row))) TH_LOG("%s", screen);
	snprintf(t, sizeof(t), "/%d", (int)self->c); /* a pid matches too */
	tmux("send-keys / BSpace BSpace BSpace BSpace");
	tmux("send-keys -l %d", (int)self->c);
	tmux("send-keys Enter");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), t)) TH_LOG("%s", screen);
	EXPECT_LE(0, row_of(screen, self->c, row, sizeof(row))) TH_LOG("%s", screen);
	EXPECT_EQ(-1, row_of(screen, self->b, row, sizeof(row))) TH_LOG("%s", screen);
	tmux("send-keys Escape");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "filter cleared")) TH_LOG("%s", screen);
	EXPECT_LE(0, row_of(screen, self->a, row, sizeof(row))) TH_LOG("%s", screen);
	EXPECT_LE(0, row_of(screen, self->b, row, sizeof(row))) TH_LOG("%s", screen);
	EXPECT_LE(0, row_of(screen, self->c, row, sizeof(row))) TH_LOG("%s", screen);

	/* F1: help; F10 quits, from the help screen too. */
	tmux("send-keys F1");
	ASSERT_EQ(1, tmux_wait_for(screen, sizeof(screen), "xsched-top help")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "F10")) TH_LOG("%s", screen);
	tmux("send-keys F10");
	EXPECT_EQ(1, quit_within_2s()) TH_LOG("xsched-top did not quit on F10");
}

TEST_F(forged, command_cut_at_80_row_whole)
{
	static char screen[16384];
	char row[512];
	size_t n;

	ASSERT_EQ(1, start(self, 80, 24, screen, sizeof(screen))) TH_LOG("%s", screen);
	ASSERT_LE(0, row_of(screen, self->a, row, sizeof(row))) TH_LOG("%s", screen);
	n = strlen(row);
	while (n && row[n - 1] == ' ')
		row[--n] = '\0';
	EXPECT_NE(NULL, strstr(row, " xsched-top-forge ")) TH_LOG("'%s'", row);
	EXPECT_EQ(NULL, strstr(row, LONG_NAME)) TH_LOG("'%s'", row);
	EXPECT_TRUE(n >= 3 && !strcmp(row + n - 3, " ws")) TH_LOG("row cut or wrapped: '%s'", row);
	EXPECT_GE(80, (int)n);
	tmux("send-keys F10");
	EXPECT_EQ(1, quit_within_2s()) TH_LOG("xsched-top did not quit on F10");
}

TEST_HARNESS_MAIN
