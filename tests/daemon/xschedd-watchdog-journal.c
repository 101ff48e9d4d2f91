// SPDX-License-Identifier: MIT
/*
 * Issue 31, item 15 (the daemon's part): under systemd, xschedd pings the
 * watchdog (WATCHDOG=1 on NOTIFY_SOCKET, at least every half of
 * WATCHDOG_USEC) and writes its journal lines with sd-daemon.h priority
 * prefixes ("<3>" for an error) when stderr is the journal stream that
 * JOURNAL_STREAM names. The test plays systemd: its own datagram socket,
 * WATCHDOG_USEC=200000 and WATCHDOG_PID set for the daemon, the daemon's
 * log file named in JOURNAL_STREAM.
 */
#include <poll.h>

#include "kselftest_harness.h"
#include "xschedd-abuse.h"

static char notify_path[108];

static void as_systemd(struct xsd_test *t)
{
	char v[64];
	struct stat st;

	(void)t;
	snprintf(v, sizeof(v), "%d", (int)getpid()); /* the daemon, after exec */
	setenv("WATCHDOG_PID", v, 1);
	setenv("WATCHDOG_USEC", "200000", 1);
	setenv("NOTIFY_SOCKET", notify_path, 1);
	if (!fstat(2, &st)) {
		snprintf(v, sizeof(v), "%llu:%llu", (unsigned long long)st.st_dev,
			 (unsigned long long)st.st_ino);
		setenv("JOURNAL_STREAM", v, 1);
	}
}

TEST(watchdog_pings_and_journal_priorities)
{
	const char *why = xsd_test_no_bpf_why();
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct xsd_test t;
	char msg[256], line[512];
	int fd, pings = 0, prefixed = 0, plain = 0;
	uint64_t t0;
	FILE *f;

	if (why)
		SKIP(return, "%s", why);
	snprintf(notify_path, sizeof(notify_path), "/tmp/xschedd-notify-%d", (int)getpid());
	unlink(notify_path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, fd);
	strcpy(sa.sun_path, notify_path);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_EQ(0, xsd_test_start_with(&t, as_systemd, "--tick-ms", "10", NULL));

	/* one second: at least 100 ms between pings, so 4 and more */
	t0 = xsd_test_now_ns();
	while (xsd_test_now_ns() - t0 < 1000000000ull) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, 100) != 1)
			continue;
		n = recv(fd, msg, sizeof(msg) - 1, 0);
		if (n <= 0)
			continue;
		msg[n] = '\0';
		pings += strstr(msg, "WATCHDOG=1") != NULL;
	}
	xsd_say("# %d WATCHDOG=1 pings in 1 s (WATCHDOG_USEC=200000)\n", pings);
	EXPECT_LE(4, pings);

	f = fopen(t.log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (line[0] == '<' && line[1] >= '0' && line[1] <= '7' && line[2] == '>' &&
		    !strncmp(line + 3, "xschedd: ", 9))
			prefixed++;
		else
			plain++;
	}
	if (f)
		fclose(f);
	xsd_say("# journal lines: %d with a priority prefix, %d without\n", prefixed, plain);
	EXPECT_LT(0, prefixed);
	EXPECT_EQ(0, plain);
	EXPECT_EQ(0, xsd_test_stop(&t));
	close(fd);
	unlink(notify_path);
}

TEST_HARNESS_MAIN
