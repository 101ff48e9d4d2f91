// SPDX-License-Identifier: MIT
/*
 * XSCHED_DAEMON=required with no daemon at XSCHED_RUNTIME_DIR: creation
 * fails (NULL, errno ENOENT) with a message that names XSCHED_DAEMON and the
 * directory; auto in the same place creates a runtime that works on its own
 * tables; a bad value of XSCHED_DAEMON is refused naming its choices.
 */
#include "xschedd-client-test.h"
#include "capture-stderr.h"

TEST(required_without_daemon_fails_naming_the_variable)
{
	char dir[] = "/tmp/xschedd-none-XXXXXX", out[4096];
	struct xs_daemon_info info;
	struct capture cap;
	struct xs_runtime *rt;

	ASSERT_NE(NULL, mkdtemp(dir));
	xsc_env(dir, "required");
	ASSERT_EQ(0, capture_begin(&cap));
	errno = 0;
	rt = xs_runtime_create(2);
	int err = errno;

	capture_end(&cap, out, sizeof(out));
	EXPECT_EQ(NULL, rt);
	EXPECT_EQ(ENOENT, err);
	EXPECT_NE(NULL, strstr(out, "XSCHED_DAEMON=required")) TH_LOG("stderr: %s", out);
	EXPECT_NE(NULL, strstr(out, dir)) TH_LOG("stderr: %s", out);

	xsc_env(dir, "auto");
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xsc_run_fib(rt, 18));
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(0, info.connected);
	xs_runtime_destroy(rt);

	setenv("XSCHED_DAEMON", "always", 1);
	ASSERT_EQ(0, capture_begin(&cap));
	rt = xs_runtime_create(2);
	err = errno;
	capture_end(&cap, out, sizeof(out));
	EXPECT_EQ(NULL, rt);
	EXPECT_EQ(EINVAL, err);
	EXPECT_NE(NULL, strstr(out, "XSCHED_DAEMON=\"always\"")) TH_LOG("stderr: %s", out);
	EXPECT_NE(NULL, strstr(out, "auto, off or required")) TH_LOG("stderr: %s", out);
	rmdir(dir);
}

TEST_HARNESS_MAIN
