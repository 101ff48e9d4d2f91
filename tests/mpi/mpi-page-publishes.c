// SPDX-License-Identifier: MIT
/*
 * A rank's statistics page (libxsched/mpi/page.c) without MPI, so that it
 * also runs instrumented (SANITIZE=thread: the sampler thread against the
 * threads making calls). Against a private runtime directory with a
 * forged xschedd state that lends this process 2 CPUs (shares[].borrowed):
 *
 *  - the page is created there, flagged XS_STATS_F_MPI, named and laid out
 *    as every reader expects, with the job, its key, rank and size;
 *  - while 3 threads make accounted calls it is published again and again
 *    (generation grows), MPI time within elapsed, never shrinking;
 *  - the CPU-ns borrowed at the stop is more than 0 and at most 2 CPUs x
 *    the time the sampler ran (the integral of the state's borrowed); the
 *    page is gone after the stop;
 *  - an entry whose borrowed exceeds its cpus is not believed: 0 borrowed;
 *  - a rank that exits without MPI_Finalize removes its page, and a child
 *    it forked that exits first does not.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "../../libxsched/mpi/account.c"
#include "../../libxsched/mpi/lend.c"
#include "../../libxsched/mpi/options.c"
#include "../../libxsched/mpi/page.c"

#define THREADS 3

static _Atomic int stop_calls;

static void *caller(void *arg)
{
	struct xs_mpi_thread *t = xs_mpi_self();

	(void)arg;
	/* Relaxed: a flag polled until the test sets it; orders nothing. */
	while (!xs_load_relaxed(&stop_calls)) {
		uint64_t t0 = xs_mpi_enter(t, XS_MPI_C_BARRIER);
		struct timespec ts = { 0, 200000 };

		nanosleep(&ts, NULL);
		xs_mpi_leave(t, XS_MPI_C_BARRIER, t0);
	}
	return NULL;
}

/* <dir>/state: 4 CPUs, fresh for 2 s (tick 1 s), this process 3 CPUs of
 * which @borrowed borrowed. */
static int forge_state(const char *dir, uint32_t borrowed)
{
	static _Alignas(struct xs_abi_header) unsigned char buf[1 << 16];
	struct xs_abi_header *h = (struct xs_abi_header *)buf;
	struct xs_abi_share *sh;
	char path[256];
	__u64 size;
	int fd, ret = 0;

	memset(buf, 0, sizeof(buf));
	size = xs_abi_layout(h, 4, 1, 8, 4096);
	if (size > sizeof(buf))
		return -E2BIG;
	h->generation = 1;
	h->heartbeat_ns = xs_now_ns();
	h->tick_ns = 1000000000ull;
	h->mode = XS_ABI_MODE_DEGRADED;
	h->daemon_pid = 1;
	h->share_cpus = 4;
	h->share_active = 2;
	h->share_count = 2;
	sh = (struct xs_abi_share *)(buf + h->share_off);
	sh[0] = (struct xs_abi_share){ .pid = 1, .cpus = 1, .workers = 1, .lent = 2 };
	sh[1] = (struct xs_abi_share){ .pid = (__u32)getpid(), .cpus = 3, .workers = 3,
				       .borrowed = borrowed };
	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, size) != (ssize_t)size)
		ret = -EIO;
	close(fd);
	return ret;
}

static void cleanup(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/" XS_ABI_STATE_FILE, dir);
	unlink(path);
	rmdir(dir);
}

TEST(page_published_and_borrowing_integrated)
{
	char dir[] = "/tmp/xsched-mpi-page-XXXXXX", path[4200];
	const struct xs_stats_header *h;
	pthread_t th[THREADS];
	uint64_t gen = 0, mpi = 0, t0, t1, borrowed;
	struct stat st;
	int fd, publications = 0;

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, forge_state(dir, 2));
	setenv("XSCHED_RUNTIME_DIR", dir, 1);
	xs_mpi_options_load(1);
	t0 = xs_now_ns();
	/* MPI_Init's order (interpose.c): the page, then the accounting. */
	xs_mpi_page_start(1, 2, "job.x");
	xs_mpi_account_start();
	snprintf(path, sizeof(path), "%s/" XS_STATS_PREFIX "%d.%u", dir, (int)getpid(),
		 XS_STATS_MPI_RUNTIME_ID);
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("no page %s", path);
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_EQ(0644, st.st_mode & 0777);
	h = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, h);
	close(fd);
	ASSERT_EQ(0, xs_stats_check_layout(h, (uint64_t)st.st_size));
	EXPECT_EQ(1u, h->nworkers);
	EXPECT_EQ((__u32)getpid(), h->pid);
	EXPECT_EQ(XS_STATS_MPI_RUNTIME_ID, h->runtime_id);
	EXPECT_EQ(1u, h->mpi_rank);
	EXPECT_EQ(2u, h->mpi_size);
	EXPECT_EQ(0, strcmp((const char *)h->mpi_job_name, "job.x"));
	EXPECT_EQ(fnv1a("job.x"), h->mpi_job);
	EXPECT_TRUE(h->flags & XS_STATS_F_RUNTIME_DIR);

	for (int i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, caller, NULL));
	/* Until five publications seen (each 100 ms), or 10 s. */
	for (int i = 0; i < 1000 && publications < 5; i++) {
		struct timespec ts = { 0, 10000000 };
		/* Acquire: pairs with the sampler's release of generation. */
		uint64_t g = __atomic_load_n(&h->generation, __ATOMIC_ACQUIRE);
		uint64_t el = xs_stats_load(&h->mpi_elapsed_ns), m = xs_stats_load(&h->mpi_ns);

		if (g != gen) {
			gen = g;
			publications++;
			EXPECT_LE(m, el);
			EXPECT_LE(mpi, m);
			mpi = m;
			EXPECT_TRUE(xs_stats_load(&h->flags) & XS_STATS_F_MPI);
			EXPECT_TRUE(xs_stats_load(&h->flags) & XS_STATS_F_DAEMON);
		}
		nanosleep(&ts, NULL);
	}
	EXPECT_LE(5, publications);
	EXPECT_LT(0u, mpi);
	EXPECT_EQ(2u, xs_stats_load(&h->mpi_borrowed_now));
	/* Relaxed: a stop flag. */
	xs_store_relaxed(&stop_calls, 1);
	for (int i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	borrowed = xs_mpi_page_stop();
	t1 = xs_now_ns();
	munmap((void *)h, (size_t)st.st_size);
	EXPECT_LT(0u, borrowed);
	EXPECT_GE(2 * (t1 - t0), borrowed) TH_LOG("borrowed %llu ns in %llu ns",
						   (unsigned long long)borrowed,
						   (unsigned long long)(t1 - t0));
	EXPECT_NE(0, access(path, F_OK)) TH_LOG("the page outlives the stop");

	/* An entry that contradicts itself: nothing borrowed. */
	ASSERT_EQ(0, forge_state(dir, 4));
	xs_mpi_page_start(1, 2, "job.x");
	{
		struct timespec ts = { 0, 250000000 };

		nanosleep(&ts, NULL);
	}
	EXPECT_EQ(0u, xs_mpi_page_stop());
	cleanup(dir);
}

TEST(exit_without_finalize_removes_the_page)
{
	char dir[] = "/tmp/xsched-mpi-page-exit-XXXXXX", path[4200];
	int status;
	pid_t rank;

	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, forge_state(dir, 0));
	rank = fork();
	ASSERT_LE(0, rank);
	if (!rank) {
		pid_t child;

		setenv("XSCHED_RUNTIME_DIR", dir, 1);
		xs_mpi_options_load(1);
		xs_mpi_account_start();
		xs_mpi_page_start(0, 1, "job.exit");
		snprintf(path, sizeof(path), "%s/" XS_STATS_PREFIX "%d.%u", dir, (int)getpid(),
			 XS_STATS_MPI_RUNTIME_ID);
		if (access(path, F_OK))
			_exit(10);
		child = fork();
		if (!child)
			exit(0); /* its atexit handlers run: not its page */
		if (child < 0 || waitpid(child, &status, 0) != child || access(path, F_OK))
			_exit(11);
		exit(0); /* no MPI_Finalize: the page goes with the rank */
	}
	ASSERT_EQ(rank, waitpid(rank, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("10: no page, 11: the child removed it");
	snprintf(path, sizeof(path), "%s/" XS_STATS_PREFIX "%d.%u", dir, (int)rank,
		 XS_STATS_MPI_RUNTIME_ID);
	EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s outlives its rank", path);
	unlink(path);
	cleanup(dir);
}

TEST_HARNESS_MAIN
