// SPDX-License-Identifier: MIT
/*
 * Bad load-balancing and placement settings fail with a message that names
 * the setting and its accepted range, from the environment and from the
 * API alike; a good setting changed through the API is read back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "xsched.h"
#include "xs_test.h"
#include "capture-stderr.h"

static const struct {
	const char *name, *value, *expect;
} bad_env[] = {
	{ "XSCHED_DLB", "steal", "expected slb, ws, rp or auto" },
	{ "XSCHED_DLB_VICTIMS", "0", "expected 1..64" },
	{ "XSCHED_DLB_STEAL", "5000", "expected 1..4096" },
	{ "XSCHED_DLB_TIMEOUT", "0", "expected 1..100000000" },
	{ "XSCHED_DLB_LOCAL", "101", "expected 0..100" },
	{ "XSCHED_BIND", "tight", "expected none, compact or scatter" },
	{ "XSCHED_PUSH", "far", "expected auto, rr or local" },
	{ "XSCHED_SYSFS_ROOT", "/nonexistent-xsched-root", "/nonexistent-xsched-root" },
};

TEST(environment)
{
	for (size_t i = 0; i < sizeof(bad_env) / sizeof(bad_env[0]); i++) {
		struct capture c;
		char out[2048];
		struct xs_runtime *rt;

		setenv(bad_env[i].name, bad_env[i].value, 1);
		ASSERT_EQ(0, capture_begin(&c));
		rt = xs_runtime_create(2);
		capture_end(&c, out, sizeof out);
		EXPECT_EQ(NULL, rt);
		EXPECT_NE(NULL, strstr(out, bad_env[i].expect)) TH_LOG("%s: %s", bad_env[i].name, out);
		if (strcmp(bad_env[i].name, "XSCHED_SYSFS_ROOT"))
			EXPECT_NE(NULL, strstr(out, bad_env[i].name)) TH_LOG("%s", out);
		unsetenv(bad_env[i].name);
	}
}

TEST(api)
{
	struct xs_runtime *rt = xs_runtime_create(2);
	struct xs_dlb_config cfg, back;
	struct capture c;
	char out[1024];

	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_get_dlb(rt, &cfg));
	cfg.steal = 0;
	ASSERT_EQ(0, capture_begin(&c));
	EXPECT_EQ(-EINVAL, xs_runtime_set_dlb(rt, &cfg));
	capture_end(&c, out, sizeof out);
	EXPECT_NE(NULL, strstr(out, "xs_dlb_config.steal = 0: expected 1..4096")) TH_LOG("%s", out);
	cfg = (struct xs_dlb_config){ .strategy = XS_DLB_RP, .push = XS_PUSH_LOCAL, .victims = 2,
				      .steal = 16, .timeout = 500, .local_percent = 50 };
	EXPECT_EQ(0, xs_runtime_set_dlb(rt, &cfg));
	ASSERT_EQ(0, xs_runtime_get_dlb(rt, &back));
	EXPECT_EQ(0, memcmp(&cfg, &back, sizeof cfg));
	cfg.strategy = 7;
	EXPECT_EQ(-EINVAL, xs_runtime_set_dlb(rt, &cfg));
	cfg.strategy = XS_DLB_SLB; /* local push with nothing to move tasks */
	ASSERT_EQ(0, capture_begin(&c));
	EXPECT_EQ(-EINVAL, xs_runtime_set_dlb(rt, &cfg));
	capture_end(&c, out, sizeof out);
	EXPECT_NE(NULL, strstr(out, "push = local (XSCHED_PUSH) needs a dynamic strategy"))
		TH_LOG("%s", out);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
