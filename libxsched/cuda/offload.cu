// SPDX-License-Identifier: MIT
/*
 * offload.cu - GPU jobs submitted from tasks of the CPU runtime
 * (include/xsched.h): one stream per worker, stream-ordered allocation, and
 * a completion callback that makes the task's continuation runnable.
 *
 * A job is a chain on the submitting worker's stream:
 *
 *     cudaMallocAsync x, y -> copy x in -> kernel -> copy y out
 *         -> cudaFreeAsync x, y -> callback: xs_continuation_ready(done)
 *
 * so nothing waits on the host, and the callback makes no CUDA call (CUDA
 * forbids that). The callback is a stream callback (cudaStreamAddCallback)
 * rather than a host function (cudaLaunchHostFunc): CUDA runs a stream
 * callback exactly once even after a device error, and does not run a host
 * function at all then, which would leave the job waiting for ever for a
 * continuation that never becomes ready.
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.cuh"
#include "xsched.h"

/* The table pointer: published whole (its streams created, n and s[]
 * written) by the release half of the CAS in streams_publish(); the
 * acquire load in streams_load() pairs with it, so a reader sees those
 * stores. A failed CAS acquires too: it returns the winner's table, which
 * the loser reads next. */
static inline struct xs_cuda_streams *streams_load(struct xs_cuda_ctx *ctx)
{
	return __atomic_load_n(&ctx->streams, __ATOMIC_ACQUIRE);
}

static inline bool streams_publish(struct xs_cuda_ctx *ctx,
				   struct xs_cuda_streams **expected,
				   struct xs_cuda_streams *t)
{
	return __atomic_compare_exchange_n(&ctx->streams, expected, t, false,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

#ifdef XS_DEBUG
/* The invariant of struct xs_cuda_streams over the whole chain. */
static void streams_check(const struct xs_cuda_streams *t)
{
	for (const struct xs_cuda_streams *o = t ? t->older : NULL; o;
	     o = o->older)
		for (int i = 0; i < o->n; i++)
			if (o->n >= t->n || o->s[i] != t->s[i] || !o->s[i]) {
				fprintf(stderr, "xsched-cuda: worker stream "
					"table %d of %d differs from the "
					"newest\n", i, o->n);
				abort();
			}
}
#endif

/*
 * Make a table covering worker @id: the streams of @old for its workers,
 * new streams for the rest, sized for every worker of the caller's runtime
 * so that this happens once per runtime. Workers that get here at once
 * each build a table and race to publish it; the losers destroy what they
 * created (nobody else has seen it) and use the winner's.
 */
static int streams_grow(struct xs_cuda_ctx *ctx, struct xs_cuda_streams *old,
			int id, cudaStream_t *out)
{
	struct xs_cuda_streams *t;
	int n, base, made, ret;

	for (;;) {
		if (old && id < old->n) {
			*out = old->s[id];
			return 0;
		}
		n = xs_worker_count();
		if (n <= id)
			n = id + 1;
		base = old ? old->n : 0;
		t = (struct xs_cuda_streams *)malloc(sizeof(*t) +
						     sizeof(t->s[0]) * n);
		if (!t)
			return -ENOMEM;
		t->n = n;
		t->older = old;
		for (made = 0; made < base; made++)
			t->s[made] = old->s[made];
		for (ret = 0; !ret && made < n; made++)
			ret = XS_CU(ctx, cudaStreamCreateWithFlags(
					&t->s[made], cudaStreamNonBlocking));
		if (ret)
			made--;		/* s[made] was not created */
		else if (streams_publish(ctx, &old, t)) {
#ifdef XS_DEBUG
			streams_check(t);
#endif
			*out = t->s[id];
			return 0;
		}
		while (made-- > base)
			cudaStreamDestroy(t->s[made]);
		free(t);
		if (ret)
			return ret;
		/* Lost the race: old is the winner's table now. */
	}
}

int xs_cuda_stream_get(struct xs_cuda_ctx *ctx, int id, cudaStream_t *out)
{
	struct xs_cuda_streams *t;

	if (id < 0) {
		*out = ctx->stream;
		return 0;
	}
	t = streams_load(ctx);
	if (t && id < t->n) {
		*out = t->s[id];
		return 0;
	}
	return streams_grow(ctx, t, id, out);
}

/* Called when no job can be in flight any more (xs_cuda_ctx_destroy). */
void xs_cuda_streams_destroy(struct xs_cuda_ctx *ctx)
{
	struct xs_cuda_streams *t = streams_load(ctx), *older;
	int i;

#ifdef XS_DEBUG
	streams_check(t);
#endif
	if (t)
		for (i = 0; i < t->n; i++)
			cudaStreamDestroy(t->s[i]);
	for (; t; t = older) {
		older = t->older;
		free(t);
	}
	ctx->streams = NULL;
}

/* Stream-ordered free of p (may be NULL); keeps @ret, the first failure
 * of the caller, or reports this one. */
static int free_async(struct xs_cuda_ctx *ctx, void *p, cudaStream_t s,
		      int ret)
{
	cudaError_t e = p ? cudaFreeAsync(p, s) : cudaSuccess;

	if (ret || e == cudaSuccess)
		return ret;
	return xs_cuda_fail(ctx, e, "cudaFreeAsync");
}

/* On a CUDA host thread: no CUDA call allowed. A device error reaches the
 * continuation through xs_cuda_ctx_check(); the status is not needed. */
static void CUDART_CB job_done(cudaStream_t, cudaError_t, void *done)
{
	xs_continuation_ready((struct xs_continuation *)done);
}

extern "C" int xs_cuda_spmv_submit(struct xs_cuda_matrix *m,
				   const struct xs_cuda_launch *lin,
				   const float *x, float *y,
				   struct xs_continuation *done)
{
	struct xs_cuda_launch l;
	struct xs_cuda_ctx *ctx;
	cudaStream_t s = NULL;
	float *d_x = NULL, *d_y = NULL;
	size_t xsz, ysz;
	int ret;

	if (!m || !x || !y || !done)
		return -EINVAL;
	ctx = m->ctx;
	ret = xs_cuda_launch_resolve(m, lin, &l);
	if (ret)
		return ret;
	if (!ctx->mempools) {
		pthread_mutex_lock(&ctx->error_lock);
		snprintf(ctx->error, sizeof(ctx->error),
			 "%s has no stream-ordered allocator "
			 "(cudaDevAttrMemoryPoolsSupported is 0)", ctx->name);
		pthread_mutex_unlock(&ctx->error_lock);
		return -EOPNOTSUPP;
	}
	xsz = sizeof(float) * (size_t)m->cols;
	ysz = sizeof(float) * (size_t)m->rows;
	ret = XS_CU(ctx, cudaSetDevice(ctx->device));
	if (!ret)
		ret = xs_cuda_stream_get(ctx, xs_worker_id(), &s);
	if (ret)
		goto out;	/* nothing enqueued */
	/* One spare float each: no zero-size allocations. */
	ret = XS_CU(ctx, cudaMallocAsync((void **)&d_x, xsz + sizeof(float), s));
	if (!ret)
		ret = XS_CU(ctx, cudaMallocAsync((void **)&d_y,
						 ysz + sizeof(float), s));
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpyAsync(d_x, x, xsz,
						 cudaMemcpyHostToDevice, s));
	if (!ret)
		ret = xs_cuda_spmv_enqueue(m, &l, d_x, d_y, s);
	if (!ret)
		ret = XS_CU(ctx, cudaMemcpyAsync(y, d_y, ysz,
						 cudaMemcpyDeviceToHost, s));
	/* Freed in stream order, after the copy out, on success or not. */
	ret = free_async(ctx, d_x, s, ret);
	ret = free_async(ctx, d_y, s, ret);
	if (!ret)
		ret = XS_CU(ctx, cudaStreamAddCallback(s, job_done, done, 0));
	if (ret)	/* done stays the caller's: leave x and y alone */
		cudaStreamSynchronize(s);
out:
	/* Clear this thread's last CUDA error, or the launch check of its
	 * next call would report it again. */
	if (ret)
		cudaGetLastError();
	return ret;
}

extern "C" void *xs_cuda_host_alloc(size_t size)
{
	void *p = NULL;
	cudaError_t e;

	if (!size) {
		errno = EINVAL;
		return NULL;
	}
	/* Portable: page-locked for every device of the process. */
	e = cudaHostAlloc(&p, size, cudaHostAllocPortable);
	if (e != cudaSuccess) {
		errno = -xs_cuda_fail(NULL, e, "cudaHostAlloc");
		cudaGetLastError();
		return NULL;
	}
	return p;
}

extern "C" void xs_cuda_host_free(void *p)
{
	if (p)
		cudaFreeHost(p);
}
