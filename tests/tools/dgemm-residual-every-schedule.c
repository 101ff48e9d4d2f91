// SPDX-License-Identifier: MIT
/*
 * The blocked DGEMM of xsched-bench --dgemm
 * (tools/bench/programs/dgemm/dgemm.h) matches a reference triple loop on
 * random matrices of odd shapes (1, 7, 513, 1000 x 37 x 300, ...: edge
 * micro-tiles in both directions, k not a multiple of DG_KC, more than one
 * DG_NC block) under every schedule (static, static cyclic, dynamic,
 * guided, hybrid in two settings) and with both micro-kernels: the portable
 * C one and, where the CPU has AVX2 and FMA, the AVX2 one. Half the runs
 * compute C = A B over a C full of NaN (beta = 0 must not read C), the
 * other half C = 0.75 A B - 0.5 C.
 */
#include <math.h>
#include <stdlib.h>
#include "xsched.h"
#include "xs_test.h"
#include "test-scale.h"
#include "../../tools/bench/programs/dgemm/dgemm.h"

static double rnd(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return (double)(*s % 20001) / 10000.0 - 1.0;
}

struct kernel {
	const char *name;
	dg_ukr_fn fn;
};

static int kernels(struct kernel *k)
{
	int n = 0;

	k[n++] = (struct kernel){ "portable C", dg_ukr_c };
#if DG_HAVE_AVX2_PATH
	if (dg_cpu_has_avx2_fma())
		k[n++] = (struct kernel){ "avx2+fma", dg_ukr_avx2 };
#endif
	return n;
}

TEST(every_schedule_every_shape_both_kernels)
{
	static const int shapes[][3] = { /* n (rows of C), k, m (columns) */
		{ 1, 1, 1 }, { 7, 7, 7 }, { 513, 513, 513 }, { 1000, 37, 300 },
		{ 37, 1000, 29 }, { 129, 257, 4300 }, { 300, 600, 1 }, { 9, 0, 5 },
	};
	static const struct xs_loop_sched scheds[] = {
		{ .kind = XS_LOOP_STATIC }, { .kind = XS_LOOP_STATIC, .chunk = 1 },
		{ .kind = XS_LOOP_DYNAMIC, .chunk = 1 }, { .kind = XS_LOOP_GUIDED, .chunk = 1 },
		{ .kind = XS_LOOP_HYBRID, .ns = 2, .nd = 4, .grain = 50 },
		{ .kind = XS_LOOP_HYBRID, .ns = 1, .nd = 10, .grain = 100 },
	};
	struct kernel ks[2];
	int nk = kernels(ks), runs = 0;
	struct xs_runtime *rt;
	uint64_t seed = 0x9e3779b97f4a7c15ull;

	if (nk < 2)
		TH_LOG("no AVX2+FMA path on this CPU: only the portable kernel is checked");
	rt = xs_runtime_create(3);
	ASSERT_NE(NULL, rt);
	for (size_t h = 0; h < sizeof(shapes) / sizeof(shapes[0]); h++) {
		int n = shapes[h][0], k = shapes[h][1], m = shapes[h][2];
		size_t nm = (size_t)n * m;
		double *A = malloc(sizeof(double) * n * (k ? k : 1));
		double *B = malloc(sizeof(double) * (k ? k : 1) * m);
		double *C = malloc(sizeof(double) * nm), *C0 = malloc(sizeof(double) * nm);
		double *R = calloc(nm, sizeof(double));

		ASSERT_TRUE(A && B && C && C0 && R);
		/* Sanitizers: the big shapes would take minutes. */
		if (test_scale() > 1 && (long)n * k * m > 20000000L) {
			TH_LOG("shape %d x %d x %d skipped under a sanitizer", n, k, m);
			free(A), free(B), free(C), free(C0), free(R);
			continue;
		}
		for (long i = 0; i < (long)n * k; i++)
			A[i] = rnd(&seed);
		for (long i = 0; i < (long)k * m; i++)
			B[i] = rnd(&seed);
		for (size_t i = 0; i < nm; i++)
			C0[i] = rnd(&seed);
		/* The reference A B: a plain triple loop, column-major. */
		for (int j = 0; j < m; j++)
			for (int p = 0; p < k; p++)
				for (int i = 0; i < n; i++)
					R[(long)j * n + i] += A[(long)p * n + i] * B[(long)j * k + p];
		for (int ki = 0; ki < nk; ki++) {
			for (size_t s = 0; s < sizeof(scheds) / sizeof(scheds[0]); s++) {
				int ab = (s + ki) % 2;
				struct dgemm g = { .n = n, .k = k, .m = m, .A = A, .B = B, .C = C,
						   .alpha = ab ? 0.75 : 1.0, .beta = ab ? -0.5 : 0.0,
						   .ukr = ks[ki].fn };
				double worst = 0;

				for (size_t i = 0; i < nm; i++)
					C[i] = ab ? C0[i] : NAN;
				ASSERT_EQ(0, dgemm_xsched(rt, &scheds[s], &g));
				for (size_t i = 0; i < nm; i++) {
					double want = ab ? 0.75 * R[i] - 0.5 * C0[i] : R[i];

					if (!(fabs(C[i] - want) <= worst)) /* NaN too */
						worst = isnan(C[i]) ? INFINITY : fabs(C[i] - want);
				}
				/* |A B| <= k; rounding of k-term sums: far below 1e-12 k. */
				EXPECT_LT(worst, 1e-12 * k + 1e-13)
					TH_LOG("%s kernel, shape %d x %d x %d, schedule %zu, %s: "
					       "max |C - R| = %g", ks[ki].name, n, k, m, s,
					       ab ? "C = 0.75 A B - 0.5 C" : "C = A B", worst);
				runs++;
			}
		}
		free(A), free(B), free(C), free(C0), free(R);
	}
	TH_LOG("%d products checked, %d kernel(s)", runs, nk);
	xs_runtime_destroy(rt);
}

TEST_HARNESS_MAIN
