/* SPDX-License-Identifier: MIT */
/*
 * internal.cuh - what the .cu files of libxsched-cuda share: the context and
 * device-matrix structs, CUDA error conversion, and small launch helpers.
 * Nothing here is exported (see xsched-cuda.map).
 */
#ifndef XSCHED_CUDA_INTERNAL_CUH
#define XSCHED_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "lb.h"
#include "xsched/cuda.h"

#define XS_HIDDEN __attribute__((visibility("hidden")))

/*
 * The streams of the workers of a task runtime (offload.cu), one per
 * worker id. Invariant: a table is immutable once published in
 * ctx->streams; s[i] is a live stream for every i < n. A table is only
 * ever replaced by a bigger one that starts with the same streams (a
 * runtime with more workers came along); the replaced one stays on the
 * older chain, because readers may still hold it, until the context is
 * destroyed, which destroys the streams of the newest table.
 */
struct xs_cuda_streams {
	int n;
	struct xs_cuda_streams *older;
	cudaStream_t s[];
};

struct xs_cuda_ctx {
	int device;
	int sm_count;
	int max_threads_per_sm;
	int cooperative;		/* cudaDevAttrCooperativeLaunch */
	int mempools;			/* cudaMallocAsync works */
	cudaStream_t stream;		/* sync API, and non-worker threads */
	/* Published with a release CAS in offload.cu, read with acquire. */
	struct xs_cuda_streams *streams;
	pthread_mutex_t error_lock;	/* writers of error: any thread */
	char name[128];
	char error[256];		/* last failing CUDA call, for humans */
};

/* A CSR on the device. Invariant: d_offsets[0] == 0, d_offsets[rows] ==
 * nnz, indices < cols (checked on upload). */
struct xs_cuda_matrix {
	struct xs_cuda_ctx *ctx;
	int32_t rows, cols, nnz;
	int nonneg;			/* all values >= 0 (SSSP weights) */
	double row_cv;			/* for the heuristic */
	int32_t *d_offsets;
	int32_t *d_indices;
	float *d_values;
};

/*
 * Record @e (with the call's text) in ctx and turn it into -errno: no
 * device or driver -> -ENODEV, out of memory -> -ENOMEM, bad launch
 * arguments -> -EINVAL, everything else (a fault in a kernel) -> -EIO.
 */
XS_HIDDEN int xs_cuda_fail(struct xs_cuda_ctx *ctx, cudaError_t e,
			   const char *what);

/* `ret = XS_CU(ctx, call)` style: evaluates to 0 or -errno. */
#define XS_CU(ctx, call)                                                   \
	({                                                                 \
		cudaError_t xs_e_ = (call);                                \
		xs_e_ == cudaSuccess ? 0 : xs_cuda_fail((ctx), xs_e_, #call); \
	})

/* The stream of worker @id (xs_worker_id(); ctx->stream for -1) in *out,
 * creating the table of worker streams at first use. 0 or -errno. */
XS_HIDDEN int xs_cuda_stream_get(struct xs_cuda_ctx *ctx, int id,
				 cudaStream_t *out);
/* Destroy the worker streams of ctx and free their tables. */
XS_HIDDEN void xs_cuda_streams_destroy(struct xs_cuda_ctx *ctx);

/* Enqueue y = A x on stream s; x and y are device arrays of cols and rows
 * floats. 0 or -errno (nothing enqueued after the failing step). */
XS_HIDDEN int xs_cuda_spmv_enqueue(struct xs_cuda_matrix *m,
				   const struct xs_cuda_launch *l,
				   const float *d_x, float *d_y, cudaStream_t s);

/* Allocate m's device arrays (offsets for m->rows, indices and values for
 * m->nnz) and copy @indices and @values there; the caller fills
 * d_offsets. 0 or -errno. */
XS_HIDDEN int xs_cuda_matrix_upload(struct xs_cuda_matrix *m, const int32_t *indices,
				    const float *values);

/*
 * The SpMV timing harness shared by xs_cuda_spmv_time() and the cuSPARSE
 * baseline, so that both are measured the same way: device x (all ones)
 * and y for m, and two events on the context's stream.
 *   ret = xs_cuda_timing_begin(m, &t);
 *   ... warm-up, cudaEventRecord(t.start), reps timed runs ...
 *   ret = xs_cuda_timing_stop(m, &t, ret, reps, ms, y);
 *   xs_cuda_timing_free(&t);
 * _stop() records the stop event, waits, stores the mean milliseconds per
 * run in *ms and copies y back when y is not NULL; it passes an earlier
 * failure @ret through untouched.
 */
struct xs_cuda_timing {
	cudaEvent_t start, stop;
	float *d_x, *d_y;
};

XS_HIDDEN int xs_cuda_timing_begin(struct xs_cuda_matrix *m, struct xs_cuda_timing *t);
XS_HIDDEN int xs_cuda_timing_stop(struct xs_cuda_matrix *m, struct xs_cuda_timing *t,
				  int ret, int reps, double *ms, float *y);
XS_HIDDEN void xs_cuda_timing_free(struct xs_cuda_timing *t);

/* Resolve AUTO and fill defaults; -EINVAL for a bad group or block size. */
XS_HIDDEN int xs_cuda_launch_resolve(const struct xs_cuda_matrix *m,
				     const struct xs_cuda_launch *in,
				     struct xs_cuda_launch *out);

/* Grid size for @threads threads of @block, capped for grid-stride loops. */
static inline unsigned int xs_grid(const struct xs_cuda_ctx *ctx,
				   int64_t threads, int block)
{
	return xs_grid_size(ctx->sm_count, threads, block);
}

#endif /* XSCHED_CUDA_INTERNAL_CUH */
