// SPDX-License-Identifier: MIT
/*
 * The B-queue under a real producer/consumer pair: every item arrives once
 * and in order, and a full queue refuses pushes instead of overwriting.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include "queue/spsc.h"
#include "xs_test.h"
#include "test-scale.h"

/* Fewer under sanitizers (test-scale.h): same queue, same races. 400k
 * items wrap the 64-slot ring 6250 times; with both threads on one CPU of
 * a loaded machine every wrap can cost a yield to other programs, and 2M
 * items ran past the harness's 30 s there. */
#define NITEMS (400000u / test_scale())
#define QSIZE 64u

static struct xs_spsc *q;

/* A side that finds the queue full or empty waits for the other; on a
 * busy machine the other may not be running: give the CPU up now and
 * then rather than spin through whole time slices. */
static void wait_a_little(unsigned int *spins)
{
	if (++*spins % 64)
		xs_cpu_relax();
	else
		sched_yield();
}

/* Items are fake, non-NULL pointers carrying a sequence number. */
static void *producer(void *arg)
{
	unsigned int spins = 0;

	(void)arg;
	for (uintptr_t i = 1; i <= NITEMS;) {
		if (!xs_spsc_reserve(q)) {
			wait_a_little(&spins);
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
	unsigned int spins = 0;

	q = aligned_alloc(64, xs_spsc_bytes(QSIZE));
	ASSERT_NE(NULL, q);
	xs_spsc_init(q, QSIZE);
	ASSERT_EQ(0, pthread_create(&th, NULL, producer, NULL));
	while (expect <= NITEMS) {
		struct xs_task *t = xs_spsc_pop(q);

		if (!t) {
			wait_a_little(&spins);
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
