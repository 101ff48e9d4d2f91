// SPDX-License-Identifier: MIT
/*
 * mtx.c - fuzz the Matrix Market reader of the CUDA module.
 *
 * Input: a .mtx file. xs_mtx_read_stream() (libxsched/cuda/mtx.c, the
 * parser xs_mtx_read() runs on an opened file) reads it from a memory
 * stream of its size: no file is written per input. Promises: a refused
 * file gets an error message; an accepted matrix is well-formed CSR
 * (include/xsched/cuda.h): offsets start at 0, never decrease and end at
 * nnz; column indices are in [0, cols) and sorted within each row.
 */
#include "fuzz.h"
#include "xsched/cuda.h"
#include "../../libxsched/cuda/mtx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t empty[1];
	struct xs_csr m;
	char err[512];
	FILE *f;
	int ret;

	/* glibc before 2.22 refuses a stream of size 0: give it one byte of
	 * buffer and the size 0 the reader is told */
	f = fmemopen((void *)(size ? data : empty), size ? size : 1, "r");
	if (!f)
		abort();
	if (!size)
		fseek(f, 1, SEEK_SET);
	err[0] = '\0';
	memset(&m, 0, sizeof(m));
	ret = xs_mtx_read_stream(f, "fuzz.mtx", (long long)size, &m, err, sizeof(err));
	fclose(f);
	if (ret) {
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
