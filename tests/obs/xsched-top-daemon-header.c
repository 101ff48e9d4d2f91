// SPDX-License-Identifier: MIT
/*
 * With the real xschedd running (in a temporary runtime directory), the
 * header says BPF or degraded with its tick and heartbeat, one per-CPU row
 * appears for every CPU of its state, a runtime started with that
 * XSCHED_RUNTIME_DIR publishes its page there, and the JSON output has the
 * same CPUs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xs_test.h"
#include "xschedd-test.h"
#include "xsched-top-test.h"
#include "xsched/stats_page.h"

TEST(header_and_cpu_rows_with_daemon)
{
	static char out[1 << 18];
	struct xsd_test t;
	struct xs_runtime *rt;
	char line[4096], prefix[4400];
	int ret, rows = 0, header = -1;
	long long ncpus;
	const char *p;

	if (access(xsd_test_daemon_path(), X_OK))
		SKIP(return, "%.200s is not built (no BTF, bpftool or clang here)",
		     xsd_test_daemon_path());
	if (geteuid() != 0)
		SKIP(return, "not root: xschedd needs root even in degraded mode");
	ret = xsd_test_start(&t, "--tick-ms", "50");
	if (ret) {
		xsd_test_dump_log(&t);
		xsd_test_stop(&t);
		SKIP(return, "xschedd did not start: %s", strerror(-ret));
	}
	setenv("XSCHED_RUNTIME_DIR", t.rt, 1);
	setenv("XSCHED_STATS_PAGE", "1", 1);
	rt = xs_runtime_create(2);
	EXPECT_NE(NULL, rt);
	tt_sleep_ms(200);

	EXPECT_EQ(0, tt_run(out, sizeof(out), "-b -n 1 --runtime-dir %s -p %d", t.rt,
			    (int)getpid()));
	p = strstr(out, "xsched-top: daemon ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	EXPECT_EQ(1, !strncmp(p, "xsched-top: daemon BPF", 22) ||
			     !strncmp(p, "xsched-top: daemon degraded", 27))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "tick 50 ms")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "heartbeat")) TH_LOG("%s", out);
	for (int i = 0; tt_line(out, i, line, sizeof(line)); i++) {
		unsigned int cpu, node;
		double a, b, c;

		if (!strncmp(line, "CPU ", 4))
			header = i;
		else if (header >= 0 && sscanf(line, "%u %u %lf %lf %lf", &cpu, &node, &a, &b,
					       &c) == 5)
			rows++;
	}
	EXPECT_LE(0, header) TH_LOG("%s", out);

	EXPECT_EQ(0, tt_run(out, sizeof(out), "--json -n 1 --runtime-dir %s -p %d", t.rt,
			    (int)getpid()));
	ncpus = tt_json_num(out, "cpus");
	EXPECT_LT(0, ncpus) TH_LOG("%s", out);
	EXPECT_EQ(ncpus, rows) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"cpu\":[{\"cpu\":")) TH_LOG("%s", out);
	/* Our own page, in the daemon's runtime directory. */
	snprintf(prefix, sizeof(prefix), "\"path\":\"%s/" XS_STATS_PREFIX "%d.", t.rt,
		 (int)getpid());
	EXPECT_NE(NULL, strstr(out, prefix)) TH_LOG("%s", out);

	xs_runtime_destroy(rt);
	unsetenv("XSCHED_RUNTIME_DIR");
	EXPECT_EQ(0, WEXITSTATUS(xsd_test_stop(&t)));
}

TEST_HARNESS_MAIN
