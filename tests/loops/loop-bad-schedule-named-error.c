// SPDX-License-Identifier: MIT
/*
 * Bad loop schedules fail with a message naming the setting and its range:
 * XSCHED_LOOP_* from the environment (xs_runtime_create() fails) and
 * struct xs_loop_sched fields through the API (-EINVAL, nothing runs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "xsched.h"
#include "xs_test.h"
#include "capture-stderr.h"

static const struct {
	const char *name, *value, *other, *other_value, *expect;
} bad_env[] = {
	{ "XSCHED_LOOP_SCHEDULE", "cyclic", NULL, NULL,
	  "expected auto, static, dynamic, guided, hybrid or affinity" },
	{ "XSCHED_LOOP_CHUNK", "-1", NULL, NULL, "expected 0..1099511627776" },
	{ "XSCHED_LOOP_HYBRID_NS", "0", NULL, NULL, "expected 1..64" },
	{ "XSCHED_LOOP_HYBRID_ND", "2000", NULL, NULL, "expected 0..1024" },
	{ "XSCHED_LOOP_HYBRID_GRAIN", "0", NULL, NULL, "expected 1..1000" },
	{ "XSCHED_LOOP_HYBRID_ND", "30", "XSCHED_LOOP_HYBRID_GRAIN", "50",
	  "XSCHED_LOOP_HYBRID_ND x XSCHED_LOOP_HYBRID_GRAIN = 30 x 50 is invalid" },
};

TEST(environment)
{
	for (size_t i = 0; i < sizeof(bad_env) / sizeof(bad_env[0]); i++) {
		struct capture c;
		char out[2048];
		struct xs_runtime *rt;

		setenv(bad_env[i].name, bad_env[i].value, 1);
		if (bad_env[i].other)
			setenv(bad_env[i].other, bad_env[i].other_value, 1);
		ASSERT_EQ(0, capture_begin(&c));
		rt = xs_runtime_create(2);
		capture_end(&c, out, sizeof out);
		EXPECT_EQ(NULL, rt);
		EXPECT_NE(NULL, strstr(out, bad_env[i].expect)) TH_LOG("%s: %s", bad_env[i].name, out);
		EXPECT_NE(NULL, strstr(out, bad_env[i].name)) TH_LOG("%s", out);
		unsetenv(bad_env[i].name);
		if (bad_env[i].other)
			unsetenv(bad_env[i].other);
	}
}

static void never(void *arg, int64_t first, uint64_t count)
{
	(void)first, (void)count;
	*(int *)arg = 1;
}

TEST(api)
{
	static const struct {
		struct xs_loop_sched s;
		const char *expect;
	} bad[] = {
		{ { .kind = 9 }, "xs_loop_sched.kind = 9 is invalid: expected 0..5" },
		{ { .kind = XS_LOOP_HYBRID, .ns = 0, .nd = 1, .grain = 1 },
		  "xs_loop_sched.ns = 0 is invalid: expected 1..64" },
		{ { .kind = XS_LOOP_HYBRID, .ns = 1, .nd = 1025, .grain = 1 },
		  "xs_loop_sched.nd = 1025 is invalid: expected 0..1024" },
		{ { .kind = XS_LOOP_HYBRID, .ns = 1, .nd = 1, .grain = 1001 },
		  "xs_loop_sched.grain = 1001 is invalid: expected 1..1000" },
		{ { .kind = XS_LOOP_HYBRID, .ns = 1, .nd = 11, .grain = 100 },
		  "xs_loop_sched.nd x grain = 11 x 100 is invalid" },
	};
	struct xs_runtime *rt = xs_runtime_create(2);
	struct xs_loop_sched def;
	int ran = 0;

	ASSERT_NE(NULL, rt);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct capture c;
		char out[1024];

		ASSERT_EQ(0, capture_begin(&c));
		EXPECT_EQ(-EINVAL, xs_parallel_for(rt, 0, 10, 1, &bad[i].s, never, &ran));
		capture_end(&c, out, sizeof out);
		EXPECT_NE(NULL, strstr(out, bad[i].expect)) TH_LOG("%s", out);
	}
	EXPECT_EQ(0, ran);
	/* The defaults: hybrid 2 + 4 x 5%. */
	ASSERT_EQ(0, xs_loop_sched_default(rt, &def));
	EXPECT_EQ(XS_LOOP_HYBRID, def.kind);
	EXPECT_EQ(2u, def.ns);
	EXPECT_EQ(4u, def.nd);
	EXPECT_EQ(50u, def.grain);
	EXPECT_EQ(0, xs_loop_sched_check(&def));
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
