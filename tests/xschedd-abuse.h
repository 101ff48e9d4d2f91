/* SPDX-License-Identifier: MIT */
/*
 * xschedd-abuse.h - what the tests that attack xschedd share, on top of
 * tests/xschedd-test.h: a scratch unprivileged user (tests/scratch-user.h,
 * removed at the end), processes that run as it, the daemon's CPU time and
 * its log's size, and its open-file limit set before it starts.
 *
 * Every attacker is a child process with an alarm: a test never hangs on
 * one, and a test that dies takes them along (PR_SET_PDEATHSIG).
 */
#ifndef XSCHED_XSCHEDD_ABUSE_H
#define XSCHED_XSCHEDD_ABUSE_H

#include <grp.h>
#include <pwd.h>
#include <sys/resource.h>

#include "scratch-user.h"
#include "xschedd-test.h"

/* A "# ..." line on stdout now (a test's child exits without flushing). */
#define xsd_say(...) do { printf(__VA_ARGS__); fflush(stdout); } while (0)

/* Why the attack tests cannot run here, or NULL. */
static inline const char *xsd_abuse_no_run_why(void)
{
	const char *why = xsd_test_no_bpf_why();

	if (why)
		return why;
	if (access("/usr/sbin/useradd", X_OK) || access("/usr/sbin/userdel", X_OK))
		return "no useradd/userdel: the attacks run as a scratch user";
	return NULL;
}

/* The attacker: a scratch user (tests/scratch-user.h). A tag names the
 * test in messages only. 0, or -EPERM when none could be made. */
static inline int xsd_abuse_user_create(struct scratch_user *u, const char *tag)
{
	const char *why = scratch_user_add(u);

	if (why)
		fprintf(stderr, "# %s: %s\n", tag, why);
	return why ? -EPERM : 0;
}

static inline void xsd_abuse_user_remove(struct scratch_user *u)
{
	scratch_user_del(u);
	u->made = 0;
}

/* In a child: become @u for good (groups, gid, uid). Exits 126 if not. */
static inline void xsd_abuse_become(const struct scratch_user *u)
{
	if (scratch_user_become(u))
		_exit(126);
}

/*
 * Fork a child that becomes @u, dies with its parent, is killed after
 * @secs seconds at most, and runs @fn(@arg); its return is the exit
 * status. Returns the pid or -errno.
 */
static inline pid_t xsd_abuse_spawn(const struct scratch_user *u, unsigned int secs,
				    int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(secs * xs_test_timeout_scale());
		if (u)
			xsd_abuse_become(u);
		_exit(fn(arg));
	}
	return pid;
}

/* SIGKILL and reap a child of xsd_abuse_spawn(). */
static inline void xsd_abuse_kill(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* utime + stime of process @pid in clock ticks, or UINT64_MAX. */
static inline uint64_t xsd_abuse_cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return UINT64_MAX;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return UINT64_MAX;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* ") S ppid pgrp session tty tpgid flags minflt cminflt majflt
	 * cmajflt utime stime" */
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			 &st) != 2)
		return UINT64_MAX;
	return ut + st;
}

/* Percent of one CPU process @pid used over the next @ms milliseconds. */
static inline unsigned int xsd_abuse_cpu_percent(pid_t pid, unsigned int ms)
{
	uint64_t t0 = xsd_abuse_cpu_ticks(pid), n0 = xsd_test_now_ns(), t1, n1;
	long hz = sysconf(_SC_CLK_TCK);

	xsd_test_sleep_ms(ms);
	t1 = xsd_abuse_cpu_ticks(pid);
	n1 = xsd_test_now_ns();
	if (t0 == UINT64_MAX || t1 == UINT64_MAX || n1 <= n0)
		return 100;
	return (unsigned int)((t1 - t0) * 100000000000ull / (uint64_t)hz / (n1 - n0));
}

/* Size of the daemon's log in bytes. */
static inline long xsd_abuse_log_size(const struct xsd_test *t)
{
	struct stat st;

	return stat(t->log, &st) ? -1 : (long)st.st_size;
}

/* Lines of the daemon's log that contain @text. */
static inline unsigned long xsd_abuse_log_count(const struct xsd_test *t, const char *text)
{
	char line[1024];
	unsigned long n = 0;
	FILE *f = fopen(t->log, "r");

	while (f && fgets(line, sizeof(line), f))
		n += strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return n;
}

/* The last lines of the daemon's log (a failed test shows them). */
static inline void xsd_abuse_log_tail(const struct xsd_test *t, unsigned int lines)
{
	char cmd[PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "tail -n %u '%s' | sed 's/^/# daemon: /'", lines, t->log);
	(void)!system(cmd);
}

/* Whether the daemon still runs (not exited, not killed). */
static inline int xsd_abuse_alive(struct xsd_test *t, int *status)
{
	pid_t r = waitpid(t->pid, status, WNOHANG);

	if (r == t->pid) {
		t->pid = 0;
		return 0;
	}
	return 1;
}

/* pre_exec hook: the daemon starts with RLIMIT_NOFILE @xsd_abuse_nofile
 * (soft and hard), as under a unit with LimitNOFILE= of that value. */
static rlim_t xsd_abuse_nofile = 1024;

static inline void xsd_abuse_limit_nofile(struct xsd_test *t)
{
	struct rlimit rl = { xsd_abuse_nofile, xsd_abuse_nofile };

	(void)t;
	setrlimit(RLIMIT_NOFILE, &rl);
}

/* A connection from an attacker: nonblocking from the start, so that a
 * full backlog or a daemon that stopped reading never blocks it. -errno
 * on failure (-EAGAIN: the backlog is full). */
static inline int xsd_abuse_connect(const struct xsd_test *t)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return -errno;
	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/" XS_ABI_SOCKET_FILE, t->rt) >=
	    (int)sizeof(sa.sun_path)) {
		close(fd);
		return -ENAMETOOLONG;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Send one request without waiting for its reply. */
static inline int xsd_abuse_send(int fd, uint16_t type, const uint32_t *tids, uint32_t count)
{
	struct xs_abi_request q;

	xsd_test_request(&q, type, tids, count);
	return send(fd, &q, sizeof(q), MSG_NOSIGNAL | MSG_DONTWAIT) == sizeof(q) ? 0 : -errno;
}

#endif /* XSCHED_XSCHEDD_ABUSE_H */
