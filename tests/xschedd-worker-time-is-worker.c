// SPDX-License-Identifier: MIT
/*
 * A registered worker spinning on CPU 1: within a few ticks CPU 1's time
 * is counted as worker time (worker_permille high, foreign low), and once
 * it is unregistered and keeps spinning, as foreign time again.
 */
#include <pthread.h>
#include <sched.h>
#include <stddef.h>

#include "kselftest_harness.h"
#include "xschedd-test.h"

static _Atomic uint32_t worker_tid;
static _Atomic int spin = 1;

static void *worker(void *arg)
{
	cpu_set_t set;

	(void)arg;
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	worker_tid = xsd_test_gettid();
	while (spin)
		;
	return NULL;
}

static int cpu_index(const struct xs_abi_header *h, uint32_t cpu)
{
	const struct xs_abi_cpu *cpus = xs_abi_at(h, h->cpu_off);

	for (uint32_t i = 0; i < h->ncpus; i++)
		if (cpus[i].cpu == cpu)
			return (int)i;
	return -1;
}

/* Wait up to 2 s for CPU index @i's @field (permille) to pass 800. */
static uint32_t wait_share(struct xsd_test_client *c, struct xs_abi_header *snap, int i,
			   size_t field)
{
	uint32_t v = 0;

	for (int tick = 0; tick < 200 && v <= 800; tick++) {
		const struct xs_abi_cpu *cpus;

		xsd_test_sleep_ms(10);
		if (xsd_test_snapshot(c, snap))
			continue;
		cpus = xs_abi_at(snap, snap->cpu_off);
		memcpy(&v, (const char *)&cpus[i] + field, sizeof(v));
	}
	return v;
}

TEST(spinning_worker_time_is_worker_time)
{
	const char *why = xsd_test_no_bpf_why();
	struct xsd_test t;
	struct xsd_test_client c;
	struct xs_abi_reply r;
	struct xs_abi_header *snap;
	pthread_t th;
	uint32_t tid, v;
	cpu_set_t set;
	int i1;

	if (why)
		SKIP(return, "%s", why);
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set) || !CPU_ISSET(1, &set))
		SKIP(return, "needs CPU 1 in the affinity mask");
	ASSERT_EQ(0, xsd_test_start(&t, "--tick-ms", "10", "--decay", "30"));
	ASSERT_EQ(0, xsd_test_client_open(&t, &c)) xsd_test_dump_log(&t);
	i1 = cpu_index(c.state, 1);
	ASSERT_LE(0, i1);
	snap = malloc(c.state_size);
	ASSERT_NE(NULL, snap);
	ASSERT_EQ(0, pthread_create(&th, NULL, worker, NULL));
	while (!worker_tid)
		xsd_test_sleep_ms(1);
	tid = worker_tid;
	ASSERT_EQ(0, xsd_test_call(c.fd, XS_ABI_REGISTER, &tid, 1, &r, NULL));

	v = wait_share(&c, snap, i1, offsetof(struct xs_abi_cpu, worker_permille));
	printf("# CPU 1 worker share %u permille while registered\n", v);
	EXPECT_LT(800u, v) xsd_test_dump_log(&t);

	ASSERT_EQ(0, xsd_test_call(c.fd, XS_ABI_UNREGISTER, &tid, 1, &r, NULL));
	v = wait_share(&c, snap, i1, offsetof(struct xs_abi_cpu, foreign_permille));
	printf("# CPU 1 foreign share %u permille once unregistered\n", v);
	EXPECT_LT(800u, v);

	spin = 0;
	pthread_join(th, NULL);
	free(snap);
	xsd_test_client_close(&c);
	EXPECT_EQ(0, xsd_test_stop(&t));
}

TEST_HARNESS_MAIN
