// SPDX-License-Identifier: MIT
/*
 * cuda-simt-spmv-spmm-match-reference: the library's SpMV and SpMM device
 * code (spmv_ops.cuh under every schedule of lb_schedules.cuh, several
 * block and group sizes, odd and library-sized grids), run by the host
 * SIMT emulator, equals the CPU reference on the test corpus (handmade
 * edge cases, RMAT, the Debian matrices when installed). Matrices too big
 * to emulate in seconds are left to the GPU test. No GPU needed.
 */
#include "kselftest_harness.h"
#include "cuda-corpus.h"
#include "simt/simt-kernels.h"

#define SIMT_MAX_NNZ 40000	/* an emulated block-mapped row costs ~us */

struct launch {
	int schedule;
	uint32_t grid, block;
	int32_t group;
};

static const struct launch launches[] = {
	{ XS_CUDA_SCHED_THREAD_MAPPED, 0, 128, 1 },
	{ XS_CUDA_SCHED_THREAD_MAPPED, 3, 64, 1 },
	{ XS_CUDA_SCHED_WARP_MAPPED, 0, 128, 1 },
	{ XS_CUDA_SCHED_WARP_MAPPED, 5, 64, 1 },
	{ XS_CUDA_SCHED_BLOCK_MAPPED, 0, 64, 1 },
	{ XS_CUDA_SCHED_BLOCK_MAPPED, 3, 128, 1 },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 0, 128, 1 },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 0, 128, 4 },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 3, 128, 32 },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 0, 128, 128 },
	{ XS_CUDA_SCHED_MERGE_PATH, 0, 128, 1 },
	{ XS_CUDA_SCHED_MERGE_PATH, 7, 64, 1 },
};
#define N_LAUNCHES (sizeof(launches) / sizeof(launches[0]))

/* Emulated launches are slow on a loaded 2-CPU machine: more than the
 * harness's default 30 s. */
FIXTURE(emulated) {};
FIXTURE_SETUP(emulated) {}
FIXTURE_TEARDOWN(emulated) {}

TEST_F_TIMEOUT(emulated, spmv_every_schedule_every_matrix, 240)
{
	int i, got, done = 0;

	for (i = 0;; i++) {
		struct xs_csr a;
		char name[64];
		float *x, *y, *ref;
		double *mag;
		size_t l;
		int32_t r;

		got = corpus_get(i, &a, name, sizeof(name));
		if (got == 0)
			break;
		if (got < 0) {
			TH_LOG("corpus %d (%s) not available here", i, name);
			continue;
		}
		if (a.nnz > SIMT_MAX_NNZ) {
			TH_LOG("%s: %d nonzeros, left to the GPU test", name,
			       a.nnz);
			xs_csr_free(&a);
			continue;
		}
		x = malloc(sizeof(float) * (a.cols + 1));
		y = malloc(sizeof(float) * (a.rows + 1));
		ref = malloc(sizeof(float) * (a.rows + 1));
		mag = malloc(sizeof(double) * (a.rows + 1));
		ASSERT_TRUE(x && y && ref && mag);
		corpus_spmv_problem(&a, x, ref, mag);
		for (l = 0; l < N_LAUNCHES; l++) {
			const struct launch *ln = &launches[l];
			struct xs_simt_grid g = { ln->grid, ln->block, ln->group, 2 };

			xs_simt_seed(1000 * i + l + 1);
			memset(y, 0xff, sizeof(float) * a.rows);	/* NaN */
			ASSERT_EQ(0, xs_simt_spmv(&a, ln->schedule, &g, x, y))
				TH_LOG("%s: %s", name, xs_simt_error());
			for (r = 0; r < a.rows; r++)
				ASSERT_TRUE(close_enough(y[r], ref[r], mag[r]))
					TH_LOG("%s %s grid %u block %u g %d: row "
					       "%d got %g want %g", name,
					       xs_cuda_schedule_name(ln->schedule),
					       ln->grid, ln->block, ln->group, r,
					       y[r], ref[r]);
		}
		done++;
		free(x);
		free(y);
		free(ref);
		free(mag);
		xs_csr_free(&a);
	}
	ASSERT_LE(4, done);
}

TEST_F_TIMEOUT(emulated, spmm_three_columns_every_schedule, 240)
{
	const int32_t n = 3;
	struct xs_csr a;
	float *b, *c, *ref;
	size_t l;
	int32_t k;

	ASSERT_EQ(0, xs_rmat_generate(&a, 9, 6, 0.6, 0.15, 0.15, 99));
	b = malloc(sizeof(float) * a.cols * n);
	c = malloc(sizeof(float) * a.rows * n);
	ref = malloc(sizeof(float) * a.rows * n);
	ASSERT_TRUE(b && c && ref);
	for (k = 0; k < a.cols * n; k++)
		b[k] = (float)((k * 5) % 9) - 4;
	xs_ref_spmm(&a, b, n, ref);
	for (l = 0; l < N_LAUNCHES; l++) {
		const struct launch *ln = &launches[l];
		struct xs_simt_grid g = { ln->grid, ln->block, ln->group, 2 };

		xs_simt_seed(l + 7);
		ASSERT_EQ(0, xs_simt_spmm(&a, ln->schedule, &g, b, n, c));
		/* Small integers: every partial sum is exact. */
		for (k = 0; k < a.rows * n; k++)
			ASSERT_EQ(ref[k], c[k])
				TH_LOG("%s: row %d column %d",
				       xs_cuda_schedule_name(ln->schedule),
				       k / n, k % n);
	}
	free(b);
	free(c);
	free(ref);
	xs_csr_free(&a);
}

TEST_F_TIMEOUT(emulated, bad_launch_is_einval, 240)
{
	struct xs_simt_grid bad[] = {
		{ 1, 48, 1, 1 },	/* block not a multiple of a warp */
		{ 1, 64, 3, 1 },	/* group not a power of two */
		{ 1, 64, 128, 1 },	/* group larger than the block */
		{ 0, 64, 1, 0 },	/* library grid without SMs */
	};
	int32_t off[] = { 0, 1 }, idx[] = { 0 };
	float val[] = { 2 }, x[] = { 3 }, y[1];
	struct xs_csr a = { 1, 1, 1, off, idx, val };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ASSERT_EQ(-EINVAL, xs_simt_spmv(&a, XS_CUDA_SCHED_GROUP_MAPPED,
						&bad[i], x, y));
	ASSERT_EQ(-EINVAL, xs_simt_spmv(&a, XS_CUDA_SCHED_NR,
					&(struct xs_simt_grid){ 1, 32, 1, 1 }, x, y));
}

TEST_HARNESS_MAIN
