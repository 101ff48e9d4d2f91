// SPDX-License-Identifier: MIT
/*
 * A daemon descheduled in the middle of a publication is not a torn state
 * (issue 31, item 10). The fake xschedd's writer (tests/xschedd-fake.h)
 * holds its seqlock odd for 2 ms of every 4, as a daemon that loses its
 * CPU inside a write section on a loaded machine does. Readers must wait
 * for the write to end, not give up after a handful of instant retries:
 *
 *   the share reader (xs_daemon_share()) never falls back with -EAGAIN
 *   ("torn: its seqlock never settled"); every answer is the daemon's;
 *   a runtime's idle thieves, polling the state, never reject it as torn.
 *
 * A writer that died mid-write (seq odd for good) is still given up on:
 * tests/daemon/xschedd-client-ignores-bad-state.c.
 */
#include "capture-stderr.h"
#include "xschedd-fake.h"

#define READS 300

struct slow_writer {
	struct fake *f;
	pthread_t th;
	_Atomic int stop; /* seq_cst: a command, publishes nothing */
};

/* Publish every 4 ms, each publication 2 ms long (spun: a sleep on a
 * loaded machine may last far longer than asked). */
static void *slow_write(void *p)
{
	struct slow_writer *w = p;
	struct xs_abi_header *h = w->f->h;

	while (!atomic_load(&w->stop)) {
		uint64_t end = xsd_test_now_ns() + 2000000;

		xs_abi_write_begin(h);
		h->heartbeat_ns = xsd_test_now_ns();
		h->generation++;
		while (xsd_test_now_ns() < end) /* "descheduled" mid-write */
			;
		xs_abi_write_end(h);
		xsd_test_sleep_ms(2);
	}
	return NULL;
}

static void slow_start(struct slow_writer *w, struct fake *f)
{
	w->f = f;
	atomic_store(&w->stop, 0);
	atomic_store(&f->ticking, 0);
	xsd_test_sleep_ms(5); /* the ticker's last publication is over */
	pthread_create(&w->th, NULL, slow_write, w);
}

static void slow_stop(struct slow_writer *w)
{
	atomic_store(&w->stop, 1);
	pthread_join(w->th, NULL);
}

TEST(share_reader_waits_out_a_slow_write)
{
	static char err[1 << 16];
	struct slow_writer w;
	struct capture cap;
	struct fake f;
	int torn = 0, other = 0, daemon = 0;

	ASSERT_EQ(0, fake_start(&f));
	xsc_env(f.dir, "auto");
	xs_daemon_share_reset();
	slow_start(&w, &f);
	ASSERT_EQ(0, capture_begin(&cap));
	for (int i = 0; i < READS; i++) {
		struct xs_cpu_share s;

		xs_daemon_share(&s);
		if (s.source != XS_SHARE_LOADAVG)
			daemon++;
		else if (s.err == -EAGAIN)
			torn++;
		else
			other++;
		usleep(300);
	}
	capture_end(&cap, err, sizeof(err));
	slow_stop(&w);
	xs_daemon_share_reset();
	fake_stop(&f);
	EXPECT_EQ(0, torn) TH_LOG("%d of %d reads gave up on a write in progress as torn; "
				  "stderr: %.500s", torn, READS, err);
	EXPECT_EQ(0, other);
	EXPECT_EQ(READS, daemon);
}

TEST(runtime_polls_wait_out_a_slow_write)
{
	struct xs_daemon_info info;
	struct slow_writer w;
	struct xs_runtime *rt;
	struct fake f;

	ASSERT_EQ(0, fake_start(&f));
	xsc_env(f.dir, "required");
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	slow_start(&w, &f);
	for (int i = 0; i < 200; i++)
		ASSERT_EQ(0, xsc_run_fib(rt, 18));
	slow_stop(&w);
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	xs_runtime_destroy(rt);
	fake_stop(&f);
	TH_LOG("%llu polls, %llu rejected (last: %s)", (unsigned long long)info.polls,
	       (unsigned long long)info.rejected,
	       info.last_reject ? strerror(-info.last_reject) : "none");
	EXPECT_LT(0, info.polls);
	EXPECT_NE(-EAGAIN, info.last_reject) TH_LOG("a poll gave up on a write in progress");
	EXPECT_EQ(0, info.rejected);
}

TEST_HARNESS_MAIN
