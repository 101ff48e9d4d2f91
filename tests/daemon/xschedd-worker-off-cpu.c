// SPDX-License-Identifier: MIT
/*
 * A registered worker that sleeps reads off-CPU (BLOCKED) in the worker
 * state the client maps, at once, and in the state file within one tick;
 * once it spins it reads on-CPU. The worker is pinned to CPU 1 and the
 * test to CPU 0: a reader on the worker's own CPU would preempt it, and
 * would rightly always see it RUNNABLE.
 */
#include <pthread.h>
#include <sched.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

static int go[2];
static _Atomic uint32_t worker_tid;
static _Atomic int spin;

static void *worker(void *arg)
{
	char b;

	(void)arg;
	xsd_test_pin(1);
	worker_tid = xsd_test_gettid();
	if (read(go[0], &b, 1) != 1) /* sleeps until the test writes */
		return NULL;
	while (spin)
		;
	return NULL;
}

TEST(sleeping_worker_reads_off_cpu)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test_watch wt;
	struct xs_abi_reply r;
	const struct xs_abi_worker *w, *ws;
	pthread_t th;
	uint32_t tid, slot, st;
	cpu_set_t set;

	if (why)
		SKIP(return, "%s", why);
	if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(0, &set) ||
	    !CPU_ISSET(1, &set))
		SKIP(return, "needs CPUs 0 and 1 in the affinity mask");
	ASSERT_EQ(0, xsd_test_pin(0));
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));

	ASSERT_EQ(0, xsd_test_start(&wt.t, "--tick-ms", "10"));
	xsd_test_watch_open(_metadata, &wt, -1);
	spin = 1;
	ASSERT_EQ(0, pthread_create(&th, NULL, worker, NULL));
	tid = xsd_test_await_tid(&worker_tid);
	ASSERT_EQ(0, xsd_test_call(wt.c.fd, XS_ABI_REGISTER, &tid, 1, &r, NULL));
	slot = r.slots[0];
	ASSERT_GT(wt.c.state->nslots, slot);
	w = &wt.c.workers[slot];
	EXPECT_EQ(tid, w->tid);
	EXPECT_EQ((uint32_t)getpid(), w->pid);

	/* The thread is (or is about to be) asleep in read(): it is switched
	 * out once more after registration at the latest when it blocks. */
	xsd_test_sleep_ms(20);
	EXPECT_EQ(XS_ABI_WORKER_BLOCKED, __atomic_load_n(&w->state, __ATOMIC_RELAXED));
	/* the state file's view catches up within one tick */
	xsd_test_wait_ticks(&wt.c, 2);
	ASSERT_EQ(0, xsd_test_snapshot(&wt.c, wt.snap));
	ws = (const struct xs_abi_worker *)xs_abi_at(wt.snap, wt.snap->worker_off) + slot;
	EXPECT_EQ(tid, ws->tid);
	EXPECT_EQ(XS_ABI_WORKER_BLOCKED, ws->state);

	/* wake it: it spins, so it is on a CPU, or waiting for one */
	ASSERT_EQ(1, write(go[1], "x", 1));
	st = xsd_test_await_state(w, XS_ABI_WORKER_ON_CPU, 200, 1);
	EXPECT_EQ(XS_ABI_WORKER_ON_CPU, st);
	EXPECT_EQ(1u, w->cpu);
	EXPECT_LT(0, w->switches);
	spin = 0;
	pthread_join(th, NULL);
	xsd_test_watch_close(_metadata, &wt);
}

TEST_HARNESS_MAIN
