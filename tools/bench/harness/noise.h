/* SPDX-License-Identifier: MIT */
/*
 * noise.h - a noisy neighbour: a CPU hog pinned to one core at a fixed
 * duty cycle (busy for duty% of every 10 ms period), run as a child
 * process that the benchmark starts and always stops:
 *  - noise_stop() kills and reaps it;
 *  - SIGINT, SIGTERM, SIGHUP and SIGQUIT of the benchmark kill it first
 *    (noise_start() installs the handlers), then the signal's default
 *    action proceeds;
 *  - anything else that ends the benchmark (SIGKILL, a crash) ends the hog
 *    through PR_SET_PDEATHSIG, which the child sets before it checks that
 *    its parent is still the one that forked it.
 * Header-only: tests/tools/noise-hog-always-stopped.c runs exactly this code.
 */
#ifndef XSCHED_BENCH_NOISE_H
#define XSCHED_BENCH_NOISE_H

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOISE_PERIOD_NS 10000000L

static volatile sig_atomic_t noise_pid;

static void noise_on_signal(int sig)
{
	pid_t p = noise_pid;

	if (p > 0)
		kill(p, SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

static inline long noise_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* The hog: never returns. */
static inline void noise_hog(int cpu, int duty)
{
	cpu_set_t set;
	volatile unsigned long sink = 0;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (;;) {
		long start = noise_ns(), busy = NOISE_PERIOD_NS / 100 * duty;
		struct timespec rest = { 0, NOISE_PERIOD_NS - busy };

		while (noise_ns() - start < busy)
			sink++;
		if (rest.tv_nsec)
			nanosleep(&rest, NULL);
	}
}

/* Start the hog on @cpu at @duty percent (1..100). Returns its pid, or
 * -errno. One hog at a time. */
static inline int noise_start(int cpu, int duty)
{
	pid_t parent = getpid(), pid;
	struct sigaction sa;
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

	if (duty < 1 || duty > 100 || cpu < 0 || noise_pid > 0)
		return -EINVAL;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = noise_on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
			_exit(0); /* the parent is already gone */
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_DFL);
		noise_hog(cpu, duty);
	}
	noise_pid = pid;
	return pid;
}

/* Stop and reap the hog, if any. */
static inline void noise_stop(void)
{
	pid_t p = noise_pid;

	if (p <= 0)
		return;
	kill(p, SIGKILL);
	while (waitpid(p, NULL, 0) < 0 && errno == EINTR)
		;
	noise_pid = 0;
}

#endif /* XSCHED_BENCH_NOISE_H */
