// SPDX-License-Identifier: MIT
/*
 * Issue 31, item 7: identity by pid. A process of a scratch user connects,
 * forks a child that inherits the connection, and exits; its pid is then
 * reused by a root process (clone3() with set_tid). The child, on the
 * inherited connection, asks to register the root process's main thread
 * (tid == the reused pid): the daemon must refuse, since the process that
 * connected is gone, and no slot may name the root process.
 */
#include <linux/sched.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "xschedd-abuse.h"

static struct xsd_test t;
static int go[2], said[2], fdpass[2];

/* The child left on the inherited connection: waits for "go" and the tid,
 * registers it, reports the status. */
static void heir(int fd)
{
	struct xs_abi_reply r;
	uint32_t tid;
	int32_t st;

	alarm(30);
	if (read(go[0], &tid, sizeof(tid)) != sizeof(tid))
		_exit(1);
	st = xsd_test_call(fd, XS_ABI_REGISTER, &tid, 1, &r, NULL);
	if (write(said[1], &st, sizeof(st)) != sizeof(st))
		_exit(1);
	pause();
	_exit(0);
}

static int original(void *arg)
{
	int fd = xsd_test_connect(&t);
	pid_t me = getpid(), child;

	(void)arg;
	if (fd < 0)
		return 2;
	child = fork();
	if (child < 0)
		return 3;
	if (!child)
		heir(fd);
	/* tell the test who the heir is, then exit: our pid is free */
	if (write(fdpass[1], &me, sizeof(me)) != sizeof(me) ||
	    write(fdpass[1], &child, sizeof(child)) != sizeof(child))
		return 4;
	return 0;
}

/* fork() into pid @pid (clone3 with set_tid); -errno if it cannot. */
static pid_t fork_as(pid_t pid)
{
	pid_t set_tid[1] = { pid };
	struct clone_args args = { .exit_signal = SIGCHLD,
				   .set_tid = (uint64_t)(uintptr_t)set_tid,
				   .set_tid_size = 1 };
	long r = syscall(SYS_clone3, &args, sizeof(args));

	return r < 0 ? -errno : (pid_t)r;
}

TEST(reused_pid_not_registered)
{
	const char *why = xsd_abuse_no_run_why();
	struct scratch_user u = { 0 };
	pid_t orig, old_pid, heir_pid, victim;
	int status;
	int32_t st = 0;
	uint32_t tid;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, xsd_abuse_user_create(&u, "pidreuse"));
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(said, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(fdpass, O_CLOEXEC));
	ASSERT_EQ(0, xsd_test_start(&t, "--tick-ms", "10"));
	orig = xsd_abuse_spawn(&u, 30, original, NULL);
	ASSERT_LT(0, orig);
	ASSERT_EQ((ssize_t)sizeof(old_pid), read(fdpass[0], &old_pid, sizeof(old_pid)));
	ASSERT_EQ((ssize_t)sizeof(heir_pid), read(fdpass[0], &heir_pid, sizeof(heir_pid)));
	ASSERT_EQ(orig, waitpid(orig, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));

	victim = fork_as(old_pid);
	if (victim == -EPERM || victim == -ENOSYS || victim == -EEXIST) {
		kill(heir_pid, SIGKILL);
		xsd_test_stop(&t);
		xsd_abuse_user_remove(&u);
		SKIP(return, "cannot reuse pid %d (clone3 set_tid: %s)", old_pid,
		     strerror(-victim));
	}
	if (!victim) { /* root's process, now under the old pid */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(30);
		pause();
		_exit(0);
	}
	ASSERT_LT(0, victim);
	ASSERT_EQ(old_pid, victim);
	tid = (uint32_t)victim;
	ASSERT_EQ((ssize_t)sizeof(tid), write(go[1], &tid, sizeof(tid)));
	ASSERT_EQ((ssize_t)sizeof(st), read(said[0], &st, sizeof(st)));
	xsd_say("# heir registering root's tid %u under the reused pid: %s\n", tid,
	       st ? strerror(-st) : "accepted");
	EXPECT_NE(0, st);

	kill(heir_pid, SIGKILL);
	xsd_abuse_kill(victim);
	EXPECT_EQ(0, xsd_test_stop(&t));
	xsd_abuse_user_remove(&u);
}

TEST_HARNESS_MAIN
