// SPDX-License-Identifier: MIT
/*
 * Every denial-of-service attack on xschedd at once, from one scratch
 * unprivileged user, against a daemon whose open-file limit is small
 * enough to reach (256):
 *
 *   - 40 connections that send 16 HELLOs each and never read a reply;
 *   - 300 idle connections (past the descriptor limit: EMFILE);
 *   - 4 processes that register 32 threads each (past the user's quota);
 *   - 2 processes that flood REGISTER/UNREGISTER, using a CPU each;
 *   - 3 processes that only say HELLO every 50 ms.
 *
 * Meanwhile root's program with XSCHED_DAEMON=required starts, registers
 * its workers and runs jobs; it gets at least its fair share (half the
 * CPUs, per user first: root against one other user), the CPUs handed out
 * never exceed the machine's, the daemon uses under 10% of a CPU and
 * writes under 1 MB of log a minute.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "xschedd-abuse.h"
#include "xschedd-client-test.h"

#define NUNREAD 40
#define NIDLE 300
#define NHOLDER 4
#define NHOLDER_THR 32
#define NFLOOD 2
#define NPINGER 3

static struct xsd_test t;
static int ready[2];

static int signal_ready(void)
{
	return write(ready[1], "r", 1) == 1 ? 0 : 1;
}

static int unread_replies(void *arg)
{
	(void)arg;
	for (int i = 0; i < NUNREAD; i++) {
		int fd = xsd_abuse_connect(&t);

		for (int k = 0; fd >= 0 && k < 16; k++)
			if (xsd_abuse_send(fd, XS_ABI_HELLO, NULL, 0))
				break;
	}
	if (signal_ready())
		return 1;
	pause();
	return 0;
}

static int idle_connections(void *arg)
{
	(void)arg;
	for (int i = 0; i < NIDLE; i++)
		(void)xsd_abuse_connect(&t);
	if (signal_ready())
		return 1;
	pause();
	return 0;
}

/* Threads of its own, registered (@flood: unregistered and again, for
 * ever). */
static int registrar(void *arg)
{
	uint32_t mine[NHOLDER_THR];
	bool flood = arg != NULL;
	struct xs_abi_reply r;
	int fd;

	if (xsd_test_idle_threads(mine, NHOLDER_THR))
		return 1;
	fd = xsd_test_connect(&t);
	if (fd < 0 || signal_ready())
		return 1;
	for (int i = 0; i < NHOLDER_THR; i += 8)
		(void)xsd_test_call(fd, XS_ABI_REGISTER, mine + i, 8, &r, NULL);
	while (flood) {
		for (int k = 0; k < 2; k++) {
			int ret = xsd_test_call(fd, k ? XS_ABI_UNREGISTER : XS_ABI_REGISTER, mine,
						NHOLDER_THR, &r, NULL);

			if (ret == -EPIPE || ret == -ECONNRESET || ret == -EBADMSG)
				return 0;
		}
	}
	pause();
	return 0;
}

static int hello_pinger(void *arg)
{
	int fd = -1;

	(void)arg;
	if (signal_ready())
		return 1;
	for (;;) {
		struct xs_abi_reply r;
		int fds[2] = { -1, -1 };

		if (fd < 0 || xsd_test_call(fd, XS_ABI_HELLO, NULL, 0, &r, fds)) {
			if (fd >= 0)
				close(fd);
			fd = xsd_test_connect(&t);
		}
		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0)
				close(fds[i]);
		xsd_test_sleep_ms(50);
	}
}

/* Root's program: fib jobs on the runtime until told to stop. */
static _Atomic int root_stop;

static void *root_jobs(void *arg)
{
	struct xs_runtime *rt = arg;

	while (!atomic_load(&root_stop))
		if (xsc_run_fib(rt, 24))
			return (void *)1;
	return NULL;
}

/* The last tick's shares: their sum, the machine's share_cpus and what
 * process @pid got. */
static int shares(const struct xsd_test_client *c, pid_t pid, uint32_t *sum,
		  uint32_t *share_cpus, uint32_t *mine)
{
	struct xs_abi_header *s = malloc(c->state_size);
	const struct xs_abi_share *sh;

	*sum = *mine = 0;
	if (!s || xsd_test_snapshot(c, s)) {
		free(s);
		return -EAGAIN;
	}
	sh = xs_abi_at(s, s->share_off);
	*share_cpus = s->share_cpus;
	for (uint32_t i = 0; i < s->share_count && i < s->nshares; i++) {
		*sum += sh[i].cpus;
		if (sh[i].pid == (uint32_t)pid)
			*mine = sh[i].cpus;
	}
	free(s);
	return 0;
}

TEST(root_is_served_fairly_under_every_attack_at_once)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	struct xs_daemon_info info;
	struct xsd_test_client c;
	pid_t atk[2 + NHOLDER + NFLOOD + NPINGER];
	uint32_t sum, share_cpus, mine, want;
	struct xs_runtime *rt;
	int n = 0, served = 0;
	long log0, log1;
	unsigned int cpu;
	pthread_t jobs;
	void *jobs_ret;
	char b;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "combined"));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	xsd_abuse_nofile = 256;
	/* every CPU shared out, whatever else loads this machine */
	ASSERT_EQ(0, xsd_test_start_with(&t, xsd_abuse_limit_nofile, "--tick-ms", "10",
					 "--share-foreign", "0", NULL));
	atk[n++] = xsd_abuse_spawn(&u, 60, unread_replies, NULL);
	atk[n++] = xsd_abuse_spawn(&u, 60, idle_connections, NULL);
	for (int i = 0; i < NHOLDER; i++)
		atk[n++] = xsd_abuse_spawn(&u, 60, registrar, NULL);
	for (int i = 0; i < NFLOOD; i++)
		atk[n++] = xsd_abuse_spawn(&u, 60, registrar, (void *)1);
	for (int i = 0; i < NPINGER; i++)
		atk[n++] = xsd_abuse_spawn(&u, 60, hello_pinger, NULL);
	for (int i = 0; i < n; i++) {
		ASSERT_LT(0, atk[i]);
		ASSERT_EQ(1, read(ready[0], &b, 1)) xsd_abuse_log_tail(&t, 20);
	}
	xsd_test_sleep_ms(500);

	/* Root's program: XSCHED_DAEMON=required, so it fails without the
	 * daemon's answer. */
	xsc_env(t.rt, "required");
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt) xsd_abuse_log_tail(&t, 20);
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	EXPECT_EQ(1, info.connected);
	EXPECT_EQ(2, info.registered);
	ASSERT_EQ(0, pthread_create(&jobs, NULL, root_jobs, rt));

	log0 = xsd_abuse_log_size(&t);
	cpu = xsd_abuse_cpu_percent(t.pid, 3000);
	log1 = xsd_abuse_log_size(&t);
	xsd_say("# daemon under every attack: %u%% of a CPU, %ld bytes of log in 3 s\n", cpu,
		log1 - log0);
	EXPECT_GT(10u, cpu);
	/* 1 MB a minute is 50 000 bytes in 3 s */
	EXPECT_GT(50000, log1 - log0) xsd_abuse_log_tail(&t, 20);

	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_abuse_log_tail(&t, 20);
	for (int k = 0; k < 20 && !served; k++) {
		xsd_test_wait_ticks(&c, 2);
		ASSERT_EQ(0, shares(&c, getpid(), &sum, &share_cpus, &mine));
		want = share_cpus / 2 ? share_cpus / 2 : 1;
		EXPECT_GE(share_cpus, sum);
		served = mine >= want;
		if (k == 0 || served)
			xsd_say("# tick %d: root's program %u CPUs (fair share %u), %u handed out "
				"of %u\n", k, mine, want, sum, share_cpus);
	}
	EXPECT_TRUE(served);
	xsd_test_client_close(&c);

	atomic_store(&root_stop, 1);
	pthread_join(jobs, &jobs_ret);
	EXPECT_EQ(NULL, jobs_ret);
	xs_runtime_destroy(rt);
	for (int i = 0; i < n; i++)
		xsd_abuse_kill(atk[i]);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

TEST_HARNESS_MAIN
