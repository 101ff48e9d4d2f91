// SPDX-License-Identifier: MIT
/*
 * Registration is checked against the caller's process (SO_PEERCRED):
 * another process's thread ids are refused with -EPERM; the per-client and
 * the global slot quotas hold (-EDQUOT, -ENOSPC); a tid cannot be held
 * twice; and the slots of a client that is SIGKILLed come back.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

#define NTHREADS 4

static int hold[2];
static _Atomic uint32_t tids[NTHREADS];

static void *sleeper(void *arg)
{
	char b;

	tids[(uintptr_t)arg] = xsd_test_gettid();
	if (read(hold[0], &b, 1) < 0)
		return NULL;
	return NULL;
}

static void start_threads(pthread_t *th)
{
	for (uintptr_t i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, sleeper, (void *)i);
	for (int i = 0; i < NTHREADS; i++)
		while (!tids[i])
			xsd_test_sleep_ms(1);
}

static void stop_threads(pthread_t *th)
{
	close(hold[1]);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
}

/* Slots in use according to the state file (tid != 0), after a tick. */
static uint32_t used_slots(const struct xsd_test_client *c)
{
	struct xs_abi_header *snap = malloc(c->state_size);
	const struct xs_abi_worker *w;
	uint32_t n = 0;

	xsd_test_wait_ticks(c, 2);
	if (!snap || xsd_test_snapshot(c, snap)) {
		free(snap);
		return UINT32_MAX;
	}
	w = xs_abi_at(snap, snap->worker_off);
	for (uint32_t s = 0; s < snap->nslots; s++)
		n += w[s].tid != 0;
	free(snap);
	return n;
}

TEST(own_tids_only_quotas_and_reclaim)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test t;
	struct xsd_test_client c;
	struct xs_abi_reply r;
	pthread_t th[NTHREADS];
	uint32_t foreign[2], mine[NTHREADS];
	int sync[2], fd2;
	pid_t child;
	char b;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pipe2(hold, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(sync, O_CLOEXEC));
	/* 3 slots in all, 2 per client; one user (root) may hold all 3 */
	ASSERT_EQ(0, xsd_test_start(&t, "--slots", "3", "--client-slots", "2", "--user-slots",
				    "3"));
	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_test_dump_log(&t);
	start_threads(th);
	for (int i = 0; i < NTHREADS; i++)
		mine[i] = tids[i];

	/* another process's tids: the daemon's own, and init's */
	foreign[0] = (uint32_t)t.pid;
	foreign[1] = 1;
	EXPECT_EQ(-EPERM, xsd_test_call(c.fd, XS_ABI_REGISTER, foreign, 2, &r, NULL));
	EXPECT_EQ(UINT32_MAX, r.slots[0]);
	EXPECT_EQ(UINT32_MAX, r.slots[1]);
	EXPECT_EQ(0u, r.nslots);

	/* per-client quota: the third of three is refused */
	EXPECT_EQ(-EDQUOT, xsd_test_call(c.fd, XS_ABI_REGISTER, mine, 3, &r, NULL));
	EXPECT_GT(3u, r.slots[0]);
	EXPECT_GT(3u, r.slots[1]);
	EXPECT_EQ(UINT32_MAX, r.slots[2]);
	EXPECT_EQ(2u, r.nslots);
	/* a tid is held once */
	EXPECT_EQ(-EEXIST, xsd_test_call(c.fd, XS_ABI_REGISTER, mine, 1, &r, NULL));
	EXPECT_EQ(2u, used_slots(&c));

	/* a child process takes the last slot, then needs one more than exists */
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		int fd = xsd_test_connect(&t);
		uint32_t self[2] = { xsd_test_gettid(), 0 };
		pthread_t extra;

		if (fd < 0 || xsd_test_call(fd, XS_ABI_REGISTER, self, 1, &r, NULL))
			_exit(1);
		pthread_create(&extra, NULL, sleeper, (void *)0);
		while (!tids[0] || tids[0] == mine[0])
			xsd_test_sleep_ms(1);
		self[1] = tids[0];
		if (xsd_test_call(fd, XS_ABI_REGISTER, self + 1, 1, &r, NULL) != -ENOSPC)
			_exit(2);
		if (write(sync[1], "r", 1) != 1)
			_exit(3);
		pause(); /* until SIGKILL */
		_exit(0);
	}
	tids[0] = mine[0];
	close(sync[1]); /* a child that fails early: read() sees end of file */
	if (read(sync[0], &b, 1) != 1) {
		int status = 0;

		waitpid(child, &status, 0);
		ASSERT_EQ(0, WEXITSTATUS(status)) xsd_test_dump_log(&t);
	}
	EXPECT_EQ(3u, used_slots(&c));
	/* global quota from this client's side too (it is at 2 of 2 anyway) */
	fd2 = xsd_test_connect(&t);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOSPC, xsd_test_call(fd2, XS_ABI_REGISTER, mine + 3, 1, &r, NULL));

	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* reclaimed when its connection closed */
	for (int i = 0; i < 100 && used_slots(&c) != 2; i++)
		;
	EXPECT_EQ(2u, used_slots(&c));
	EXPECT_EQ(0, xsd_test_call(fd2, XS_ABI_REGISTER, mine + 3, 1, &r, NULL));
	EXPECT_EQ(3u, used_slots(&c));

	/* unregister gives it back; closing the second connection too */
	EXPECT_EQ(0, xsd_test_call(c.fd, XS_ABI_UNREGISTER, mine, 1, &r, NULL));
	EXPECT_EQ(1u, r.nslots);
	EXPECT_EQ(-ENOENT, xsd_test_call(c.fd, XS_ABI_UNREGISTER, mine + 3, 1, &r, NULL));
	close(fd2);
	EXPECT_EQ(1u, used_slots(&c));

	stop_threads(th);
	xsd_test_client_close(&c);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
