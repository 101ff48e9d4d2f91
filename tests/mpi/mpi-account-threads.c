// SPDX-License-Identifier: MIT
/*
 * libxsched-mpi's accounting (libxsched/mpi/account.c) under threads, with
 * no MPI at all (the accounting, options and lend files do not include
 * mpi.h), so that this test also runs instrumented (make check
 * SANITIZE=thread / address): the library's own concurrent code, checked
 * where the MPI programs cannot be.
 *
 *  - every thread's calls are counted exactly, per class, after threads
 *    have come and gone (per-thread counters merged by the reader);
 *  - the process's MPI time is the union of the threads' intervals: at
 *    least the longest thread's, at most their sum and the elapsed time;
 *  - two overlapping calls in two threads count once, as their union;
 *  - nested calls are one outermost interval.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "kselftest_harness.h"

#include "../../libxsched/mpi/account.c"
#include "../../libxsched/mpi/lend.c"
#include "../../libxsched/mpi/options.c"

#define THREADS 4
#define CALLS 20000

static void spin_ns(uint64_t ns)
{
	uint64_t end = xs_now_ns() + ns;

	while (xs_now_ns() < end)
		;
}

struct worker {
	uint64_t inside_ns; /* this thread's own time inside calls */
};

static void *hammer(void *arg)
{
	struct worker *w = arg;
	struct xs_mpi_thread *t = xs_mpi_self();

	for (int i = 0; i < CALLS; i++) {
		enum xs_mpi_class c = (enum xs_mpi_class)(i % XS_MPI_NCLASSES);
		uint64_t t0 = xs_mpi_enter(t, c);

		if (i % 64 == 0)
			spin_ns(2000);
		xs_mpi_leave(t, c, t0);
		w->inside_ns += t->last_ns[c];
	}
	return NULL;
}

TEST(threads_counted_and_union_bounded)
{
	struct worker w[THREADS] = { 0 };
	pthread_t tid[THREADS];
	struct xs_mpi_totals tot;
	uint64_t calls = 0, sum = 0, longest = 0;

	xs_mpi_options_load(1);
	xs_mpi_account_start();
	for (int i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, hammer, &w[i]));
	for (int i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_join(tid[i], NULL));
	xs_mpi_account_stop(&tot);

	for (int c = 0; c < XS_MPI_NCLASSES; c++) {
		/* CALLS spread round-robin over the classes, per thread. */
		uint64_t per = CALLS / XS_MPI_NCLASSES + ((uint64_t)c < CALLS % XS_MPI_NCLASSES);

		EXPECT_EQ(per * THREADS, tot.class_calls[c]);
		calls += tot.class_calls[c];
	}
	EXPECT_EQ((uint64_t)THREADS * CALLS, calls);
	for (int i = 0; i < THREADS; i++) {
		sum += w[i].inside_ns;
		longest = w[i].inside_ns > longest ? w[i].inside_ns : longest;
	}
	/* Every call lies inside one busy period (whose start is rounded
	 * down to 64 ns), so the union covers the longest thread's calls; it
	 * exceeds their sum by at most that rounding, once per period. */
	EXPECT_GE(tot.mpi_ns, longest);
	EXPECT_LE(tot.mpi_ns, sum + (uint64_t)THREADS * CALLS * 64);
	EXPECT_LE(tot.mpi_ns, tot.elapsed_ns);
	EXPECT_EQ(0, xs_mpi_active());
}

static pthread_barrier_t step;

static void *overlap_b(void *arg)
{
	struct xs_mpi_thread *t = xs_mpi_self();
	uint64_t t0;

	(void)arg;
	pthread_barrier_wait(&step);          /* 1: A is inside */
	t0 = xs_mpi_enter(t, XS_MPI_C_WAIT);
	pthread_barrier_wait(&step);          /* 2: both inside */
	pthread_barrier_wait(&step);          /* 3: A has left */
	spin_ns(5000000);
	xs_mpi_leave(t, XS_MPI_C_WAIT, t0);
	return NULL;
}

TEST(overlapping_calls_count_once)
{
	struct xs_mpi_thread *t;
	struct xs_mpi_totals tot;
	pthread_t b;
	uint64_t t0, first, last;

	xs_mpi_options_load(1);
	xs_mpi_account_start();
	t = xs_mpi_self();
	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, pthread_barrier_init(&step, NULL, 2));
	ASSERT_EQ(0, pthread_create(&b, NULL, overlap_b, NULL));
	t0 = xs_mpi_enter(t, XS_MPI_C_BARRIER);
	first = t0;
	spin_ns(5000000);
	pthread_barrier_wait(&step);
	pthread_barrier_wait(&step);
	xs_mpi_leave(t, XS_MPI_C_BARRIER, t0);
	pthread_barrier_wait(&step);
	ASSERT_EQ(0, pthread_join(b, NULL));
	last = xs_now_ns();
	xs_mpi_account_stop(&tot);

	/* One busy period, from A's entry to B's exit: >= 10 ms of spinning,
	 * less than the whole span, and less than the two calls' sum. */
	EXPECT_GE(tot.mpi_ns + 64, 10000000u);
	EXPECT_LE(tot.mpi_ns, last - first + 64);
	EXPECT_LT(tot.mpi_ns, tot.class_ns[XS_MPI_C_BARRIER] + tot.class_ns[XS_MPI_C_WAIT]);
	EXPECT_EQ(1, tot.class_calls[XS_MPI_C_BARRIER]);
	EXPECT_EQ(1, tot.class_calls[XS_MPI_C_WAIT]);
	pthread_barrier_destroy(&step);
}

TEST(nested_calls_are_one_interval)
{
	struct xs_mpi_thread *t;
	struct xs_mpi_totals tot;
	uint64_t outer, inner, begin, end;

	xs_mpi_options_load(1);
	xs_mpi_account_start();
	t = xs_mpi_self();
	ASSERT_NE(NULL, t);
	begin = xs_now_ns();
	outer = xs_mpi_enter(t, XS_MPI_C_COLL);
	spin_ns(1000000);
	inner = xs_mpi_enter(t, XS_MPI_C_SEND);
	spin_ns(1000000);
	xs_mpi_leave(t, XS_MPI_C_SEND, inner);
	EXPECT_EQ(1u, t->depth);
	xs_mpi_leave(t, XS_MPI_C_COLL, outer);
	end = xs_now_ns();
	EXPECT_EQ(0u, t->depth);
	xs_mpi_account_stop(&tot);
	EXPECT_GE(tot.mpi_ns + 64, 2000000u);
	EXPECT_LE(tot.mpi_ns, end - begin + 64);
	EXPECT_EQ(1, tot.class_calls[XS_MPI_C_COLL]);
	EXPECT_EQ(1, tot.class_calls[XS_MPI_C_SEND]);
}

TEST_HARNESS_MAIN
