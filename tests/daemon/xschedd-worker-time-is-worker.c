// SPDX-License-Identifier: MIT
/*
 * A registered worker spinning on CPU 1: CPU 1's time that the worker ran
 * is counted as worker time, and once it is unregistered and keeps
 * spinning, as foreign time again (and worker time falls to nothing).
 *
 * How much of CPU 1 the spinner gets depends on what else the machine
 * runs, so the test never expects a fixed share: it measures the
 * spinner's own CPU time (its thread clock) over a window of daemon ticks
 * and expects the share the daemon published, averaged over the same
 * ticks, to match it within a factor of 2. The decayed share is a linear
 * filter with gain 1, so its mean over many ticks follows the mean of the
 * samples whatever the load.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

#define SETTLE_TICKS 10  /* decay 30%: what came before weighs 0.7^10 < 3% */
#define WINDOW_TICKS 50

static _Atomic uint32_t worker_tid;
static _Atomic int spin = 1;
/* Set by the test: the spinner sleeps once. The BPF programs stamp what
 * runs on a CPU (idle, worker, other) at each switch, so a thread that
 * was unregistered while it ran counts as a worker until its next switch;
 * on a CPU nothing else wants, that can be seconds away. */
static _Atomic int nap;

static void *worker(void *arg)
{
	(void)arg;
	xsd_test_pin(1);
	worker_tid = xsd_test_gettid();
	while (spin)
		if (atomic_exchange(&nap, 0))
			usleep(1000);
	return NULL;
}

static uint64_t thread_cpu_ns(pthread_t th)
{
	struct timespec ts;
	clockid_t id;

	if (pthread_getcpuclockid(th, &id) || clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The watched CPU's @field (permille) in a fresh snapshot, or UINT32_MAX. */
static uint32_t share_now(struct xsd_test_watch *w, size_t field)
{
	uint32_t v;

	if (xsd_test_snapshot(&w->c, w->snap))
		return UINT32_MAX;
	memcpy(&v, (const char *)xsd_test_cpu_at(w->snap, w->cpu) + field, sizeof(v));
	return v;
}

struct window {
	uint32_t mean; /* mean of @field over the window's ticks, permille */
	uint32_t ran;  /* the spinner's CPU time / wall time, permille */
};

/* Sample @field once a tick for WINDOW_TICKS ticks; time the spinner. */
static struct window measure(struct xsd_test_watch *w, pthread_t th, size_t field)
{
	uint64_t t0 = xsd_test_now_ns(), c0 = thread_cpu_ns(th), sum = 0, t1, c1;
	struct window r = { 0, 0 };
	unsigned int n = 0;

	for (int tick = 0; tick < WINDOW_TICKS; tick++) {
		uint32_t v;

		xsd_test_wait_ticks(&w->c, 1);
		v = share_now(w, field);
		if (v != UINT32_MAX) {
			sum += v;
			n++;
		}
	}
	t1 = xsd_test_now_ns();
	c1 = thread_cpu_ns(th);
	if (n)
		r.mean = (uint32_t)(sum / n);
	if (t1 > t0 && c1 > c0)
		r.ran = (uint32_t)((c1 - c0) * 1000 / (t1 - t0));
	return r;
}

TEST(spinning_worker_time_is_worker_time)
{
	const char *why = xsd_test_no_bpf_why();
	const size_t worker_f = offsetof(struct xs_abi_cpu, worker_permille);
	const size_t foreign_f = offsetof(struct xs_abi_cpu, foreign_permille);
	struct xsd_test_watch w;
	struct xs_abi_reply r;
	struct window m;
	pthread_t th;
	uint32_t tid, v = UINT32_MAX;

	if (!why)
		why = xsd_test_no_cpu_why(1);
	if (why)
		SKIP(return, "%s", why);
	xsd_test_watch_load(_metadata, &w, 1);
	ASSERT_EQ(0, pthread_create(&th, NULL, worker, NULL));
	tid = xsd_test_await_tid(&worker_tid);
	ASSERT_EQ(0, xsd_test_call(w.c.fd, XS_ABI_REGISTER, &tid, 1, &r, NULL));

	xsd_test_wait_ticks(&w.c, SETTLE_TICKS);
	m = measure(&w, th, worker_f);
	printf("# registered: spinner ran %u permille of the time, CPU 1 worker share "
	       "%u permille\n", m.ran, m.mean);
	fflush(stdout); /* the harness's child may end with _exit() */
	ASSERT_LT(0u, m.ran);
	EXPECT_LE(m.ran, 2 * m.mean) xsd_test_dump_log(&w.t);
	EXPECT_LE(m.mean, 2 * m.ran + 50); /* nothing else on CPU 1 is a worker */

	ASSERT_EQ(0, xsd_test_call(w.c.fd, XS_ABI_UNREGISTER, &tid, 1, &r, NULL));
	atomic_store(&nap, 1); /* a switch: from now on it runs as other work */
	/* no worker left: every tick's sample is 0, so the decayed share
	 * falls below 50 within ~9 ticks, whatever else runs */
	for (int tick = 0; tick < 10 * SETTLE_TICKS && v > 50; tick++) {
		xsd_test_wait_ticks(&w.c, 1);
		v = share_now(&w, worker_f);
	}
	printf("# unregistered: CPU 1 worker share %u permille\n", v);
	fflush(stdout);
	EXPECT_GE(50u, v);
	m = measure(&w, th, foreign_f);
	printf("# unregistered: spinner ran %u permille of the time, CPU 1 foreign share "
	       "%u permille\n", m.ran, m.mean);
	fflush(stdout);
	ASSERT_LT(0u, m.ran);
	EXPECT_LE(m.ran, 2 * m.mean);

	spin = 0;
	pthread_join(th, NULL);
	xsd_test_watch_close(_metadata, &w);
}

TEST_HARNESS_MAIN
