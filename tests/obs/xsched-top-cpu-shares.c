// SPDX-License-Identifier: MIT
/*
 * Each process's CPU share, as xschedd's state says it (struct
 * xs_abi_share): against a fresh state forged with xs_abi_layout() that
 * gives 3 of 4 CPUs to one of two live processes (forged statistics
 * pages) and lists none for the other, -b prints the share in
 * CPU_SHARE_NOW (3, and - for the other) and the division in the header,
 * --json share_cpus (3, and null), the screen (tmux) the division in its
 * header and, 120 columns wide, the SHR column; at 80x24 the process's
 * detail view says its share. A share table that contradicts itself
 * (share_count above nshares) is not shown, and a note says why.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "xs_test.h"
#include "xsched-top-test.h"
#include "tmux-test.h"
#include "xsched/abi.h"

FIXTURE(shares)
{
	char dir[64];
	pid_t with, without;
};

FIXTURE_VARIANT(shares)
{
	int corrupt; /* share_count > nshares */
};

FIXTURE_VARIANT_ADD(shares, valid) { .corrupt = 0 };
FIXTURE_VARIANT_ADD(shares, corrupt) { .corrupt = 1 };

/* <dir>/state: 4 CPUs, fresh for an hour (tick 900 s); 4 of them shared,
 * 3 to `with` (2 of its 3 workers running), 1 to another process that
 * has no page; `without` has a page and no entry. */
FIXTURE_SETUP(shares)
{
	_Alignas(struct xs_abi_header) static unsigned char buf[1 << 16];
	struct xs_abi_header *h = (struct xs_abi_header *)buf;
	struct xs_stats_worker w = { .tasks_executed = 1000 };
	struct xs_abi_share *sh;
	struct xs_abi_cpu *cpus;
	char path[128];
	__u64 size;
	int fd;

	snprintf(self->dir, sizeof(self->dir), "/tmp/xsched-top-shares-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(path, sizeof(path), "%s/shm", self->dir);
	ASSERT_EQ(0, mkdir(path, 0755));
	self->with = tt_sleeper("share-holder");
	self->without = tt_sleeper("share-less");
	ASSERT_LT(0, self->with);
	ASSERT_LT(0, self->without);
	ASSERT_EQ(0, tt_forge_page(path, self->with, "share-holder", &w));
	ASSERT_EQ(0, tt_forge_page(path, self->without, "share-less", &w));

	memset(buf, 0, sizeof(buf));
	size = xs_abi_layout(h, 4, 1, 8, 4096);
	ASSERT_GE(sizeof(buf), size);
	h->generation = 1;
	h->heartbeat_ns = tt_now_ns();
	h->tick_ns = 900000000000ull;
	h->mode = XS_ABI_MODE_DEGRADED;
	h->daemon_pid = (__u32)getpid();
	h->share_cpus = 4;
	h->share_active = 2;
	h->share_count = variant->corrupt ? h->nshares + 1 : 2;
	cpus = (struct xs_abi_cpu *)(buf + h->cpu_off);
	for (int i = 0; i < 4; i++) {
		cpus[i].cpu = (__u32)i;
		cpus[i].idle_permille = 1000;
		cpus[i].share_pid = i < 3 ? (__u32)self->with : 1;
	}
	sh = (struct xs_abi_share *)(buf + h->share_off);
	sh[0] = (struct xs_abi_share){ .pid = (__u32)self->with, .cpus = 3, .workers = 3,
				       .running = 2, .active_ns = h->heartbeat_ns };
	sh[1] = (struct xs_abi_share){ .pid = 1, .cpus = 1, .workers = 1, .running = 1,
				       .active_ns = h->heartbeat_ns };
	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, self->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)size, write(fd, buf, size));
	close(fd);
}

FIXTURE_TEARDOWN(shares)
{
	char cmd[128];

	tt_sleeper_end(self->with);
	tt_sleeper_end(self->without);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (self->dir[0] && system(cmd))
		perror(cmd);
}

/* The -b row of @pid in @out, trailing blanks cut, into @row. */
static int batch_row(const char *out, pid_t pid, char *row, size_t len)
{
	char key[32];
	const char *p, *e;
	size_t n;

	snprintf(key, sizeof(key), "\n%-8d ", (int)pid);
	p = strstr(out, key);
	if (!p)
		return 0;
	p++;
	e = strchr(p, '\n');
	n = e ? (size_t)(e - p) : strlen(p);
	while (n && p[n - 1] == ' ')
		n--;
	snprintf(row, len, "%.*s", (int)n, p);
	return 1;
}

/* The value of "share_cpus" in @pid's object of a --json line. */
static int json_share_is_null(const char *out, pid_t pid)
{
	const char *p = tt_json_proc(out, pid);

	p = p ? strstr(p, "\"share_cpus\":") : NULL;
	return p && !strncmp(p + strlen("\"share_cpus\":"), "null", 4);
}

TEST_F(shares, batch_and_json)
{
	static char out[1 << 16];
	char row[512];
	size_t n;

	ASSERT_EQ(0, tt_run(out, sizeof(out), "-bn1 --runtime-dir %s --shm-dir %s/shm", self->dir,
			    self->dir));
	ASSERT_NE(NULL, strstr(out, "CPU_SHARE_NOW")) TH_LOG("%s", out);
	ASSERT_EQ(1, batch_row(out, self->with, row, sizeof(row))) TH_LOG("%s", out);
	n = strlen(row);
	if (variant->corrupt) {
		EXPECT_EQ('-', row[n - 1]) TH_LOG("%s", row);
		EXPECT_NE(NULL, strstr(out, "CPU shares not shown: share_count exceeds nshares"))
			TH_LOG("%s", out);
		EXPECT_EQ(NULL, strstr(out, "CPU shares: ")) TH_LOG("%s", out);
	} else {
		EXPECT_EQ(0, strcmp(row + n - 2, " 3")) TH_LOG("%s", row);
		EXPECT_NE(NULL, strstr(out, "xsched-top: CPU shares: 4 CPUs for xsched processes, "
					    "divided among 2\n"))
			TH_LOG("%s", out);
	}
	ASSERT_EQ(1, batch_row(out, self->without, row, sizeof(row))) TH_LOG("%s", out);
	EXPECT_EQ('-', row[strlen(row) - 1]) TH_LOG("%s", row);

	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n1 --runtime-dir %s --shm-dir %s/shm",
			    self->dir, self->dir));
	ASSERT_NE(NULL, tt_json_proc(out, self->with)) TH_LOG("%s", out);
	if (variant->corrupt) {
		EXPECT_EQ(1, json_share_is_null(out, self->with)) TH_LOG("%s", out);
	} else {
		EXPECT_EQ(3, tt_json_num(tt_json_proc(out, self->with), "share_cpus"));
		EXPECT_EQ(2, tt_json_num(tt_json_proc(out, self->with), "share_running"));
		EXPECT_NE(NULL, strstr(out, "\"share_cpus\":4,\"share_active\":2")) TH_LOG("%s", out);
	}
	EXPECT_EQ(1, json_share_is_null(out, self->without)) TH_LOG("%s", out);
}

TEST_F(shares, screen)
{
	static char screen[16384];
	char key[32];
	const char *p, *e;

	if (variant->corrupt)
		SKIP(return, "the screen is checked with the valid table");
	if (system("tmux -V >/dev/null 2>&1"))
		SKIP(return, "tmux is not installed (scripts/deps.sh installs it)");
	snprintf(tmux_sock, sizeof(tmux_sock), "xsched-top-shares-%d", (int)getpid());
	ASSERT_EQ(0, tmux("new-session -d -x 120 -y 30 \"TERM=xterm '%s' -d 3600 "
			  "--runtime-dir %s --shm-dir %s/shm\"",
			  tt_tool(), self->dir, self->dir));
	EXPECT_EQ(1, tmux_wait_for(screen, sizeof(screen), "share-holder")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "CPU shares: 4 CPUs for xsched processes, divided among 2"))
		TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, " WRK SHR ")) TH_LOG("%s", screen);
	/* share-holder's row: 1 worker, share 3; share-less's: 1, -. */
	snprintf(key, sizeof(key), "%-8d ", (int)self->with);
	p = strstr(screen, key);
	ASSERT_NE(NULL, p) TH_LOG("%s", screen);
	e = strchr(p, '\n');
	ASSERT_NE(NULL, e);
	EXPECT_NE(NULL, memmem(p, (size_t)(e - p), "   1   3 ", 9)) TH_LOG("%.*s", (int)(e - p), p);
	snprintf(key, sizeof(key), "%-8d ", (int)self->without);
	p = strstr(screen, key);
	ASSERT_NE(NULL, p) TH_LOG("%s", screen);
	e = strchr(p, '\n');
	ASSERT_NE(NULL, e);
	EXPECT_NE(NULL, memmem(p, (size_t)(e - p), "   1   - ", 9)) TH_LOG("%.*s", (int)(e - p), p);
	tmux("kill-server 2>/dev/null");
}

/* 80x24: the detail view of share-holder says its share. */
TEST_F(shares, detail_80x24)
{
	static char screen[16384];

	if (variant->corrupt)
		SKIP(return, "the screen is checked with the valid table");
	if (system("tmux -V >/dev/null 2>&1"))
		SKIP(return, "tmux is not installed (scripts/deps.sh installs it)");
	snprintf(tmux_sock, sizeof(tmux_sock), "xsched-top-shares-detail-%d", (int)getpid());
	ASSERT_EQ(0, tmux("new-session -d -x 80 -y 24 \"TERM=xterm '%s' -d 3600 -p %d "
			  "--runtime-dir %s --shm-dir %s/shm\"",
			  tt_tool(), (int)self->with, self->dir, self->dir));
	EXPECT_EQ(1, tmux_wait_for(screen, sizeof(screen), "share-holder")) TH_LOG("%s", screen);
	tmux("send-keys Enter");
	EXPECT_EQ(1, tmux_wait_for(screen, sizeof(screen), "CPU share 3")) TH_LOG("%s", screen);
	tmux("kill-server 2>/dev/null");
}

TEST_HARNESS_MAIN
