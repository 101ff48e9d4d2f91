// SPDX-License-Identifier: MIT
/*
 * DenseRatio drops exactly the addresses touched by more than DenseRatio x
 * T logical threads (the seed's Figure 4), at the boundary too, and every
 * other address adds 1 to the weight of each pair of its threads.
 */
#include <string.h>
#include "affinity/affinity.h"
#include "xs_test.h"

#define T 10

/* Hyperedges: sizes 2, 5, 9, 10, 2. */
static uint32_t th[] = { 0, 1,  2, 3, 4, 5, 6,  0, 1, 2, 3, 4, 5, 6, 7, 8,
			 0, 1, 2, 3, 4, 5, 6, 7, 8, 9,  1, 2 };
static uint64_t eoff[] = { 0, 2, 7, 16, 26, 28 };

static void expect_graph(struct __test_metadata *_metadata, double ratio, uint64_t pruned)
{
	struct xs_aff_hgraph h = { .n = T, .granule = 1, .nthreads = T, .nedges = 5,
				   .nentries = 28, .eoff = eoff, .ethreads = th };
	uint32_t want[T][T];
	struct xs_aff_graph g;

	memset(want, 0, sizeof(want));
	for (int e = 0; e < 5; e++) {
		uint64_t m = eoff[e + 1] - eoff[e];

		if (m > (uint64_t)(ratio * T))
			continue;
		for (uint64_t i = eoff[e]; i < eoff[e + 1]; i++)
			for (uint64_t j = eoff[e]; j < eoff[e + 1]; j++)
				if (i != j)
					want[th[i]][th[j]]++;
	}
	ASSERT_EQ(0, xs_aff_graph_build(&h, ratio, 1000, &g));
	EXPECT_EQ(pruned, g.pruned);
	ASSERT_EQ(T, g.nv);
	for (uint32_t u = 0; u < T; u++) {
		uint32_t got[T] = { 0 };

		EXPECT_EQ(1, g.vw[u]);
		for (uint64_t e = g.xadj[u]; e < g.xadj[u + 1]; e++) {
			ASSERT_NE(u, g.adj[e]);
			if (e > g.xadj[u])
				ASSERT_LT(g.adj[e - 1], g.adj[e]);
			got[g.adj[e]] = g.w[e];
		}
		for (uint32_t v = 0; v < T; v++) {
			EXPECT_EQ(want[u][v], got[v]) TH_LOG("ratio %g, edge %u-%u", ratio, u, v);
		}
	}
	xs_aff_graph_free(&g);
}

TEST(half)
{
	expect_graph(_metadata, 0.5, 2); /* sizes 9 and 10 > 5 */
}

TEST(boundary_is_kept)
{
	expect_graph(_metadata, 0.9, 1); /* 9 is not > 9; 10 is */
}

TEST(one_keeps_all)
{
	expect_graph(_metadata, 1.0, 0);
}

TEST(zero_keeps_none)
{
	expect_graph(_metadata, 0.0, 5);
}

TEST(bad_ratio)
{
	struct xs_aff_hgraph h = { .n = T, .granule = 1, .nthreads = T, .nedges = 5,
				   .nentries = 28, .eoff = eoff, .ethreads = th };
	struct xs_aff_graph g;

	EXPECT_EQ(-EINVAL, xs_aff_graph_build(&h, 1.5, 1000, &g));
	EXPECT_EQ(-EINVAL, xs_aff_graph_build(&h, -0.1, 1000, &g));
	EXPECT_EQ(-E2BIG, xs_aff_graph_build(&h, 1.0, 10, &g));
}

TEST_HARNESS_MAIN
