// SPDX-License-Identifier: MIT
/*
 * schedule.c - schedule names and the heuristic that picks one.
 */
#include <errno.h>
#include <string.h>

#include "xsched/cuda.h"

static const char *const sched_names[XS_CUDA_SCHED_NR] = {
	[XS_CUDA_SCHED_AUTO] = "auto",
	[XS_CUDA_SCHED_THREAD_MAPPED] = "thread-mapped",
	[XS_CUDA_SCHED_WARP_MAPPED] = "warp-mapped",
	[XS_CUDA_SCHED_BLOCK_MAPPED] = "block-mapped",
	[XS_CUDA_SCHED_GROUP_MAPPED] = "group-mapped",
	[XS_CUDA_SCHED_MERGE_PATH] = "merge-path",
};

const char *xs_cuda_schedule_name(enum xs_cuda_schedule s)
{
	if ((unsigned int)s >= XS_CUDA_SCHED_NR)
		return NULL;
	return sched_names[s];
}

int xs_cuda_schedule_parse(const char *name)
{
	int i;

	for (i = 0; name && i < XS_CUDA_SCHED_NR; i++)
		if (!strcmp(name, sched_names[i]))
			return i;
	return -EINVAL;
}

/*
 * Thresholds of the study (section 6.2 of Osama et al., PPoPP '23):
 * merge-path unless (rows < alpha or cols < alpha) and nnz < beta, with
 * alpha = 500 and beta = 10^4. Below that, the spread of the rows decides
 * between one tile per thread (even rows) and group-mapped (skewed rows,
 * where a thread per row would leave most of a warp idle).
 */
#define XS_SCHED_ALPHA 500
#define XS_SCHED_BETA 10000

/*
 * Above those sizes, rows of even length (cv <= 1) and at least
 * XS_SCHED_WARP_MEAN nonzeros on average go to warp-mapped: a warp per row
 * reads the row in coalesced sweeps with no search, where merge-path pays
 * binary searches for a balance such rows do not need. On an H200
 * (docs/perf/device-2026-11-28.md) warp-mapped beat merge-path on every
 * RMAT graph of even rows (cv 0.25, 16 per row) from 65 K to 16 M
 * nonzeros, and lost to it on every skewed one (cv 1.95 to 9.43).
 */
#define XS_SCHED_WARP_MEAN 8

enum xs_cuda_schedule xs_cuda_schedule_pick(int32_t rows, int32_t cols,
					    int32_t nnz, double row_cv)
{
	double mean = rows > 0 ? (double)nnz / rows : 0;

	if ((rows < XS_SCHED_ALPHA || cols < XS_SCHED_ALPHA) &&
	    nnz < XS_SCHED_BETA) {
		if (row_cv > 1.0 || mean > 32)
			return XS_CUDA_SCHED_GROUP_MAPPED;
		return XS_CUDA_SCHED_THREAD_MAPPED;
	}
	if (row_cv <= 1.0 && mean >= XS_SCHED_WARP_MEAN)
		return XS_CUDA_SCHED_WARP_MAPPED;
	return XS_CUDA_SCHED_MERGE_PATH;
}
