// SPDX-License-Identifier: MIT
/*
 * cuda-offload-continuation: tasks of the CPU runtime submit SpMV jobs
 * (xs_cuda_spmv_submit) on seeded RMAT matrices under every schedule and
 * return at once; each job's continuation runs on a worker, compares y
 * with the CPU reference and counts itself. When xs_runtime_run() returns,
 * every continuation has run exactly once and every y matched. The same
 * context then serves a runtime with more workers (its table of worker
 * streams grows), and a thread that is not a worker submits on the
 * context's own stream. SKIPs without a GPU.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "kselftest_harness.h"
#include "cuda-gpu-helpers.h"
#include "xsched.h"

#define NMAT 4
#define NJOBS (NMAT * (int)N_TEST_LAUNCHES * 2)

struct job {
	int mat;
	const struct xs_cuda_launch *launch;
	float *x, *y;		/* page-locked */
	int submitted;		/* xs_cuda_spmv_submit()'s return */
	atomic_int ran;		/* times the continuation ran */
	atomic_int matched;	/* it found y equal to the reference */
};

static struct xs_cuda_ctx *ctx;
static struct xs_csr a[NMAT];
static struct xs_cuda_matrix *m[NMAT];
static struct job jobs[NJOBS];
static atomic_int on_worker, bad_submits;

/* Runs on a worker when job i is over. */
static void check(void *arg)
{
	struct job *j = &jobs[*(int *)arg];
	const struct xs_csr *am = &a[j->mat];
	float *ref = malloc(sizeof(float) * (am->rows + 1));
	int32_t r, k;
	int ok = ref && xs_cuda_ctx_check(ctx) == 0;

	if (ok)
		xs_ref_spmv(am, j->x, ref);
	for (r = 0; ok && r < am->rows; r++) {
		double mag = 0;

		for (k = am->offsets[r]; k < am->offsets[r + 1]; k++)
			mag += fabs(am->values[k] * j->x[am->indices[k]]);
		ok = close_enough(j->y[r], ref[r], mag);
	}
	free(ref);
	if (xs_worker_id() >= 0)
		atomic_fetch_add(&on_worker, 1);
	atomic_store(&j->matched, ok);
	atomic_fetch_add(&j->ran, 1);
}

/* A task: submit job i and return without waiting for it. */
static void submit(void *arg)
{
	int i = *(int *)arg;
	struct job *j = &jobs[i];
	struct xs_continuation *c = xs_continuation_create(check, &i, sizeof(i));
	int ret;

	if (!c) {
		j->submitted = -errno;
		atomic_fetch_add(&bad_submits, 1);
		return;
	}
	ret = xs_cuda_spmv_submit(m[j->mat], j->launch, j->x, j->y, c);
	j->submitted = ret;
	if (ret < 0) {
		atomic_fetch_add(&bad_submits, 1);
		xs_continuation_ready(c);	/* still ours on failure */
	}
}

static void root(void *arg)
{
	(void)arg;
	for (int i = 0; i < NJOBS; i++)
		xs_task_spawn(submit, &i, sizeof(i));
}

/* The matrices and the per-job buffers (an ASSERT ends the test). */
static void setup(struct __test_metadata *_metadata)
{
	static const double skew[NMAT][3] = {
		{ 0.25, 0.25, 0.25 }, { 0.45, 0.15, 0.15 },
		{ 0.57, 0.19, 0.19 }, { 0.70, 0.10, 0.10 },
	};
	int i, k;

	for (i = 0; i < NMAT; i++) {
		/* Flat to heavy hubs, 256 to 2048 rows. */
		ASSERT_EQ(0, xs_rmat_generate(&a[i], 8 + i, 8, skew[i][0],
					      skew[i][1], skew[i][2], 4242 + i));
		m[i] = xs_cuda_matrix_create(ctx, &a[i]);
		ASSERT_NE(NULL, m[i]) TH_LOG("%s", xs_cuda_ctx_error(ctx));
	}
	for (i = 0; i < NJOBS; i++) {
		struct job *j = &jobs[i];

		j->mat = i % NMAT;
		j->launch = &test_launches[(i / NMAT) % N_TEST_LAUNCHES];
		j->x = xs_cuda_host_alloc(sizeof(float) * (a[j->mat].cols + 1));
		j->y = xs_cuda_host_alloc(sizeof(float) * (a[j->mat].rows + 1));
		ASSERT_TRUE(j->x && j->y);
		for (k = 0; k < a[j->mat].cols; k++)
			j->x[k] = (float)((k * 7 + i) % 11) - 5;
	}
}

static void teardown(void)
{
	for (int i = 0; i < NJOBS; i++) {
		xs_cuda_host_free(jobs[i].x);
		xs_cuda_host_free(jobs[i].y);
	}
	for (int i = 0; i < NMAT; i++) {
		xs_cuda_matrix_destroy(m[i]);
		xs_csr_free(&a[i]);
	}
	xs_cuda_ctx_destroy(ctx);
}

static void reset(void)
{
	for (int i = 0; i < NJOBS; i++) {
		memset(jobs[i].y, 0xff, sizeof(float) * a[jobs[i].mat].rows);
		jobs[i].submitted = 1;
		atomic_store(&jobs[i].ran, 0);
		atomic_store(&jobs[i].matched, 0);
	}
	atomic_store(&on_worker, 0);
	atomic_store(&bad_submits, 0);
}

TEST(every_continuation_runs_once_and_matches)
{
	static const unsigned int workers[] = { 2, 4 };	/* 4: the table grows */

	CUDA_OPEN_OR_SKIP(ctx);
	setup(_metadata);
	for (size_t w = 0; w < sizeof(workers) / sizeof(workers[0]); w++) {
		struct xs_runtime *rt = xs_runtime_create(workers[w]);
		struct xs_stats st;
		int i;

		ASSERT_NE(NULL, rt);
		reset();
		ASSERT_EQ(0, xs_runtime_run(rt, root, NULL));
		/* Everything below happened before xs_runtime_run()
		 * returned: no wait here. */
		EXPECT_EQ(0, atomic_load(&bad_submits))
			TH_LOG("%s", xs_cuda_ctx_error(ctx));
		for (i = 0; i < NJOBS; i++) {
			const struct job *j = &jobs[i];

			EXPECT_EQ(0, j->submitted) TH_LOG("job %d", i);
			EXPECT_EQ(1, atomic_load(&j->ran)) TH_LOG("job %d", i);
			EXPECT_EQ(1, atomic_load(&j->matched))
				TH_LOG("%u workers, job %d: matrix %d, %s g%d "
				       "b%d", workers[w], i, j->mat,
				       xs_cuda_schedule_name(j->launch->schedule),
				       j->launch->group_size,
				       j->launch->block_size);
		}
		EXPECT_EQ(NJOBS, atomic_load(&on_worker));
		ASSERT_EQ(0, xs_runtime_stats(rt, &st));
		EXPECT_EQ(NJOBS, st.continuations);
		xs_runtime_destroy(rt);
	}
	EXPECT_EQ(0, xs_cuda_ctx_check(ctx));
	teardown();
}

/* A thread that is not a worker submits a continuation created by a task
 * (it goes on the context's own stream). */
static pthread_t outsider;
static int outsider_err;	/* the task's, read after the run */

static void *outsider_submit(void *arg)
{
	struct xs_continuation *c = arg;

	jobs[0].submitted = xs_cuda_spmv_submit(m[0], NULL, jobs[0].x,
						jobs[0].y, c);
	if (jobs[0].submitted < 0)
		xs_continuation_ready(c);
	return NULL;
}

static void hand_over(void *arg)
{
	int i = 0;
	struct xs_continuation *c = xs_continuation_create(check, &i, sizeof(i));

	(void)arg;
	if (!c) {
		outsider_err = errno;
		return;
	}
	outsider_err = pthread_create(&outsider, NULL, outsider_submit, c);
	if (outsider_err)
		xs_continuation_ready(c);	/* no thread: ends the job */
}

TEST(non_worker_submits_on_ctx_stream)
{
	struct xs_runtime *rt;

	CUDA_OPEN_OR_SKIP(ctx);
	setup(_metadata);
	rt = xs_runtime_create(2);
	ASSERT_NE(NULL, rt);
	reset();
	ASSERT_EQ(0, xs_runtime_run(rt, hand_over, NULL));
	ASSERT_EQ(0, outsider_err) TH_LOG("%s", strerror(outsider_err));
	pthread_join(outsider, NULL);
	EXPECT_EQ(0, jobs[0].submitted) TH_LOG("%s", xs_cuda_ctx_error(ctx));
	EXPECT_EQ(1, atomic_load(&jobs[0].ran));
	EXPECT_EQ(1, atomic_load(&jobs[0].matched));
	xs_runtime_destroy(rt);
	teardown();
}

TEST_HARNESS_MAIN
