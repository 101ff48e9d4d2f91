/* SPDX-License-Identifier: MIT */
/*
 * mtx.h - the Matrix Market reader's stream entry (internal).
 *
 * xs_mtx_read() (include/xsched/cuda.h) opens the file and calls
 * xs_mtx_read_stream() with its size; tests/fuzz/mtx.c calls it on a
 * memory stream. Same parser, same limits, same messages.
 */
#ifndef XSCHED_CUDA_MTX_H
#define XSCHED_CUDA_MTX_H

#include <stdio.h>

#include "xsched/cuda.h"

/*
 * Read a Matrix Market file from @f, at its start; @path names it in
 * messages and @size is its length in bytes (-1 when not known: then the
 * entries are not bounded by the file's size). As xs_mtx_read(), except
 * that @f is the caller's to close.
 */
int xs_mtx_read_stream(FILE *f, const char *path, long long size,
		       struct xs_csr *out, char *err, size_t errlen);

#endif /* XSCHED_CUDA_MTX_H */
