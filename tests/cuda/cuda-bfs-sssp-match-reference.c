// SPDX-License-Identifier: MIT
/*
 * cuda-bfs-sssp-match-reference: BFS depths and SSSP distances computed by
 * frontier expansion under every schedule equal the CPU references (BFS
 * queue, Dijkstra) on RMAT graphs; edge weights are small integers, so
 * float distances are exact. SKIPs when there is no GPU.
 */
#include "kselftest_harness.h"
#include "cuda-gpu-helpers.h"

TEST(every_schedule_rmat_graphs)
{
	static const double skew[] = { 0.25, 0.57, 0.70 };
	struct xs_cuda_ctx *ctx;
	size_t s, l;

	CUDA_OPEN_OR_SKIP(ctx);
	for (s = 0; s < sizeof(skew) / sizeof(skew[0]); s++) {
		double rest = (1 - skew[s]) / 3;
		struct xs_csr g;
		struct xs_cuda_matrix *m;
		int32_t *depth, *ref_depth, v, src;
		float *dist, *ref_dist;

		ASSERT_EQ(0, xs_rmat_generate(&g, 12, 8, skew[s], rest, rest,
					      77 + s));
		src = corpus_hub(&g);
		depth = malloc(sizeof(int32_t) * g.rows);
		ref_depth = malloc(sizeof(int32_t) * g.rows);
		dist = malloc(sizeof(float) * g.rows);
		ref_dist = malloc(sizeof(float) * g.rows);
		ASSERT_TRUE(depth && ref_depth && dist && ref_dist);
		ASSERT_GT(xs_ref_bfs(&g, src, ref_depth), 1);
		ASSERT_GT(xs_ref_sssp(&g, src, ref_dist), 1);
		m = xs_cuda_matrix_create(ctx, &g);
		ASSERT_NE(NULL, m);
		for (l = 0; l < N_TEST_LAUNCHES; l++) {
			const struct xs_cuda_launch *ln = &test_launches[l];
			const char *sn = xs_cuda_schedule_name(ln->schedule);

			ASSERT_LT(0, xs_cuda_bfs(m, ln, src, depth))
				TH_LOG("%s: %s", sn, xs_cuda_ctx_error(ctx));
			for (v = 0; v < g.rows; v++) {
				ASSERT_EQ(ref_depth[v], depth[v])
					TH_LOG("bfs %s a=%.2f vertex %d", sn,
					       skew[s], v);
			}
			ASSERT_LT(0, xs_cuda_sssp(m, ln, src, dist))
				TH_LOG("%s: %s", sn, xs_cuda_ctx_error(ctx));
			for (v = 0; v < g.rows; v++) {
				ASSERT_TRUE(dist[v] == ref_dist[v] ||
					    (isinf(dist[v]) && isinf(ref_dist[v])))
					TH_LOG("sssp %s a=%.2f vertex %d: %g "
					       "want %g", sn, skew[s], v,
					       dist[v], ref_dist[v]);
			}
		}
		xs_cuda_matrix_destroy(m);
		free(depth);
		free(ref_depth);
		free(dist);
		free(ref_dist);
		xs_csr_free(&g);
	}
	xs_cuda_ctx_destroy(ctx);
}

TEST(non_square_or_negative_is_einval)
{
	struct xs_cuda_ctx *ctx;
	struct xs_cuda_matrix *m;
	int32_t ri[] = { 0, 1 }, ci[] = { 1, 0 }, depth[2];
	float v[] = { 1, -1 }, dist[2];
	struct xs_csr g;

	CUDA_OPEN_OR_SKIP(ctx);
	ASSERT_EQ(0, xs_csr_from_triplets(&g, 2, 2, 2, ri, ci, v));
	m = xs_cuda_matrix_create(ctx, &g);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(-EINVAL, xs_cuda_sssp(m, NULL, 0, dist));	/* w < 0 */
	ASSERT_EQ(-EINVAL, xs_cuda_bfs(m, NULL, 5, depth));	/* source */
	ASSERT_EQ(2, xs_cuda_bfs(m, NULL, 0, depth));	/* 2 expansions */
	ASSERT_EQ(1, depth[1]);
	xs_cuda_matrix_destroy(m);
	xs_csr_free(&g);
	xs_cuda_ctx_destroy(ctx);
}

TEST_HARNESS_MAIN
