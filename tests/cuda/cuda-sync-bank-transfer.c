// SPDX-License-Identifier: MIT
/*
 * cuda-sync-bank-transfer: half a million transfers between accounts, through
 * the synchronization server (one message per account to its owner) and
 * through pairs of global locks, end in exactly the CPU reference's
 * balances, with money conserved; few accounts make heavy contention.
 * SKIPs when there is no GPU.
 */
#include "kselftest_harness.h"
#include "cuda-gpu-helpers.h"

TEST(server_and_global_lock_equal_reference)
{
	static const int32_t accounts[] = { 4, 1000, 1 << 20 };
	const int32_t n = 1 << 19;	/* under the harness's 30 s per test */
	int32_t *from = malloc(sizeof(int32_t) * n);
	int32_t *to = malloc(sizeof(int32_t) * n);
	int32_t *amt = malloc(sizeof(int32_t) * n);
	struct xs_cuda_ctx *ctx;
	uint64_t rng = 88172645463325252ULL;
	size_t a;

	ASSERT_TRUE(from && to && amt);
	CUDA_OPEN_OR_SKIP(ctx);
	for (a = 0; a < sizeof(accounts) / sizeof(accounts[0]); a++) {
		int32_t na = accounts[a], i;
		int64_t *ref = malloc(sizeof(int64_t) * na);
		int64_t *got = malloc(sizeof(int64_t) * na);
		int mode;

		ASSERT_TRUE(ref && got);
		for (i = 0; i < n; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			from[i] = (int32_t)(rng % na);
			to[i] = (int32_t)((rng >> 24) % na);
			amt[i] = (int32_t)((rng >> 48) % 100);
		}
		for (i = 0; i < na; i++)
			ref[i] = 1000;
		xs_ref_bank_transfer(ref, from, to, amt, n);
		for (mode = 0; mode < XS_CUDA_SYNC_NR; mode++) {
			struct xs_cuda_sync_opts o = { .mode = mode };
			int64_t total = 0;

			for (i = 0; i < na; i++)
				got[i] = 1000;
			ASSERT_EQ(0, xs_cuda_bank_transfer(ctx, &o, got, na, from,
							   to, amt, n))
				TH_LOG("mode %d: %s", mode, xs_cuda_ctx_error(ctx));
			for (i = 0; i < na; i++)
				total += got[i];
			ASSERT_EQ((int64_t)na * 1000, total);
			ASSERT_EQ(0, memcmp(ref, got, sizeof(int64_t) * na));
			TH_LOG("%s, %d accounts: %.3f ms",
			       mode ? "global locks" : "server", na, o.ms);
		}
		free(ref);
		free(got);
	}
	xs_cuda_ctx_destroy(ctx);
	free(from);
	free(to);
	free(amt);
}

TEST(bad_account_is_einval)
{
	struct xs_cuda_ctx *ctx;
	struct xs_cuda_sync_opts o = { 0 };
	int64_t bal[2] = { 0, 0 };
	int32_t from = 0, to = 2, amt = 1;

	CUDA_OPEN_OR_SKIP(ctx);
	ASSERT_EQ(-EINVAL, xs_cuda_bank_transfer(ctx, &o, bal, 2, &from, &to,
						 &amt, 1));
	o.server_blocks = 1000;
	to = 1;
	ASSERT_EQ(-EINVAL, xs_cuda_bank_transfer(ctx, &o, bal, 2, &from, &to,
						 &amt, 1));
	xs_cuda_ctx_destroy(ctx);
}

TEST_HARNESS_MAIN
