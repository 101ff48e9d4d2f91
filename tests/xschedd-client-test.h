/* SPDX-License-Identifier: MIT */
/*
 * xschedd-client-test.h - what the tests/daemon/xschedd-client-*.c programs share:
 * a checksummed workload with idle thieves, the library's view of its
 * daemon connection, and a daemon (re)started in a given runtime dir.
 */
#ifndef XSCHED_XSCHEDD_CLIENT_TEST_H
#define XSCHED_XSCHEDD_CLIENT_TEST_H

#include <stdlib.h>

#include "xsched.h"
#include "xschedd-test.h"
#include "fib-task.h"
#include "daemon/daemon_client.h"
#include "core/runtime.h"

/* Why these tests cannot run here, or NULL. */
static inline const char *xsc_test_skip_why(void)
{
	const char *why = xsd_test_no_bpf_why();

	if (why)
		return why;
	if (access(xsd_test_daemon_path(), X_OK))
		return "no xschedd built (make daemon: needs bpftool, clang, kernel BTF)";
	return NULL;
}

static inline long xsc_fib_serial(int n)
{
	long a = 0, b = 1;

	for (int i = 0; i < n; i++) {
		long c = a + b;

		a = b;
		b = c;
	}
	return a;
}

struct xsc_job {
	int n;
	long out;
};

static inline void xsc_fib_root(void *p)
{
	struct xsc_job *j = p;
	struct fib_arg a = { j->n, &j->out };

	fib_task(&a);
}

/* One job of fib(@n); returns 0 when every task was accounted for (the
 * result equals the serial one), -1 otherwise. */
static inline int xsc_run_fib(struct xs_runtime *rt, int n)
{
	struct xsc_job j = { n, -1 };

	if (xs_runtime_run(rt, xsc_fib_root, &j))
		return -1;
	return j.out == xsc_fib_serial(n) ? 0 : -1;
}

/* Point the library at @rt_dir with XSCHED_DAEMON=@mode; thieves ask at
 * every idle visit so that they poll the daemon state promptly. */
static inline void xsc_env(const char *rt_dir, const char *mode)
{
	setenv("XSCHED_RUNTIME_DIR", rt_dir, 1);
	setenv("XSCHED_DAEMON", mode, 1);
	setenv("XSCHED_DLB_TIMEOUT", "1", 1);
	setenv("XSCHED_BIND", "none", 1);
}

/* Slots of the worker-state array @ws (@n slots) held by thread @tid of
 * this process. */
static inline int xsc_slots_of(const struct xs_abi_worker *ws, uint32_t n, uint32_t tid)
{
	int found = 0;

	for (uint32_t s = 0; s < n; s++)
		if (__atomic_load_n(&ws[s].tid, __ATOMIC_RELAXED) == tid &&
		    __atomic_load_n(&ws[s].pid, __ATOMIC_RELAXED) == (uint32_t)getpid())
			found++;
	return found;
}

/*
 * Start the daemon (real BPF) into @t, point the library at it with
 * XSCHED_DAEMON=auto and create a runtime of @nworkers workers; returns
 * it. ASSERTs both in the calling TEST().
 */
static inline struct xs_runtime *xsc_start(struct __test_metadata *_metadata,
					   struct xsd_test *t, int nworkers)
{
	struct xs_runtime *rt;

	ASSERT_EQ(0, xsd_test_start(t));
	xsc_env(t->rt, "auto");
	rt = xs_runtime_create(nworkers);
	ASSERT_NE(NULL, rt);
	return rt;
}

/* EXPECT that each of the @nworkers workers of @rt holds exactly one slot
 * of the daemon's worker-state array, as the client @peek maps it. */
static inline void xsc_expect_registered(struct __test_metadata *_metadata,
					 const struct xsd_test_client *peek,
					 const struct xs_runtime *rt, uint32_t nworkers)
{
	/* braces: EXPECT_* are more than one statement */
	for (uint32_t w = 0; w < nworkers; w++) {
		EXPECT_EQ(1, xsc_slots_of(peek->workers, peek->state->nslots, rt->daemon->tids[w]))
			TH_LOG("worker %u (tid %u) does not hold one slot", w,
			       rt->daemon->tids[w]);
	}
}

/* Run jobs of fib(@n) until @cond(info) holds or @ms pass; every job must
 * check out. Returns 1 (cond met), 0 (timed out), -1 (a job lost tasks). */
static inline int xsc_run_until(struct xs_runtime *rt, int n, unsigned int ms,
				int (*cond)(const struct xs_daemon_info *))
{
	uint64_t end = xsd_test_now_ns() + (uint64_t)ms * 1000000u;
	struct xs_daemon_info info;

	do {
		if (xsc_run_fib(rt, n))
			return -1;
		xs_daemon_info(rt, &info);
		if (cond(&info))
			return 1;
		xsd_test_sleep_ms(2);
	} while (xsd_test_now_ns() < end);
	return 0;
}

static inline int xsc_using_daemon(const struct xs_daemon_info *i)
{
	return i->using_daemon_table;
}

static inline int xsc_not_using_daemon(const struct xs_daemon_info *i)
{
	return !i->using_daemon_table;
}

/* Start the daemon with runtime dir @rt (kept: a restart reuses it), its
 * stderr appended to @log. Returns its pid or -errno. */
static inline pid_t xsc_daemon_start_in(const char *rt, const char *log)
{
	char sock[PATH_MAX + 16];
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (fd >= 0)
			dup2(fd, 2);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execl(xsd_test_daemon_path(), xsd_test_daemon_path(), "--foreground",
		      "--env-file", "/dev/null", "--runtime-dir", rt, (char *)NULL);
		_exit(127);
	}
	snprintf(sock, sizeof(sock), "%s/" XS_ABI_SOCKET_FILE, rt);
	for (int i = 0; i < 500; i++) {
		int status;
		struct stat st;

		/* a socket that answers: this instance's, not the dead one's */
		if (!stat(sock, &st) && waitpid(pid, &status, WNOHANG) == 0) {
			struct sockaddr_un sa = { .sun_family = AF_UNIX };
			int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

			if (strlen(sock) < sizeof(sa.sun_path))
				memcpy(sa.sun_path, sock, strlen(sock) + 1);
			if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
				close(fd);
				return pid;
			}
			if (fd >= 0)
				close(fd);
		}
		xsd_test_sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -ETIMEDOUT;
}

#endif /* XSCHED_XSCHEDD_CLIENT_TEST_H */
