// SPDX-License-Identifier: MIT
/*
 * cuda-no-device-is-clean: without a usable GPU (no driver, no device)
 * every entry point answers with a status, never a crash: probe says
 * -ENODEV and why, the context constructor returns NULL with errno ENODEV.
 * With a GPU, the same calls succeed and describe the device. Runs (and
 * passes) on every machine.
 */
#include <errno.h>
#include <string.h>

#include "kselftest_harness.h"
#include "xsched/cuda.h"

TEST(probe_and_create_agree)
{
	char why[256] = "unset", name[128];
	int n = xs_cuda_probe(why, sizeof(why)), sms = 0;
	struct xs_cuda_ctx *ctx;

	if (n < 0) {
		ASSERT_EQ(-ENODEV, n);
		ASSERT_NE(0, why[0]);
		ASSERT_NE(0, strcmp(why, "unset"));
		TH_LOG("no CUDA device: %s", why);
		errno = 0;
		ctx = xs_cuda_ctx_create(0);
		ASSERT_EQ(NULL, ctx);
		ASSERT_EQ(ENODEV, errno);
		ASSERT_EQ(0, strcmp(why, xs_cuda_ctx_error(NULL)));
		/* Still a status the second time (no sticky crash). */
		ASSERT_EQ(-ENODEV, xs_cuda_probe(NULL, 0));
		return;
	}
	ASSERT_GT(n, 0);
	ctx = xs_cuda_ctx_create(0);
	ASSERT_NE(NULL, ctx);
	ASSERT_EQ(0, xs_cuda_ctx_info(ctx, name, sizeof(name), &sms));
	ASSERT_GT(sms, 0);
	TH_LOG("device 0: %s, %d SMs", name, sms);
	errno = 0;
	ASSERT_EQ(NULL, xs_cuda_ctx_create(n));	/* out of range */
	ASSERT_EQ(EINVAL, errno);
	xs_cuda_ctx_destroy(ctx);
}

TEST(null_arguments_are_einval)
{
	float x = 0, y = 0;

	ASSERT_EQ(-EINVAL, xs_cuda_spmv(NULL, NULL, &x, &y));
	ASSERT_EQ(-EINVAL, xs_cuda_bfs(NULL, NULL, 0, NULL));
	ASSERT_EQ(-EINVAL, xs_cuda_hash_upsert(NULL, NULL, NULL, NULL, 0, 64,
					       NULL, NULL));
	ASSERT_EQ(NULL, xs_cuda_matrix_create(NULL, NULL));
	ASSERT_EQ(EINVAL, errno);
	xs_cuda_ctx_destroy(NULL);
	xs_cuda_matrix_destroy(NULL);
}

TEST_HARNESS_MAIN
