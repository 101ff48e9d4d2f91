/* SPDX-License-Identifier: MIT */
/*
 * xsched/cuda.h - the CUDA module of xsched: load-balanced sparse kernels
 * and a GPU synchronization server, behind a plain C API.
 *
 * Two halves:
 *
 *   host  (always built, libxsched-cuda-host.a and libxsched-cuda.so):
 *         CSR/COO containers, a Matrix Market reader, a seeded RMAT
 *         generator, the schedule heuristic, and CPU reference versions of
 *         every GPU operation. Tests compare the GPU against these.
 *
 *   device (libxsched-cuda.so, built when nvcc is found):
 *         struct xs_cuda_ctx (one device, its own stream and one stream per
 *         worker of the task runtime), device matrices, SpMV / SpMM / BFS /
 *         SSSP under a chosen load-balancing schedule, cuSPARSE SpMV as the
 *         baseline, the synchronization-server applications (hash table,
 *         bank transfers) with their global-lock baselines, and offload:
 *         GPU jobs submitted from tasks of libxsched (include/xsched.h)
 *         that complete into continuations.
 *
 * Conventions (liburing style): functions return >= 0 on success and
 * -errno on failure; constructors return NULL and set errno. "No CUDA
 * device" (no driver, no GPU, any failing runtime call during set-up) is
 * -ENODEV / errno ENODEV, never a crash; xs_cuda_probe() says why.
 * Indices are int32_t: matrices hold fewer than 2^31 nonzeros.
 */
#ifndef XSCHED_CUDA_H
#define XSCHED_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Sparse containers (host memory, owned by the caller)                     */
/* ------------------------------------------------------------------------ */

/* Compressed sparse rows. offsets has rows + 1 entries, offsets[0] == 0,
 * offsets[rows] == nnz; column indices within a row are sorted. */
struct xs_csr {
	int32_t rows;
	int32_t cols;
	int32_t nnz;
	int32_t *offsets;
	int32_t *indices;
	float *values;
};

/* Coordinates, sorted by (row, col). */
struct xs_coo {
	int32_t rows;
	int32_t cols;
	int32_t nnz;
	int32_t *row_idx;
	int32_t *col_idx;
	float *values;
};

/* Allocate the arrays of an empty rows x cols matrix with room for nnz
 * entries. Returns 0 or -ENOMEM, -EINVAL for negative sizes. */
int xs_csr_alloc(struct xs_csr *m, int32_t rows, int32_t cols, int32_t nnz);
void xs_csr_free(struct xs_csr *m);

/* Build a CSR from unsorted triplets (duplicates are summed). The arrays
 * are not consumed. Returns 0, -EINVAL (index out of range), -ENOMEM. */
int xs_csr_from_triplets(struct xs_csr *m, int32_t rows, int32_t cols,
			 int64_t n, const int32_t *ri, const int32_t *ci,
			 const float *v);

int xs_csr_to_coo(const struct xs_csr *m, struct xs_coo *out);
void xs_coo_free(struct xs_coo *m);

/* Nonzeros per row: mean and coefficient of variation (stddev / mean). */
void xs_csr_row_stats(const struct xs_csr *m, double *mean, double *cv);

/*
 * Read a Matrix Market file: "matrix coordinate" with field real, integer
 * or pattern (pattern entries get value 1) and symmetry general or
 * symmetric (the mirror of each off-diagonal entry is added). On bad input
 * returns -EINVAL (-ENOENT etc. from open) and writes a message naming the
 * file, the line and what was wrong into err (may be NULL). At most
 * max(2^20, 64 * nonzeros) rows: what a file makes the reader allocate is
 * bounded by what it holds.
 */
int xs_mtx_read(const char *path, struct xs_csr *out, char *err,
		size_t errlen);

/*
 * RMAT (Chakrabarti et al.) graph: 2^scale vertices, edge_factor * 2^scale
 * edges drawn with quadrant probabilities a, b, c, 1 - a - b - c from a
 * seeded generator (same seed, same matrix). Larger a gives more skewed
 * rows. Duplicate edges are merged; values are in [1, 16] (integers, so
 * sums are exact). Returns 0, -EINVAL, -ENOMEM.
 */
int xs_rmat_generate(struct xs_csr *out, int scale, int edge_factor,
		     double a, double b, double c, uint64_t seed);

/* ------------------------------------------------------------------------ */
/* Schedules                                                                */
/* ------------------------------------------------------------------------ */

enum xs_cuda_schedule {
	XS_CUDA_SCHED_AUTO = 0,		/* xs_cuda_schedule_pick() */
	XS_CUDA_SCHED_THREAD_MAPPED,	/* tile per thread */
	XS_CUDA_SCHED_WARP_MAPPED,	/* tile per warp */
	XS_CUDA_SCHED_BLOCK_MAPPED,	/* tile per block */
	XS_CUDA_SCHED_GROUP_MAPPED,	/* g tiles per group, prefix sum */
	XS_CUDA_SCHED_MERGE_PATH,	/* equal (tiles + atoms) per thread */
	XS_CUDA_SCHED_NR
};

/* "thread-mapped", "merge-path", ...; NULL for a bad value. */
const char *xs_cuda_schedule_name(enum xs_cuda_schedule s);
/* Inverse of xs_cuda_schedule_name() (also accepts "auto"); -EINVAL. */
int xs_cuda_schedule_parse(const char *name);

/*
 * The heuristic of the published study, with one refinement measured on an
 * H200: small matrices (nnz < 10^4 and rows or cols < 500) get group-mapped
 * when the rows are skewed (cv > 1 or a row longer than 32 nonzeros on
 * average), else thread-mapped; larger ones get warp-mapped when their
 * rows are even (cv <= 1) and hold 8 or more nonzeros on average, else
 * merge-path. Never returns AUTO.
 */
enum xs_cuda_schedule xs_cuda_schedule_pick(int32_t rows, int32_t cols,
					    int32_t nnz, double row_cv);

/* Options of one launch; zero-initialise, then set what you need. */
struct xs_cuda_launch {
	enum xs_cuda_schedule schedule;	/* AUTO picks */
	int32_t group_size;	/* group-mapped: power of two 1..block; 0 = 32 */
	int32_t block_size;	/* threads per block; 0 = 256 */
	int32_t reserved[5];
};

/* ------------------------------------------------------------------------ */
/* CPU references                                                           */
/* ------------------------------------------------------------------------ */

/* y = A x (double accumulation, rounded to float). */
void xs_ref_spmv(const struct xs_csr *a, const float *x, float *y);
/* C = A B, B is cols x n and C is rows x n, both row-major. */
void xs_ref_spmm(const struct xs_csr *a, const float *b, int32_t n, float *c);
/* BFS depths from source (-1 unreachable). Returns the number reached. */
int32_t xs_ref_bfs(const struct xs_csr *g, int32_t source, int32_t *depth);
/* Single-source shortest paths with nonnegative edge values (Dijkstra);
 * unreachable vertices get INFINITY. Returns reached or -EINVAL/-ENOMEM. */
int32_t xs_ref_sssp(const struct xs_csr *g, int32_t source, float *dist);

/* ------------------------------------------------------------------------ */
/* The device context                                                       */
/* ------------------------------------------------------------------------ */

struct xs_cuda_ctx;
struct xs_cuda_matrix;

/*
 * Number of CUDA devices (>= 1), or -ENODEV with the runtime's reason
 * ("no CUDA-capable device is detected", "CUDA driver version is
 * insufficient ...") in why when why is not NULL. Never crashes.
 */
int xs_cuda_probe(char *why, size_t len);

/* Open device @device (0 for the first). NULL and errno ENODEV when there
 * is none or this build has no code for it (sm_80 and sm_90 only), ENOMEM,
 * EINVAL; xs_cuda_ctx_error(NULL) then says why. */
struct xs_cuda_ctx *xs_cuda_ctx_create(int device);
void xs_cuda_ctx_destroy(struct xs_cuda_ctx *ctx);
/* The CUDA error string of the last failing call on ctx ("" if none); with
 * ctx NULL, why this thread's last xs_cuda_ctx_create() failed. When
 * several threads fail on one ctx at once, the text is one of theirs. */
const char *xs_cuda_ctx_error(const struct xs_cuda_ctx *ctx);
/* 0 while the device of ctx works; -EIO (or another -errno) once it has
 * failed - a fault in a kernel, a lost GPU: CUDA keeps such an error for
 * the life of the process - with the reason in xs_cuda_ctx_error(). Never
 * blocks. */
int xs_cuda_ctx_check(struct xs_cuda_ctx *ctx);
/* Device name, number of SMs. */
int xs_cuda_ctx_info(const struct xs_cuda_ctx *ctx, char *name, size_t len,
		     int *sm_count);

/* Copy a CSR to the device. NULL and errno (ENOMEM, EINVAL, EIO). */
struct xs_cuda_matrix *xs_cuda_matrix_create(struct xs_cuda_ctx *ctx,
					     const struct xs_csr *a);
/* The same from a COO sorted by row: tile (row) offsets are found on the
 * device by binary search over the row array. NULL and errno EINVAL when
 * an index is out of range or the rows are not sorted. */
struct xs_cuda_matrix *xs_cuda_matrix_create_coo(struct xs_cuda_ctx *ctx,
						 const struct xs_coo *a);
void xs_cuda_matrix_destroy(struct xs_cuda_matrix *m);

/* y = A x; x and y are host arrays (cols and rows floats). */
int xs_cuda_spmv(struct xs_cuda_matrix *m, const struct xs_cuda_launch *l,
		 const float *x, float *y);
/* C = A B (B cols x n, C rows x n, row-major host arrays). */
int xs_cuda_spmm(struct xs_cuda_matrix *m, const struct xs_cuda_launch *l,
		 const float *b, int32_t n, float *c);
/* BFS / SSSP from source over the graph m (values are edge weights, must
 * be >= 0 for SSSP); each step expands the frontier with the schedule.
 * Return the number of frontier expansions. */
int xs_cuda_bfs(struct xs_cuda_matrix *m, const struct xs_cuda_launch *l,
		int32_t source, int32_t *depth);
int xs_cuda_sssp(struct xs_cuda_matrix *m, const struct xs_cuda_launch *l,
		 int32_t source, float *dist);

/*
 * Timing for benchmarks: run SpMV @reps times on device-resident x and y
 * (x filled with 1) and report the mean milliseconds per run (CUDA events).
 * y is copied back to the host when not NULL. The cuSPARSE variant runs
 * cusparseSpMV (CUSPARSE_SPMV_ALG_DEFAULT) on the same matrix.
 */
int xs_cuda_spmv_time(struct xs_cuda_matrix *m, const struct xs_cuda_launch *l,
		      int reps, double *ms, float *y);
int xs_cuda_cusparse_spmv_time(struct xs_cuda_matrix *m, int reps, double *ms,
			       float *y);

/* ------------------------------------------------------------------------ */
/* Synchronization server                                                   */
/* ------------------------------------------------------------------------ */

/* How the critical sections of an application are serialized. */
enum xs_cuda_sync {
	XS_CUDA_SYNC_SERVER = 0,	/* message passing to owning server */
	XS_CUDA_SYNC_GLOBAL_LOCK,	/* baseline: spin locks in global mem */
	XS_CUDA_SYNC_NR
};

struct xs_cuda_sync_opts {
	enum xs_cuda_sync mode;
	int32_t server_blocks;	/* 0: one per 4 SMs (1..64); in/out */
	int32_t client_blocks;	/* 0: fill the rest of the device; in/out */
	int32_t block_size;	/* 0: 256 (a multiple of 32, >= 64) */
	float ms;		/* out: kernel time */
	int32_t reserved[4];
};

/*
 * Concurrent hash table: for i in [0, n), table[keys[i]] += deltas[i]
 * (insert with the delta when absent). keys must be < 0xffffffff. The
 * table has @capacity slots (a power of two, > number of distinct keys
 * plus headroom); the result is returned as (key, value) pairs sorted by
 * key in out_keys/out_vals (room for capacity). Returns the number of
 * distinct keys, -ENOSPC when the table overflowed, -ENODEV, -EIO.
 */
int xs_cuda_hash_upsert(struct xs_cuda_ctx *ctx, struct xs_cuda_sync_opts *o,
			const uint32_t *keys, const int32_t *deltas, int32_t n,
			int32_t capacity, uint32_t *out_keys,
			int64_t *out_vals);

/*
 * Bank transfers: for i in [0, n), move amounts[i] from account from[i] to
 * account to[i] (balances may go negative: the final state is independent
 * of the order, so it can be checked exactly). balances has naccounts
 * entries, updated in place. Returns 0, -EINVAL, -ENODEV, -EIO.
 */
int xs_cuda_bank_transfer(struct xs_cuda_ctx *ctx, struct xs_cuda_sync_opts *o,
			  int64_t *balances, int32_t naccounts,
			  const int32_t *from, const int32_t *to,
			  const int32_t *amounts, int32_t n);

/* CPU references of the two applications (same contracts). */
int xs_ref_hash_upsert(const uint32_t *keys, const int32_t *deltas,
		       int32_t n, uint32_t *out_keys, int64_t *out_vals,
		       int32_t room);
void xs_ref_bank_transfer(int64_t *balances, const int32_t *from,
			  const int32_t *to, const int32_t *amounts,
			  int32_t n);

/* ------------------------------------------------------------------------ */
/* Offload from the task runtime                                            */
/* ------------------------------------------------------------------------ */

/*
 * A task of libxsched (include/xsched.h) submits a GPU job and returns at
 * once; the continuation it created runs on a worker when the job is over.
 * The job, and so xs_runtime_run(), ends only after that continuation ran:
 *
 *	static void check(void *arg)		(on a worker, later)
 *	{
 *		if (xs_cuda_ctx_check(ctx) == 0)
 *			... use y ...
 *	}
 *
 *	static void task(void *arg)
 *	{
 *		struct xs_continuation *c;
 *
 *		c = xs_continuation_create(check, &job, sizeof(job));
 *		if (c && xs_cuda_spmv_submit(m, NULL, x, y, c) < 0)
 *			xs_continuation_ready(c);	(still ours: rule 2)
 *	}
 *
 * Streams. Each worker enqueues on its own stream of ctx, so jobs of one
 * worker run in submission order and jobs of different workers overlap.
 * The streams are created at the first submission from a worker of a
 * runtime, for all its workers at once (safe when they all submit at
 * once). A thread that is not a worker uses ctx's own stream. Device
 * memory of a job comes from the stream-ordered allocator
 * (cudaMallocAsync): nothing in a submission waits for the GPU.
 *
 * Who makes the continuation @done ready - it must happen exactly once, or
 * the job never ends (a missing one) or breaks (a second one):
 *
 *   1. 0: the job is enqueued and owns @done. It makes @done ready exactly
 *      once, from a CUDA thread, when y has been copied back - or when the
 *      device failed first: CUDA runs the completion even after a device
 *      error, so a job does not hang on a dead GPU. The continuation tells
 *      the two apart with xs_cuda_ctx_check() (0: y is right).
 *   2. -errno: @done was not touched and is still the caller's, who makes
 *      it ready (recording the error where the continuation will look).
 *      Whatever the call had enqueued has finished when it returns: x and
 *      y are free again. -EINVAL (bad argument or launch, @done NULL),
 *      -ENOMEM, -EOPNOTSUPP (the device has no stream-ordered allocator),
 *      -ENODEV, -EIO; xs_cuda_ctx_error() says which call failed.
 *
 * Until @done runs, x must stay unchanged and y untouched; m and ctx must
 * outlive every job submitted on them. x and y should be page-locked
 * (xs_cuda_host_alloc()): with pageable y the copy back, and so the
 * submission, waits for the kernel (correct, but the task does not yield).
 */
struct xs_continuation;

/* y = A x as a job of the calling worker; x and y are host arrays of cols
 * and rows floats. Returns 0 or -errno under the rule above. */
int xs_cuda_spmv_submit(struct xs_cuda_matrix *m,
			const struct xs_cuda_launch *l, const float *x,
			float *y, struct xs_continuation *done);

/* Page-locked host memory (usable with every device), for the arrays of
 * submitted jobs. NULL and errno: EINVAL (size 0), ENODEV (no CUDA
 * device or driver), ENOMEM. */
void *xs_cuda_host_alloc(size_t size);
void xs_cuda_host_free(void *p);

#ifdef __cplusplus
}
#endif

#endif /* XSCHED_CUDA_H */
