// SPDX-License-Identifier: MIT
/*
 * The B-queue under a real producer/consumer pair: every item arrives once
 * and in order, and a full queue refuses pushes instead of overwriting.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include "spsc.h"
#include "xs_test.h"

#define NITEMS 2000000u
#define QSIZE 64u

static struct xs_spsc *q;

/*
 * A full or empty queue waits for the other thread: yield the CPU to it.
 * With xs_cpu_relax() alone, on a loaded 2-CPU machine (and under TSan)
 * each thread spent its time slice spinning while the other was not
 * running, and 2*10^6 items took more than the harness's 30 s.
 */
static void wait_for_other(void)
{
	xs_cpu_relax();
	sched_yield();
}

/* Items are fake, non-NULL pointers carrying a sequence number. */
static void *producer(void *arg)
{
	(void)arg;
	for (uintptr_t i = 1; i <= NITEMS;) {
		if (!xs_spsc_reserve(q)) {
			wait_for_other();
			continue;
		}
		xs_spsc_push(q, (struct xs_task *)i);
		i++;
	}
	return NULL;
}

TEST(items_arrive_once_in_order)
{
	pthread_t th;
	uintptr_t expect = 1;

	q = aligned_alloc(64, xs_spsc_bytes(QSIZE));
	ASSERT_NE(NULL, q);
	xs_spsc_init(q, QSIZE);
	ASSERT_EQ(0, pthread_create(&th, NULL, producer, NULL));
	while (expect <= NITEMS) {
		struct xs_task *t = xs_spsc_pop(q);

		if (!t) {
			wait_for_other();
			continue;
		}
		ASSERT_EQ(expect, (uintptr_t)t);
		expect++;
	}
	pthread_join(th, NULL);
	EXPECT_EQ(NULL, xs_spsc_pop(q));
	free(q);
}

TEST(full_queue_refuses)
{
	uintptr_t pushed = 0;

	q = aligned_alloc(64, xs_spsc_bytes(QSIZE));
	ASSERT_NE(NULL, q);
	xs_spsc_init(q, QSIZE);
	while (xs_spsc_reserve(q))
		xs_spsc_push(q, (struct xs_task *)++pushed);
	/* Full means fewer than one batch of slots is free. */
	EXPECT_GE(pushed, QSIZE - q->batch);
	EXPECT_LE(pushed, QSIZE);
	for (uintptr_t i = 1; i <= pushed; i++)
		ASSERT_EQ(i, (uintptr_t)xs_spsc_pop(q));
	EXPECT_EQ(NULL, xs_spsc_pop(q));
	free(q);
}

TEST(owner_pops_newest_first)
{
	q = aligned_alloc(64, xs_spsc_bytes(QSIZE));
	ASSERT_NE(NULL, q);
	xs_spsc_init(q, QSIZE);
	for (uintptr_t i = 1; i <= 5; i++) {
		ASSERT_TRUE(xs_spsc_reserve(q));
		xs_spsc_push(q, (struct xs_task *)i);
	}
	ASSERT_EQ(1, (uintptr_t)xs_spsc_pop(q));      /* oldest from the tail */
	ASSERT_EQ(5, (uintptr_t)xs_spsc_pop_newest(q)); /* newest from the head */
	ASSERT_EQ(4, (uintptr_t)xs_spsc_pop_newest(q));
	ASSERT_TRUE(xs_spsc_reserve(q));
	xs_spsc_push(q, (struct xs_task *)6);
	ASSERT_EQ(2, (uintptr_t)xs_spsc_pop(q));
	ASSERT_EQ(3, (uintptr_t)xs_spsc_pop(q));
	ASSERT_EQ(6, (uintptr_t)xs_spsc_pop(q));
	ASSERT_EQ(NULL, xs_spsc_pop(q));
	ASSERT_EQ(NULL, xs_spsc_pop_newest(q));
	free(q);
}

TEST_HARNESS_MAIN
