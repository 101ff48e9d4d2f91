// SPDX-License-Identifier: MIT
/*
 * xschedd's worker state tells a stranded worker from a parked one
 * (rescue.h): a registered victim process spinning on CPU 1 reads STOPPED
 * after SIGSTOP and PREEMPTED while a SCHED_FIFO hog holds its CPU, and
 * xs_rescue_worker_stranded() says so once the threshold has passed (and
 * not with a threshold of an hour); after SIGCONT, or once the hog is
 * gone, it runs again and is not stranded. A victim asleep in read() is
 * BLOCKED and never stranded. The test reads from CPU 0. Outcomes are
 * counted; the waits are bounded, never measured.
 */
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "core/rescue.h"
#include "stranded-victim.h"
#include "xschedd-test.h"

#define THRESHOLD_NS 2000000ull		/* 2 ms */
#define HOUR_NS 3600000000000ull
#define POLLS 3000			/* of 1 ms, at most */

struct victim {
	pid_t pid;
	uint32_t tid, slot;
	int wake;			/* write end: a sleeping victim spins */
};

/*
 * Fork the victim: pinned to CPU 1, it registers its own thread with the
 * daemon (its own connection: the daemon checks SO_PEERCRED), reports tid
 * and slot on a pipe, then (if @sleep) blocks in read() until woken, and
 * spins.
 */
static int victim_start(const struct xsd_test *t, struct victim *v, bool sleep)
{
	int rep[2], wake[2];
	pid_t parent = getpid();
	uint32_t msg[2];

	if (pipe(rep) || pipe(wake))
		return -errno;
	v->pid = fork();
	if (v->pid < 0)
		return -errno;
	if (!v->pid) {
		struct xs_abi_reply r;
		int fd;
		char b;

		sv_child_init(parent);
		close(rep[0]);
		close(wake[1]);
		sv_pin(VICTIM_CPU);
		fd = xsd_test_connect(t);
		msg[0] = xsd_test_gettid();
		if (fd < 0 || xsd_test_call(fd, XS_ABI_REGISTER, msg, 1, &r, NULL))
			_exit(1);
		msg[1] = r.slots[0];
		if (write(rep[1], msg, sizeof(msg)) != sizeof(msg))
			_exit(1);
		if (sleep && read(wake[0], &b, 1) != 1)
			_exit(1);
		for (volatile uint64_t x = 0;; x++)
			;
	}
	close(rep[1]);
	close(wake[0]);
	v->wake = wake[1];
	if (read(rep[0], msg, sizeof(msg)) != sizeof(msg)) {
		close(rep[0]);
		return -EIO;
	}
	close(rep[0]);
	v->tid = msg[0];
	v->slot = msg[1];
	return 0;
}

static void victim_stop(struct victim *v)
{
	sv_kill(v->pid);
	close(v->wake);
}

/* Polls (1 ms apart, POLLS at most, until @want) at which the victim's
 * slot is in @state and stranded past THRESHOLD_NS. */
static int count_stranded(const struct xs_abi_worker *w, uint32_t tid, uint32_t state, int want)
{
	int n = 0;

	for (int i = 0; i < POLLS && n < want; i++) {
		/* relaxed: one word the BPF programs rewrite at each switch */
		n += __atomic_load_n(&w->state, __ATOMIC_RELAXED) == state &&
		     xs_rescue_worker_stranded(w, tid, sv_now_ns(), THRESHOLD_NS);
		sv_sleep_ms(1);
	}
	return n;
}

/* The daemon (10 ms ticks) and a client mapping its worker state. */
#define DAEMON_START(wt)                                                    \
	do {                                                                \
		const char *why_ = xsd_test_no_bpf_why();                   \
		if (!why_)                                                  \
			why_ = sv_no_cpus_why();                            \
		if (why_)                                                   \
			SKIP(return, "%s", why_);                           \
		ASSERT_EQ(0, sv_pin(0));                                    \
		ASSERT_EQ(0, xsd_test_start(&(wt)->t, "--tick-ms", "10"));  \
		xsd_test_watch_open(_metadata, (wt), -1);                   \
	} while (0)

TEST(stopped_victim_is_stranded)
{
	struct xsd_test_watch wt;
	const struct xs_abi_worker *w;
	struct victim v;
	uint32_t st;

	DAEMON_START(&wt);
	ASSERT_EQ(0, victim_start(&wt.t, &v, false));
	ASSERT_GT(wt.c.state->nslots, v.slot);
	w = &wt.c.workers[v.slot];
	EXPECT_EQ(XS_ABI_WORKER_ON_CPU, xsd_test_await_state(w, XS_ABI_WORKER_ON_CPU, POLLS, 1));

	ASSERT_EQ(0, kill(v.pid, SIGSTOP));
	st = xsd_test_await_state(w, XS_ABI_WORKER_STOPPED, POLLS, 1);
	EXPECT_EQ(XS_ABI_WORKER_STOPPED, st);
	EXPECT_LT(0, count_stranded(w, v.tid, XS_ABI_WORKER_STOPPED, 3));
	EXPECT_FALSE(xs_rescue_worker_stranded(w, v.tid, sv_now_ns(), HOUR_NS));
	/* a slot read as another thread's is nobody's stranded worker */
	EXPECT_FALSE(xs_rescue_worker_stranded(w, v.tid + 1, sv_now_ns(), 0));

	ASSERT_EQ(0, kill(v.pid, SIGCONT));
	st = xsd_test_await_state(w, XS_ABI_WORKER_ON_CPU, POLLS, 1);
	EXPECT_EQ(XS_ABI_WORKER_ON_CPU, st);
	EXPECT_FALSE(xs_rescue_worker_stranded(w, v.tid, sv_now_ns(), 0));
	victim_stop(&v);
	xsd_test_watch_close(_metadata, &wt);
}

TEST(hogged_victim_is_preempted_and_stranded)
{
	struct xsd_test_watch wt;
	const struct xs_abi_worker *w;
	struct victim v;
	uint32_t st;
	pid_t hog;

	DAEMON_START(&wt);
	ASSERT_EQ(0, victim_start(&wt.t, &v, false));
	w = &wt.c.workers[v.slot];
	EXPECT_EQ(XS_ABI_WORKER_ON_CPU, xsd_test_await_state(w, XS_ABI_WORKER_ON_CPU, POLLS, 1));

	hog = sv_fifo_hog();
	if (hog == -EPERM) {
		victim_stop(&v);
		xsd_test_watch_close(_metadata, &wt);
		SKIP(return, "no SCHED_FIFO here (needs CAP_SYS_NICE)");
	}
	ASSERT_LT(0, hog);
	st = xsd_test_await_state(w, XS_ABI_WORKER_PREEMPTED, POLLS, 1);
	EXPECT_EQ(XS_ABI_WORKER_PREEMPTED, st);
	EXPECT_LT(0, count_stranded(w, v.tid, XS_ABI_WORKER_PREEMPTED, 3));
	sv_kill(hog);

	st = xsd_test_await_state(w, XS_ABI_WORKER_ON_CPU, POLLS, 1);
	EXPECT_EQ(XS_ABI_WORKER_ON_CPU, st);
	EXPECT_FALSE(xs_rescue_worker_stranded(w, v.tid, sv_now_ns(), 0));
	victim_stop(&v);
	xsd_test_watch_close(_metadata, &wt);
}

TEST(sleeping_victim_is_not_stranded)
{
	struct xsd_test_watch wt;
	const struct xs_abi_worker *w;
	struct victim v;
	uint32_t st;
	int stranded = 0;

	DAEMON_START(&wt);
	ASSERT_EQ(0, victim_start(&wt.t, &v, true));
	w = &wt.c.workers[v.slot];
	st = xsd_test_await_state(w, XS_ABI_WORKER_BLOCKED, POLLS, 1);
	EXPECT_EQ(XS_ABI_WORKER_BLOCKED, st);
	sv_sleep_ms(10);	/* past the threshold, still asleep */
	for (int i = 0; i < 10; i++)
		stranded += xs_rescue_worker_stranded(w, v.tid, sv_now_ns(), THRESHOLD_NS);
	EXPECT_EQ(0, stranded);
	victim_stop(&v);
	xsd_test_watch_close(_metadata, &wt);
}

TEST_HARNESS_MAIN
