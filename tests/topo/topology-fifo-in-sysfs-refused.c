// SPDX-License-Identifier: MIT
/*
 * A file of the sysfs tree (XSCHED_SYSFS_ROOT here; the real tree is read
 * the same way) that is a FIFO, or a directory, is refused at once with
 * an error naming it (issue 31, item 14): xs_runtime_create() used to
 * block for ever in open() on a FIFO nobody writes. Each case runs
 * xs_runtime_create() in a child process that must finish within 5 s.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "capture-stderr.h"
#include "topology-test.h"
#include "xsched.h"

/* Replace <root>/@rel by a FIFO (@dir: a directory), create a runtime on
 * @root in a child; 0 when it failed at once naming the file. */
static void refused(struct __test_metadata *_metadata, const char *rel, int dir)
{
	char root[PATH_MAX], path[PATH_MAX + 64], err[8192];
	struct capture cap;
	int st = 0, waited = 0;
	pid_t pid;

	ASSERT_EQ(0, xs_test_mksysfs(root, sizeof(root), "--spec 1s2n2c"));
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	ASSERT_EQ(0, unlink(path));
	if (dir) {
		ASSERT_EQ(0, mkdir(path, 0755));
	} else {
		ASSERT_EQ(0, mkfifo(path, 0644));
	}
	ASSERT_EQ(0, capture_begin(&cap));
	pid = fork();
	if (!pid) {
		struct xs_runtime *rt;

		setenv("XSCHED_SYSFS_ROOT", root, 1);
		setenv("XSCHED_DAEMON", "off", 1);
		setenv("XSCHED_STATS_PAGE", "0", 1);
		errno = 0;
		rt = xs_runtime_create(2);
		_exit(rt ? 1 : errno == EINVAL ? 0 : 2);
	}
	while (waitpid(pid, &st, WNOHANG) == 0 && waited < 5000) {
		usleep(10000);
		waited += 10;
	}
	if (waited >= 5000) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
	}
	capture_end(&cap, err, sizeof(err));
	EXPECT_LT(waited, 5000) TH_LOG("xs_runtime_create() blocked on %s (a %s)", path,
				       dir ? "directory" : "FIFO");
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
		TH_LOG("expected NULL and EINVAL (child status %#x)", st);
	EXPECT_NE(NULL, strstr(err, path)) TH_LOG("stderr: %s", err);
	EXPECT_NE(NULL, strstr(err, "not a regular file")) TH_LOG("stderr: %s", err);
	xs_test_rmtree(root);
}

TEST(fifo_for_cpu_online) { refused(_metadata, "cpu/online", 0); }
TEST(fifo_for_a_node_distance) { refused(_metadata, "node/node1/distance", 0); }
TEST(fifo_for_a_core_id) { refused(_metadata, "cpu/cpu1/topology/core_id", 0); }
TEST(directory_for_cpu_online) { refused(_metadata, "cpu/online", 1); }

TEST_HARNESS_MAIN
