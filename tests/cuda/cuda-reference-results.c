// SPDX-License-Identifier: MIT
/*
 * cuda-reference-results: the CPU references the GPU tests trust agree
 * with hand-computed results and with each other (BFS depths equal SSSP
 * distances on unit weights; SpMM column j equals SpMV with column j;
 * hash upserts sum per key; bank transfers conserve money).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "xsched/cuda.h"

TEST(spmv_spmm_by_hand)
{
	/* [1 0 2; 0 0 0; 3 4 0] */
	int32_t ri[] = { 0, 0, 2, 2 }, ci[] = { 0, 2, 0, 1 };
	float v[] = { 1, 2, 3, 4 }, x[] = { 1, 10, 100 }, y[3];
	float b[] = { 1, 2, 10, 20, 100, 200 }, c[6];
	struct xs_csr a;

	ASSERT_EQ(0, xs_csr_from_triplets(&a, 3, 3, 4, ri, ci, v));
	xs_ref_spmv(&a, x, y);
	ASSERT_TRUE(y[0] == 201 && y[1] == 0 && y[2] == 43);
	xs_ref_spmm(&a, b, 2, c);
	ASSERT_TRUE(c[0] == 201 && c[1] == 402 && c[4] == 43 && c[5] == 86);
	xs_csr_free(&a);
}

TEST(bfs_equals_unit_sssp)
{
	struct xs_csr g;
	int32_t *depth, i, reached;
	float *dist;

	ASSERT_EQ(0, xs_rmat_generate(&g, 11, 4, 0.57, 0.19, 0.19, 3));
	for (i = 0; i < g.nnz; i++)
		g.values[i] = 1;
	depth = malloc(sizeof(*depth) * g.rows);
	dist = malloc(sizeof(*dist) * g.rows);
	ASSERT_NE(NULL, depth);
	ASSERT_NE(NULL, dist);
	reached = xs_ref_bfs(&g, 0, depth);
	ASSERT_GT(reached, 1);
	ASSERT_EQ(reached, xs_ref_sssp(&g, 0, dist));
	for (i = 0; i < g.rows; i++) {
		int ok = depth[i] < 0 ? isinf(dist[i]) :
					dist[i] == (float)depth[i];

		ASSERT_TRUE(ok) TH_LOG("vertex %d", i);
	}
	free(depth);
	free(dist);
	xs_csr_free(&g);
}

TEST(hash_sums_per_key_and_bank_conserves)
{
	uint32_t keys[] = { 5, 1, 5, 9, 1, 5 }, ok[6];
	int32_t d[] = { 1, 2, 3, 4, 5, 6 };
	int64_t ov[6], bal[4] = { 100, 100, 100, 100 };
	int32_t from[] = { 0, 1, 2, 3, 0 }, to[] = { 1, 2, 3, 0, 3 };
	int32_t amt[] = { 10, 20, 30, 40, 500 };

	ASSERT_EQ(3, xs_ref_hash_upsert(keys, d, 6, ok, ov, 6));
	ASSERT_TRUE(ok[0] == 1 && ov[0] == 7);
	ASSERT_TRUE(ok[1] == 5 && ov[1] == 10);
	ASSERT_TRUE(ok[2] == 9 && ov[2] == 4);
	ASSERT_EQ(-ENOSPC, xs_ref_hash_upsert(keys, d, 6, ok, ov, 2));
	xs_ref_bank_transfer(bal, from, to, amt, 5);
	ASSERT_EQ(400, bal[0] + bal[1] + bal[2] + bal[3]);
	ASSERT_EQ(100 - 10 + 40 - 500, bal[0]);
	ASSERT_EQ(100 + 30 - 40 + 500, bal[3]);
}

TEST(schedule_heuristic_and_names)
{
	int s;

	ASSERT_EQ((int)XS_CUDA_SCHED_MERGE_PATH,
		  (int)xs_cuda_schedule_pick(100000, 100000, 1000000, 3.0));
	ASSERT_EQ((int)XS_CUDA_SCHED_MERGE_PATH,
		  (int)xs_cuda_schedule_pick(100000, 100000, 300000, 0.1));
	ASSERT_EQ((int)XS_CUDA_SCHED_WARP_MAPPED,
		  (int)xs_cuda_schedule_pick(100000, 100000, 1000000, 0.1));
	ASSERT_EQ((int)XS_CUDA_SCHED_WARP_MAPPED,
		  (int)xs_cuda_schedule_pick(400, 400, 20000, 0.1));
	ASSERT_EQ((int)XS_CUDA_SCHED_THREAD_MAPPED,
		  (int)xs_cuda_schedule_pick(300, 300, 2000, 0.2));
	ASSERT_EQ((int)XS_CUDA_SCHED_GROUP_MAPPED,
		  (int)xs_cuda_schedule_pick(300, 300, 2000, 3.0));
	for (s = 0; s < XS_CUDA_SCHED_NR; s++) {
		ASSERT_EQ(s, xs_cuda_schedule_parse(xs_cuda_schedule_name(s)));
	}
	ASSERT_EQ(-EINVAL, xs_cuda_schedule_parse("round-robin"));
	ASSERT_EQ(NULL, xs_cuda_schedule_name(XS_CUDA_SCHED_NR));
}

TEST_HARNESS_MAIN
