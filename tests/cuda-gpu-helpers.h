/* SPDX-License-Identifier: MIT */
/*
 * cuda-gpu-helpers.h - shared pieces of the GPU tests: open the device or
 * SKIP with the CUDA runtime's reason, the launches to try, and the
 * corpus of cuda-corpus.h.
 */
#ifndef XSCHED_TESTS_CUDA_GPU_HELPERS_H
#define XSCHED_TESTS_CUDA_GPU_HELPERS_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xsched/cuda.h"

#include "cuda-corpus.h"

/* In a TEST body: ctx = an open device, or SKIP naming the reason. */
#define CUDA_OPEN_OR_SKIP(ctx)                                              \
	do {                                                                \
		char why_[256];                                             \
		if (xs_cuda_probe(why_, sizeof(why_)) < 0)                  \
			SKIP(return, "no CUDA device: %s", why_);           \
		(ctx) = xs_cuda_ctx_create(0);                              \
		if (!(ctx) && errno == ENODEV)                              \
			SKIP(return, "CUDA device unusable: %s",            \
			     xs_cuda_ctx_error(NULL));                      \
		ASSERT_NE(NULL, (ctx)) TH_LOG("xs_cuda_ctx_create: %s: %s", \
					      strerror(errno),              \
					      xs_cuda_ctx_error(NULL));     \
	} while (0)

/* Launches to try: every schedule, several group sizes and block sizes. */
static const struct xs_cuda_launch test_launches[] = {
	{ XS_CUDA_SCHED_AUTO, 0, 0, { 0 } },
	{ XS_CUDA_SCHED_THREAD_MAPPED, 0, 0, { 0 } },
	{ XS_CUDA_SCHED_WARP_MAPPED, 0, 128, { 0 } },
	{ XS_CUDA_SCHED_BLOCK_MAPPED, 0, 256, { 0 } },
	{ XS_CUDA_SCHED_BLOCK_MAPPED, 0, 1024, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 1, 256, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 4, 256, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 32, 256, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 128, 256, { 0 } },
	{ XS_CUDA_SCHED_GROUP_MAPPED, 512, 512, { 0 } },
	{ XS_CUDA_SCHED_MERGE_PATH, 0, 0, { 0 } },
	{ XS_CUDA_SCHED_MERGE_PATH, 0, 64, { 0 } },
};
#define N_TEST_LAUNCHES (sizeof(test_launches) / sizeof(test_launches[0]))

#endif
