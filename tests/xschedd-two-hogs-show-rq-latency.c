// SPDX-License-Identifier: MIT
/*
 * Two CPU hogs pinned to CPU 1 take turns: each waits on the run queue
 * while the other runs, so within a few ticks the state shows a run-queue
 * latency on CPU 1 (a timeslice, tens of microseconds at least) and its
 * switches counting; CPU 1's time is the hogs' (foreign), not idle.
 */
#include <sched.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

static int cpu_index(const struct xs_abi_header *h, uint32_t cpu)
{
	const struct xs_abi_cpu *cpus = xs_abi_at(h, h->cpu_off);

	for (uint32_t i = 0; i < h->ncpus; i++)
		if (cpus[i].cpu == cpu)
			return (int)i;
	return -1;
}

static pid_t hog_on_cpu1(void)
{
	pid_t pid = fork();

	if (!pid) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(1, &set);
		sched_setaffinity(0, sizeof(set), &set);
		alarm(10);
		for (volatile uint64_t x = 0;; x++)
			;
	}
	return pid;
}

TEST(two_hogs_on_cpu1_wait_for_each_other)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test t;
	struct xsd_test_client c;
	struct xs_abi_header *snap;
	const struct xs_abi_cpu *cpus;
	uint64_t switches0 = 0;
	uint32_t lat = 0, load = 0;
	cpu_set_t set;
	pid_t hog[2];
	int i1;

	if (why)
		SKIP(return, "%s", why);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(1, &set))
		SKIP(return, "needs CPU 1 in the affinity mask");
	ASSERT_EQ(0, xsd_test_start(&t, "--tick-ms", "10", "--decay", "30"));
	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_test_dump_log(&t);
	i1 = cpu_index(c.state, 1);
	ASSERT_LE(0, i1);
	snap = malloc(c.state_size);
	ASSERT_NE(NULL, snap);
	ASSERT_EQ(0, xsd_test_snapshot(&c, snap));
	cpus = xs_abi_at(snap, snap->cpu_off);
	switches0 = cpus[i1].switches;

	hog[0] = hog_on_cpu1();
	hog[1] = hog_on_cpu1();
	ASSERT_LE(0, hog[0]);
	ASSERT_LE(0, hog[1]);
	/* a timeslice is milliseconds: 20 us is far below any real wait */
	for (int tick = 0; tick < 200 && (lat < 20 || load < 800); tick++) {
		xsd_test_sleep_ms(10);
		ASSERT_EQ(0, xsd_test_snapshot(&c, snap));
		cpus = xs_abi_at(snap, snap->cpu_off);
		lat = cpus[i1].rq_latency_us;
		load = cpus[i1].foreign_permille;
	}
	printf("# CPU 1: run-queue latency %u us, foreign %u permille, %llu switches\n", lat,
	       load, (unsigned long long)(cpus[i1].switches - switches0));
	EXPECT_LE(20u, lat) xsd_test_dump_log(&t);
	EXPECT_GT(1000000u, lat);
	EXPECT_LT(800u, load);
	EXPECT_LT(switches0 + 2, cpus[i1].switches);
	for (int i = 0; i < 2; i++) {
		kill(hog[i], SIGKILL);
		waitpid(hog[i], NULL, 0);
	}
	free(snap);
	xsd_test_client_close(&c);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
