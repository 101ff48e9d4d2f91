// SPDX-License-Identifier: MIT
/*
 * The cpulist parser accepts the kernel's format ("0-3,8,10-11\n", empty)
 * and rejects anything else with a message that quotes the bad content.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "topology-test.h"

static uint32_t members(const struct xs_cpumask *m, uint32_t *out, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t c = 0; c < XS_MAX_CPUS; c++)
		if (xs_cpumask_test(m, c) && n < max)
			out[n++] = c;
	return n;
}

TEST(ranges_and_singles)
{
	static const uint32_t want[] = { 0, 1, 2, 3, 8, 10, 11 };
	struct xs_cpumask m;
	uint32_t got[16];
	char why[160] = "";

	ASSERT_EQ(0, xs_cpulist_parse("0-3,8,10-11\n", XS_MAX_CPUS, &m, why, sizeof(why)));
	ASSERT_EQ(7u, members(&m, got, 16));
	for (int i = 0; i < 7; i++)
		EXPECT_EQ(want[i], got[i]);
	ASSERT_EQ(0, xs_cpulist_parse("1023", XS_MAX_CPUS, &m, why, sizeof(why)));
	ASSERT_EQ(1u, members(&m, got, 16));
	EXPECT_EQ(1023u, got[0]);
}

TEST(empty_list_is_empty)
{
	struct xs_cpumask m;
	uint32_t got[1];
	char why[160];

	ASSERT_EQ(0, xs_cpulist_parse("", XS_MAX_CPUS, &m, why, sizeof(why)));
	EXPECT_EQ(0u, members(&m, got, 1));
	ASSERT_EQ(0, xs_cpulist_parse("\n", XS_MAX_CPUS, &m, why, sizeof(why)));
	EXPECT_EQ(0u, members(&m, got, 1));
}

FIXTURE(malformed) {};
FIXTURE_SETUP(malformed) {}
FIXTURE_TEARDOWN(malformed) {}
FIXTURE_VARIANT(malformed) {
	const char *text;
	uint32_t limit;
	int err;
	const char *why; /* substring of the message */
};
#define BAD(name, t, l, e, w) \
	FIXTURE_VARIANT_ADD(malformed, name) { .text = t, .limit = l, .err = e, .why = w }
BAD(reversed_range, "3-1", 64, -EINVAL, "bad cpulist \"3-1\": expected N or N-M");
BAD(double_comma, "1,,2", 64, -EINVAL, "\"1,,2\"");
BAD(letter, "a", 64, -EINVAL, "\"a\"");
BAD(open_range, "0-", 64, -EINVAL, "\"0-\"");
BAD(trailing_comma, "1,\n", 64, -EINVAL, "\"1,\\n\"");
BAD(leading_space, " 1", 64, -EINVAL, "\" 1\"");
BAD(two_lines, "1\n2\n", 64, -EINVAL, "\"1\\n2\\n\"");
BAD(stride, "0-7:2", 64, -EINVAL, "at offset 3");
BAD(negative, "-1", 64, -EINVAL, "\"-1\"");
BAD(past_limit, "0-4", 4, -ERANGE, "\"0-4\": numbers must be below 4");
BAD(past_max_cpus, "1024", 5000, -ERANGE, "numbers must be below 1024");
BAD(huge, "99999999999999999999", 64, -ERANGE, "below 64");

TEST_F(malformed, rejected_with_quoted_content)
{
	struct xs_cpumask m;
	char why[160] = "";

	ASSERT_EQ(variant->err, xs_cpulist_parse(variant->text, variant->limit, &m, why,
						 sizeof(why)));
	ASSERT_NE(NULL, strstr(why, variant->why)) {
		TH_LOG("message \"%s\" lacks \"%s\"", why, variant->why);
	}
}

TEST_HARNESS_MAIN
