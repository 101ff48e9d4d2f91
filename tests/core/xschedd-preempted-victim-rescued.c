// SPDX-License-Identifier: MIT
/*
 * The daemon's PREEMPTED worker state reaches the library's thieves, and
 * a preempted worker's private frames are rescued: with the real xschedd
 * (real BPF) serving the runtime, worker 0 spawns 32 children it keeps
 * private (the other worker is kept busy meanwhile, so nobody asks it to
 * publish), then spins at SCHED_IDLE on a CPU where a hog thread runs, so
 * the kernel switches it out while runnable. Asserted with counts: every
 * child ran exactly once, all on worker 1, before worker 0's join; the
 * sum of their values; and xs_daemon_info() shows the runtime served in
 * BPF mode. Which detector moved the frames (the daemon's PREEMPTED
 * state or the missed poll, rescue.h) is not asserted: both fire at the
 * same threshold, and on a quiet machine the missed poll alone did it
 * (stranded 0); the counts are logged.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "xschedd-client-test.h"

#define NCHILD 32
#include "rescue-blocker.h"
#define WAIT_MS 10000

static _Atomic int hog_stop;
static int seen_before_join;

static void victim(void *arg)
{
	uint64_t end = xsd_test_now_ns() + WAIT_MS * 1000000ull;

	(void)arg;
	xs_spawn(rescue_blocker, &seen_before_join, sizeof seen_before_join);
	xs_task_publish();
	while (!atomic_load(&blocker_started) && xsd_test_now_ns() < end)
		;
	for (int i = 0; i < NCHILD; i++)
		xs_spawn(rescue_child, &i, sizeof i);
	atomic_store(&spawned, 1);
	/* Preempted: no spawn, no join, so no splitreq is served. */
	while (atomic_load(&finished) < NCHILD && xsd_test_now_ns() < end)
		;
	seen_before_join = atomic_load(&finished);
	xs_sync();
}

static void *hog(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&hog_stop, memory_order_relaxed))
		;
	return NULL;
}

TEST(preempted_victim_frames_rescued)
{
	struct sched_param none = { 0 };
	struct xs_daemon_info info;
	struct xs_runtime *rt;
	struct xsd_test t;
	const char *why = xsc_test_skip_why();
	uint64_t want = 0;
	cpu_set_t one;
	pthread_attr_t a;
	pthread_t h;

	if (why)
		SKIP(return, "%s", why);
	why = xsd_test_no_cpu_why(1);
	if (why)
		SKIP(return, "%s", why);
	setenv("XSCHED_DLB", "ws", 1);
	setenv("XSCHED_RESCUE_US", "1000", 1);
	rt = xsc_start(_metadata, &t, 2);
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	ASSERT_EQ(1, info.connected);
	ASSERT_EQ(XS_ABI_MODE_BPF, info.mode);

	/* Worker 0 (this thread) and the hog share CPU 1; worker 1 is
	 * unbound (XSCHED_BIND=none) and runs elsewhere. */
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	ASSERT_EQ(0, pthread_attr_init(&a));
	ASSERT_EQ(0, pthread_attr_setaffinity_np(&a, sizeof one, &one));
	ASSERT_EQ(0, pthread_create(&h, &a, hog, NULL));
	pthread_attr_destroy(&a); /* its CPU set is malloc'ed (LSan) */
	ASSERT_EQ(0, pthread_setaffinity_np(pthread_self(), sizeof one, &one));
	ASSERT_EQ(0, sched_setscheduler(0, SCHED_IDLE, &none));
	EXPECT_EQ(0, xs_runtime_run(rt, victim, NULL));
	atomic_store(&hog_stop, 1);
	pthread_join(h, NULL);

	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	TH_LOG("%d of %d children ran before the join, %d on worker 1; the daemon showed "
	       "worker 0 stranded %llu times (%llu off-CPU skips)", seen_before_join, NCHILD,
	       atomic_load(&elsewhere), (unsigned long long)info.stranded,
	       (unsigned long long)info.off_cpu_skips);
	for (int i = 0; i < NCHILD; i++) {
		int n = atomic_load(&ran[i]);

		want += (uint64_t)(i + 1) * 1000003u;
		EXPECT_EQ(1, n) {
			TH_LOG("child %d ran %d times", i, n);
		}
	}
	EXPECT_EQ(want, atomic_load(&sum));
	EXPECT_EQ(NCHILD, seen_before_join);
	EXPECT_EQ(NCHILD, atomic_load(&elsewhere));
	xs_runtime_destroy(rt);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
