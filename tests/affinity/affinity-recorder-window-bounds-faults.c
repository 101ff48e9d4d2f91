// SPDX-License-Identifier: MIT
/*
 * The recorder's window (cfg.window, XSCHED_AFFINITY_WINDOW): each logical
 * thread runs with the next `window` watched pages protected (a ring in
 * address order) and at most `window` faults, so the faults are bounded by
 * window x logical threads whatever the loop touches; a window over every
 * page records what the full recording does; the window walks the ring, so
 * thread k sees page k mod ring; and the loop's results are the same.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "xsched.h"
#include "affinity/affinity.h"
#include "xs_test.h"

#define PAGES 8

static size_t pgsz(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static volatile uint64_t *pages(size_t n)
{
	void *p = mmap(NULL, n * pgsz(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Every logical thread adds 1 to 16 words of every page. */
static void touch_all(void *ctx, uint64_t lo, uint64_t hi)
{
	volatile uint64_t *a = ctx;
	size_t words = pgsz() / 8;

	for (uint64_t i = lo; i < hi; i++)
		for (size_t p = 0; p < PAGES; p++)
			for (size_t w = 0; w < 16; w++)
				a[p * words + w * 8] += 1;
}

static uint64_t sum_all(volatile uint64_t *a)
{
	uint64_t s = 0;

	for (size_t i = 0; i < PAGES * pgsz() / 8; i++)
		s += a[i];
	return s;
}

TEST(step_mode_faults_bounded_by_window)
{
	struct xs_aff_record_cfg full = { .shift = 3, .step = true }, win = full;
	volatile uint64_t *a = pages(PAGES);
	struct xs_aff_hgraph h;
	const uint64_t T = 12;

	if (!xs_aff_can_step())
		SKIP(return, "single-stepping is implemented for x86-64 only");
	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, xs_affinity_region_add((const void *)a, PAGES * pgsz()));
	ASSERT_EQ(0, xs_aff_record(T, 1, &full, touch_all, (void *)a, &h));
	/* Full: every one of the 16 x PAGES read-modify-writes of a thread. */
	EXPECT_GE(h.accesses, T * 16 * PAGES);
	xs_aff_hgraph_free(&h);
	win.window = 3;
	ASSERT_EQ(0, xs_aff_record(T, 1, &win, touch_all, (void *)a, &h));
	EXPECT_LE(h.accesses, T * 3);
	EXPECT_GE(h.accesses, T);
	EXPECT_EQ(0, h.dropped);
	/* Both recordings ran the loop in full, and the pages are open. */
	EXPECT_EQ(2 * T * 16 * PAGES, sum_all(a));
	a[0] = 0;
	xs_aff_hgraph_free(&h);
	ASSERT_EQ(0, xs_affinity_region_remove((const void *)a));
}

/* Threads 2k and 2k+1 share page k (k < 4); everybody shares page 4. */
static void touch_pattern(void *ctx, uint64_t lo, uint64_t hi)
{
	volatile uint64_t *a = ctx;
	size_t words = pgsz() / 8;

	for (uint64_t i = lo; i < hi; i++) {
		a[(i / 2) * words] += 1;
		a[4 * words] += 1;
	}
}

static void expect_same(struct __test_metadata *_metadata, const struct xs_aff_hgraph *x,
			const struct xs_aff_hgraph *y)
{
	ASSERT_EQ(x->nthreads, y->nthreads);
	ASSERT_EQ(x->nedges, y->nedges);
	ASSERT_EQ(x->nentries, y->nentries);
	EXPECT_EQ(x->accesses, y->accesses);
	EXPECT_EQ(x->naddrs, y->naddrs);
	EXPECT_EQ(0, memcmp(x->eoff, y->eoff, (x->nedges + 1) * sizeof(*x->eoff)));
	EXPECT_EQ(0, memcmp(x->ethreads, y->ethreads, x->nentries * sizeof(*x->ethreads)));
	EXPECT_EQ(0, memcmp(x->vweight, y->vweight, x->nthreads * sizeof(*x->vweight)));
}

TEST(window_over_every_page_is_the_full_recording)
{
	struct xs_aff_record_cfg full = { .shift = 12 }, win = full;
	volatile uint64_t *a = pages(PAGES);
	struct xs_aff_hgraph h1, h2;

	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, xs_affinity_region_add((const void *)a, PAGES * pgsz()));
	ASSERT_EQ(0, xs_aff_record(8, 1, &full, touch_pattern, (void *)a, &h1));
	win.window = PAGES;
	ASSERT_EQ(0, xs_aff_record(8, 1, &win, touch_pattern, (void *)a, &h2));
	EXPECT_EQ(5, h1.nedges);
	EXPECT_EQ(16, h1.accesses);
	expect_same(_metadata, &h1, &h2);
	xs_aff_hgraph_free(&h1);
	xs_aff_hgraph_free(&h2);
	ASSERT_EQ(0, xs_affinity_region_remove((const void *)a));
}

/* Every thread touches every page; a window of one page: thread k sees
 * page k mod 8 only, so page p is shared by threads p and p + 8. */
TEST(window_walks_the_ring)
{
	struct xs_aff_record_cfg win = { .shift = 12, .window = 1 };
	volatile uint64_t *a = pages(PAGES);
	struct xs_aff_hgraph h;

	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, xs_affinity_region_add((const void *)a, PAGES * pgsz()));
	ASSERT_EQ(0, xs_aff_record(2 * PAGES, 1, &win, touch_all, (void *)a, &h));
	EXPECT_EQ(2 * PAGES, h.accesses);
	EXPECT_EQ(PAGES, h.naddrs);
	ASSERT_EQ(PAGES, h.nedges);
	for (uint64_t e = 0; e < h.nedges; e++) {
		ASSERT_EQ(2, h.eoff[e + 1] - h.eoff[e]);
		EXPECT_EQ(h.ethreads[h.eoff[e]] + PAGES, h.ethreads[h.eoff[e] + 1]);
	}
	for (uint32_t k = 0; k < 2 * PAGES; k++)
		EXPECT_EQ(1, h.vweight[k]);
	EXPECT_EQ(2 * PAGES * 16 * PAGES, sum_all(a));
	xs_aff_hgraph_free(&h);
	ASSERT_EQ(0, xs_affinity_region_remove((const void *)a));
}

TEST_HARNESS_MAIN
