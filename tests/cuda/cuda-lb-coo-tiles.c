// SPDX-License-Identifier: MIT
/*
 * cuda-lb-coo-tiles: a COO tile set (atoms sorted by row) yields, by lower
 * bound on the row array, exactly the CSR offsets of the same matrix.
 */
#include <stdlib.h>

#include "kselftest_harness.h"
#include "../../libxsched/cuda/lb.h"
#include "cuda-lb-helpers.h"

TEST(coo_offsets_equal_csr_offsets)
{
	struct lb_gen gen = { 0 };
	int32_t *rows = malloc(sizeof(int32_t) * 400 * (XS_LB_MAX_TILES + 1));
	long sets = 0;

	ASSERT_NE(NULL, rows);
	while (lb_next(&gen)) {
		int32_t t, a, n = 0;

		for (t = 0; t < gen.ntiles; t++)
			for (a = gen.offsets[t]; a < gen.offsets[t + 1]; a++)
				rows[n++] = t;
		for (t = 0; t <= gen.ntiles; t++) {
			ASSERT_EQ(gen.offsets[t] - gen.offsets[0],
				  xs_coo_tile_begin(rows, n, t));
		}
		sets++;
	}
	ASSERT_GT(sets, 1000);
	free(rows);
}

TEST_HARNESS_MAIN
