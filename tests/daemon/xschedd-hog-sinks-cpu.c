// SPDX-License-Identifier: MIT
/*
 * A CPU hog pinned to CPU 1 (a process that is no xsched worker): within a
 * few ticks the daemon's state shows CPU 1's foreign load high, and every
 * other CPU's victim table ranks CPU 1 last, with the lowest weight.
 */
#include <sched.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

TEST(hog_on_cpu1_is_last_victim_everywhere)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test_watch w;
	struct xs_abi_header *snap;
	const struct xs_abi_victim *rows;
	uint32_t load = 0;
	cpu_set_t set;
	pid_t hog;
	int i1;

	if (why)
		SKIP(return, "%s", why);
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(1, &set) ||
	    CPU_COUNT(&set) < 2)
		SKIP(return, "needs CPU 1 and another CPU in the affinity mask");
	xsd_test_watch_load(_metadata, &w, 1);
	snap = w.snap;
	i1 = w.cpu;

	hog = xsd_test_hog(1);
	ASSERT_LE(0, hog);
	/* "within a few ticks": 10 ms ticks, decay 30%: > 800 after ~5 */
	for (int tick = 0; tick < 100 && load < 800; tick++) {
		xsd_test_sleep_ms(10);
		ASSERT_EQ(0, xsd_test_snapshot(&w.c, snap));
		load = xsd_test_cpu_at(snap, i1)->foreign_permille;
	}
	ASSERT_LT(800, load) xsd_test_dump_log(&w.t);
	printf("# CPU 1 foreign load %u permille\n", load);

	rows = xs_abi_at(snap, snap->victim_off);
	for (uint32_t r = 0; r < snap->ncpus; r++) {
		const struct xs_abi_victim *row = rows + (size_t)r * snap->row_len;

		if ((int)r == i1)
			continue;
		EXPECT_EQ((uint32_t)i1, row[snap->row_len - 1].cpu_index);
		for (uint32_t k = 0; k + 1 < snap->row_len; k++)
			EXPECT_GE(row[k].weight, row[snap->row_len - 1].weight);
	}
	xsd_test_hog_stop(hog);
	xsd_test_watch_close(_metadata, &w);
}

TEST_HARNESS_MAIN
