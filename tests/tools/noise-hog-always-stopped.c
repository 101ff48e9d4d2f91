// SPDX-License-Identifier: MIT
/*
 * The noisy neighbour of xsched-bench --dgemm (tools/bench/harness/noise.h)
 * never outlives the benchmark: a child starts the hog through
 * noise_start(), reports the hog's pid on a pipe and then stops it with
 * noise_stop(), or is ended by SIGTERM, SIGINT, SIGHUP or SIGKILL (the last
 * through the hog's PR_SET_PDEATHSIG). This process is a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so an orphaned hog becomes its child: it must
 * be reaped, killed by SIGKILL, within two seconds of the child's end. The
 * signal is sent once the hog runs its loop (pinned to CPU 0), so that
 * SIGKILL exercises PR_SET_PDEATHSIG and not the hog's start-up check.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "xs_test.h"
#include "../../tools/bench/harness/noise.h"

#define BOUND_NS 2000000000L

/* Fork a benchmark stand-in that starts the hog and sends its pid; then
 * it waits for a signal, or for a byte on *@go and stops the hog itself
 * with noise_stop() and exits 0. */
static pid_t start_bench(pid_t *hog, int *go)
{
	int fd[2], gofd[2];
	pid_t pid;
	char c;

	if (pipe(fd) < 0 || pipe(gofd) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int h = noise_start(0, 50);

		close(fd[0]);
		close(gofd[1]);
		if (write(fd[1], &h, sizeof(h)) != sizeof(h) || h < 0)
			_exit(2);
		if (read(gofd[0], &c, 1) == 1) {
			noise_stop();
			_exit(0);
		}
		for (;;)
			pause();
	}
	close(fd[1]);
	close(gofd[0]);
	if (pid > 0 && read(fd[0], hog, sizeof(*hog)) != sizeof(*hog))
		*hog = -1;
	close(fd[0]);
	*go = gofd[1];
	return pid;
}

/* Wait until the hog runs its loop (it has pinned itself to CPU 0, after
 * PR_SET_PDEATHSIG): a benchmark killed earlier is seen by the hog's own
 * parent check instead, which exits 0. True when it got there in time. */
static bool hog_running(pid_t hog)
{
	char path[64], line[256];
	long t0 = noise_ns();

	snprintf(path, sizeof(path), "/proc/%d/status", (int)hog);
	while (noise_ns() - t0 < BOUND_NS) {
		FILE *f = fopen(path, "r");
		bool pinned = false;

		if (!f)
			return false;
		while (fgets(line, sizeof(line), f))
			if (!strcmp(line, "Cpus_allowed_list:\t0\n"))
				pinned = true;
		fclose(f);
		if (pinned)
			return true;
		usleep(1000);
	}
	return false;
}

/* 0 once the hog (our child after the orphaning) was reaped dead from
 * SIGKILL, or 1 when it was never ours (reaped by its parent) and is gone;
 * -1 when it is still there after BOUND_NS. */
static int hog_gone(pid_t hog, int *how)
{
	long t0 = noise_ns();

	*how = 0;
	while (noise_ns() - t0 < BOUND_NS) {
		pid_t r = waitpid(hog, how, WNOHANG);

		if (r == hog)
			return 0;
		if (r < 0 && errno == ECHILD && kill(hog, 0) < 0 && errno == ESRCH)
			return 1;
		usleep(1000);
	}
	kill(hog, SIGKILL); /* leave nothing behind */
	waitpid(hog, NULL, 0);
	return -1;
}

static void run_case(struct __test_metadata *_metadata, int sig)
{
	pid_t bench, hog = -1;
	int st, how, go;

	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0));
	bench = start_bench(&hog, &go);
	ASSERT_GT(bench, 0);
	ASSERT_GT(hog, 0) TH_LOG("the stand-in could not start the hog");
	ASSERT_EQ(0, kill(hog, 0)) TH_LOG("hog %d is not running", hog);
	ASSERT_TRUE(hog_running(hog)) TH_LOG("hog %d never pinned itself to CPU 0", hog);
	if (sig) {
		ASSERT_EQ(0, kill(bench, sig));
	} else {
		ASSERT_EQ(1, write(go, "x", 1));
	}
	close(go);
	ASSERT_EQ(bench, waitpid(bench, &st, 0));
	if (sig) {
		ASSERT_TRUE(WIFSIGNALED(st));
		ASSERT_EQ(sig, WTERMSIG(st));
	} else {
		ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	switch (hog_gone(hog, &how)) {
	case 0:
		ASSERT_TRUE(WIFSIGNALED(how) && WTERMSIG(how) == SIGKILL)
			TH_LOG("the hog ended with status 0x%x, not SIGKILL", how);
		break;
	case 1:
		break;
	default:
		ASSERT_TRUE(0) TH_LOG("hog %d still runs 2 s after the benchmark ended (%s)",
				      hog, sig ? strsignal(sig) : "noise_stop");
	}
}

TEST(noise_stop_stops_it)
{
	run_case(_metadata, 0);
}

TEST(sigterm_stops_it)
{
	run_case(_metadata, SIGTERM);
}

TEST(sigint_stops_it)
{
	run_case(_metadata, SIGINT);
}

TEST(sighup_stops_it)
{
	run_case(_metadata, SIGHUP);
}

TEST(sigkill_stops_it_through_pdeathsig)
{
	run_case(_metadata, SIGKILL);
}

TEST_HARNESS_MAIN
