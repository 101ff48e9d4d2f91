// SPDX-License-Identifier: MIT
/*
 * A daemon's state file that shrinks under its readers (issue 31, item
 * 6). A scratch unprivileged user (created and removed here) runs a fake
 * xschedd (tests/xschedd-fake.h) in a runtime directory of its own, the
 * kind of daemon a victim's program can be pointed at, and truncates its
 * state file (and its worker-state file) to nothing and grows them back,
 * over and over. Root's readers of that state must not die of SIGBUS:
 *
 *   the share reader (xs_daemon_share(), what the drop-in asks at every
 *   OMP_DYNAMIC region): answers every call, from the daemon when the
 *   file was whole, from the load average with a message naming the file
 *   when it was not;
 *   a runtime connected with XSCHED_DAEMON=auto, whose idle thieves poll
 *   the state: every job checks out.
 */
#include <sys/wait.h>

#include "capture-stderr.h"
#include "scratch-user.h"
#include "xschedd-fake.h"

#define ATTACK_MS 2000

struct attacker {
	pid_t pid;
	char dir[64];
	struct scratch_user u;
};

/* As @u: a fake daemon, then its files truncated and restored until
 * killed. Sends the runtime directory's name on @out once it serves. */
static void attack(const struct scratch_user *u, int out)
{
	struct xs_abi_header *layout;
	struct fake f;

	/* The parent-death signal does not survive the change of user. */
	if (scratch_user_become(u) || prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1 ||
	    fake_start(&f))
		_exit(10);
	/* The ticker writes through a mapping that would fault once the
	 * file is gone: this loop publishes instead, with pwrite(), the
	 * whole file as the fake laid it out. */
	atomic_store(&f.ticking, 0);
	xsd_test_sleep_ms(10);
	layout = malloc(f.size);
	if (!layout)
		_exit(10);
	memcpy(layout, f.h, f.size);
	if (write(out, f.dir, sizeof(f.dir)) != (ssize_t)sizeof(f.dir)) {
		fake_stop(&f);
		_exit(11);
	}
	for (unsigned long i = 0;; i++) {
		/* Whole for a while (the readers connect and read)... */
		layout->heartbeat_ns = xsd_test_now_ns();
		layout->generation = i + 2;
		layout->seq = 2 * i;
		if (pwrite(f.state_fd, layout, f.size, 0) != (ssize_t)f.size)
			_exit(12);
		usleep(300);
		/* ...then gone, and back zeroed (rewritten above). */
		if (ftruncate(f.state_fd, 0) || ftruncate(f.workers_fd, 0))
			_exit(13);
		usleep(50);
		if (ftruncate(f.state_fd, (off_t)f.size) || ftruncate(f.workers_fd, 4096))
			_exit(13);
	}
}

/* Start the attacker; NULL, or why not (for SKIP()). */
static const char *attacker_start(struct attacker *a)
{
	static char why[128];
	const char *w = scratch_user_add(&a->u);
	int p[2];

	if (w)
		return w;
	if (pipe(p))
		return "pipe";
	a->pid = fork();
	if (a->pid < 0)
		return "fork";
	if (!a->pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p[0]);
		attack(&a->u, p[1]);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], a->dir, sizeof(a->dir)) != (ssize_t)sizeof(a->dir)) {
		int st = 0;

		waitpid(a->pid, &st, 0);
		snprintf(why, sizeof(why), "the attacker could not start its daemon (exit %d)",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		close(p[0]);
		return why;
	}
	close(p[0]);
	return NULL;
}

static void attacker_stop(struct attacker *a)
{
	char cmd[128];

	if (a->pid > 0) {
		kill(a->pid, SIGKILL);
		waitpid(a->pid, NULL, 0);
	}
	if (a->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", a->dir);
		if (system(cmd))
			fprintf(stderr, "'%s' failed\n", cmd);
	}
	scratch_user_del(&a->u);
}

TEST(share_reader_survives_truncation)
{
	uint64_t calls = 0, from_daemon = 0, corrupt = 0, end;
	static char err[1 << 16];
	struct attacker a = { 0 };
	struct capture cap;
	const char *why;

	why = attacker_start(&a);
	if (why) {
		attacker_stop(&a);
		SKIP(return, "%s", why);
	}
	xsc_env(a.dir, "auto");
	xs_daemon_share_reset();
	ASSERT_EQ(0, capture_begin(&cap));
	end = xsd_test_now_ns() + ATTACK_MS * 1000000ull;
	while (xsd_test_now_ns() < end) {
		struct xs_cpu_share s;
		uint32_t n = xs_daemon_share(&s);

		calls++;
		if (n < 1 || n != s.cpus)
			break;
		if (s.source != XS_SHARE_LOADAVG)
			from_daemon++;
		else if (s.err == -EBADMSG)
			corrupt++;
	}
	capture_end(&cap, err, sizeof(err));
	xs_daemon_share_reset();
	attacker_stop(&a);
	TH_LOG("%llu calls: %llu answered from the daemon, %llu found the state corrupt",
	       (unsigned long long)calls, (unsigned long long)from_daemon,
	       (unsigned long long)corrupt);
	EXPECT_LT(0, from_daemon) TH_LOG("the attacker's daemon was never read: no attack");
	EXPECT_LT(0, corrupt) TH_LOG("never saw the state truncated: no attack");
	if (corrupt) {
		EXPECT_NE(NULL, strstr(err, a.dir)) TH_LOG("stderr: %.2000s", err);
	}
}

TEST(runtime_client_survives_truncation)
{
	struct xs_daemon_info info;
	struct attacker a = { 0 };
	struct xs_runtime *rt;
	uint64_t end;
	const char *why;
	int jobs = 0, bad = 0;

	why = attacker_start(&a);
	if (why) {
		attacker_stop(&a);
		SKIP(return, "%s", why);
	}
	xsc_env(a.dir, "auto");
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	end = xsd_test_now_ns() + ATTACK_MS * 1000000ull;
	while (xsd_test_now_ns() < end) {
		bad += xsc_run_fib(rt, 18) != 0;
		jobs++;
	}
	ASSERT_EQ(0, xs_daemon_info(rt, &info));
	xs_runtime_destroy(rt);
	attacker_stop(&a);
	TH_LOG("%d jobs, %llu connections, %llu polls, %llu rejected (last: %s)", jobs,
	       (unsigned long long)info.connects, (unsigned long long)info.polls,
	       (unsigned long long)info.rejected, strerror(-info.last_reject));
	EXPECT_EQ(0, bad);
	EXPECT_LT(0, info.connects) TH_LOG("never connected to the attacker's daemon: no attack");
	EXPECT_LT(0, info.polls);
}

TEST_HARNESS_MAIN
