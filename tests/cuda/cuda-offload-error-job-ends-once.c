// SPDX-License-Identifier: MIT
/*
 * cuda-offload-error-job-ends-once: a submission that fails leaves its
 * continuation to the caller (include/xsched/cuda.h, rule 2). The call
 * returns -errno without making the continuation ready, the task makes it
 * ready itself, the job ends, and every continuation runs exactly once;
 * nothing was written to y. Runs on every machine: without a GPU no
 * matrix can exist, so the tasks submit what a failed set-up leaves them
 * (no matrix), and page-locked memory is -ENODEV. With a GPU they also
 * submit a real matrix with bad arguments.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"
#include "xsched.h"
#include "xsched/cuda.h"

#define NJOBS 200
#define NCASES 4

static struct xs_cuda_matrix *m;	/* NULL without a GPU */
static float x[64], y[NJOBS][64];
static int submitted[NJOBS];
static atomic_int ran[NJOBS];

static void count(void *arg)
{
	atomic_fetch_add(&ran[*(int *)arg], 1);
}

/* A task: submit job i with one of the bad arguments, and follow the
 * rule when it fails. */
static void submit(void *arg)
{
	static const struct xs_cuda_launch bad_block = { .block_size = 48 };
	static const struct xs_cuda_launch bad_schedule = {
		.schedule = XS_CUDA_SCHED_NR,
	};
	int i = *(int *)arg, ret;
	struct xs_continuation *c = xs_continuation_create(count, &i, sizeof(i));

	if (!c) {
		submitted[i] = -errno;
		return;
	}
	switch (i % NCASES) {
	case 0:		/* whatever the matrix, no x */
		ret = xs_cuda_spmv_submit(m, NULL, NULL, y[i], c);
		break;
	case 1:		/* no continuation: c is not passed, still ours */
		ret = xs_cuda_spmv_submit(m, NULL, x, y[i], NULL);
		break;
	case 2:
		ret = xs_cuda_spmv_submit(m, &bad_block, x, y[i], c);
		break;
	default:
		ret = xs_cuda_spmv_submit(m, &bad_schedule, x, y[i], c);
		break;
	}
	submitted[i] = ret;
	if (ret < 0)
		xs_continuation_ready(c);
}

static void root(void *arg)
{
	(void)arg;
	for (int i = 0; i < NJOBS; i++)
		xs_task_spawn(submit, &i, sizeof(i));
}

TEST(failed_submissions_end_the_job_once)
{
	struct xs_cuda_ctx *ctx = NULL;
	struct xs_runtime *rt;
	struct xs_stats st;
	struct xs_csr a;
	char why[256];
	int i, k;

	ASSERT_EQ(0, xs_rmat_generate(&a, 6, 1, 0.25, 0.25, 0.25, 7));
	ASSERT_GE(64, a.rows);
	if (xs_cuda_probe(why, sizeof(why)) > 0) {
		ctx = xs_cuda_ctx_create(0);
		snprintf(why, sizeof(why), "%s", xs_cuda_ctx_error(NULL));
	}
	if (ctx) {
		m = xs_cuda_matrix_create(ctx, &a);
		ASSERT_NE(NULL, m) TH_LOG("%s", xs_cuda_ctx_error(ctx));
		TH_LOG("with a GPU: a real matrix, bad arguments");
	} else {
		TH_LOG("no usable GPU (%s): no matrix", why);
	}
	memset(y, 0x5a, sizeof(y));
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
	for (i = 0; i < NJOBS; i++) {
		const unsigned char *b = (const unsigned char *)y[i];

		EXPECT_EQ(-EINVAL, submitted[i]) TH_LOG("job %d", i);
		EXPECT_EQ(1, atomic_load(&ran[i])) TH_LOG("job %d", i);
		for (k = 0; k < (int)sizeof(y[i]); k++)
			ASSERT_EQ(0x5a, b[k]) TH_LOG("job %d wrote y", i);
	}
	ASSERT_EQ(0, xs_runtime_stats(rt, &st));
	EXPECT_EQ(NJOBS, st.continuations);
	xs_runtime_destroy(rt);
	if (ctx)
		EXPECT_EQ(0, xs_cuda_ctx_check(ctx));
	xs_cuda_matrix_destroy(m);
	xs_cuda_ctx_destroy(ctx);
	xs_csr_free(&a);
}

TEST(host_memory_and_check_without_device)
{
	char why[256];
	void *p;

	errno = 0;
	EXPECT_EQ(NULL, xs_cuda_host_alloc(0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, xs_cuda_ctx_check(NULL));
	xs_cuda_host_free(NULL);
	p = xs_cuda_host_alloc(4096);
	if (xs_cuda_probe(why, sizeof(why)) < 0) {
		/* The CUDA runtime's own failure, as a status. */
		EXPECT_EQ(NULL, p);
		EXPECT_EQ(ENODEV, errno);
		return;
	}
	ASSERT_NE(NULL, p);
	memset(p, 1, 4096);
	xs_cuda_host_free(p);
}

TEST_HARNESS_MAIN
