// SPDX-License-Identifier: MIT
/*
 * cuda-spmv-matches-reference: SpMV on the GPU under every schedule (and
 * several group and block sizes) equals the CPU reference on the corpus,
 * and so does cuSPARSE. SKIPs when there is no GPU.
 */
#include "kselftest_harness.h"
#include "cuda-gpu-helpers.h"

TEST(every_schedule_every_matrix)
{
	struct xs_cuda_ctx *ctx;
	int i, got;

	CUDA_OPEN_OR_SKIP(ctx);
	for (i = 0;; i++) {
		struct xs_csr a;
		struct xs_cuda_matrix *m;
		char name[64];
		float *x, *y, *ref;
		double *mag, ms;
		size_t l;
		int32_t r, k;

		got = corpus_get(i, &a, name, sizeof(name));
		if (got == 0)
			break;
		if (got < 0) {
			TH_LOG("corpus %d (%s) not available, skipped", i, name);
			continue;
		}
		x = malloc(sizeof(float) * (a.cols + 1));
		y = malloc(sizeof(float) * (a.rows + 1));
		ref = malloc(sizeof(float) * (a.rows + 1));
		mag = calloc(a.rows + 1, sizeof(double));
		ASSERT_TRUE(x && y && ref && mag);
		corpus_spmv_problem(&a, x, ref, mag);
		m = xs_cuda_matrix_create(ctx, &a);
		ASSERT_NE(NULL, m) TH_LOG("%s: %s", name, xs_cuda_ctx_error(ctx));
		for (l = 0; l < N_TEST_LAUNCHES; l++) {
			const struct xs_cuda_launch *ln = &test_launches[l];

			memset(y, 0xff, sizeof(float) * a.rows);	/* NaN */
			ASSERT_EQ(0, xs_cuda_spmv(m, ln, x, y))
				TH_LOG("%s: %s", name, xs_cuda_ctx_error(ctx));
			for (r = 0; r < a.rows; r++) {
				ASSERT_TRUE(close_enough(y[r], ref[r], mag[r]))
					TH_LOG("%s %s g%d b%d: row %d got %g "
					       "want %g", name,
					       xs_cuda_schedule_name(ln->schedule),
					       ln->group_size, ln->block_size,
					       r, y[r], ref[r]);
			}
		}
		if (a.nnz == 0)
			goto next;	/* nothing for cuSPARSE to do */
		memset(y, 0xff, sizeof(float) * a.rows);
		ASSERT_EQ(0, xs_cuda_cusparse_spmv_time(m, 1, &ms, y))
			TH_LOG("%s: %s", name, xs_cuda_ctx_error(ctx));
		/* cuSPARSE ran on x = 1 (as the timer does). The tolerance
		 * scales with the row's sum of magnitudes: float sums of
		 * values near 1e7 that cancel (lund_a) are off by units. */
		for (k = 0; k < a.cols; k++)
			x[k] = 1;
		xs_ref_spmv(&a, x, ref);
		for (r = 0; r < a.rows; r++) {
			mag[r] = 0;
			for (k = a.offsets[r]; k < a.offsets[r + 1]; k++)
				mag[r] += fabs(a.values[k]);
			ASSERT_TRUE(close_enough(y[r], ref[r], mag[r]))
				TH_LOG("%s cusparse row %d got %g want %g", name,
				       r, y[r], ref[r]);
		}
next:
		xs_cuda_matrix_destroy(m);
		free(x);
		free(y);
		free(ref);
		free(mag);
		xs_csr_free(&a);
	}
	xs_cuda_ctx_destroy(ctx);
}

TEST(coo_tile_set_equals_csr)
{
	struct xs_cuda_ctx *ctx;
	int i;

	CUDA_OPEN_OR_SKIP(ctx);
	for (i = 0; i < 6; i++) {
		struct xs_csr a;
		struct xs_coo c;
		struct xs_cuda_matrix *m;
		char name[64];
		float *x, *y, *ref;
		size_t l;
		int32_t k;

		if (corpus_get(i, &a, name, sizeof(name)) <= 0)
			continue;
		ASSERT_EQ(0, xs_csr_to_coo(&a, &c));
		x = malloc(sizeof(float) * (a.cols + 1));
		y = malloc(sizeof(float) * (a.rows + 1));
		ref = malloc(sizeof(float) * (a.rows + 1));
		ASSERT_TRUE(x && y && ref);
		for (k = 0; k < a.cols; k++)
			x[k] = (float)(k % 3);
		xs_ref_spmv(&a, x, ref);
		m = xs_cuda_matrix_create_coo(ctx, &c);
		ASSERT_NE(NULL, m) TH_LOG("%s: %s", name, xs_cuda_ctx_error(ctx));
		for (l = 0; l < N_TEST_LAUNCHES; l++) {
			ASSERT_EQ(0, xs_cuda_spmv(m, &test_launches[l], x, y));
			for (k = 0; k < a.rows; k++) {
				ASSERT_TRUE(close_enough(y[k], ref[k],
							 64.0 * (a.nnz + 1)))
					TH_LOG("%s coo row %d", name, k);
			}
		}
		xs_cuda_matrix_destroy(m);
		/* Unsorted rows are rejected. */
		if (c.nnz > 1 && c.row_idx[0] != c.row_idx[c.nnz - 1]) {
			int32_t t = c.row_idx[0];

			c.row_idx[0] = c.row_idx[c.nnz - 1];
			c.row_idx[c.nnz - 1] = t;
			ASSERT_EQ(NULL, xs_cuda_matrix_create_coo(ctx, &c));
			ASSERT_EQ(EINVAL, errno);
		}
		xs_coo_free(&c);
		xs_csr_free(&a);
		free(x);
		free(y);
		free(ref);
	}
	xs_cuda_ctx_destroy(ctx);
}

TEST(bad_launch_options_are_einval)
{
	struct xs_cuda_ctx *ctx;
	struct xs_cuda_matrix *m;
	struct xs_cuda_launch l = { XS_CUDA_SCHED_GROUP_MAPPED, 3, 256, { 0 } };
	struct xs_csr a;
	float x[4] = { 0 }, y[4];

	CUDA_OPEN_OR_SKIP(ctx);
	ASSERT_EQ(0, xs_csr_alloc(&a, 4, 4, 0));
	m = xs_cuda_matrix_create(ctx, &a);
	ASSERT_NE(NULL, m);
	ASSERT_EQ(-EINVAL, xs_cuda_spmv(m, &l, x, y));	/* g not 2^k */
	l.group_size = 512;
	ASSERT_EQ(-EINVAL, xs_cuda_spmv(m, &l, x, y));	/* g > block */
	l.group_size = 0;
	l.block_size = 100;
	ASSERT_EQ(-EINVAL, xs_cuda_spmv(m, &l, x, y));
	l.block_size = 0;
	l.schedule = XS_CUDA_SCHED_NR;
	ASSERT_EQ(-EINVAL, xs_cuda_spmv(m, &l, x, y));
	xs_cuda_matrix_destroy(m);
	xs_csr_free(&a);
	xs_cuda_ctx_destroy(ctx);
}

TEST_HARNESS_MAIN
