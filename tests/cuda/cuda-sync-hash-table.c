// SPDX-License-Identifier: MIT
/*
 * cuda-sync-hash-table: concurrent hash-table upserts through the
 * synchronization server, and through global-memory locks, give exactly
 * the CPU reference's (key, sum) table, from spread-out keys down to heavy
 * contention on a handful of keys; a table too small says -ENOSPC. SKIPs
 * when there is no GPU.
 */
#include "kselftest_harness.h"
#include "cuda-gpu-helpers.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

TEST(server_and_global_lock_equal_reference)
{
	static const uint32_t distinct[] = { 7, 1000, 50000 };
	const int32_t n = 200000, cap = 1 << 17;
	struct xs_cuda_ctx *ctx;
	uint32_t *keys = malloc(sizeof(uint32_t) * n);
	int32_t *deltas = malloc(sizeof(int32_t) * n);
	uint32_t *rk = malloc(sizeof(uint32_t) * cap), *gk = malloc(sizeof(uint32_t) * cap);
	int64_t *rv = malloc(sizeof(int64_t) * cap), *gv = malloc(sizeof(int64_t) * cap);
	size_t d;
	int mode;

	ASSERT_TRUE(keys && deltas && rk && gk && rv && gv);
	CUDA_OPEN_OR_SKIP(ctx);
	for (d = 0; d < sizeof(distinct) / sizeof(distinct[0]); d++) {
		int32_t nref;

		corpus_hash_inputs(keys, deltas, n, distinct[d], &rng);
		nref = xs_ref_hash_upsert(keys, deltas, n, rk, rv, cap);
		ASSERT_GT(nref, 0);
		for (mode = 0; mode < XS_CUDA_SYNC_NR; mode++) {
			struct xs_cuda_sync_opts o = { .mode = mode };
			int got = xs_cuda_hash_upsert(ctx, &o, keys, deltas, n,
						      cap, gk, gv);

			ASSERT_EQ(nref, got) TH_LOG("mode %d, %u keys: %s", mode,
						    distinct[d],
						    xs_cuda_ctx_error(ctx));
			ASSERT_EQ(0, memcmp(rk, gk, sizeof(uint32_t) * nref));
			ASSERT_EQ(0, memcmp(rv, gv, sizeof(int64_t) * nref));
			TH_LOG("%s, %u distinct keys: %.3f ms (%d servers, %d "
			       "clients)", mode ? "global locks" : "server",
			       distinct[d], o.ms, o.server_blocks,
			       o.client_blocks);
		}
	}
	xs_cuda_ctx_destroy(ctx);
	free(keys);
	free(deltas);
	free(rk);
	free(gk);
	free(rv);
	free(gv);
}

TEST(full_table_is_enospc)
{
	struct xs_cuda_ctx *ctx;
	uint32_t keys[200], ok[64];
	int32_t deltas[200], i;
	int64_t ov[64];
	struct xs_cuda_sync_opts o = { .mode = XS_CUDA_SYNC_SERVER,
				       .server_blocks = 1 };

	CUDA_OPEN_OR_SKIP(ctx);
	for (i = 0; i < 200; i++) {
		keys[i] = (uint32_t)i;
		deltas[i] = 1;
	}
	ASSERT_EQ(-ENOSPC, xs_cuda_hash_upsert(ctx, &o, keys, deltas, 200, 64,
					       ok, ov));
	o.mode = XS_CUDA_SYNC_GLOBAL_LOCK;
	ASSERT_EQ(-ENOSPC, xs_cuda_hash_upsert(ctx, &o, keys, deltas, 200, 64,
					       ok, ov));
	xs_cuda_ctx_destroy(ctx);
}

TEST_HARNESS_MAIN
