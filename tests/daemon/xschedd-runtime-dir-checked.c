// SPDX-License-Identifier: MIT
/*
 * Issue 31, item 8: the runtime directory is not trusted blindly.
 *
 *   - A directory owned by another (scratch) user, or one others may
 *     write (0777), is refused: the daemon exits naming it, and never
 *     creates its socket there (whoever can write it could replace the
 *     socket, or swap a file for a symlink between two calls).
 *   - The socket is created with its final mode (0666 by default).
 *   - One daemon per directory: a second one on the same directory exits
 *     naming the lock, and the first keeps answering.
 */
#include "kselftest_harness.h"
#include "xschedd-abuse.h"

static struct scratch_user u;
static mode_t rt_mode;
static int rt_foreign;

static void make_rt(struct xsd_test *t)
{
	mkdir(t->rt, 0700);
	chmod(t->rt, rt_mode);
	if (rt_foreign && chown(t->rt, u.uid, u.gid))
		_exit(125);
}

static void refused(struct __test_metadata *_metadata, mode_t mode, int foreign)
{
	struct xsd_test t;
	char sock[PATH_MAX + 16];
	int ret;

	rt_mode = mode;
	rt_foreign = foreign;
	ret = xsd_test_start_with(&t, make_rt, NULL);
	xsd_say("# runtime dir %04o owned by %s: start %s\n", mode, foreign ? u.name : "root",
	       ret ? strerror(-ret) : "succeeded");
	EXPECT_EQ(-ECHILD, ret);
	EXPECT_TRUE(xsd_test_log_has(&t, t.rt)) xsd_test_dump_log(&t);
	snprintf(sock, sizeof(sock), "%s/" XS_ABI_SOCKET_FILE, t.rt);
	EXPECT_NE(0, access(sock, F_OK));
	xsd_test_stop(&t);
}

TEST(foreign_or_writable_dir_refused)
{
	const char *why = xsd_abuse_no_run_why();

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "rtdir"));
	refused(_metadata, 0777, 1);
	refused(_metadata, 0755, 1);
	refused(_metadata, 0777, 0);
	refused(_metadata, 0775, 0);
	xsd_abuse_user_remove(&u);
}

TEST(one_daemon_per_dir_socket_mode_final)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test t;
	struct xsd_test_client c;
	char sock[PATH_MAX + 16], log2[PATH_MAX + 8];
	struct stat st;
	int status = 0;
	pid_t second;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_test_start(&t));
	snprintf(sock, sizeof(sock), "%s/" XS_ABI_SOCKET_FILE, t.rt);
	ASSERT_EQ(0, lstat(sock, &st));
	EXPECT_TRUE(S_ISSOCK(st.st_mode));
	EXPECT_EQ(0666, st.st_mode & 07777);

	snprintf(log2, sizeof(log2), "%s/log2", t.dir);
	second = fork();
	ASSERT_LE(0, second);
	if (!second) {
		int fd = open(log2, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(fd, 2);
		alarm(10);
		execl(xsd_test_daemon_path(), xsd_test_daemon_path(), "--foreground", "--env-file",
		      "/dev/null", "--runtime-dir", t.rt, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 500 && waitpid(second, &status, WNOHANG) == 0; i++)
		xsd_test_sleep_ms(10);
	if (waitpid(second, &status, WNOHANG) == 0) {
		kill(second, SIGTERM);
		waitpid(second, &status, 0);
		xsd_say("# a second daemon ran on the same directory for 5 s\n");
		EXPECT_TRUE(0);
	} else {
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0);
	}
	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_test_dump_log(&t);
	xsd_test_client_close(&c);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
