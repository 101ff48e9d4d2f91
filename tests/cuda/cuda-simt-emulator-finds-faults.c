// SPDX-License-Identifier: MIT
/*
 * cuda-simt-emulator-finds-faults: the host SIMT emulator that runs the
 * CUDA module's kernels in the other cuda-simt-* tests is a checker, not
 * an optimist. Each buggy kernel of tests/simt/faults.cc aborts with a
 * diagnostic that names the fault and where each thread waits (deadlock
 * between a block barrier and a warp collective; a collective whose mask
 * names an exited lane; a shuffle outside its mask; a spin that never
 * ends, after XS_SIMT_TIMEOUT), and its random scheduler exposes a
 * missing barrier as a wrong result within a few seeds while the correct
 * kernel is right under every seed.
 */
#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "simt/simt-faults.h"

/* Run fault @name in a child; its stderr into @buf. The wait status. */
static int run_fault(const char *name, char *buf, size_t len)
{
	int fds[2], status = 0;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		setenv("XS_SIMT_TIMEOUT", "1", 1);
		xs_simt_fault(name);
		_exit(0);
	}
	close(fds[1]);
	while (got + 1 < len && (n = read(fds[0], buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = 0;
	close(fds[0]);
	waitpid(pid, &status, 0);
	return status;
}

#define EXPECT_ABORT(name, text)                                           \
	do {                                                               \
		char out_[8192];                                           \
		int st_ = run_fault(name, out_, sizeof(out_));             \
                                                                           \
		ASSERT_TRUE(WIFSIGNALED(st_) && WTERMSIG(st_) == SIGABRT)  \
			TH_LOG("%s: status %#x, stderr: %s", name, st_, out_); \
		ASSERT_NE(NULL, strstr(out_, text))                        \
			TH_LOG("%s: no '%s' in: %s", name, text, out_);    \
	} while (0)

TEST(deadlock_is_reported_with_every_wait)
{
	EXPECT_ABORT("barrier-inside-warp-collective", "simt: deadlock");
	EXPECT_ABORT("barrier-inside-warp-collective",
		     "thread 0: waits at __syncthreads");
	EXPECT_ABORT("barrier-inside-warp-collective",
		     "thread 7: waits at __shfl_sync");
}

TEST(collective_naming_an_exited_lane)
{
	EXPECT_ABORT("collective-with-exited-lane", "exited");
}

TEST(shuffle_outside_its_mask)
{
	EXPECT_ABORT("shuffle-outside-mask", "reads lane 20 outside mask");
}

TEST(spin_that_never_ends_times_out)
{
	EXPECT_ABORT("spin-for-ever", "still running after 1 s");
}

TEST(unknown_fault_is_einval)
{
	ASSERT_EQ(-EINVAL, xs_simt_fault("no-such-fault"));
}

TEST(missing_barrier_found_by_some_seed)
{
	long long want = 0, s;
	int i, wrong = 0;

	for (i = 0; i < 8 * 128; i++)
		want += i % 13 + 1;
	for (s = 1; s <= 64; s++) {
		ASSERT_EQ(want, xs_simt_block_sum(1, (uint64_t)s))
			TH_LOG("correct kernel, seed %lld", s);
		wrong += xs_simt_block_sum(0, (uint64_t)s) != want;
	}
	TH_LOG("without the barrier: %d of 64 seeds give a wrong sum", wrong);
	ASSERT_LT(0, wrong);
}

TEST_HARNESS_MAIN
