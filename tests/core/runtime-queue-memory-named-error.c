// SPDX-License-Identifier: MIT
/*
 * XSCHED_WORKERS=1024 XSCHED_QUEUE_SIZE=65536, each in its range, ask for
 * 512 GiB of XQueue (issue 31, item 11): xs_runtime_create() fails at once
 * with ENOMEM and a message naming both variables, instead of letting the
 * workers fault it in until the OOM killer comes. (The child runs under a
 * 8 GiB address-space limit, so that a runtime that tries anyway fails
 * without taking the machine down; not under AddressSanitizer, whose
 * shadow needs more.) The same queue size with 2 workers still works.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "capture-stderr.h"
#include "xsched.h"
#include "xs_test.h"

/* In a child: create a runtime under @workers/@qsize; returns what the
 * child said: 0 created, else errno; -1 killed or timed out. */
static int create_in_child(const char *workers, const char *qsize, char *err, size_t len)
{
	struct capture cap;
	int st = 0, waited = 0;
	pid_t pid;

	if (capture_begin(&cap))
		return -1;
	pid = fork();
	if (!pid) {
		struct xs_runtime *rt;

#ifndef XS_TEST_LSAN
		struct rlimit rl = { 8ull << 30, 8ull << 30 };

		setrlimit(RLIMIT_AS, &rl);
#endif
		setenv("XSCHED_WORKERS", workers, 1);
		setenv("XSCHED_QUEUE_SIZE", qsize, 1);
		setenv("XSCHED_DAEMON", "off", 1);
		setenv("XSCHED_STATS_PAGE", "0", 1);
		setenv("XSCHED_BIND", "none", 1);
		errno = 0;
		rt = xs_runtime_create(0);
		if (rt) {
			xs_runtime_destroy(rt);
			_exit(0);
		}
		_exit(errno ? errno : 255);
	}
	while (waitpid(pid, &st, WNOHANG) == 0 && waited < 20000) {
		usleep(10000);
		waited += 10;
	}
	if (waited >= 20000) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	capture_end(&cap, err, len);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(half_a_terabyte_of_queues_is_enomem)
{
	char err[8192];
	int ret = create_in_child("1024", "65536", err, sizeof(err));

	EXPECT_EQ(ENOMEM, ret) TH_LOG("child: %d (-1: killed or timed out); stderr: %.1000s", ret,
				      err);
	EXPECT_NE(NULL, strstr(err, "XSCHED_WORKERS=1024")) TH_LOG("stderr: %.1000s", err);
	EXPECT_NE(NULL, strstr(err, "XSCHED_QUEUE_SIZE=65536")) TH_LOG("stderr: %.1000s", err);
}

TEST(two_workers_with_big_queues_still_work)
{
	char err[8192];

	EXPECT_EQ(0, create_in_child("2", "65536", err, sizeof(err))) TH_LOG("stderr: %s", err);
}

TEST_HARNESS_MAIN
