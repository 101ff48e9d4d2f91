// SPDX-License-Identifier: MIT
/*
 * Without BPF the daemon runs in degraded mode and says so, in its log and
 * in the state header: once because XSCHEDD_BPF=off, once because it has
 * no privilege (started as nobody with no capabilities, XSCHEDD_BPF=auto).
 * It still publishes: heartbeat, per-CPU load, and the state of a
 * registered worker, read from /proc each tick.
 */
#include <grp.h>
#include <pthread.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

static int hold[2];
static _Atomic uint32_t sleeper_tid;

static void *sleeper(void *arg)
{
	char b;

	(void)arg;
	sleeper_tid = xsd_test_gettid();
	if (read(hold[0], &b, 1) < 0)
		return NULL;
	return NULL;
}

static void check_degraded(struct __test_metadata *_metadata, struct xsd_test *t)
{
	struct xsd_test_client c;
	struct xs_abi_reply r;
	pthread_t th;
	uint32_t tid, slot, st;

	ASSERT_EQ(0, xsd_test_client_open(t, &c)) xsd_test_dump_log(t);
	EXPECT_EQ(XS_ABI_MODE_DEGRADED, c.mode);
	EXPECT_EQ(XS_ABI_MODE_DEGRADED, c.state->mode);
	EXPECT_TRUE(xsd_test_log_has(t, "degraded mode")) xsd_test_dump_log(t);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, c.workers_size, PROT_READ | PROT_WRITE, MAP_SHARED,
				   c.workers_fd, 0));

	EXPECT_TRUE(xsd_test_publishes(&c, 3, 1000));

	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	sleeper_tid = 0;
	ASSERT_EQ(0, pthread_create(&th, NULL, sleeper, NULL));
	tid = xsd_test_await_tid(&sleeper_tid);
	ASSERT_EQ(0, xsd_test_call(c.fd, XS_ABI_REGISTER, &tid, 1, &r, NULL));
	slot = r.slots[0];
	ASSERT_GT(c.state->nslots, slot);
	st = xsd_test_await_state(&c.workers[slot], XS_ABI_WORKER_BLOCKED, 100, 10);
	EXPECT_EQ(XS_ABI_WORKER_BLOCKED, st);
	EXPECT_EQ(tid, c.workers[slot].tid);
	close(hold[1]);
	pthread_join(th, NULL);
	close(hold[0]);
	xsd_test_client_close(&c);
}

TEST(bpf_off_says_degraded)
{
	struct xsd_test t;

	ASSERT_EQ(0, xsd_test_start(&t, "--bpf", "off"));
	check_degraded(_metadata, &t);
	EXPECT_TRUE(xsd_test_log_has(&t, "XSCHEDD_BPF=off"));
	EXPECT_TRUE(xsd_test_log_has(&t, "capabilities: kept none"));
	EXPECT_EQ(0, xsd_test_stop(&t));
}

static void become_nobody(struct xsd_test *t)
{
	/* the temp dir becomes nobody's, so that it can make the runtime dir */
	if (chown(t->dir, 65534, 65534) || setgroups(0, NULL) || setgid(65534) ||
	    setuid(65534))
		_exit(126);
}

TEST(no_privilege_falls_back_to_degraded)
{
	struct xsd_test t;

	if (geteuid() != 0)
		SKIP(return, "not root: cannot start the daemon as another user");
	ASSERT_EQ(0, xsd_test_start_with(&t, become_nobody, "--bpf", "auto", NULL));
	check_degraded(_metadata, &t);
	EXPECT_TRUE(xsd_test_log_has(&t, "degraded mode: no BPF"));
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST(bpf_on_without_privilege_fails)
{
	struct xsd_test t;

	if (geteuid() != 0)
		SKIP(return, "not root: cannot start the daemon as another user");
	EXPECT_EQ(-ECHILD, xsd_test_start_with(&t, become_nobody, "--bpf", "on", NULL));
	EXPECT_TRUE(xsd_test_log_has(&t, "XSCHEDD_BPF=on but the BPF programs did not load"))
		xsd_test_dump_log(&t);
	xsd_test_stop(&t);
}

TEST_HARNESS_MAIN
