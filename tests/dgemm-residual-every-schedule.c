// SPDX-License-Identifier: MIT
/*
 * The blocked DGEMM of xsched-bench --dgemm (tools/bench/dgemm.h) matches
 * a reference triple loop on random matrices of odd shapes (1, 7, 513,
 * 1000 x 37 x 300, ...) under every schedule: static, static cyclic,
 * dynamic, guided, hybrid (two settings). Skips, saying why, without the
 * serial OpenBLAS kernel.
 */
#include <math.h>
#include <stdlib.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"
#include "../tools/bench/dgemm.h"

static double rnd(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return (double)(*s % 20001) / 10000.0 - 1.0;
}

TEST(every_schedule_every_shape)
{
	static const int shapes[][3] = { /* n (rows of C), k, m (columns) */
		{ 1, 1, 1 }, { 7, 7, 7 }, { 513, 513, 513 }, { 1000, 37, 300 },
		{ 37, 1000, 29 }, { 129, 257, 2100 }, { 300, 600, 1 },
	};
	static const struct xs_loop_sched scheds[] = {
		{ .kind = XS_LOOP_STATIC }, { .kind = XS_LOOP_STATIC, .chunk = 1 },
		{ .kind = XS_LOOP_DYNAMIC, .chunk = 1 }, { .kind = XS_LOOP_GUIDED, .chunk = 1 },
		{ .kind = XS_LOOP_HYBRID, .ns = 2, .nd = 4, .grain = 50 },
		{ .kind = XS_LOOP_HYBRID, .ns = 1, .nd = 10, .grain = 100 },
	};
	const char *why = "";
	dg_dgemm_fn kernel = dg_kernel_load(&why);
	struct xs_runtime *rt;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	if (!kernel)
		SKIP(return, "%s", why);
	rt = xs_runtime_create(3);
	ASSERT_NE(NULL, rt);
	for (size_t h = 0; h < sizeof(shapes) / sizeof(shapes[0]); h++) {
		int n = shapes[h][0], k = shapes[h][1], m = shapes[h][2];
		double *A = malloc(sizeof(double) * n * k), *B = malloc(sizeof(double) * k * m);
		double *C = malloc(sizeof(double) * n * m), *R = calloc((size_t)n * m, sizeof(double));

		ASSERT_TRUE(A && B && C && R);
		for (long i = 0; i < (long)n * k; i++)
			A[i] = rnd(&seed);
		for (long i = 0; i < (long)k * m; i++)
			B[i] = rnd(&seed);
		/* The reference: a plain triple loop, column-major. */
		if ((long)n * k * m <= 300000000L / test_scale() || h < 3)
			for (int j = 0; j < m; j++)
				for (int p = 0; p < k; p++)
					for (int i = 0; i < n; i++)
						R[(long)j * n + i] += A[(long)p * n + i] * B[(long)j * k + p];
		for (size_t s = 0; s < sizeof(scheds) / sizeof(scheds[0]); s++) {
			struct dgemm g = { .n = n, .k = k, .m = m, .A = A, .B = B, .C = C,
					   .kernel = kernel };
			double worst = 0;

			ASSERT_EQ(0, dgemm_xsched(rt, &scheds[s], &g));
			for (long i = 0; i < (long)n * m; i++)
				if (fabs(C[i] - R[i]) > worst)
					worst = fabs(C[i] - R[i]);
			/* |C| <= k; rounding of k-term sums: far below 1e-12 k. */
			EXPECT_LT(worst, 1e-12 * k + 1e-13)
				TH_LOG("shape %d x %d x %d schedule %zu: max |C - R| = %g", n, k, m,
				       s, worst);
		}
		free(A), free(B), free(C), free(R);
	}
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
