// SPDX-License-Identifier: MIT
/*
 * The affinity recorder attributes accesses to the logical thread that
 * made them: on a known pattern (threads 2k and 2k+1 share one word, all
 * threads share one word, each touches a private word) the hypergraph is
 * exactly the shared words with their threads, in step mode (every access,
 * 8-byte words) and in page mode (first access per page, pages); and
 * through xs_parallel_for() under XSCHED_AFFINITY_RECORD the graph file
 * holds the same.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "xsched.h"
#include "affinity/affinity.h"
#include "xs_test.h"

#define T 8

struct pattern {
	volatile uint64_t *a; /* 8 pages */
	size_t stride;        /* distance between the pattern's words */
};

/* Thread i: shared[i / 2], dense, private[i]. */
static void touch(void *ctx, uint64_t lo, uint64_t hi)
{
	struct pattern *p = ctx;

	for (uint64_t i = lo; i < hi; i++) {
		p->a[(i / 2) * p->stride] += 1;          /* pairs */
		p->a[4 * p->stride] += 1;                /* everybody */
		if (p->stride == 8)                      /* words: private */
			p->a[100 + i * 8] = i;
	}
}

static void expect_pattern(struct __test_metadata *_metadata, const struct xs_aff_hgraph *h)
{
	uint32_t pairs = 0, dense = 0;

	ASSERT_EQ(T, h->nthreads);
	ASSERT_EQ(5, h->nedges);
	for (uint64_t e = 0; e < h->nedges; e++) {
		uint64_t m = h->eoff[e + 1] - h->eoff[e];
		const uint32_t *th = h->ethreads + h->eoff[e];

		if (m == T) {
			for (uint32_t k = 0; k < T; k++)
				EXPECT_EQ(k, th[k]);
			dense++;
		} else {
			ASSERT_EQ(2, m);
			EXPECT_EQ(0, th[0] % 2);
			EXPECT_EQ(th[0] + 1, th[1]);
			pairs |= 1u << (th[0] / 2);
		}
	}
	EXPECT_EQ(1, dense);
	EXPECT_EQ(0xf, pairs);
	EXPECT_EQ(0, h->dropped);
}

static volatile uint64_t *pages(size_t n)
{
	void *p = mmap(NULL, n * (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

TEST(step_mode_words)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct pattern p = { pages(8), 8 };
	struct xs_aff_record_cfg cfg = { .shift = 3, .step = true };
	struct xs_aff_hgraph h;

	if (!xs_aff_can_step())
		SKIP(return, "single-stepping is implemented for x86-64 only");
	ASSERT_NE(NULL, p.a);
	ASSERT_EQ(0, xs_affinity_region_add((const void *)p.a, 8 * pg));
	ASSERT_EQ(0, xs_aff_record(T, 1, &cfg, touch, &p, &h));
	expect_pattern(_metadata, &h);
	/* Every access seen: 2 read-modify-writes (a load and a store each,
	 * or one instruction doing both) and a store per thread. */
	EXPECT_GE(h.accesses, 3 * T);
	EXPECT_EQ(4 + 1 + T, h.naddrs);
	for (uint32_t k = 0; k < T; k++)
		EXPECT_EQ(3, h.vweight[k]);
	/* The loop ran, and the data is writable again. */
	EXPECT_EQ(T, p.a[4 * 8]);
	p.a[0] = 7;
	xs_aff_hgraph_free(&h);
	ASSERT_EQ(0, xs_affinity_region_remove((const void *)p.a));
}

TEST(page_mode_pages)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct pattern p = { pages(8), pg / 8 };
	struct xs_aff_record_cfg cfg = { .shift = 12, .step = false };
	struct xs_aff_hgraph h;

	ASSERT_NE(NULL, p.a);
	ASSERT_EQ(0, xs_affinity_region_add((const void *)p.a, 8 * pg));
	ASSERT_EQ(0, xs_aff_record(T, 1, &cfg, touch, &p, &h));
	expect_pattern(_metadata, &h);
	/* One fault per page and logical thread. */
	EXPECT_EQ(2 * T, h.accesses);
	EXPECT_EQ(T, p.a[4 * p.stride]);
	xs_aff_hgraph_free(&h);
	ASSERT_EQ(0, xs_affinity_region_remove((const void *)p.a));
}

TEST(no_region_is_enodata)
{
	struct pattern p = { pages(8), 8 };
	struct xs_aff_record_cfg cfg = { .shift = 3 };
	struct xs_aff_hgraph h;

	ASSERT_EQ(-ENODATA, xs_aff_record(T, 1, &cfg, touch, &p, &h));
	ASSERT_EQ(-EINVAL, xs_affinity_region_add((const void *)p.a, 100));
}

static void touch_for(void *arg, int64_t first, uint64_t count)
{
	touch(arg, (uint64_t)first, (uint64_t)first + count);
}

TEST(parallel_for_writes_graph)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	struct pattern p = { pages(8), 8 };
	char path[] = "/tmp/xsched-affinity-graph-XXXXXX";
	struct xs_aff_hgraph h;
	struct xs_runtime *rt;
	int fd = mkstemp(path);

	if (!xs_aff_can_step())
		SKIP(return, "single-stepping is implemented for x86-64 only");
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_NE(NULL, p.a);
	ASSERT_EQ(0, xs_affinity_region_add((const void *)p.a, 8 * pg));
	setenv("XSCHED_LOOP_SCHEDULE", "affinity", 1);
	setenv("XSCHED_AFFINITY_RECORD", path, 1);
	setenv("XSCHED_AFFINITY_GRANULE", "1", 1);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_parallel_for(rt, 0, T, 1, NULL, touch_for, &p));
	/* Only the first loop is recorded; the second runs as usual. */
	ASSERT_EQ(0, xs_parallel_for(rt, 0, T, 1, NULL, touch_for, &p));
	xs_runtime_destroy(rt);
	EXPECT_EQ(2 * T, p.a[4 * 8]);
	ASSERT_EQ(0, xs_aff_hgraph_read(path, &h));
	expect_pattern(_metadata, &h);
	EXPECT_EQ(T, h.n);
	xs_aff_hgraph_free(&h);
	unlink(path);
}

TEST_HARNESS_MAIN
