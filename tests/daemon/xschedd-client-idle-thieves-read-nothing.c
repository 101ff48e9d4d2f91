// SPDX-License-Identifier: MIT
/*
 * An idle thief makes no read of the daemon's state: the client's tick
 * thread polls it (libxsched/daemon/daemon_tick.c), not the workers.
 *
 * A fake xschedd (tests/xschedd-fake.h) serves a fresh state, and the
 * runtime is connected and polling (info.fresh). Then worker 0 runs one
 * job that spawns nothing for XSCHED_SPIN_US-long spinning thieves to
 * take: they look for work the whole time. The kernel counts every
 * read-type system call (read, pread, readv) of each thread in
 * /proc/self/task/TID/io (syscr): the idle thieves' count must not move,
 * while the tick thread's does (it polls) and info.polls grows.
 *
 * When thieves polled, each poll of an awake thief was a pread() of the
 * header, and in degraded mode (the fake's) one per registered worker:
 * the thieves' syscr grew by one per daemon tick at least.
 */

#include "xschedd-fake.h"
#include "xs_test_threads.h"

#define NWORKERS 2
#define HOLD_MS 300

/* The read-type system calls thread @tid has made, or -1. */
static long long syscr_of(uint32_t tid)
{
	char path[64], line[128];
	long long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%u/io", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "syscr: %lld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* CPU time thread @tid has run, in ns (schedstat's first field), or 0. */
static unsigned long long ran_ns(uint32_t tid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%u/schedstat", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

static int fresh(const struct xs_daemon_info *i)
{
	return i->fresh;
}

/* Worker 0 spins HOLD_MS without spawning: every other worker is an idle
 * thief for that long. */
static void hold(void *arg)
{
	uint64_t end = xsd_test_now_ns() + (uint64_t)HOLD_MS * 1000000u;

	(void)arg;
	while (xsd_test_now_ns() < end)
		;
}

TEST(idle_thieves_make_no_read)
{
	long long before[NWORKERS], after[NWORKERS], tick_before, tick_after;
	unsigned long long ran_before[NWORKERS], ran_after[NWORKERS];
	struct xs_daemon_info info;
	uint64_t polls_before;
	struct xs_runtime *rt;
	uint32_t tick;
	pid_t tick_tid;
	struct fake f;

	if (syscr_of((uint32_t)gettid()) < 0)
		SKIP(return, "no /proc/self/task/TID/io (CONFIG_TASK_IO_ACCOUNTING)");
	ASSERT_EQ(0, fake_start(&f));
	xsc_env(f.dir, "required");
	/* Thieves keep looking for work for the whole job, never park. */
	setenv("XSCHED_SPIN_US", "1000000", 1);
	rt = xs_runtime_create(NWORKERS);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(1, xsc_run_until(rt, 20, 3000, fresh));
	ASSERT_EQ(1, xs_test_threads_named("xsched-daemon", &tick_tid));
	tick = (uint32_t)tick_tid;

	xs_daemon_info(rt, &info);
	polls_before = info.polls;
	tick_before = syscr_of(tick);
	for (uint32_t w = 1; w < NWORKERS; w++) {
		before[w] = syscr_of(rt->daemon->tids[w]);
		ran_before[w] = ran_ns(rt->daemon->tids[w]);
	}
	ASSERT_EQ(0, xs_runtime_run(rt, hold, NULL));
	for (uint32_t w = 1; w < NWORKERS; w++) {
		after[w] = syscr_of(rt->daemon->tids[w]);
		ran_after[w] = ran_ns(rt->daemon->tids[w]);
	}
	tick_after = syscr_of(tick);
	xs_daemon_info(rt, &info);

	for (uint32_t w = 1; w < NWORKERS; w++) {
		ASSERT_LE(0, before[w]);
		EXPECT_EQ(before[w], after[w])
			TH_LOG("idle worker %u made %lld reads in %d ms", w, after[w] - before[w],
			       HOLD_MS);
		TH_LOG("worker %u ran %llu ms as an idle thief", w,
		       (ran_after[w] - ran_before[w]) / 1000000u);
	}
	/* Somebody kept the advice fresh: the tick thread. */
	EXPECT_NE(0, tick) TH_LOG("no thread named xsched-daemon");
	TH_LOG("the tick thread: %lld reads, %llu polls", tick_after - tick_before,
	       (unsigned long long)(info.polls - polls_before));
	EXPECT_EQ(1, info.fresh);
	EXPECT_LE(1, info.polls);
	xs_runtime_destroy(rt);
	fake_stop(&f);
}

TEST_HARNESS_MAIN
