// SPDX-License-Identifier: MIT
/*
 * cuda-spmm-matches-reference: C = A B on the GPU (B with 1, 3 and 8
 * columns) equals the CPU reference under every schedule. SKIPs when there
 * is no GPU.
 */
#include "kselftest_harness.h"
#include "cuda-gpu-helpers.h"

TEST(every_schedule_several_widths)
{
	static const int32_t widths[] = { 1, 3, 8 };
	struct xs_cuda_ctx *ctx;
	int i, got;

	CUDA_OPEN_OR_SKIP(ctx);
	for (i = 0; i < 5; i++) {
		struct xs_csr a;
		struct xs_cuda_matrix *m;
		char name[64];
		size_t l, w;

		got = corpus_get(i, &a, name, sizeof(name));
		if (got <= 0)
			continue;
		m = xs_cuda_matrix_create(ctx, &a);
		ASSERT_NE(NULL, m) TH_LOG("%s: %s", name, xs_cuda_ctx_error(ctx));
		for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
			int32_t n = widths[w], k;
			float *b = malloc(sizeof(float) * ((size_t)a.cols * n + 1));
			float *c = malloc(sizeof(float) * ((size_t)a.rows * n + 1));
			float *ref = malloc(sizeof(float) * ((size_t)a.rows * n + 1));
			double mag = 0;

			ASSERT_TRUE(b && c && ref);
			for (k = 0; k < a.cols * n; k++)
				b[k] = (float)((k * 5) % 9) - 4;
			for (k = 0; k < a.nnz; k++)
				mag = fmax(mag, fabs(a.values[k]));
			mag *= 4.0 * (a.nnz + 1);
			xs_ref_spmm(&a, b, n, ref);
			for (l = 0; l < N_TEST_LAUNCHES; l++) {
				const struct xs_cuda_launch *ln = &test_launches[l];

				ASSERT_EQ(0, xs_cuda_spmm(m, ln, b, n, c))
					TH_LOG("%s: %s", name,
					       xs_cuda_ctx_error(ctx));
				for (k = 0; k < a.rows * n; k++) {
					ASSERT_TRUE(close_enough(c[k], ref[k], mag))
						TH_LOG("%s %s n=%d: entry %d "
						       "got %g want %g", name,
						       xs_cuda_schedule_name(ln->schedule),
						       n, k, c[k], ref[k]);
				}
			}
			free(b);
			free(c);
			free(ref);
		}
		xs_cuda_matrix_destroy(m);
		xs_csr_free(&a);
	}
	xs_cuda_ctx_destroy(ctx);
}

TEST_HARNESS_MAIN
