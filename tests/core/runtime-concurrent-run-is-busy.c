// SPDX-License-Identifier: MIT
/*
 * One runtime, two threads that call it at once (issue 31, item 12): the
 * second gets -EBUSY while the first one's job runs, whether it asks for
 * a job (xs_runtime_run, xs_runtime_parallel) or a loop (xs_parallel_for);
 * used to hang or interleave the two jobs. Then many rounds of two
 * threads racing with fib jobs: every call either runs its job to the
 * right result or returns -EBUSY, and nothing hangs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "fib-task.h"
#include "xsched.h"
#include "xs_test.h"

static struct xs_runtime *rt;
/* seq_cst flags between the job's task and the second caller: a test,
 * not a hot path; they publish nothing else. */
static _Atomic int inside, second_done;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The first job: holds the runtime until the second caller has returned
 * (2 s at most). */
static void hold(void *arg)
{
	uint64_t end = now_ms() + 2000;

	(void)arg;
	atomic_store(&inside, 1);
	while (!atomic_load(&second_done) && now_ms() < end)
		;
}

static void nop(void *arg)
{
	(void)arg;
}

static void for_nop(void *arg, int64_t first, uint64_t count)
{
	(void)arg;
	(void)first;
	(void)count;
}

struct second {
	int how; /* 0 run, 1 parallel, 2 parallel_for */
	int ret;
};

static void *second_caller(void *p)
{
	struct second *s = p;

	while (!atomic_load(&inside))
		;
	s->ret = s->how == 0   ? xs_runtime_run(rt, nop, NULL)
		 : s->how == 1 ? xs_runtime_parallel(rt, nop, NULL)
			       : xs_parallel_for(rt, 0, 100, 1, NULL, for_nop, NULL);
	atomic_store(&second_done, 1);
	return NULL;
}

static void while_a_job_runs(struct __test_metadata *_metadata, int how)
{
	struct second s = { how, 1 };
	struct timespec deadline;
	pthread_t th;

	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	atomic_store(&inside, 0);
	atomic_store(&second_done, 0);
	ASSERT_EQ(0, pthread_create(&th, NULL, second_caller, &s));
	ASSERT_EQ(0, xs_runtime_run(rt, hold, NULL));
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 5;
	if (pthread_timedjoin_np(th, NULL, &deadline)) {
		TH_LOG("the second caller is still inside the runtime after 5 s: hung");
		_exit(1); /* the runtime cannot be destroyed under it */
	}
	EXPECT_EQ(-EBUSY, s.ret);
	EXPECT_EQ(1, atomic_load(&second_done));
	EXPECT_EQ(0, xs_runtime_run(rt, nop, NULL)) TH_LOG("and usable afterwards");
	xs_runtime_destroy(rt);
}

TEST(run_while_a_job_runs) { while_a_job_runs(_metadata, 0); }
TEST(parallel_while_a_job_runs) { while_a_job_runs(_metadata, 1); }
TEST(parallel_for_while_a_job_runs) { while_a_job_runs(_metadata, 2); }

struct racer {
	int ran, busy, wrong;
};

static _Atomic int go;

static void *race(void *p)
{
	struct racer *r = p;

	while (!atomic_load(&go))
		;
	for (int i = 0; i < 200; i++) {
		long out = -1;
		struct fib_arg a = { 15, &out };
		int ret = xs_runtime_run(rt, fib_task, &a);

		if (!ret && out == 610)
			r->ran++;
		else if (ret == -EBUSY)
			r->busy++;
		else
			r->wrong++;
	}
	return NULL;
}

TEST(racing_callers_run_or_are_busy)
{
	struct racer r[2] = { { 0 } };
	struct timespec deadline;
	pthread_t th[2];

	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	for (int i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, race, &r[i]));
	atomic_store(&go, 1);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += 20;
	for (int i = 0; i < 2; i++) {
		if (pthread_timedjoin_np(th[i], NULL, &deadline)) {
			TH_LOG("caller %d still inside the runtime after 20 s: hung", i);
			_exit(1);
		}
	}
	TH_LOG("ran %d + %d, busy %d + %d", r[0].ran, r[1].ran, r[0].busy, r[1].busy);
	EXPECT_EQ(0, r[0].wrong + r[1].wrong);
	EXPECT_EQ(400, r[0].ran + r[1].ran + r[0].busy + r[1].busy);
	EXPECT_LT(0, r[0].ran + r[1].ran);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
