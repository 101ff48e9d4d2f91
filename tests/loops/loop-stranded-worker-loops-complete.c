// SPDX-License-Identifier: MIT
/*
 * Parallel loops finish while a worker cannot run: xs_parallel_for() is
 * an elastic loop (libxsched/loops/loop.c), which waits only for the workers
 * inside it, never for one that has not come. Worker 1 is stranded two
 * ways: stopped (a tracer process seizes and interrupts that one thread:
 * SIGSTOP would stop the whole process), and preempted by a SCHED_FIFO
 * hog pinned to its CPU. Meanwhile the caller runs LOOPS static loops,
 * each reading the buffer the previous one wrote (a loop that started
 * before the previous one ended reads a half-written buffer); asserted:
 * every loop returned 0, the final checksum equals the serial one, and
 * (stopped) the loops ended while worker 1 was still stopped. Before
 * elastic loops the first loop waited at the team barrier for the
 * stopped worker until the tracer gave up (30 s).
 */
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include "xsched.h"
#include "xs_test.h"
#include "xs_test_threads.h"
#include "stranded-victim.h"

#define LOOPS 2000
#define WIDTH 1024

static uint32_t buf[2][WIDTH];

struct step {
	long k;
};

static void ring_body(long k, long lo, long hi)
{
	const uint32_t *in = buf[k & 1];
	uint32_t *out = buf[(k + 1) & 1];

	for (long i = lo; i < hi; i++)
		out[i] = in[i] * 2654435761u + (in[(i + 1) % WIDTH] >> 7) + (uint32_t)k;
}

static void chunk(void *arg, int64_t first, uint64_t count)
{
	const struct step *s = arg;

	ring_body(s->k, (long)first, (long)first + (long)count);
}

static void ring_reset(void)
{
	for (long i = 0; i < WIDTH; i++) {
		buf[0][i] = (uint32_t)(i * 0x9e3779b9u + 1);
		buf[1][i] = 0xdeadbeef;
	}
}

static uint64_t ring_digest(void)
{
	uint64_t h = 1469598103934665603ull;

	for (long i = 0; i < WIDTH; i++)
		h = (h ^ buf[LOOPS & 1][i]) * 1099511628211ull;
	return h;
}

static uint64_t serial_digest(void)
{
	ring_reset();
	for (long k = 0; k < LOOPS; k++)
		ring_body(k, 0, WIDTH);
	return ring_digest();
}

/*
 * A tracer process that stops thread @tid of ours (PTRACE_SEIZE, then
 * PTRACE_INTERRUPT) and holds it until a byte arrives on *@go (or it dies
 * with us). Returns its pid once @tid is stopped, -errno when it could not
 * stop it (no ptrace here).
 */
static pid_t stop_thread(pid_t tid, int *go)
{
	pid_t parent = getpid(), pid;
	int ready[2], hold[2];
	char c = 0;

	if (pipe(ready))
		return -errno;
	if (pipe(hold)) {
		close(ready[0]);
		close(ready[1]);
		return -errno;
	}
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		int st;

		sv_child_init(parent);
		close(ready[0]);
		close(hold[1]);
		if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) || ptrace(PTRACE_INTERRUPT, tid, NULL, NULL))
			_exit(1);
		if (waitpid(tid, &st, __WALL) != tid || !WIFSTOPPED(st))
			_exit(1);
		if (write(ready[1], "s", 1) != 1)
			_exit(1);
		if (read(hold[0], &c, 1) < 0)
			_exit(1);
		ptrace(PTRACE_DETACH, tid, NULL, NULL);
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(hold[1]);
		waitpid(pid, NULL, 0);
		return -EPERM;
	}
	close(ready[0]);
	*go = hold[1];
	return pid;
}

static int run_loops(struct xs_runtime *rt)
{
	static const struct xs_loop_sched sched = { .kind = XS_LOOP_STATIC };

	ring_reset();
	for (long k = 0; k < LOOPS; k++) {
		struct step s = { k };
		int rc = xs_parallel_for(rt, 0, WIDTH, 1, &sched, chunk, &s);

		if (rc)
			return rc;
	}
	return 0;
}

FIXTURE(stranded) {
	struct xs_runtime *rt;
	uint64_t want;
};

FIXTURE_SETUP(stranded)
{
	const char *why = sv_no_cpus_why();

	if (why)
		SKIP(return, "%s", why);
	setenv("XSCHED_DAEMON", "off", 1);
	self->want = serial_digest();
	/* The caller (worker 0) on CPU 0; worker 1 is placed on CPU 1. */
	ASSERT_EQ(0, sv_pin(0));
	self->rt = xs_runtime_create(2);
	ASSERT_NE(NULL, self->rt);
}

FIXTURE_TEARDOWN(stranded)
{
	if (self->rt)
		xs_runtime_destroy(self->rt);
}

TEST_F_TIMEOUT(stranded, stopped_worker, 60)
{
	pid_t tid, tracer;
	int go = -1;

	xs_test_threads_named("xsched-w1", &tid);
	ASSERT_LT(0, tid);
	tracer = stop_thread(tid, &go);
	if (tracer < 0)
		SKIP(return, "cannot stop one thread with ptrace here (%s)", strerror(-tracer));
	EXPECT_EQ(0, run_loops(self->rt));
	/* Still stopped: the tracer (alarm at 30 s) has not let go. */
	EXPECT_EQ(0, waitpid(tracer, NULL, WNOHANG)) {
		TH_LOG("the loops ended only after the tracer let worker 1 go");
	}
	signal(SIGPIPE, SIG_IGN);
	EXPECT_EQ(1, write(go, "g", 1));
	close(go);
	waitpid(tracer, NULL, 0);
	EXPECT_EQ(self->want, ring_digest());
}

TEST_F_TIMEOUT(stranded, hogged_worker, 60)
{
	pid_t hog = sv_fifo_hog();

	if (hog < 0)
		SKIP(return, "no SCHED_FIFO hog here (%s)", strerror(-hog));
	EXPECT_EQ(0, run_loops(self->rt));
	sv_kill(hog);
	EXPECT_EQ(self->want, ring_digest());
}

TEST_HARNESS_MAIN
