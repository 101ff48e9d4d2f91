/* SPDX-License-Identifier: MIT */
/*
 * stranded-victim.h - what the stranded-victim tests share: a victim
 * process that spins on CPU 1 (stopped with SIGSTOP, or preempted by a
 * hog), and a SCHED_FIFO hog on that CPU, both ended with their test
 * (PR_SET_PDEATHSIG, and an alarm).
 */
#ifndef XSCHED_TESTS_STRANDED_VICTIM_H
#define XSCHED_TESTS_STRANDED_VICTIM_H

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define VICTIM_CPU 1

static inline uint64_t sv_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void sv_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static inline int sv_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* Why this test cannot put a victim on CPU 1 and itself on CPU 0, or NULL. */
static inline const char *sv_no_cpus_why(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(0, &set) ||
	    !CPU_ISSET(VICTIM_CPU, &set))
		return "needs CPUs 0 and 1 in the affinity mask";
	return NULL;
}

/* In a child just forked: die with the parent, and after 30 s anyway. */
static inline void sv_child_init(pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(0);
	alarm(30);
}

/*
 * A SCHED_FIFO hog pinned to VICTIM_CPU: while it runs, a CFS thread on
 * that CPU runs only in what RT throttling leaves (5% by default), and is
 * switched out while runnable. Returns its pid, or -errno (-EPERM: no
 * SCHED_FIFO here). It writes one byte on a pipe once it is real-time.
 */
static inline pid_t sv_fifo_hog(void)
{
	pid_t parent = getpid(), pid;
	int p[2];
	char ok = 0;

	if (pipe(p))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!pid) {
		struct sched_param sp = { .sched_priority = 1 };

		sv_child_init(parent);
		close(p[0]);
		if (sv_pin(VICTIM_CPU) || sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		for (volatile uint64_t x = 0;; x++)
			;
	}
	close(p[1]);
	if (read(p[0], &ok, 1) != 1) {
		close(p[0]);
		waitpid(pid, NULL, 0);
		return -EPERM;
	}
	close(p[0]);
	return pid;
}

static inline void sv_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

#endif /* XSCHED_TESTS_STRANDED_VICTIM_H */
