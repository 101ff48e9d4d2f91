// SPDX-License-Identifier: MIT
/*
 * xs_parallel_for(), _u64 and _2d run every iteration exactly once under
 * every schedule: empty and one-element ranges, negative steps, bounds at
 * the ends of the signed and unsigned 64-bit ranges (up to UINT64_MAX),
 * steps that do not divide the range, and the hybrid schedule with many
 * tiny dynamic tasks, none, or more tasks than iterations.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include "xsched.h"
#include "xs_test.h"

#define SPAN 4096

static _Atomic uint32_t hits[SPAN];
static _Atomic uint32_t outside;

struct range {
	uint64_t base;   /* the iteration that maps to hits[0] */
	uint64_t stride; /* |step| */
	bool down;
};

static void mark(const struct range *r, uint64_t v)
{
	uint64_t off = r->down ? r->base - v : v - r->base;

	if (off % r->stride || off / r->stride >= SPAN) {
		atomic_fetch_add(&outside, 1);
		return;
	}
	atomic_fetch_add_explicit(&hits[off / r->stride], 1, memory_order_relaxed);
}

struct body {
	struct range r;
	int64_t step;
};

static void body_s64(void *arg, int64_t first, uint64_t count)
{
	const struct body *b = arg;

	for (uint64_t k = 0; k < count; k++)
		mark(&b->r, (uint64_t)first + k * (uint64_t)b->step);
}

static void body_u64(void *arg, uint64_t first, uint64_t count)
{
	const struct body *b = arg;

	for (uint64_t k = 0; k < count; k++)
		mark(&b->r, first + k * (uint64_t)b->step);
}

static const struct xs_loop_sched scheds[] = {
	{ .kind = XS_LOOP_STATIC },
	{ .kind = XS_LOOP_STATIC, .chunk = 3 },
	{ .kind = XS_LOOP_DYNAMIC },
	{ .kind = XS_LOOP_DYNAMIC, .chunk = 7 },
	{ .kind = XS_LOOP_GUIDED },
	{ .kind = XS_LOOP_GUIDED, .chunk = 5 },
	{ .kind = XS_LOOP_HYBRID, .ns = 2, .nd = 4, .grain = 50 },
	{ .kind = XS_LOOP_HYBRID, .ns = 1, .nd = 1000, .grain = 1 },
	{ .kind = XS_LOOP_HYBRID, .ns = 3, .nd = 0, .grain = 1 },
	{ .kind = XS_LOOP_HYBRID, .ns = 64, .nd = 1, .grain = 1000 },
	{ .kind = XS_LOOP_DEFAULT },
};
#define NSCHED (sizeof(scheds) / sizeof(scheds[0]))

/* Expect iterations 0..want-1 of the range hit once each, nothing else. */
static int check_hits(uint64_t want)
{
	for (uint64_t i = 0; i < SPAN; i++)
		if (atomic_load(&hits[i]) != (i < want ? 1u : 0u))
			return (int)i;
	return atomic_load(&outside) ? -2 : -1;
}

static void reset(void)
{
	for (int i = 0; i < SPAN; i++)
		atomic_store(&hits[i], 0);
	atomic_store(&outside, 0);
}

struct case_s64 {
	int64_t begin, end, step;
	uint64_t count;
};

static const struct case_s64 s64_cases[] = {
	{ 0, 0, 1, 0 },
	{ 5, 5, -1, 0 },
	{ 10, 3, 1, 0 },               /* empty: begin past end */
	{ 7, 8, 1, 1 },
	{ 7, 6, -1, 1 },
	{ -17, 2003, 3, 674 },
	{ 1999, -7, -4, 502 },
	{ INT64_MIN, INT64_MIN + 3000, 7, 429 },
	{ INT64_MAX - 2000, INT64_MAX, 1, 2000 },
	{ INT64_MAX, INT64_MAX - 2500, -1, 2500 },
	{ INT64_MIN + 10, INT64_MIN, -3, 4 },
	{ 0, 4000, 4000, 1 },
	{ 0, 4096, 1, 4096 },
};

TEST(signed_ranges)
{
	struct xs_runtime *rt = xs_runtime_create(3);

	ASSERT_NE(NULL, rt);
	for (size_t s = 0; s < NSCHED; s++) {
		for (size_t c = 0; c < sizeof(s64_cases) / sizeof(s64_cases[0]); c++) {
			const struct case_s64 *k = &s64_cases[c];
			struct body b = { { (uint64_t)k->begin,
					    k->step > 0 ? (uint64_t)k->step : -(uint64_t)k->step,
					    k->step < 0 },
					  k->step };

			reset();
			ASSERT_EQ(0, xs_parallel_for(rt, k->begin, k->end, k->step, &scheds[s],
						     body_s64, &b)) TH_LOG("schedule %zu case %zu", s, c);
			EXPECT_EQ(-1, check_hits(k->count))
				TH_LOG("schedule %zu case %zu", s, c);
		}
	}
	xs_runtime_destroy(rt);
}

struct case_u64 {
	uint64_t begin, end;
	int64_t step;
	uint64_t count;
};

static const struct case_u64 u64_cases[] = {
	{ UINT64_MAX, UINT64_MAX, 1, 0 },
	{ UINT64_MAX - 1, UINT64_MAX, 1, 1 },
	{ UINT64_MAX - 3000, UINT64_MAX, 1, 3000 },
	{ UINT64_MAX, UINT64_MAX - 3000, -1, 3000 },  /* includes UINT64_MAX */
	{ UINT64_MAX, 0, -INT64_MAX, 3 },              /* UINT64_MAX, 2^63, 1 */
	{ 0, UINT64_MAX, INT64_MAX, 3 },               /* 0, 2^63 - 1, 2^64 - 2 */
	{ (uint64_t)1 << 63, ((uint64_t)1 << 63) + 999, 2, 500 },
	{ 100, 3, -5, 20 },
};

TEST(unsigned_ranges)
{
	struct xs_runtime *rt = xs_runtime_create(3);

	ASSERT_NE(NULL, rt);
	for (size_t s = 0; s < NSCHED; s++) {
		for (size_t c = 0; c < sizeof(u64_cases) / sizeof(u64_cases[0]); c++) {
			const struct case_u64 *k = &u64_cases[c];
			struct body b = { { k->begin,
					    k->step > 0 ? (uint64_t)k->step : -(uint64_t)k->step,
					    k->step < 0 },
					  k->step };

			reset();
			ASSERT_EQ(0, xs_parallel_for_u64(rt, k->begin, k->end, k->step, &scheds[s],
							 body_u64, &b));
			EXPECT_EQ(-1, check_hits(k->count))
				TH_LOG("schedule %zu case %zu", s, c);
		}
	}
	xs_runtime_destroy(rt);
}

static void tile(void *arg, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
	(void)arg;
	for (int64_t r = r0; r < r1; r++)
		for (int64_t c = c0; c < c1; c++)
			atomic_fetch_add(&hits[(r + 5) * 64 + (c + 3)], 1);
}

TEST(two_d_tiles)
{
	struct xs_runtime *rt = xs_runtime_create(3);

	ASSERT_NE(NULL, rt);
	for (size_t s = 0; s < NSCHED; s++) {
		reset();
		/* rows -5..44, cols -3..57: tiles 7 x 16, ragged at both ends */
		ASSERT_EQ(0, xs_parallel_for_2d(rt, -5, 45, -3, 58, 7, 16, &scheds[s], tile, NULL));
		int bad = -1;

		for (int i = 0; i < 50 * 64 && bad < 0; i++)
			if (atomic_load(&hits[i]) != (i % 64 < 61 ? 1u : 0u))
				bad = i;
		EXPECT_EQ(-1, bad) TH_LOG("schedule %zu cell %d", s, bad);
		reset();
		ASSERT_EQ(0, xs_parallel_for_2d(rt, 0, 0, 0, 10, 1, 1, &scheds[s], tile, NULL));
		EXPECT_EQ(-1, check_hits(0));
	}
	EXPECT_EQ(-EINVAL, xs_parallel_for_2d(rt, 0, 4, 0, 4, 0, 1, NULL, tile, NULL));
	EXPECT_EQ(-EINVAL, xs_parallel_for(rt, 0, 4, 0, NULL, body_s64, NULL));
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
