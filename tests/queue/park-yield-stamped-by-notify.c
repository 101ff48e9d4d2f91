// SPDX-License-Identifier: MIT
/*
 * A yield's lateness (park.h, "Yielding"): a notification that comes
 * between the owner's open and close stamps the yield, close reports it
 * (non-zero) and clears it; a yield nobody notified, and a notification
 * outside any yield, report 0; a parker's notifier issues no futex wake
 * for a yielding owner (its state stays AWAKE). No scheduling is involved:
 * the notifier is another thread, joined before the close.
 */
#include <pthread.h>
#include "queue/park.h"
#include "xs_test.h"

static void *notify_once(void *arg)
{
	xs_park_notify(arg);
	return NULL;
}

/* 0, or the error of pthread_create/pthread_join. */
static int notify_from_thread(struct xs_parker *p)
{
	pthread_t t;
	int err = pthread_create(&t, NULL, notify_once, p);

	return err ? err : pthread_join(t, NULL);
}

static struct xs_parker parker;

TEST(notify_during_yield_is_reported)
{
	xs_park_global_init();
	xs_park_yield_open(&parker);
	ASSERT_EQ(0, notify_from_thread(&parker));
	ASSERT_EQ(0, notify_from_thread(&parker)); /* the first stamp stays */
	EXPECT_EQ(XS_PARK_AWAKE, atomic_load(&parker.state));
	EXPECT_LT(0, xs_park_yield_close(&parker));
	/* Closed: the next yield starts unstamped. */
	xs_park_yield_open(&parker);
	EXPECT_EQ(0, xs_park_yield_close(&parker));
}

TEST(yield_without_notify_reports_zero)
{
	xs_park_global_init();
	for (int i = 0; i < 100; i++) {
		xs_park_yield_open(&parker);
		EXPECT_EQ(0, xs_park_yield_close(&parker));
	}
}

TEST(notify_outside_yield_stamps_nothing)
{
	xs_park_global_init();
	ASSERT_EQ(0, notify_from_thread(&parker));
	EXPECT_EQ(0, atomic_load(&parker.yield_stamp));
	xs_park_yield_open(&parker);
	EXPECT_EQ(0, xs_park_yield_close(&parker));
}

TEST_HARNESS_MAIN
