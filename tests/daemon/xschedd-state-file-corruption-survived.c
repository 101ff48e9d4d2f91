// SPDX-License-Identifier: MIT
/*
 * Issue 31, item 6 (the daemon's part): the daemon never trusts what is in
 * its own shared state file. Whoever can write it (root here) sets the
 * header's worker_off to 0x7fffffc0, then ncpus to 100000, then truncates
 * the file to 4096 bytes; after each, the daemon keeps running and
 * publishing, and a new client maps a state whose layout is valid again.
 */
#include "kselftest_harness.h"
#include "xschedd-abuse.h"

static int fresh_client_ok(struct __test_metadata *_metadata, struct xsd_test *t)
{
	struct xsd_test_client c;
	int ret = xsd_test_client_open(t, &c);

	EXPECT_EQ(0, ret) xsd_say("# a new client: %s\n", strerror(-ret));
	if (!ret)
		EXPECT_TRUE(xsd_test_publishes(&c, 3, 2000));
	xsd_test_client_close(&c);
	return ret;
}

TEST(corrupt_and_truncated_state_survived)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test t;
	char path[PATH_MAX + 16];
	struct xs_abi_header h;
	int fd, status = 0;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_test_start(&t, "--tick-ms", "10"));
	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, t.rt);
	fd = open(path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);

	ASSERT_EQ((ssize_t)sizeof(h), pread(fd, &h, sizeof(h), 0));
	h.worker_off = 0x7fffffc0;
	ASSERT_EQ((ssize_t)sizeof(h), pwrite(fd, &h, sizeof(h), 0));
	xsd_test_sleep_ms(200);
	ASSERT_TRUE(xsd_abuse_alive(&t, &status)) {
		xsd_say("# worker_off := 0x7fffffc0: daemon %s %d\n",
		       WIFSIGNALED(status) ? "killed by signal" : "exited",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		xsd_abuse_log_tail(&t, 5);
	}
	fresh_client_ok(_metadata, &t);

	ASSERT_EQ((ssize_t)sizeof(h), pread(fd, &h, sizeof(h), 0));
	h.ncpus = 100000;
	ASSERT_EQ((ssize_t)sizeof(h), pwrite(fd, &h, sizeof(h), 0));
	xsd_test_sleep_ms(200);
	ASSERT_TRUE(xsd_abuse_alive(&t, &status)) {
		xsd_say("# ncpus := 100000: daemon %s %d\n",
		       WIFSIGNALED(status) ? "killed by signal" : "exited",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		xsd_abuse_log_tail(&t, 5);
	}
	fresh_client_ok(_metadata, &t);

	ASSERT_EQ(0, ftruncate(fd, 4096));
	xsd_test_sleep_ms(200);
	ASSERT_TRUE(xsd_abuse_alive(&t, &status)) {
		xsd_say("# truncated to 4096 bytes: daemon %s %d\n",
		       WIFSIGNALED(status) ? "killed by signal" : "exited",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		xsd_abuse_log_tail(&t, 5);
	}
	fresh_client_ok(_metadata, &t);
	close(fd);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
