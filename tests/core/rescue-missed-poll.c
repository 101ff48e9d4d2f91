// SPDX-License-Identifier: MIT
/*
 * The missed-poll detector (rescue.h, no daemon): a victim process on CPU 1
 * advances a counter in shared memory as a worker bumps its round at its
 * scheduling points. A watch armed on the counter reports the victim as
 * having missed its polls once the counter stood still for the threshold -
 * while the victim is stopped by SIGSTOP, and while a SCHED_FIFO hog holds
 * its CPU - and stops reporting (disarms) once the counter moves again.
 * Outcomes are counted; the waits are bounded, never measured.
 */
#include <sys/mman.h>

#include "kselftest_harness.h"
#include "core/rescue.h"
#include "stranded-victim.h"

#define THRESHOLD_NS 2000000ull	/* 2 ms */
#define MAX_WAIT_MS 5000

static pid_t victim_start(uint64_t *counter)
{
	pid_t parent = getpid(), pid = fork();

	if (pid)
		return pid;
	sv_child_init(parent);
	sv_pin(VICTIM_CPU);
	for (;;)
		/* Relaxed: a counter the test only compares with itself. */
		__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

static uint64_t load(uint64_t *counter)
{
	/* Relaxed: see victim_start(). */
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* Wait (bounded) until the counter moves; returns whether it did. */
static bool await_moving(uint64_t *counter)
{
	uint64_t v = load(counter);

	for (int i = 0; i < MAX_WAIT_MS; i++) {
		sv_sleep_ms(1);
		if (load(counter) != v)
			return true;
	}
	return false;
}

/*
 * Arm the watch at the counter's value, poll it every millisecond, and
 * count the polls at which it reports a miss, up to @want of them or
 * MAX_WAIT_MS polls.
 */
static int count_misses(struct xs_rescue_watch *w, uint64_t *counter, int want)
{
	int missed = 0;

	for (int i = 0; i < MAX_WAIT_MS && missed < want; i++) {
		uint64_t v = load(counter), now = sv_now_ns();

		xs_rescue_watch_arm(w, 1, v, now);
		missed += xs_rescue_watch_missed(w, v, now, THRESHOLD_NS);
		sv_sleep_ms(1);
	}
	return missed;
}

struct victim {
	uint64_t *counter;
	pid_t pid;
};

/* The victim spinning on CPU 1, this test on CPU 0; ASSERTs each step. */
#define VICTIM_START(v)                                                             \
	do {                                                                        \
		const char *why_ = sv_no_cpus_why();                                \
		if (why_)                                                           \
			SKIP(return, "%s", why_);                                   \
		ASSERT_EQ(0, sv_pin(0));                                            \
		(v)->counter = mmap(NULL, sizeof(*(v)->counter), PROT_READ | PROT_WRITE, \
				    MAP_SHARED | MAP_ANONYMOUS, -1, 0);             \
		ASSERT_NE(MAP_FAILED, (v)->counter);                                \
		(v)->pid = victim_start((v)->counter);                              \
		ASSERT_LT(0, (v)->pid);                                             \
		ASSERT_TRUE(await_moving((v)->counter));                            \
	} while (0)

static void victim_stop(struct victim *v)
{
	sv_kill(v->pid);
	munmap(v->counter, sizeof(*v->counter));
}

TEST(stopped_victim_misses_its_polls)
{
	struct xs_rescue_watch w = { 0 };
	struct victim vi, *self = &vi;
	uint64_t v;

	VICTIM_START(&vi);
	ASSERT_EQ(0, kill(self->pid, SIGSTOP));
	EXPECT_LT(0, count_misses(&w, self->counter, 3));
	/* while it is stopped, the watch keeps reporting */
	v = load(self->counter);
	EXPECT_TRUE(xs_rescue_watch_missed(&w, v, sv_now_ns(), THRESHOLD_NS));

	ASSERT_EQ(0, kill(self->pid, SIGCONT));
	ASSERT_TRUE(await_moving(self->counter));
	EXPECT_FALSE(xs_rescue_watch_missed(&w, load(self->counter), sv_now_ns(),
					    THRESHOLD_NS));
	/* the counter moved: the watch is disarmed and stays quiet */
	EXPECT_EQ(0, w.armed_ns);
	EXPECT_FALSE(xs_rescue_watch_missed(&w, v, sv_now_ns(), THRESHOLD_NS));
	victim_stop(&vi);
}

TEST(hogged_victim_misses_its_polls)
{
	struct xs_rescue_watch w = { 0 };
	struct victim vi, *self = &vi;
	pid_t hog;

	VICTIM_START(&vi);
	hog = sv_fifo_hog();
	if (hog == -EPERM) {
		victim_stop(&vi);
		SKIP(return, "no SCHED_FIFO here (needs CAP_SYS_NICE)");
	}
	ASSERT_LT(0, hog);
	EXPECT_LT(0, count_misses(&w, self->counter, 3));
	sv_kill(hog);

	ASSERT_TRUE(await_moving(self->counter));
	EXPECT_FALSE(xs_rescue_watch_missed(&w, load(self->counter), sv_now_ns(),
					    THRESHOLD_NS));
	EXPECT_EQ(0, w.armed_ns);
	victim_stop(&vi);
}

/* Before the threshold nothing is missed, and a rearm at the same value
 * keeps the first arming time (the time counts from the first request). */
TEST(watch_counts_from_the_first_arming)
{
	struct xs_rescue_watch w = { 0 };

	EXPECT_FALSE(xs_rescue_watch_missed(&w, 7, 100, 1));	/* not armed */
	xs_rescue_watch_arm(&w, 3, 7, 1000);
	EXPECT_FALSE(xs_rescue_watch_missed(&w, 7, 1000 + THRESHOLD_NS - 1, THRESHOLD_NS));
	xs_rescue_watch_arm(&w, 3, 7, 1000 + THRESHOLD_NS - 1);
	EXPECT_TRUE(xs_rescue_watch_missed(&w, 7, 1000 + THRESHOLD_NS, THRESHOLD_NS));
	/* another victim, or another value: armed anew */
	xs_rescue_watch_arm(&w, 4, 7, 5000);
	EXPECT_FALSE(xs_rescue_watch_missed(&w, 7, 5000 + THRESHOLD_NS - 1, THRESHOLD_NS));
}

TEST_HARNESS_MAIN
