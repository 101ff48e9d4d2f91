// SPDX-License-Identifier: MIT
/*
 * cuda-simt-sync-server-matches-reference: the synchronization server's
 * device code (msgbuf.cuh: reservation, aggregated sends, valid bitmasks,
 * leader/follower hand-off, batch retirement, termination) and the
 * global-lock baselines (sync_ops.cuh), run by the host SIMT emulator with
 * all blocks co-resident, give exactly the CPU references' hash table and
 * balances: from one server to many, with enough messages per server to
 * wrap its buffer several times, from spread-out keys down to 3 hot ones,
 * under several scheduler seeds; every buffer ends drained. A table too
 * small says -ENOSPC. No GPU needed.
 */
#include "kselftest_harness.h"
#include "cuda-corpus.h"
#include "simt/simt-kernels.h"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

/* (servers, clients, block): a server per client, more clients than
 * servers, more servers than clients, a wide block. */
static const struct xs_simt_sync shapes[] = {
	{ XS_CUDA_SYNC_SERVER, 1, 1, 64 },
	{ XS_CUDA_SYNC_SERVER, 2, 3, 128 },
	{ XS_CUDA_SYNC_SERVER, 3, 2, 64 },
	{ XS_CUDA_SYNC_SERVER, 1, 2, 256 },
	{ XS_CUDA_SYNC_GLOBAL_LOCK, 0, 3, 64 },
};
#define N_SHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* Emulated launches are slow on a loaded 2-CPU machine: more than the
 * harness's default 30 s. */
FIXTURE(emulated) {};
FIXTURE_SETUP(emulated) {}
FIXTURE_TEARDOWN(emulated) {}

TEST_F_TIMEOUT(emulated, hash_upsert_equals_reference, 240)
{
	static const uint32_t distinct[] = { 3, 200, 5000 };
	const int32_t n = 12000, cap = 1 << 14;
	uint32_t *keys = malloc(sizeof(uint32_t) * n);
	int32_t *deltas = malloc(sizeof(int32_t) * n);
	uint32_t *rk = malloc(sizeof(uint32_t) * cap), *gk = malloc(sizeof(uint32_t) * cap);
	int64_t *rv = malloc(sizeof(int64_t) * cap), *gv = malloc(sizeof(int64_t) * cap);
	size_t d, s;

	ASSERT_TRUE(keys && deltas && rk && gk && rv && gv);
	for (d = 0; d < sizeof(distinct) / sizeof(distinct[0]); d++) {
		int32_t nref;

		corpus_hash_inputs(keys, deltas, n, distinct[d], &rng);
		nref = xs_ref_hash_upsert(keys, deltas, n, rk, rv, cap);
		ASSERT_GT(nref, 0);
		for (s = 0; s < N_SHAPES; s++) {
			const struct xs_simt_sync *o = &shapes[s];
			int got;

			xs_simt_seed(17 * d + s + 1);
			got = xs_simt_hash_upsert(o, keys, deltas, n, cap, gk, gv);
			ASSERT_EQ(nref, got)
				TH_LOG("%s, %d servers %d clients of %u, %u keys: %s",
				       o->mode ? "global locks" : "server",
				       o->servers, o->clients, o->block,
				       distinct[d], xs_simt_error());
			ASSERT_EQ(0, memcmp(rk, gk, sizeof(uint32_t) * nref));
			ASSERT_EQ(0, memcmp(rv, gv, sizeof(int64_t) * nref));
		}
	}
	free(keys);
	free(deltas);
	free(rk);
	free(gk);
	free(rv);
	free(gv);
}

TEST_F_TIMEOUT(emulated, bank_transfers_equal_reference, 240)
{
	static const int32_t accounts[] = { 4, 1000 };
	const int32_t n = 10000;
	int32_t *from = malloc(sizeof(int32_t) * n), *to = malloc(sizeof(int32_t) * n);
	int32_t *amt = malloc(sizeof(int32_t) * n);
	int64_t ref[1000], got[1000];
	size_t a, s;

	ASSERT_TRUE(from && to && amt);
	for (a = 0; a < sizeof(accounts) / sizeof(accounts[0]); a++) {
		int32_t na = accounts[a], i;
		int64_t total = 0;

		for (i = 0; i < n; i++) {
			from[i] = (int32_t)(corpus_rand(&rng) % (uint32_t)na);
			to[i] = (int32_t)(corpus_rand(&rng) % (uint32_t)na);
			amt[i] = (int32_t)(corpus_rand(&rng) % 100);
		}
		for (i = 0; i < na; i++)
			ref[i] = 1000;
		xs_ref_bank_transfer(ref, from, to, amt, n);
		for (s = 0; s < N_SHAPES; s++) {
			xs_simt_seed(101 * a + s + 1);
			for (i = 0; i < na; i++)
				got[i] = 1000;
			ASSERT_EQ(0, xs_simt_bank_transfer(&shapes[s], got, na,
							   from, to, amt, n))
				TH_LOG("shape %zu: %s", s, xs_simt_error());
			for (i = 0; i < na; i++) {
				ASSERT_EQ(ref[i], got[i])
					TH_LOG("shape %zu, %d accounts: account %d",
					       s, na, i);
				total += got[i];
			}
			ASSERT_EQ((int64_t)na * 1000, total);
			total = 0;
		}
	}
	free(from);
	free(to);
	free(amt);
}

TEST_F_TIMEOUT(emulated, full_table_is_enospc, 240)
{
	uint32_t keys[200], ok[64];
	int32_t deltas[200], i;
	int64_t ov[64];
	size_t s;

	for (i = 0; i < 200; i++) {
		keys[i] = (uint32_t)i * 7919u;
		deltas[i] = 1;
	}
	for (s = 0; s < N_SHAPES; s++)
		ASSERT_EQ(-ENOSPC, xs_simt_hash_upsert(&shapes[s], keys, deltas,
						       200, 64, ok, ov));
}

TEST_HARNESS_MAIN
