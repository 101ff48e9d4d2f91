// SPDX-License-Identifier: MIT
/*
 * Two CPU hogs pinned to CPU 1 take turns: each waits on the run queue
 * while the other runs, so within a few ticks the state shows a run-queue
 * latency on CPU 1 (a timeslice, tens of microseconds at least) and its
 * switches counting; CPU 1's time is the hogs' (foreign), not idle.
 */
#include "kselftest_harness.h"
#include "xschedd-test.h"

TEST(two_hogs_on_cpu1_wait_for_each_other)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test_watch w;
	const struct xs_abi_cpu *cpu1;
	uint64_t switches0 = 0;
	uint32_t lat = 0, load = 0;
	pid_t hog[2];

	if (!why)
		why = xsd_test_no_cpu_why(1);
	if (why)
		SKIP(return, "%s", why);
	xsd_test_watch_load(_metadata, &w, 1);
	ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
	cpu1 = xsd_test_cpu_at(w.snap, w.cpu);
	switches0 = cpu1->switches;

	hog[0] = xsd_test_hog(1);
	hog[1] = xsd_test_hog(1);
	ASSERT_LE(0, hog[0]);
	ASSERT_LE(0, hog[1]);
	/* a timeslice is milliseconds: 20 us is far below any real wait */
	for (int tick = 0; tick < 200 && (lat < 20 || load < 800); tick++) {
		xsd_test_sleep_ms(10);
		ASSERT_EQ(0, xsd_test_snapshot(&w.c, w.snap));
		lat = cpu1->rq_latency_us;
		load = cpu1->foreign_permille;
	}
	printf("# CPU 1: run-queue latency %u us, foreign %u permille, %llu switches\n", lat,
	       load, (unsigned long long)(cpu1->switches - switches0));
	EXPECT_LE(20u, lat) xsd_test_dump_log(&w.t);
	EXPECT_GT(1000000u, lat);
	EXPECT_LT(800u, load);
	EXPECT_LT(switches0 + 2, cpu1->switches);
	for (int i = 0; i < 2; i++)
		xsd_test_hog_stop(hog[i]);
	xsd_test_watch_close(_metadata, &w);
}

TEST_HARNESS_MAIN
