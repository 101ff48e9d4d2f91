// SPDX-License-Identifier: MIT
/*
 * Each node's memory, as xschedd's state says it: against a state forged
 * with xs_abi_layout() (two CPUs on two nodes, 1.5 of 4 GiB and 512 MiB
 * of 2 GiB free), -b prints a line per node in powers of 1024, --json the
 * exact KiB in daemon.node[], and the screen (tmux, 80x24) each node's
 * memory on its line above its CPUs.
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

FIXTURE(state)
{
	char dir[64];
};

/* <dir>/state: fresh for an hour (tick 900 s), mode degraded. */
FIXTURE_SETUP(state)
{
	static const __u64 free_kib[2] = { 1572864, 524288 }, total_kib[2] = { 4194304, 2097152 };
	_Alignas(struct xs_abi_header) static unsigned char buf[1 << 16];
	struct xs_abi_header *h = (struct xs_abi_header *)buf;
	struct xs_abi_cpu *cpus;
	struct xs_abi_node *nodes;
	char path[128];
	__u64 size;
	int fd;

	snprintf(self->dir, sizeof(self->dir), "/tmp/xsched-top-nodes-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(path, sizeof(path), "%s/shm", self->dir);
	ASSERT_EQ(0, mkdir(path, 0755));
	memset(buf, 0, sizeof(buf));
	size = xs_abi_layout(h, 2, 2, 4, 4096);
	ASSERT_GE(sizeof(buf), size);
	h->generation = 1;
	h->heartbeat_ns = tt_now_ns();
	h->tick_ns = 900000000000ull;
	h->mode = XS_ABI_MODE_DEGRADED;
	h->daemon_pid = (__u32)getpid();
	cpus = (struct xs_abi_cpu *)(buf + h->cpu_off);
	nodes = (struct xs_abi_node *)(buf + h->node_off);
	for (int i = 0; i < 2; i++) {
		cpus[i].cpu = (__u32)i;
		cpus[i].node = (__u32)i;
		cpus[i].idle_permille = 1000;
		nodes[i].node = (__u32)i;
		nodes[i].mem_free_kib = free_kib[i];
		nodes[i].mem_total_kib = total_kib[i];
	}
	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, self->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)size, write(fd, buf, size));
	close(fd);
}

FIXTURE_TEARDOWN(state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (self->dir[0] && system(cmd))
		perror(cmd);
}

TEST_F(state, batch_and_json)
{
	static char out[1 << 16];

	ASSERT_EQ(0, tt_run(out, sizeof(out), "-bn1 --runtime-dir %s --shm-dir %s/shm", self->dir,
			    self->dir));
	EXPECT_NE(NULL, strstr(out, "xsched-top: daemon degraded")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nnode 0: memory free 1.5G of 4.0G\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nnode 1: memory free 512M of 2.0G\n")) TH_LOG("%s", out);

	ASSERT_EQ(0, tt_run(out, sizeof(out), "--json -n1 --runtime-dir %s --shm-dir %s/shm",
			    self->dir, self->dir));
	EXPECT_NE(NULL, strstr(out, "\"node\":[{\"node\":0,\"mem_free_kib\":1572864,"
				    "\"mem_total_kib\":4194304},{\"node\":1,\"mem_free_kib\":524288,"
				    "\"mem_total_kib\":2097152}]"))
		TH_LOG("%s", out);
}

TEST_F(state, screen_80x24)
{
	static char screen[16384];

	if (system("tmux -V >/dev/null 2>&1"))
		SKIP(return, "tmux is not installed (scripts/deps.sh installs it)");
	snprintf(tmux_sock, sizeof(tmux_sock), "xsched-top-nodes-%d", (int)getpid());
	ASSERT_EQ(0, tmux("new-session -d -x 80 -y 24 \"TERM=xterm '%s' -d 3600 "
			  "--runtime-dir %s --shm-dir %s/shm\"",
			  tt_tool(), self->dir, self->dir));
	EXPECT_EQ(1, tmux_wait_for(screen, sizeof(screen), "node 1  memory free 512M of 2.0G"))
		TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "node 0  memory free 1.5G of 4.0G")) TH_LOG("%s", screen);
	EXPECT_NE(NULL, strstr(screen, "daemon degraded")) TH_LOG("%s", screen);
	tmux("kill-server 2>/dev/null");
}

TEST_HARNESS_MAIN
