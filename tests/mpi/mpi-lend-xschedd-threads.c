// SPDX-License-Identifier: MIT
/*
 * libxsched-mpi's lending (libxsched/mpi/lend.c) against a real xschedd,
 * under threads, with no MPI at all, so that it also runs instrumented
 * (make check-concurrency SANITIZE=thread): the library's own code where
 * the MPI programs cannot be checked.
 *
 * The thread that initialised lending (MPI_Init's, here the test's) lends
 * and reclaims 200 times, with LEND and RECLAIM pipelined as in an MPI
 * call, while three other threads call the same entry points as
 * MPI_THREAD_MULTIPLE threads would (they must neither lend nor touch the
 * owner's state: a reclaim on another thread that read the owner's lent
 * flag is a race ThreadSanitizer reports). Lends are answered (200, less
 * those skipped while a late reply was still due), none refused, lending
 * never turned off, and the other threads lent nothing.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

#include "../../libxsched/mpi/account.c"
#include "../../libxsched/mpi/lend.c"
#include "../../libxsched/mpi/options.c"

#define LENDS 200

static _Atomic int stop_others;

static void *other_thread(void *arg)
{
	long calls = 0;

	(void)arg;
	/* Relaxed: a stop flag polled in a loop, nothing published with it. */
	while (!__atomic_load_n(&stop_others, __ATOMIC_RELAXED)) {
		if (xs_mpi_lend_thread())
			return (void *)-1L; /* only the MPI_Init thread may lend */
		xs_mpi_lend();
		xs_mpi_reclaim();
		calls++;
	}
	return (void *)calls;
}

TEST(owner_lends_and_reclaims_others_never_do)
{
	struct xs_mpi_totals tot = { 0 };
	struct xsd_test t;
	pthread_t th[3];
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 2)
		SKIP(return, "fewer than 2 CPUs: a rank keeps one, nothing to lend");
	if (access(xsd_test_daemon_path(), X_OK))
		SKIP(return, "xschedd not built (bpftool, clang, BTF)");
	ASSERT_EQ(0, xsd_test_start(&t, "--bpf", "off"));
	setenv("XSCHED_MPI_LEND", "1", 1);
	setenv("XSCHED_MPI_RECLAIM_WAIT_US", "5000", 1);
	setenv("XSCHED_RUNTIME_DIR", t.rt, 1);
	xs_mpi_options_load(0);
	ASSERT_EQ(0, xs_mpi_lend_init(0)) xsd_test_dump_log(&t);
	ASSERT_TRUE(xs_mpi_lend_thread());
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, other_thread, NULL));
	for (int i = 0; i < LENDS; i++) {
		xs_mpi_lend();
		xsd_test_sleep_ms(1); /* the blocking call */
		xs_mpi_reclaim();
		ASSERT_TRUE(xs_mpi_lend_thread()) TH_LOG("lending turned off at lend %d", i);
	}
	__atomic_store_n(&stop_others, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 3; i++) {
		void *ret;

		ASSERT_EQ(0, pthread_join(th[i], &ret));
		EXPECT_NE((void *)-1L, ret);
	}
	xs_mpi_lend_fini();
	xs_mpi_lend_totals(&tot);
	/* A lend is skipped while a late reply is still due: how many, the
	 * machine's load decides. */
	EXPECT_LE(tot.lends, LENDS);
	EXPECT_LT(0, tot.lends);
	EXPECT_LE(tot.reclaim_p50_ns, tot.reclaim_p99_ns);
	EXPECT_LE(tot.reclaim_p99_ns, tot.reclaim_max_ns);
	TH_LOG("%llu lends, reclaim p50 %llu us, p99 %llu us, %llu late",
	       (unsigned long long)tot.lends, (unsigned long long)tot.reclaim_p50_ns / 1000,
	       (unsigned long long)tot.reclaim_p99_ns / 1000,
	       (unsigned long long)tot.reclaims_late);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
