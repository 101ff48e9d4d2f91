// SPDX-License-Identifier: MIT
/*
 * cuda-simt-bfs-sssp-match-reference: the library's BFS and SSSP
 * expansion code (graph_ops.cuh: frontier in, frontier out, claims by CAS
 * and exchange) under every schedule, run by the host SIMT emulator, gives
 * the CPU references' depths and distances (BFS queue, Dijkstra) on RMAT
 * graphs of three skews. Integer weights: float distances are exact. No
 * GPU needed.
 */
#include "kselftest_harness.h"
#include "cuda-corpus.h"
#include "simt/simt-kernels.h"

static const struct xs_simt_grid grids[] = {
	{ 0, 128, 1, 2 },	/* the library's grid, 2 SMs */
	{ 3, 64, 8, 1 },	/* 3 blocks that stride */
	{ 0, 64, 64, 1 },
};

/* Emulated launches are slow on a loaded 2-CPU machine: more than the
 * harness's default 30 s. */
FIXTURE(emulated) {};
FIXTURE_SETUP(emulated) {}
FIXTURE_TEARDOWN(emulated) {}

TEST_F_TIMEOUT(emulated, every_schedule_rmat_graphs, 240)
{
	static const double skew[] = { 0.25, 0.57, 0.70 };
	size_t s;

	for (s = 0; s < sizeof(skew) / sizeof(skew[0]); s++) {
		double rest = (1 - skew[s]) / 3;
		int32_t *depth, *ref_depth, v, src;
		float *dist, *ref_dist;
		struct xs_csr g;
		int sched;

		ASSERT_EQ(0, xs_rmat_generate(&g, 9, 6, skew[s], rest, rest,
					      77 + s));
		src = corpus_hub(&g);
		depth = malloc(sizeof(int32_t) * g.rows);
		ref_depth = malloc(sizeof(int32_t) * g.rows);
		dist = malloc(sizeof(float) * g.rows);
		ref_dist = malloc(sizeof(float) * g.rows);
		ASSERT_TRUE(depth && ref_depth && dist && ref_dist);
		ASSERT_GT(xs_ref_bfs(&g, src, ref_depth), 1);
		ASSERT_GT(xs_ref_sssp(&g, src, ref_dist), 1);
		for (sched = XS_CUDA_SCHED_THREAD_MAPPED;
		     sched < XS_CUDA_SCHED_NR; sched++) {
			const char *sn = xs_cuda_schedule_name(sched);
			const struct xs_simt_grid *gr =
				&grids[(sched + s) % (sizeof(grids) / sizeof(grids[0]))];

			xs_simt_seed(31 * s + sched);
			ASSERT_LT(0, xs_simt_bfs(&g, src, sched, gr, depth))
				TH_LOG("bfs %s: %s", sn, xs_simt_error());
			for (v = 0; v < g.rows; v++)
				ASSERT_EQ(ref_depth[v], depth[v])
					TH_LOG("bfs %s a=%.2f vertex %d", sn,
					       skew[s], v);
			ASSERT_LT(0, xs_simt_sssp(&g, src, sched, gr, dist))
				TH_LOG("sssp %s: %s", sn, xs_simt_error());
			for (v = 0; v < g.rows; v++)
				ASSERT_TRUE(dist[v] == ref_dist[v] ||
					    (isinf(dist[v]) && isinf(ref_dist[v])))
					TH_LOG("sssp %s a=%.2f vertex %d: %g want "
					       "%g", sn, skew[s], v, dist[v],
					       ref_dist[v]);
		}
		free(depth);
		free(ref_depth);
		free(dist);
		free(ref_dist);
		xs_csr_free(&g);
	}
}

TEST_HARNESS_MAIN
