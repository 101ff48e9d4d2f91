// SPDX-License-Identifier: MIT
/*
 * The full command name is the process's to set, so xsched-top trusts it
 * no further than this: an argv[0] that extends the page's 15-character
 * comm is shown, with escape sequences, quotes, backslashes and non-ASCII
 * bytes each made '?'; an argv[0] that does not start with comm is not
 * shown (comm is), nor is one when comm is shorter than 15 characters
 * (not cut by the kernel). Pages forged for live processes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"

TEST(full_name_only_when_it_extends_comm_made_printable)
{
	static char out[1 << 16];
	char dir[] = "/tmp/xsched-top-names-XXXXXX", shm[128], cmd[256], want[256];
	struct xs_stats_worker w = { 0 };
	pid_t evil, other, shortc;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(shm, sizeof(shm), "%s/shm", dir);
	ASSERT_EQ(0, mkdir(shm, 0755));
	evil = tt_sleeper("xsched-top-evil\x1b]0;owned\x07\"q\\b\xc3\xa9-end");
	other = tt_sleeper("something-else-entirely-long-name");
	shortc = tt_sleeper("short-and-longer-argv0");
	ASSERT_LT(0, evil);
	ASSERT_LT(0, other);
	ASSERT_LT(0, shortc);
	ASSERT_EQ(0, tt_forge_page(shm, evil, "xsched-top-evil", &w));
	ASSERT_EQ(0, tt_forge_page(shm, other, "xsched-top-othe", &w));
	ASSERT_EQ(0, tt_forge_page(shm, shortc, "short", &w));

	ASSERT_EQ(0, tt_run(out, sizeof(out),
			    "--json -n1 --runtime-dir /nonexistent-xsched-top-test --shm-dir %s",
			    shm));
	EXPECT_NE(NULL, strstr(tt_json_proc(out, evil),
			       "\"command_full\":\"xsched-top-evil?]0;owned??q?b??" "-end\""))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(tt_json_proc(out, other), "\"command_full\":\"xsched-top-othe\""))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(tt_json_proc(out, shortc), "\"command_full\":\"short\""))
		TH_LOG("%s", out);

	ASSERT_EQ(0, tt_run(out, sizeof(out),
			    "-bn1 --runtime-dir /nonexistent-xsched-top-test --shm-dir %s", shm));
	EXPECT_EQ(NULL, strchr(out, '\x1b')) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "%-8d 0   xsched-top-evil?]0;owned??q?b??" "-end ", (int)evil);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);

	tt_sleeper_end(evil);
	tt_sleeper_end(other);
	tt_sleeper_end(shortc);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
}

TEST_HARNESS_MAIN
