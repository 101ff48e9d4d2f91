// SPDX-License-Identifier: MIT
/*
 * cuda-rmat-seeded: the RMAT generator is a function of its seed (same
 * seed, same matrix; another seed, another matrix), its CSR is well formed,
 * and a larger 'a' skews the rows (higher coefficient of variation).
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "xsched/cuda.h"

static int well_formed(const struct xs_csr *m)
{
	int32_t r, k;

	if (m->offsets[0] != 0 || m->offsets[m->rows] != m->nnz)
		return 0;
	for (r = 0; r < m->rows; r++)
		for (k = m->offsets[r]; k < m->offsets[r + 1]; k++) {
			if (m->indices[k] < 0 || m->indices[k] >= m->cols)
				return 0;
			if (k > m->offsets[r] && m->indices[k] <= m->indices[k - 1])
				return 0;
			if (!(m->values[k] >= 1.0f))
				return 0;
		}
	return 1;
}

TEST(same_seed_same_matrix)
{
	struct xs_csr a, b, c;

	ASSERT_EQ(0, xs_rmat_generate(&a, 10, 8, 0.57, 0.19, 0.19, 42));
	ASSERT_EQ(0, xs_rmat_generate(&b, 10, 8, 0.57, 0.19, 0.19, 42));
	ASSERT_EQ(0, xs_rmat_generate(&c, 10, 8, 0.57, 0.19, 0.19, 43));
	ASSERT_TRUE(well_formed(&a));
	ASSERT_EQ(1024, a.rows);
	ASSERT_EQ(a.nnz, b.nnz);
	ASSERT_EQ(0, memcmp(a.offsets, b.offsets, sizeof(int32_t) * 1025));
	ASSERT_EQ(0, memcmp(a.indices, b.indices, sizeof(int32_t) * a.nnz));
	ASSERT_EQ(0, memcmp(a.values, b.values, sizeof(float) * a.nnz));
	ASSERT_TRUE(a.nnz != c.nnz ||
		    memcmp(a.indices, c.indices, sizeof(int32_t) * a.nnz));
	xs_csr_free(&a);
	xs_csr_free(&b);
	xs_csr_free(&c);
}

TEST(larger_a_skews_rows)
{
	struct xs_csr flat, skew;
	double mean, cv_flat, cv_skew;

	ASSERT_EQ(0, xs_rmat_generate(&flat, 12, 8, 0.25, 0.25, 0.25, 7));
	ASSERT_EQ(0, xs_rmat_generate(&skew, 12, 8, 0.70, 0.10, 0.10, 7));
	xs_csr_row_stats(&flat, &mean, &cv_flat);
	xs_csr_row_stats(&skew, &mean, &cv_skew);
	ASSERT_LT(cv_flat, 0.6);
	ASSERT_GT(cv_skew, 2 * cv_flat);
	xs_csr_free(&flat);
	xs_csr_free(&skew);
}

TEST(bad_parameters)
{
	struct xs_csr m;

	ASSERT_EQ(-EINVAL, xs_rmat_generate(&m, 0, 8, 0.5, 0.2, 0.2, 1));
	ASSERT_EQ(-EINVAL, xs_rmat_generate(&m, 10, 8, 0.6, 0.3, 0.3, 1));
}

TEST_HARNESS_MAIN
