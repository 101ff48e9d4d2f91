// SPDX-License-Identifier: MIT
/*
 * A bad XSCHED_* value makes xs_runtime_create() fail with EINVAL and a
 * message naming the variable, the value and the accepted range; an unknown
 * XSCHED_* name is warned about; XSCHED_VERBOSE prints effective values.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xsched.h"
#include "xs_test.h"
#include "capture-stderr.h"

/* Run xs_runtime_create(1) with stderr captured into @buf. */
static struct xs_runtime *create_capturing(char *buf, size_t len, int *err)
{
	struct xs_runtime *rt;
	struct capture c;

	if (capture_begin(&c))
		return NULL;
	errno = 0;
	rt = xs_runtime_create(1);
	*err = errno;
	capture_end(&c, buf, len);
	return rt;
}

static const struct {
	const char *name, *value, *range;
} bad[] = {
	{ "XSCHED_QUEUE_SIZE", "17", "power of two in 16..65536" },
	{ "XSCHED_QUEUE_SIZE", "8", "power of two in 16..65536" },
	{ "XSCHED_WORKERS", "-1", "0..1024" },
	{ "XSCHED_WORKERS", "4x", "0..1024" },
	{ "XSCHED_SPIN_US", "", "0..1000000" },
	{ "XSCHED_SHOW_STATS", "yes", "0 or 1" },
	{ "XSCHED_STACK_KIB", "99999999999999999999", "64..4194304" },
};

TEST(bad_values_fail_with_a_named_error)
{
	char out[4096], want[256];
	int err;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setenv(bad[i].name, bad[i].value, 1);
		ASSERT_EQ(NULL, create_capturing(out, sizeof out, &err));
		EXPECT_EQ(EINVAL, err);
		snprintf(want, sizeof want, "%s=\"%s\"", bad[i].name, bad[i].value);
		EXPECT_NE(NULL, strstr(out, want)) TH_LOG("stderr: %s", out);
		EXPECT_NE(NULL, strstr(out, bad[i].range)) TH_LOG("stderr: %s", out);
		unsetenv(bad[i].name);
	}
}

TEST(unknown_name_is_warned_about)
{
	char out[4096];
	struct xs_runtime *rt;
	int err;

	setenv("XSCHED_QUEUE_SIZ", "64", 1);
	rt = create_capturing(out, sizeof out, &err);
	ASSERT_NE(NULL, rt);
	EXPECT_NE(NULL, strstr(out, "unknown variable XSCHED_QUEUE_SIZ"))
		TH_LOG("stderr: %s", out);
	xs_runtime_destroy(rt);
}

TEST(verbose_prints_effective_values)
{
	char out[8192];
	struct xs_runtime *rt;
	int err;

	setenv("XSCHED_VERBOSE", "1", 1);
	setenv("XSCHED_QUEUE_SIZE", "32", 1);
	rt = create_capturing(out, sizeof out, &err);
	ASSERT_NE(NULL, rt);
	EXPECT_NE(NULL, strstr(out, "XSCHED_QUEUE_SIZE=32")) TH_LOG("stderr: %s", out);
	EXPECT_NE(NULL, strstr(out, "32-slot queues")) TH_LOG("stderr: %s", out);
	xs_runtime_destroy(rt);
}

TEST(option_table_is_enumerable)
{
	struct xs_option_info info;
	unsigned n = 0;

	while (xs_option_describe(n, &info) == 0) {
		EXPECT_EQ(0, strncmp(info.name, "XSCHED_", 7));
		EXPECT_NE(0, strlen(info.doc));
		EXPECT_NE(0, strlen(info.range));
		n++;
	}
	EXPECT_GE(n, 8);
	EXPECT_EQ(-ENOENT, xs_option_describe(n, &info));
}

TEST_HARNESS_MAIN
