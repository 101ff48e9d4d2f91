// SPDX-License-Identifier: MIT
/*
 * A registered worker spinning on CPU 1: within a few ticks CPU 1's time
 * is counted as worker time (worker_permille high, foreign low), and once
 * it is unregistered and keeps spinning, as foreign time again.
 */
#include <pthread.h>
#include <stddef.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

static _Atomic uint32_t worker_tid;
static _Atomic int spin = 1;

static void *worker(void *arg)
{
	(void)arg;
	xsd_test_pin(1);
	worker_tid = xsd_test_gettid();
	while (spin)
		;
	return NULL;
}

/* Wait up to 2 s for the watched CPU's @field (permille) to pass 800. */
static uint32_t wait_share(struct xsd_test_watch *w, size_t field)
{
	uint32_t v = 0;

	for (int tick = 0; tick < 200 && v <= 800; tick++) {
		xsd_test_sleep_ms(10);
		if (xsd_test_snapshot(&w->c, w->snap))
			continue;
		memcpy(&v, (const char *)xsd_test_cpu_at(w->snap, w->cpu) + field, sizeof(v));
	}
	return v;
}

TEST(spinning_worker_time_is_worker_time)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test_watch w;
	struct xs_abi_reply r;
	pthread_t th;
	uint32_t tid, v;

	if (!why)
		why = xsd_test_no_cpu_why(1);
	if (why)
		SKIP(return, "%s", why);
	xsd_test_watch_load(_metadata, &w, 1);
	ASSERT_EQ(0, pthread_create(&th, NULL, worker, NULL));
	tid = xsd_test_await_tid(&worker_tid);
	ASSERT_EQ(0, xsd_test_call(w.c.fd, XS_ABI_REGISTER, &tid, 1, &r, NULL));

	v = wait_share(&w, offsetof(struct xs_abi_cpu, worker_permille));
	printf("# CPU 1 worker share %u permille while registered\n", v);
	EXPECT_LT(800u, v) xsd_test_dump_log(&w.t);

	ASSERT_EQ(0, xsd_test_call(w.c.fd, XS_ABI_UNREGISTER, &tid, 1, &r, NULL));
	v = wait_share(&w, offsetof(struct xs_abi_cpu, foreign_permille));
	printf("# CPU 1 foreign share %u permille once unregistered\n", v);
	EXPECT_LT(800u, v);

	spin = 0;
	pthread_join(th, NULL);
	xsd_test_watch_close(_metadata, &w);
}

TEST_HARNESS_MAIN
