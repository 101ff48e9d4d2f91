/* SPDX-License-Identifier: MIT */
/*
 * simt-kernels.h - libxsched-cuda's kernels run by the host SIMT emulator
 * (simt.h), behind a C API for the kselftest tests. Each function runs the
 * library's own device code (lb_schedules.cuh and the *_ops.cuh,
 * msgbuf.cuh) on host memory, in place of the CUDA runtime calls of the
 * library's .cu files, and returns 0 (or a count) or -errno; -EPROTO means
 * a post-condition of the kernel failed, and xs_simt_error() says which.
 */
#ifndef XSCHED_TESTS_SIMT_KERNELS_H
#define XSCHED_TESTS_SIMT_KERNELS_H

#include <stdint.h>

#include "xsched/cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The launch of a schedule: grid blocks of block threads (grid 0: the
 * library's own grid size, xs_schedule_threads and xs_grid_size, for a
 * device of sm_count SMs); group: g of the group-mapped schedule. */
struct xs_simt_grid {
	uint32_t grid;
	uint32_t block;
	int32_t group;
	int32_t sm_count;
};

/* The synchronization server's launch: @servers server blocks and
 * @clients client blocks of @block threads, all co-resident; the
 * global-lock baseline uses @clients blocks. */
struct xs_simt_sync {
	int mode;		/* XS_CUDA_SYNC_SERVER or _GLOBAL_LOCK */
	int32_t servers;
	int32_t clients;
	uint32_t block;
};

/* Seed the emulator's scheduler (every interleaving follows from it). */
void xs_simt_seed(uint64_t seed);
/* What the last -EPROTO was about. */
const char *xs_simt_error(void);

/* y = A x, C = A B (B and C row-major with n columns). */
int xs_simt_spmv(const struct xs_csr *a, int schedule,
		 const struct xs_simt_grid *g, const float *x, float *y);
int xs_simt_spmm(const struct xs_csr *a, int schedule,
		 const struct xs_simt_grid *g, const float *b, int32_t n,
		 float *c);

/*
 * Run @schedule over the tile set @offsets (ntiles + 1 entries) with an op
 * that counts: hits[a - offsets[0]] = times atom a was visited, ends[t] =
 * times tile t was finished, complete[t] = of those, how many said
 * complete, sum[t] = sum of the partial sums passed for tile t (each atom
 * is worth 1). -EPROTO if an atom was visited as part of a tile it is not
 * in.
 */
int xs_simt_cover(const int32_t *offsets, int32_t ntiles, int schedule,
		  const struct xs_simt_grid *g, int32_t *hits, int32_t *ends,
		  int32_t *complete, float *sum);

/* BFS depths (-1: unreached) and SSSP distances (INFINITY: unreached)
 * from @source; the number of expansions, or -errno. */
int xs_simt_bfs(const struct xs_csr *graph, int32_t source, int schedule,
		const struct xs_simt_grid *g, int32_t *depth);
int xs_simt_sssp(const struct xs_csr *graph, int32_t source, int schedule,
		 const struct xs_simt_grid *g, float *dist);

/* The two applications of the synchronization server, with the contracts
 * of xs_cuda_hash_upsert() and xs_cuda_bank_transfer(). After a server
 * run, every message buffer must be drained (read == write index, no valid
 * bit left), else -EPROTO. */
int xs_simt_hash_upsert(const struct xs_simt_sync *o, const uint32_t *keys,
			const int32_t *deltas, int32_t n, int32_t capacity,
			uint32_t *out_keys, int64_t *out_vals);
int xs_simt_bank_transfer(const struct xs_simt_sync *o, int64_t *balances,
			  int32_t naccounts, const int32_t *from,
			  const int32_t *to, const int32_t *amounts, int32_t n);

#ifdef __cplusplus
}
#endif

#endif /* XSCHED_TESTS_SIMT_KERNELS_H */
