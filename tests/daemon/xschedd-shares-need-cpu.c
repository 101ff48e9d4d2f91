// SPDX-License-Identifier: MIT
/*
 * Issue 31, item 9: shares cannot be gamed without using a CPU, are
 * divided per user before per process, and never add up to more CPUs than
 * the machine's.
 *
 *   - root runs one busy registered worker; three processes of a scratch
 *     user only send a HELLO every 50 ms. They use no CPU: root's process
 *     keeps every usable CPU, and the CPUs handed out never exceed
 *     share_cpus.
 *   - The scratch user then runs three busy registered workers of its
 *     own: root (one user, one process) keeps half the CPUs, rounded down
 *     and at least one; the sum still never exceeds share_cpus.
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "xschedd-abuse.h"

#define NATK 3

static struct xsd_test t;
static int ready[2];

static int hello_pinger(void *arg)
{
	int fd = xsd_test_connect(&t);

	(void)arg;
	if (write(ready[1], "r", 1) != 1)
		return 1;
	for (;;) {
		struct xs_abi_reply r;
		int fds[2] = { -1, -1 };

		if (fd < 0 || xsd_test_call(fd, XS_ABI_HELLO, NULL, 0, &r, fds)) {
			if (fd >= 0)
				close(fd);
			fd = xsd_test_connect(&t);
		}
		if (fds[0] >= 0)
			close(fds[0]);
		if (fds[1] >= 0)
			close(fds[1]);
		xsd_test_sleep_ms(50);
	}
}

/* A busy process with one registered worker (itself). */
static int busy_worker(void *arg)
{
	uint32_t self = xsd_test_gettid();
	struct xs_abi_reply r;
	int fd = xsd_test_connect(&t);

	(void)arg;
	if (fd < 0 || xsd_test_call(fd, XS_ABI_REGISTER, &self, 1, &r, NULL))
		return 1;
	if (write(ready[1], "r", 1) != 1)
		return 1;
	for (volatile uint64_t x = 0;; x++)
		;
}

struct tally {
	uint32_t share_cpus, ncpus, sum, root_cpus, entries;
};

/* The shares of the last tick: their sum, and what @pid got. */
static int tally(const struct xsd_test_client *c, pid_t pid, struct tally *out)
{
	struct xs_abi_header *s = malloc(c->state_size);
	const struct xs_abi_share *sh;

	memset(out, 0, sizeof(*out));
	if (!s || xsd_test_snapshot(c, s)) {
		free(s);
		return -EAGAIN;
	}
	sh = xs_abi_at(s, s->share_off);
	out->share_cpus = s->share_cpus;
	out->ncpus = s->ncpus;
	for (uint32_t i = 0; i < s->share_count && i < s->nshares; i++) {
		out->sum += sh[i].cpus;
		out->entries++;
		if (sh[i].pid == (uint32_t)pid)
			out->root_cpus = sh[i].cpus;
	}
	free(s);
	return 0;
}

TEST(shares_follow_cpu_use_per_user)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	struct xsd_test_client c;
	pid_t root_worker, pinger[NATK], busy[NATK];
	struct tally tl;
	char b;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "shares"));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	/* every CPU shared out, whatever else loads this machine */
	ASSERT_EQ(0, xsd_test_start(&t, "--tick-ms", "10", "--share-foreign", "0"));
	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_test_dump_log(&t);
	root_worker = xsd_abuse_spawn(NULL, 30, busy_worker, NULL);
	ASSERT_LT(0, root_worker);
	ASSERT_EQ(1, read(ready[0], &b, 1));
	for (int i = 0; i < NATK; i++) {
		pinger[i] = xsd_abuse_spawn(&u, 30, hello_pinger, NULL);
		ASSERT_LT(0, pinger[i]);
		ASSERT_EQ(1, read(ready[0], &b, 1));
	}
	xsd_test_sleep_ms(500);
	for (int k = 0; k < 10; k++) {
		xsd_test_wait_ticks(&c, 2);
		ASSERT_EQ(0, tally(&c, root_worker, &tl));
		if (k == 0 || tl.sum > tl.share_cpus || tl.root_cpus != tl.share_cpus)
			xsd_say("# HELLO-only attack, tick %d: %u entries, %u CPUs handed out of "
			       "%u (machine %u), root's busy process %u\n", k, tl.entries, tl.sum,
			       tl.share_cpus, tl.ncpus, tl.root_cpus);
		EXPECT_GE(tl.share_cpus, tl.sum);
		EXPECT_EQ(tl.share_cpus, tl.root_cpus);
		if (tl.sum > tl.share_cpus || tl.root_cpus != tl.share_cpus)
			break;
	}
	for (int i = 0; i < NATK; i++)
		xsd_abuse_kill(pinger[i]);

	for (int i = 0; i < NATK; i++) {
		busy[i] = xsd_abuse_spawn(&u, 30, busy_worker, NULL);
		ASSERT_LT(0, busy[i]);
		ASSERT_EQ(1, read(ready[0], &b, 1));
	}
	xsd_test_sleep_ms(500);
	for (int k = 0; k < 10; k++) {
		uint32_t want;

		xsd_test_wait_ticks(&c, 2);
		ASSERT_EQ(0, tally(&c, root_worker, &tl));
		want = tl.share_cpus / 2 ? tl.share_cpus / 2 : 1;
		if (k == 0 || tl.sum > tl.share_cpus || tl.root_cpus < want)
			xsd_say("# 3 busy processes of one user, tick %d: %u CPUs handed out of %u, "
			       "root's one process %u (want >= %u)\n", k, tl.sum, tl.share_cpus,
			       tl.root_cpus, want);
		EXPECT_GE(tl.share_cpus, tl.sum);
		EXPECT_LE(want, tl.root_cpus);
		if (tl.sum > tl.share_cpus || tl.root_cpus < want)
			break;
	}
	for (int i = 0; i < NATK; i++)
		xsd_abuse_kill(busy[i]);
	xsd_abuse_kill(root_worker);
	xsd_test_client_close(&c);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

TEST_HARNESS_MAIN
