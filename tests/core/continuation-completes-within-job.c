// SPDX-License-Identifier: MIT
/*
 * A continuation made ready by a thread outside the runtime (as a CUDA
 * host callback would) runs on a worker, and the job does not end before
 * it has: xs_runtime_run() and the team barrier wait for it even though
 * the task that created it returned long before.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>
#include "xsched.h"
#include "test-scale.h"
#include "xs_test.h"

#define NCONT 500

static _Atomic int ran;
static _Atomic int ran_on_worker;

static void continuation(void *arg)
{
	(void)arg;
	if (xs_worker_id() >= 0)
		atomic_fetch_add(&ran_on_worker, 1);
	atomic_fetch_add(&ran, 1);
}

/* The "device": completes every continuation after a delay, in reverse. */
static void *device(void *arg)
{
	struct xs_continuation **c = arg;

	usleep(20 * 1000);
	for (int i = NCONT; i-- > 0;)
		xs_continuation_ready(c[i]);
	return NULL;
}

static struct xs_continuation *pending[NCONT];
static pthread_t dev;

static void submit(void *arg)
{
	int i = *(int *)arg;

	pending[i] = xs_continuation_create(continuation, &i, sizeof i);
	/* ... and return at once: the work continues elsewhere. */
}

static void root(void *arg)
{
	(void)arg;
	for (int i = 0; i < NCONT; i++)
		xs_task_spawn(submit, &i, sizeof i);
	xs_task_wait(); /* every pending[] written and visible to us */
	pthread_create(&dev, NULL, device, pending);
}

TEST(run_waits_for_continuations)
{
	struct xs_runtime *rt = xs_runtime_create(3);
	struct xs_stats st;

	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
	EXPECT_EQ(NCONT, atomic_load(&ran));
	EXPECT_EQ(NCONT, atomic_load(&ran_on_worker));
	pthread_join(dev, NULL);
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	EXPECT_EQ(NCONT, st.continuations);
	xs_runtime_destroy(rt);
}

static void *one_later(void *arg)
{
	usleep(30 * 1000);
	xs_continuation_ready(arg);
	return NULL;
}

static pthread_t later;

static void implicit(void *arg)
{
	(void)arg;
	if (xs_worker_id() == 1) {
		int x = 0;

		pthread_create(&later, NULL, one_later,
			       xs_continuation_create(continuation, &x, sizeof x));
	}
	xs_barrier_wait();
	/* Every worker sees the continuation done after the barrier. */
	if (atomic_load(&ran) != NCONT + 1)
		atomic_fetch_add(&ran_on_worker, 1000000);
}

TEST(barrier_waits_for_continuation)
{
	struct xs_runtime *rt = xs_runtime_create(2);

	ASSERT_NE(NULL, rt);
	atomic_store(&ran, NCONT);
	atomic_store(&ran_on_worker, 0);
	ASSERT_EQ(0, xs_runtime_parallel(rt, implicit, NULL));
	EXPECT_EQ(NCONT + 1, atomic_load(&ran));
	EXPECT_EQ(1, atomic_load(&ran_on_worker));
	pthread_join(later, NULL);
	xs_runtime_destroy(rt);
}

static void *ready_in_half_a_second(void *c)
{
	usleep(500 * 1000);
	xs_continuation_ready(c);
	return NULL;
}

static void submit_slow(void *arg)
{
	int x = 0;

	(void)arg;
	pthread_create(&later, NULL, ready_in_half_a_second,
		       xs_continuation_create(continuation, &x, sizeof x));
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* While the job waits for a slow device the barrier backs off: the wait
 * costs a small fraction of one CPU, not every worker spinning. */
TEST(waiting_for_a_continuation_does_not_spin)
{
	struct xs_runtime *rt = xs_runtime_create(4);
	double before, used;

	ASSERT_NE(NULL, rt);
	atomic_store(&ran, 0);
	before = cpu_seconds();
	ASSERT_EQ(0, xs_runtime_run(rt, submit_slow, NULL));
	used = cpu_seconds() - before;
	EXPECT_EQ(1, atomic_load(&ran));
	TH_LOG("a 0.5 s wait used %.3f s of CPU", used);
	/* Four workers spinning through the wait would use the whole
	 * machine (1 s on 2 CPUs). The bounded spin before each back-off
	 * costs ~0.17 s plain; under a sanitizer every spin iteration is
	 * several times slower, so the bound scales with test_scale(). */
	EXPECT_LT(used, test_scale() > 1 ? 0.5 : 0.25);
	pthread_join(later, NULL);
	xs_runtime_destroy(rt);
}

TEST(outside_a_task)
{
	int x = 0;

	errno = 0;
	EXPECT_EQ(NULL, xs_continuation_create(continuation, &x, sizeof x));
	EXPECT_EQ(EPERM, errno);
}

TEST_HARNESS_MAIN
