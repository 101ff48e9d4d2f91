// SPDX-License-Identifier: MIT
/*
 * A waiter whose awaited teammate is switched out while runnable parks
 * without spinning out XSCHED_SPIN_US (worker.c, "Waiting for a
 * switched-out teammate", here XSCHED_AWAIT_OFFCPU_US=20). With the real
 * xschedd (BPF) serving a runtime of 2 workers and a 1 s spin budget,
 * worker 1 spins 30 ms in each of 10 parallel jobs on CPU 1, where a hog
 * process of the same nice value runs too, so the kernel switches it out
 * while runnable (PREEMPTED); worker 0 (this thread, on CPU 0) arrives at
 * the team barrier at once and waits for worker 1's report. Asserted with
 * counts: under XSCHED_DAEMON=auto worker 0 parked early (its early_parks
 * counter > 0, each one a park of worker 0); under XSCHED_DAEMON=off,
 * beside the same daemon, it never did (early_parks 0, and worker 0 did
 * not park at all: each wait of some 30 ms spun, inside its 1 s budget).
 */
#include <pthread.h>
#include <sched.h>

#include "xschedd-client-test.h"

#define JOBS 10
#define BUSY_MS 30

static void job(void *arg)
{
	uint64_t end;

	(void)arg;
	if (xs_worker_id() != 1)
		return; /* worker 0: straight to the barrier */
	xsd_test_pin(1);
	end = xsd_test_now_ns() + BUSY_MS * 1000000ull;
	while (xsd_test_now_ns() < end)
		;
}

struct outcome {
	struct xs_daemon_info info;
	uint64_t parks0;        /* worker 0's parks during the jobs */
	uint64_t early0;        /* of them, early parks (worker 0's counter) */
	int failed;             /* a job returned an error */
};

/* Run the jobs beside a hog on CPU 1 with XSCHED_DAEMON=@mode. */
static void run_jobs(struct __test_metadata *_metadata, const char *mode, struct outcome *o)
{
	struct xs_runtime *rt;
	struct xsd_test t;
	uint64_t parks;
	pid_t hog;

	ASSERT_EQ(0, xsd_test_start(&t));
	xsc_env(t.rt, mode);
	setenv("XSCHED_SPIN_US", "1000000", 1);
	setenv("XSCHED_AWAIT_OFFCPU_US", "20", 1);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	/* Pinned only now: a creator confined to one CPU would make 2
	 * workers more than its CPUs, whose waiters park at once. */
	ASSERT_EQ(0, xsd_test_pin(0));
	hog = xsd_test_hog(1);
	ASSERT_LT(0, hog);
	/* Relaxed: owner-written counter, the jobs below order the rest. */
	parks = xs_load_relaxed(&rt->workers[0]->ctr.parks);
	o->failed = 0;
	for (int i = 0; i < JOBS; i++)
		o->failed |= xs_runtime_parallel(rt, job, NULL) != 0;
	o->parks0 = xs_load_relaxed(&rt->workers[0]->ctr.parks) - parks;
	/* Relaxed: worker 0 is this thread. */
	o->early0 = rt->daemon ? xs_load_relaxed(&rt->daemon->wctr[0].early_parks) : 0;
	xsd_test_hog_stop(hog);
	ASSERT_EQ(0, xs_daemon_info(rt, &o->info));
	xs_runtime_destroy(rt);
	EXPECT_EQ(0, xsd_test_stop(&t));
	unsetenv("XSCHED_SPIN_US");
	unsetenv("XSCHED_AWAIT_OFFCPU_US");
	TH_LOG("XSCHED_DAEMON=%s: %llu early parks (%llu by worker 0), worker 0 parked %llu "
	       "times in %d jobs (connected %d, mode %u)", mode,
	       (unsigned long long)o->info.early_parks, (unsigned long long)o->early0,
	       (unsigned long long)o->parks0, JOBS, o->info.connected, o->info.mode);
}

static const char *skip_why(void)
{
	const char *why = xsc_test_skip_why();

	if (why)
		return why;
	why = xsd_test_no_cpu_why(0);
	return why ? why : xsd_test_no_cpu_why(1);
}

TEST(waiter_parks_when_teammate_preempted)
{
	const char *why = skip_why();
	struct outcome o;

	if (why)
		SKIP(return, "%s", why);
	run_jobs(_metadata, "auto", &o);
	EXPECT_EQ(0, o.failed);
	ASSERT_EQ(1, o.info.connected);
	ASSERT_EQ(XS_ABI_MODE_BPF, o.info.mode);
	EXPECT_LT(0, o.early0);
	/* Each early park of worker 0 is one of its parks. */
	EXPECT_LE(o.early0, o.parks0);
}

TEST(waiter_spins_without_daemon)
{
	const char *why = skip_why();
	struct outcome o;

	if (why)
		SKIP(return, "%s", why);
	run_jobs(_metadata, "off", &o);
	EXPECT_EQ(0, o.failed);
	EXPECT_EQ(0, o.info.connected);
	EXPECT_EQ(0, o.info.early_parks);
	EXPECT_EQ(0, o.parks0);
}

TEST_HARNESS_MAIN
