// SPDX-License-Identifier: MIT
/*
 * mtx.c - fuzz the Matrix Market reader of the CUDA module.
 *
 * Input: a .mtx file. xs_mtx_read() (libxsched/cuda/mtx.c) turns it into
 * CSR. Promises: a refused file gets an error message; an accepted matrix
 * is well-formed CSR (include/xsched/cuda.h): offsets start at 0, never
 * decrease and end at nnz; column indices are in [0, cols) and sorted
 * within each row.
 */
#include "fuzz.h"
#include "xsched/cuda.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[4200];
	struct xs_csr m;
	char err[512];

	if (!path[0])
		snprintf(path, sizeof(path), "%s/m.mtx", fuzz_tmpdir());
	fuzz_write_file(path, data, size);
	err[0] = '\0';
	memset(&m, 0, sizeof(m));
	if (xs_mtx_read(path, &m, err, sizeof(err))) {
		FUZZ_CHECK(err[0]);
		return 0;
	}
	FUZZ_CHECK(m.rows >= 0 && m.cols >= 0 && m.nnz >= 0);
	FUZZ_CHECK(m.offsets[0] == 0 && m.offsets[m.rows] == m.nnz);
	for (int32_t r = 0; r < m.rows; r++) {
		FUZZ_CHECK(m.offsets[r] <= m.offsets[r + 1]);
		for (int32_t k = m.offsets[r]; k < m.offsets[r + 1]; k++) {
			FUZZ_CHECK(m.indices[k] >= 0 && m.indices[k] < m.cols);
			FUZZ_CHECK(k == m.offsets[r] || m.indices[k - 1] < m.indices[k]);
		}
	}
	xs_csr_free(&m);
	return 0;
}
