// SPDX-License-Identifier: MIT
/*
 * affinity.c - xsched-bench --affinity: the affinity-graph seed's kernels
 * under the static, hybrid and affinity schedules of xs_parallel_for(),
 * side by side in one run, every result checked against a serial run.
 *
 * For each kernel: the serial reference; one recorded run of the loop
 * (libxsched/affinity/affinity_record.c, its slowdown against a plain serial run is
 * the recorder's overhead): IRREG every access at 8-byte words (step mode),
 * the others the first access per page and logical thread (page mode:
 * stepping every access of SpMM costs ~10 us x 10^7); the affinity graph at
 * DenseRatio 0.9 (words) or 0.3 (pages: a page holds many addresses) and a
 * METIS plan along this runtime's machine (affinity_plan.c); then --repeat
 * rounds of static, hybrid, affinity taking turns, each run checked.
 *
 * Kernels (logical thread = one iteration of the loop):
 *   spmv-crs M   y = A x by rows (a row per iteration)
 *   spmv-ccs M   y = A x by columns, y updated atomically (a column each)
 *   spmm M       row sums and counts of C = A A^T, Gustavson with a per-
 *                worker dense accumulator (a row of A each; B = A^T is A
 *                by columns, as the seed's CRS x CCS)
 *   irreg E      the seed's IRREG: E random edges over E/10 nodes, each
 *                edge adds a force to one end and takes it from the other
 *                (64-bit integer atomics: exact); sweeps per run
 *   radix        the scatter of one MSD radix round (8 bits) of 2^23
 *                keys in blocks of 4096 keys (a block each); block b's keys
 *                fall into the buckets of a random position of b, so
 *                blocks that write near each other are far apart in b
 * M: the r-cran-matrix matrices (Matrix Market, read by libxsched/cuda's
 * reader) as they are, lund_a x pores_1 (Kronecker product, 4410 rows)
 * and the same with its rows in random order ("shuffled").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ext.h"
#include "../../harness/bench.h"
#include "../../harness/driver.h"
#include "xsched/cuda.h"

#define MTX_DIR "/usr/lib/R/library/Matrix/external"

/* Page-aligned, zeroed: the recorder watches whole pages. */
static void *aff_alloc(size_t bytes)
{
	void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

struct aff_buf {
	void *p;
	size_t len;
};

/* ---------------------------------------------------------------- */
/* Kernels */

struct spmat {
	int32_t rows, cols;
	int64_t nnz;
	int64_t *off;   /* rows + 1 */
	int32_t *idx;
	double *val;
};

struct kstate {
	const char *name;
	uint64_t n;          /* iterations of the loop */
	int sweeps;          /* loop calls per timed run */
	bool rec_step;       /* record every access (else first per page) */
	double dense;        /* DenseRatio of the plan */
	uint32_t rec_shift;  /* recorded granularity, log2 bytes */
	void (*body)(struct kstate *k, uint64_t lo, uint64_t hi);
	void (*reset)(struct kstate *k);
	int (*verify)(struct kstate *k, char *why, size_t len);
	struct aff_buf bufs[12];
	int nbufs;
	/* spmv, spmm */
	struct spmat A, At;
	double *x, *y, *yref;
	double *csum, *csumref;
	int32_t *ccnt, *ccntref;
	double **acc;
	int32_t **mark, **list;
	uint32_t nacc;
	/* irreg */
	int32_t *left, *right;
	int64_t *nx, *ny, *nyref;
	int64_t nnodes;
	/* radix */
	uint32_t *keys, *out, *outref, *offs;
	uint32_t bsize;
};

static void *kalloc(struct kstate *k, size_t bytes)
{
	void *p = aff_alloc(bytes);

	if (p && k->nbufs < 12)
		k->bufs[k->nbufs++] = (struct aff_buf){ p, bytes };
	return p;
}

static void kfree(struct kstate *k)
{
	for (int i = 0; i < k->nbufs; i++)
		munmap(k->bufs[i].p, k->bufs[i].len ? k->bufs[i].len : 1);
	for (uint32_t w = 0; w < k->nacc; w++) {
		free(k->acc[w]);
		free(k->mark[w]);
		free(k->list[w]);
	}
	free(k->acc);
	free(k->mark);
	free(k->list);
	free(k->yref);
	free(k->csumref);
	free(k->ccntref);
	free(k->nyref);
	free(k->outref);
}

static void kregions(struct kstate *k, bool add)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	for (int i = 0; i < k->nbufs; i++) {
		/* The mapping owns its whole last page. */
		if (add)
			xs_affinity_region_add(k->bufs[i].p, (k->bufs[i].len + pg - 1) / pg * pg);
		else
			xs_affinity_region_remove(k->bufs[i].p);
	}
}

/* The matrix in page-aligned copies that the recorder can watch. */
static int kmat_place(struct kstate *k, struct spmat *dst, const struct spmat *src)
{
	*dst = *src;
	dst->off = kalloc(k, ((size_t)src->rows + 1) * sizeof(*dst->off));
	dst->idx = kalloc(k, (size_t)src->nnz * sizeof(*dst->idx));
	dst->val = kalloc(k, (size_t)src->nnz * sizeof(*dst->val));
	if (!dst->off || !dst->idx || !dst->val)
		return -ENOMEM;
	memcpy(dst->off, src->off, ((size_t)src->rows + 1) * sizeof(*dst->off));
	memcpy(dst->idx, src->idx, (size_t)src->nnz * sizeof(*dst->idx));
	memcpy(dst->val, src->val, (size_t)src->nnz * sizeof(*dst->val));
	return 0;
}

static void spmat_free(struct spmat *m)
{
	free(m->off);
	free(m->idx);
	free(m->val);
	memset(m, 0, sizeof(*m));
}

static int spmat_from_csr(const struct xs_csr *c, struct spmat *m)
{
	m->rows = c->rows;
	m->cols = c->cols;
	m->nnz = c->nnz;
	m->off = malloc(((size_t)c->rows + 1) * sizeof(*m->off));
	m->idx = malloc(((size_t)c->nnz + 1) * sizeof(*m->idx));
	m->val = malloc(((size_t)c->nnz + 1) * sizeof(*m->val));
	if (!m->off || !m->idx || !m->val)
		return -ENOMEM;
	for (int32_t i = 0; i <= c->rows; i++)
		m->off[i] = c->offsets[i];
	for (int32_t i = 0; i < c->nnz; i++) {
		m->idx[i] = c->indices[i];
		m->val[i] = c->values[i];
	}
	return 0;
}

static int spmat_transpose(const struct spmat *a, struct spmat *t)
{
	int64_t *fill;

	t->rows = a->cols;
	t->cols = a->rows;
	t->nnz = a->nnz;
	t->off = calloc((size_t)t->rows + 1, sizeof(*t->off));
	t->idx = malloc(((size_t)a->nnz + 1) * sizeof(*t->idx));
	t->val = malloc(((size_t)a->nnz + 1) * sizeof(*t->val));
	fill = calloc((size_t)t->rows + 1, sizeof(*fill));
	if (!t->off || !t->idx || !t->val || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (int64_t e = 0; e < a->nnz; e++)
		t->off[a->idx[e] + 1]++;
	for (int32_t i = 0; i < t->rows; i++)
		t->off[i + 1] += t->off[i];
	for (int32_t r = 0; r < a->rows; r++)
		for (int64_t e = a->off[r]; e < a->off[r + 1]; e++) {
			int32_t c = a->idx[e];
			int64_t p = t->off[c] + fill[c]++;

			t->idx[p] = r;
			t->val[p] = a->val[e];
		}
	free(fill);
	return 0;
}

/* a (x) b, the Kronecker product. */
static int spmat_kron(const struct spmat *a, const struct spmat *b, struct spmat *k)
{
	int64_t e = 0;

	k->rows = a->rows * b->rows;
	k->cols = a->cols * b->cols;
	k->nnz = a->nnz * b->nnz;
	k->off = malloc(((size_t)k->rows + 1) * sizeof(*k->off));
	k->idx = malloc((size_t)k->nnz * sizeof(*k->idx));
	k->val = malloc((size_t)k->nnz * sizeof(*k->val));
	if (!k->off || !k->idx || !k->val)
		return -ENOMEM;
	k->off[0] = 0;
	for (int32_t i1 = 0; i1 < a->rows; i1++)
		for (int32_t i2 = 0; i2 < b->rows; i2++) {
			for (int64_t p = a->off[i1]; p < a->off[i1 + 1]; p++)
				for (int64_t q = b->off[i2]; q < b->off[i2 + 1]; q++) {
					k->idx[e] = a->idx[p] * b->cols + b->idx[q];
					k->val[e++] = a->val[p] * b->val[q];
				}
			k->off[i1 * b->rows + i2 + 1] = e;
		}
	return 0;
}

/* Rows in a random order (splitmix64-seeded Fisher-Yates). */
static int spmat_shuffle_rows(const struct spmat *a, struct spmat *s)
{
	int32_t *perm = malloc((size_t)a->rows * sizeof(*perm));
	int64_t e = 0;

	s->rows = a->rows;
	s->cols = a->cols;
	s->nnz = a->nnz;
	s->off = malloc(((size_t)a->rows + 1) * sizeof(*s->off));
	s->idx = malloc((size_t)a->nnz * sizeof(*s->idx));
	s->val = malloc((size_t)a->nnz * sizeof(*s->val));
	if (!perm || !s->off || !s->idx || !s->val) {
		free(perm);
		return -ENOMEM;
	}
	for (int32_t i = 0; i < a->rows; i++)
		perm[i] = i;
	for (int32_t i = a->rows - 1; i > 0; i--) {
		int32_t j = (int32_t)(bench_mix64((uint64_t)i * 77) % (uint64_t)(i + 1)), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	s->off[0] = 0;
	for (int32_t i = 0; i < a->rows; i++) {
		int32_t r = perm[i];

		for (int64_t p = a->off[r]; p < a->off[r + 1]; p++) {
			s->idx[e] = a->idx[p];
			s->val[e++] = a->val[p];
		}
		s->off[i + 1] = e;
	}
	free(perm);
	return 0;
}

static void spmv_crs(struct kstate *k, uint64_t lo, uint64_t hi)
{
	const struct spmat *A = &k->A;

	for (uint64_t i = lo; i < hi; i++) {
		double s = 0;

		for (int64_t e = A->off[i]; e < A->off[i + 1]; e++)
			s += A->val[e] * k->x[A->idx[e]];
		k->y[i] = s;
	}
}

static void atomic_add_double(double *p, double v)
{
	uint64_t old = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED), nw;
	double d;

	do {
		memcpy(&d, &old, sizeof(d));
		d += v;
		memcpy(&nw, &d, sizeof(d));
	} while (!__atomic_compare_exchange_n((uint64_t *)p, &old, nw, true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

/* By columns: At is A's CCS (column j = row j of At). */
static void spmv_ccs(struct kstate *k, uint64_t lo, uint64_t hi)
{
	const struct spmat *C = &k->At;

	for (uint64_t j = lo; j < hi; j++) {
		double xj = k->x[j];

		for (int64_t e = C->off[j]; e < C->off[j + 1]; e++)
			atomic_add_double(&k->y[C->idx[e]], C->val[e] * xj);
	}
}

static void spmv_reset(struct kstate *k)
{
	memset(k->y, 0, (size_t)k->A.rows * sizeof(*k->y));
}

static int spmv_verify(struct kstate *k, char *why, size_t len)
{
	bool exact = k->body == spmv_crs;

	for (int32_t i = 0; i < k->A.rows; i++) {
		double d = k->y[i] - k->yref[i], tol = exact ? 0 : 1e-9 * (1 + (k->yref[i] < 0 ?
								      -k->yref[i] : k->yref[i]));

		if (d > tol || -d > tol) {
			snprintf(why, len, "y[%d] = %.17g, serial %.17g", i, k->y[i], k->yref[i]);
			return -1;
		}
	}
	return 0;
}

/* C = A A^T row i: C[i][j] = sum_k A[i][k] A[j][k]; At is A by columns. */
static void spmm_row(struct kstate *k, uint64_t lo, uint64_t hi)
{
	int w = xs_worker_id() < 0 ? 0 : xs_worker_id();
	double *acc = k->acc[w];
	int32_t *mark = k->mark[w], *list = k->list[w];

	for (uint64_t i = lo; i < hi; i++) {
		int32_t nl = 0;
		double s = 0;

		for (int64_t p = k->A.off[i]; p < k->A.off[i + 1]; p++) {
			int32_t c = k->A.idx[p];
			double a = k->A.val[p];

			for (int64_t q = k->At.off[c]; q < k->At.off[c + 1]; q++) {
				int32_t j = k->At.idx[q];

				if (mark[j] != (int32_t)i + 1) {
					mark[j] = (int32_t)i + 1;
					acc[j] = 0;
					list[nl++] = j;
				}
				acc[j] += a * k->At.val[q];
			}
		}
		/* Unmarked as summed: the next sweep's row i starts clean. */
		for (int32_t l = 0; l < nl; l++) {
			s += acc[list[l]];
			mark[list[l]] = 0;
		}
		k->csum[i] = s;
		k->ccnt[i] = nl;
	}
}

/* Multiply-adds of A A^T (@t = A^T): row i of A meets column c's row of
 * A^T for each of its entries. */
static uint64_t spmm_products(const struct spmat *a, const struct spmat *t)
{
	uint64_t sum = 0;

	for (int64_t p = 0; p < a->nnz; p++)
		sum += (uint64_t)(t->off[a->idx[p] + 1] - t->off[a->idx[p]]);
	return sum;
}

static void spmm_reset(struct kstate *k)
{
	memset(k->csum, 0, (size_t)k->A.rows * sizeof(*k->csum));
	memset(k->ccnt, 0, (size_t)k->A.rows * sizeof(*k->ccnt));
	for (uint32_t w = 0; w < k->nacc; w++)
		memset(k->mark[w], 0, (size_t)k->A.rows * sizeof(int32_t));
}

static int spmm_verify(struct kstate *k, char *why, size_t len)
{
	for (int32_t i = 0; i < k->A.rows; i++)
		if (k->csum[i] != k->csumref[i] || k->ccnt[i] != k->ccntref[i]) {
			snprintf(why, len, "row %d of C: sum %.17g over %d, serial %.17g over %d", i,
				 k->csum[i], k->ccnt[i], k->csumref[i], k->ccntref[i]);
			return -1;
		}
	return 0;
}

static void irreg_edges(struct kstate *k, uint64_t lo, uint64_t hi)
{
	for (uint64_t i = lo; i < hi; i++) {
		int32_t a = k->left[i], b = k->right[i];
		int64_t xa = k->nx[a], xb = k->nx[b];
		int64_t f = (xa - xb) * 3 + ((xa ^ xb) & 7);

		__atomic_fetch_add(&k->ny[a], f, __ATOMIC_RELAXED);
		__atomic_fetch_sub(&k->ny[b], f, __ATOMIC_RELAXED);
	}
}

static void irreg_reset(struct kstate *k)
{
	memset(k->ny, 0, (size_t)k->nnodes * sizeof(*k->ny));
}

static int irreg_verify(struct kstate *k, char *why, size_t len)
{
	for (int64_t i = 0; i < k->nnodes; i++)
		if (k->ny[i] != k->nyref[i]) {
			snprintf(why, len, "node %lld: %lld, serial %lld", (long long)i,
				 (long long)k->ny[i], (long long)k->nyref[i]);
			return -1;
		}
	return 0;
}

static void radix_scatter(struct kstate *k, uint64_t lo, uint64_t hi)
{
	uint32_t pos[256];

	for (uint64_t b = lo; b < hi; b++) {
		const uint32_t *key = k->keys + b * k->bsize;

		memcpy(pos, k->offs + b * 256, sizeof(pos));
		for (uint32_t i = 0; i < k->bsize; i++)
			k->out[pos[key[i] >> 24]++] = key[i];
	}
}

static void radix_reset(struct kstate *k)
{
	memset(k->out, 0, k->n * k->bsize * sizeof(*k->out));
}

static int radix_verify(struct kstate *k, char *why, size_t len)
{
	for (uint64_t i = 0; i < k->n * k->bsize; i++)
		if (k->out[i] != k->outref[i]) {
			snprintf(why, len, "out[%llu] = %u, serial %u", (unsigned long long)i,
				 k->out[i], k->outref[i]);
			return -1;
		}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Set-ups */

static int spmat_setup(struct kstate *k, const struct spmat *m, void (*body)(struct kstate *,
								       uint64_t, uint64_t),
		       unsigned P)
{
	struct spmat t = { 0 };
	int ret;

	if ((ret = spmat_transpose(m, &t)))
		goto out;
	if ((ret = kmat_place(k, &k->A, m)) || (ret = kmat_place(k, &k->At, &t)))
		goto out;
	k->body = body;
	k->rec_shift = 12;
	k->dense = 0.3;
	k->n = (uint64_t)(body == spmv_ccs ? m->cols : m->rows);
	k->sweeps = (int)(4000000 / (m->nnz + 1) + 1);
	if (k->sweeps > 1000)
		k->sweeps = 1000;
	if (body == spmm_row) {
		k->csum = kalloc(k, (size_t)m->rows * sizeof(double));
		k->ccnt = kalloc(k, (size_t)m->rows * sizeof(int32_t));
		k->csumref = malloc((size_t)m->rows * sizeof(double));
		k->ccntref = malloc((size_t)m->rows * sizeof(int32_t));
		k->acc = calloc(P, sizeof(*k->acc));
		k->mark = calloc(P, sizeof(*k->mark));
		k->list = calloc(P, sizeof(*k->list));
		if (!k->csum || !k->ccnt || !k->csumref || !k->ccntref || !k->acc || !k->mark ||
		    !k->list)
			return -ENOMEM;
		k->nacc = P;
		for (unsigned w = 0; w < P; w++) {
			k->acc[w] = calloc((size_t)m->rows, sizeof(double));
			k->mark[w] = calloc((size_t)m->rows, sizeof(int32_t));
			k->list[w] = calloc((size_t)m->rows, sizeof(int32_t));
			if (!k->acc[w] || !k->mark[w] || !k->list[w])
				return -ENOMEM;
		}
		k->reset = spmm_reset;
		k->verify = spmm_verify;
		/* As SpMV's, by the work: a product's multiply-adds. */
		k->sweeps = (int)(4000000 / (spmm_products(m, &t) + 1) + 1);
		if (k->sweeps > 1000)
			k->sweeps = 1000;
	} else {
		k->x = kalloc(k, (size_t)m->cols * sizeof(double));
		k->y = kalloc(k, (size_t)m->rows * sizeof(double));
		k->yref = malloc((size_t)m->rows * sizeof(double));
		if (!k->x || !k->y || !k->yref)
			return -ENOMEM;
		for (int32_t j = 0; j < m->cols; j++)
			k->x[j] = (double)(bench_mix64((uint64_t)j) % 1000) / 500.0 - 1.0;
		k->reset = spmv_reset;
		k->verify = spmv_verify;
	}
	k->reset(k);
	/* By columns y accumulates: each run's sweeps add up. */
	for (int w = 0; w < (body == spmv_ccs ? k->sweeps : 1); w++)
		body(k, 0, k->n);
	if (body == spmm_row) {
		memcpy(k->csumref, k->csum, (size_t)m->rows * sizeof(double));
		memcpy(k->ccntref, k->ccnt, (size_t)m->rows * sizeof(int32_t));
	} else {
		memcpy(k->yref, k->y, (size_t)m->rows * sizeof(double));
	}
	ret = 0;
out:
	spmat_free(&t);
	return ret;
}

static int irreg_setup(struct kstate *k, uint64_t edges)
{
	k->n = edges;
	k->nnodes = (int64_t)(edges / 10);
	k->left = kalloc(k, edges * sizeof(int32_t));
	k->right = kalloc(k, edges * sizeof(int32_t));
	k->nx = kalloc(k, (size_t)k->nnodes * sizeof(int64_t));
	k->ny = kalloc(k, (size_t)k->nnodes * sizeof(int64_t));
	k->nyref = malloc((size_t)k->nnodes * sizeof(int64_t));
	if (!k->left || !k->right || !k->nx || !k->ny || !k->nyref)
		return -ENOMEM;
	for (uint64_t i = 0; i < edges; i++) {
		uint64_t r = bench_mix64(i + 12345);

		k->left[i] = (int32_t)(r % (uint64_t)k->nnodes);
		k->right[i] = (int32_t)((r >> 32) % (uint64_t)(k->nnodes - 1));
		if (k->right[i] >= k->left[i])
			k->right[i]++;
	}
	for (int64_t i = 0; i < k->nnodes; i++)
		k->nx[i] = (int64_t)(bench_mix64((uint64_t)i + 999) % 1024);
	k->body = irreg_edges;
	k->rec_step = true;
	k->rec_shift = 3;
	k->dense = 0.9;
	k->reset = irreg_reset;
	k->verify = irreg_verify;
	k->sweeps = (int)(4000000 / edges + 1);
	k->reset(k);
	for (int s = 0; s < k->sweeps; s++)
		irreg_edges(k, 0, edges);
	memcpy(k->nyref, k->ny, (size_t)k->nnodes * sizeof(int64_t));
	return 0;
}

static int radix_setup(struct kstate *k, uint64_t nkeys)
{
	uint32_t *perm, count[256] = { 0 }, base[256];
	uint64_t nb;

	k->bsize = 4096;
	nb = nkeys / k->bsize;
	k->n = nb;
	k->keys = kalloc(k, nkeys * sizeof(uint32_t));
	k->out = kalloc(k, nkeys * sizeof(uint32_t));
	k->offs = kalloc(k, nb * 256 * sizeof(uint32_t));
	k->outref = malloc(nkeys * sizeof(uint32_t));
	perm = malloc(nb * sizeof(*perm));
	if (!k->keys || !k->out || !k->offs || !k->outref || !perm) {
		free(perm);
		return -ENOMEM;
	}
	for (uint64_t b = 0; b < nb; b++)
		perm[b] = (uint32_t)b;
	for (uint64_t b = nb - 1; b > 0; b--) {
		uint64_t j = bench_mix64(b * 31) % (b + 1);
		uint32_t t = perm[b];

		perm[b] = perm[j];
		perm[j] = t;
	}
	/* Block b's keys: top byte around its random position perm[b]. */
	for (uint64_t b = 0; b < nb; b++)
		for (uint32_t i = 0; i < k->bsize; i++) {
			uint64_t r = bench_mix64(b * k->bsize + i);
			uint32_t top = (uint32_t)((perm[b] * 256ull / nb + r % 3) % 256);

			k->keys[b * k->bsize + i] = top << 24 | (uint32_t)(r >> 40);
			count[top]++;
		}
	free(perm);
	base[0] = 0;
	for (int t = 1; t < 256; t++)
		base[t] = base[t - 1] + count[t - 1];
	/* The histogram and prefix (serial; the scatter is the loop). */
	for (uint64_t b = 0; b < nb; b++) {
		uint32_t c[256] = { 0 };

		for (uint32_t i = 0; i < k->bsize; i++)
			c[k->keys[b * k->bsize + i] >> 24]++;
		for (int t = 0; t < 256; t++) {
			k->offs[b * 256 + t] = base[t];
			base[t] += c[t];
		}
	}
	k->body = radix_scatter;
	k->rec_shift = 12;
	k->dense = 0.3;
	k->reset = radix_reset;
	k->verify = radix_verify;
	k->sweeps = 1;
	k->reset(k);
	radix_scatter(k, 0, nb);
	memcpy(k->outref, k->out, nkeys * sizeof(uint32_t));
	return 0;
}

/* ---------------------------------------------------------------- */
/* Measuring */

static void aff_record_body(void *ctx, uint64_t lo, uint64_t hi)
{
	struct kstate *k = ctx;

	k->body(k, lo, hi);
}

static void aff_for_body(void *arg, uint64_t first, uint64_t count)
{
	struct kstate *k = arg;

	k->body(k, first, first + count);
}

/*
 * A sampled or windowed recording's resolution: record the loop again with
 * every page watched, and weigh METIS's partition of the sampled graph
 * (@pmap) on the full graph, beside the full graph's own partition and the
 * static split. Prints one line; returns 0 or 1 (failed).
 */
static int aff_quality(struct kstate *k, const struct xs_aff_record_cfg *cfg,
		       const struct xs_aff_machine *mach, const struct xs_affinity_map *pmap,
		       const struct xs_aff_hgraph *sampled, const char *label, bool json)
{
	struct xs_aff_record_cfg full = *cfg;
	struct xs_aff_plan_cfg force = { .force = true };
	struct xs_aff_hgraph h = { 0 };
	struct xs_aff_graph g = { 0 };
	struct xs_affinity_map fm = { 0 };
	struct xs_aff_plan_stats fst = { 0 };
	uint64_t cut = 0, scut = 0, total = 0;
	int ret;

	full.sample = 1;
	full.window = 0;
	k->reset(k);
	kregions(k, true);
	ret = xs_aff_record(k->n, 1, &full, aff_record_body, k, &h);
	kregions(k, false);
	if (!ret)
		ret = xs_aff_graph_build(&h, k->dense, 1ull << 31, &g);
	if (!ret)
		ret = xs_aff_plan(&g, mach, k->n, 1, &force, &fm, &fst);
	if (!ret)
		ret = xs_aff_schedule_cut(&g, pmap, &cut, &scut, &total);
	if (ret) {
		fprintf(stderr, PROG ": --affinity: %s: the full recording failed: %s\n", label,
			strerror(ret < 0 ? -ret : ret));
	} else if (json) {
		printf("{\"affinity_quality\":\"%s\",\"sample\":%u,\"window\":%llu,"
		       "\"full_record_s\":%.6g,\"full_accesses\":%llu,\"sampled_record_s\":%.6g,"
		       "\"sampled_accesses\":%llu,\"sampled_plan_cut_percent\":%.2f,"
		       "\"full_plan_cut_percent\":%.2f,\"static_cut_percent\":%.2f}\n", label,
		       cfg->sample, (unsigned long long)cfg->window, h.seconds,
		       (unsigned long long)h.accesses, sampled->seconds,
		       (unsigned long long)sampled->accesses,
		       total ? 100.0 * (double)cut / (double)total : 0.0,
		       fst.total ? 100.0 * (double)fst.metis_cut / (double)fst.total : 0.0,
		       total ? 100.0 * (double)scut / (double)total : 0.0);
	} else {
		printf("  %-30s quality (XSCHED_AFFINITY_SAMPLE=%u, XSCHED_AFFINITY_WINDOW=%llu): "
		       "recorded in %.3f s, %llu faults (in full: %.3f s, %llu faults); on the full "
		       "graph the sampled plan cuts %.1f%%, the full plan %.1f%%, static %.1f%%\n",
		       label, cfg->sample, (unsigned long long)cfg->window, sampled->seconds,
		       (unsigned long long)sampled->accesses, h.seconds,
		       (unsigned long long)h.accesses,
		       total ? 100.0 * (double)cut / (double)total : 0.0,
		       fst.total ? 100.0 * (double)fst.metis_cut / (double)fst.total : 0.0,
		       total ? 100.0 * (double)scut / (double)total : 0.0);
		fflush(stdout);
	}
	xs_affinity_map_free(&fm);
	xs_aff_graph_free(&g);
	xs_aff_hgraph_free(&h);
	return ret != 0;
}

static const char *const sched_names[] = { "static", "hybrid", "affinity", "partitioned" };

/* One kernel: record, plan, then the schedules side by side. */
static int aff_kernel(struct xs_runtime *rt, const struct options *o, struct kstate *k,
		      const char *label)
{
	struct xs_loop_sched sc[4] = {
		{ .kind = XS_LOOP_STATIC },
		{ .kind = XS_LOOP_HYBRID, .ns = 2, .nd = 4, .grain = 50 },
		{ .kind = XS_LOOP_AFFINITY, .ns = 2, .nd = 4, .grain = 50 },
		{ .kind = XS_LOOP_AFFINITY, .ns = 2, .nd = 4, .grain = 50 },
	};
	struct xs_aff_record_cfg cfg = { .shift = k->rec_shift, .step = k->rec_step,
					 .sample = (uint32_t)rt->opt.affinity_sample,
					 .window = (uint64_t)rt->opt.affinity_window };
	struct xs_aff_plan_cfg force = { .force = true };
	struct xs_aff_hgraph h = { 0 };
	struct xs_aff_graph g = { 0 };
	struct xs_aff_machine mach = { 0 };
	struct xs_affinity_map map = { 0 }, fmap = { 0 }, *pmap;
	int64_t trials = rt->opt.affinity_trial;
	struct xs_aff_plan_stats st = { 0 }, fst = { 0 };
	double t_plain = 1e30, t_plan0, t_plan, *times[4] = { 0 }, best[4], med[4];
	double t_trial0, t_trial, *ratio, rmed, rq1, rq3;
	static const char *const kept_names[XS_AFF_NKINDS] = { "hybrid", "sched", "static" };
	int R = (int)o->repeat, failed = 0, ret, ns, kept, ntrial = 0;
	char why[256] = "";

	for (int r = 0; r < 3; r++) {
		k->reset(k);
		double t0 = bench_now();

		k->body(k, 0, k->n);
		if (bench_now() - t0 < t_plain)
			t_plain = bench_now() - t0;
	}
	k->reset(k);
	kregions(k, true);
	ret = xs_aff_record(k->n, 1, &cfg, aff_record_body, k, &h);
	kregions(k, false);
	if (ret) {
		fprintf(stderr, PROG ": --affinity: %s: recording failed: %s\n", label,
			strerror(-ret));
		return 1;
	}
	t_plan0 = bench_now();
	if (xs_aff_graph_build(&h, k->dense, 1ull << 31, &g) ||
	    xs_aff_machine_from_runtime(rt, &mach) ||
	    xs_aff_plan(&g, &mach, k->n, 1, NULL, &map, &st)) {
		fprintf(stderr, PROG ": --affinity: %s: planning failed\n", label);
		failed = 1;
		goto out;
	}
	t_plan = bench_now() - t_plan0;
	/* The fourth schedule: METIS's partition replayed without the trial
	 * (what it costs on this machine), even where the plan chose the
	 * static split. */
	ns = 4;
	if (st.kind != XS_AFF_PLAN_METIS &&
	    xs_aff_plan(&g, &mach, k->n, 1, &force, &fmap, &fst)) {
		fprintf(stderr, PROG ": --affinity: %s: planning failed\n", label);
		failed = 1;
		goto out;
	}
	pmap = st.kind == XS_AFF_PLAN_METIS ? &map : &fmap;
	if ((cfg.sample > 1 || cfg.window) && aff_quality(k, &cfg, &mach, pmap, &h, label, o->json)) {
		failed = 1;
		goto out;
	}
	xs_affinity_trial_reset();
	/* The replay's trial first, loop by loop until it keeps a kind (at
	 * most 3 kinds x 2 loops x XSCHED_AFFINITY_TRIAL): the rounds below
	 * time what a long run repeats; the trial's price is its own figure. */
	xs_affinity_override(&map);
	k->reset(k);
	t_trial0 = bench_now();
	while (trials && xs_affinity_trial_verdict(&map, k->n) < 0 &&
	       ntrial < 6 * trials + 6) {
		if (xs_parallel_for_u64(rt, 0, k->n, 1, &sc[2], aff_for_body, k) < 0)
			failed = 1;
		ntrial++;
	}
	t_trial = bench_now() - t_trial0;
	kept = !trials ? XS_AFF_RUN_SCHEDULE : xs_affinity_trial_verdict(&map, k->n);
	for (int s = 0; s < ns; s++)
		times[s] = calloc((size_t)R, sizeof(double));
	ratio = calloc((size_t)R, sizeof(double));
	/* Round r starts with schedule r mod 4: each takes every slot of a
	 * round in turn, so what the run before leaves in the caches (and
	 * the workers' wake-up after a reset) favours none of them. */
	for (int r = 0; r < R; r++) {
		for (int i = 0; i < ns; i++) {
			int s = (i + r) % ns;
			double t0;

			xs_affinity_override(s == 3 ? pmap : &map);
			rt->opt.affinity_trial = s == 3 ? 0 : trials;
			k->reset(k);
			t0 = bench_now();
			for (int w = 0; w < k->sweeps; w++)
				if (xs_parallel_for_u64(rt, 0, k->n, 1, &sc[s], aff_for_body, k) < 0)
					failed = 1;
			times[s][r] = bench_now() - t0;
			if (k->verify(k, why, sizeof(why))) {
				fprintf(stderr, PROG ": --affinity: %s under %s: wrong result: %s\n",
					label, sched_names[s], why);
				failed = 1;
			}
		}
	}
	xs_affinity_override(NULL);
	rt->opt.affinity_trial = trials;
	/* affinity / static round by round: the two ran next to each other,
	 * under the same load; the median and quartiles of these ratios. */
	for (int r = 0; r < R; r++)
		ratio[r] = times[2][r] / times[0][r];
	qsort(ratio, (size_t)R, sizeof(double), bench_cmp_double);
	rmed = ratio[R / 2];
	rq1 = ratio[R / 4];
	rq3 = ratio[(3 * R) / 4 < R ? (3 * R) / 4 : R - 1];
	free(ratio);
	for (int s = 0; s < ns; s++) {
		qsort(times[s], (size_t)R, sizeof(double), bench_cmp_double);
		best[s] = times[s][0];
		med[s] = times[s][R / 2];
		free(times[s]);
	}
	if (o->json)
		printf("{\"affinity\":\"%s\",\"threads\":%u,\"n\":%llu,\"sweeps\":%d,"
		       "\"status\":\"%s\",\"plan\":\"%s\",\"static_s\":%.6g,\"hybrid_s\":%.6g,"
		       "\"affinity_s\":%.6g,\"partitioned_s\":%.6g,"
		       "\"static_median_s\":%.6g,\"hybrid_median_s\":%.6g,"
		       "\"affinity_median_s\":%.6g,\"partitioned_median_s\":%.6g,"
		       "\"static_over_affinity\":%.4f,"
		       "\"record_mode\":\"%s\",\"record_sample\":%u,\"record_s\":%.6g,"
		       "\"record_us_per_access\":%.3g,"
		       "\"plain_s\":%.6g,\"record_slowdown\":%.1f,"
		       "\"accesses\":%llu,\"addresses\":%llu,\"shared\":%llu,\"graph_edges\":%llu,"
		       "\"cut_percent\":%.2f,\"metis_cut_percent\":%.2f,\"plan_s\":%.6g,"
		       "\"kept\":\"%s\",\"trial_loops\":%d,\"trial_s\":%.6g,"
		       "\"affinity_over_static\":%.4f,\"affinity_over_static_q1\":%.4f,"
		       "\"affinity_over_static_q3\":%.4f}\n",
		       label, xs_runtime_workers(rt), (unsigned long long)k->n, k->sweeps,
		       failed ? "error" : "ok", st.kind == XS_AFF_PLAN_METIS ? "metis" : "static",
		       best[0], best[1], best[2], best[3], med[0], med[1], med[2], med[3],
		       best[0] / best[2], k->rec_step ? "step" : "page", cfg.sample,
		       h.seconds, h.accesses ? 1e6 * h.seconds / (double)h.accesses : 0.0,
		       t_plain, h.seconds / t_plain,
		       (unsigned long long)h.accesses, (unsigned long long)h.naddrs,
		       (unsigned long long)h.nedges, (unsigned long long)g.ne / 2,
		       st.total ? 100.0 * (double)st.cut / (double)st.total : 0.0,
		       st.total ? 100.0 * (double)st.metis_cut / (double)st.total : 0.0, t_plan,
		       kept >= 0 ? kept_names[kept] : "none", ntrial, t_trial, rmed, rq1, rq3);
	else
		printf("  %-30s %7llu %4d %9.4f %9.4f %9.4f %-6s %-6s %5.3f %5.3f-%5.3f %-4s "
		       "%9.4f %6.3fx %6.3fx %6.3fx %8.0fx %6.1f %-4s %5.1f%% %6.2f%s\n",
		       label, (unsigned long long)k->n, k->sweeps, best[0], best[1], best[2],
		       st.kind == XS_AFF_PLAN_METIS ? "metis" : "static",
		       kept >= 0 ? kept_names[kept] : "none", rmed, rq1, rq3,
		       rmed <= 1.03 ? "ok" : "SLOW", best[3],
		       best[0] / best[2], best[1] / best[2], best[0] / best[3], h.seconds / t_plain,
		       h.accesses ? 1e6 * h.seconds / (double)h.accesses : 0.0,
		       k->rec_step ? "step" : "page",
		       st.total ? 100.0 * (double)st.metis_cut / (double)st.total : 0.0, t_plan,
		       failed ? "  WRONG" : "");
	fflush(stdout);
out:
	xs_affinity_map_free(&fmap);
	xs_affinity_map_free(&map);
	xs_aff_machine_free(&mach);
	xs_aff_graph_free(&g);
	xs_aff_hgraph_free(&h);
	return failed;
}

static int load_mtx(const char *name, struct spmat *m)
{
	char path[512], err[512];
	struct xs_csr c = { 0 };
	int ret;

	snprintf(path, sizeof(path), "%s/%s.mtx", MTX_DIR, name);
	ret = xs_mtx_read(path, &c, err, sizeof(err));
	if (ret) {
		fprintf(stderr, PROG ": --affinity: %s (r-cran-matrix): %s\n", path, err);
		return ret;
	}
	ret = spmat_from_csr(&c, m);
	xs_csr_free(&c);
	return ret;
}

static const char *const aff_kernels[] = { "spmv-crs", "spmv-ccs", "spmm", "irreg", "radix" };

/* Whether --affinity=LIST names @kernel (no LIST: every kernel). */
static bool aff_selected(const struct options *o, const char *kernel)
{
	const char *p = o->affinity_only;
	size_t len = strlen(kernel);

	if (!p)
		return true;
	for (;;) {
		if (!strncmp(p, kernel, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (!p)
			return false;
		p++;
	}
}

/* Every name of --affinity=LIST is a kernel: 0, or -EINVAL (named). */
static int aff_check_list(const struct options *o)
{
	const char *p = o->affinity_only;

	while (p) {
		size_t len = strcspn(p, ",");
		bool known = false;

		for (size_t i = 0; i < sizeof(aff_kernels) / sizeof(aff_kernels[0]); i++)
			known |= strlen(aff_kernels[i]) == len && !strncmp(p, aff_kernels[i], len);
		if (!known) {
			fprintf(stderr, PROG ": --affinity=%s: unknown kernel '%.*s': expected a "
				"comma-separated list of spmv-crs, spmv-ccs, spmm, irreg, radix\n",
				o->affinity_only, (int)len, p);
			return -EINVAL;
		}
		p = p[len] ? p + len + 1 : NULL;
	}
	return 0;
}

int affinity_run(const struct options *o)
{
	static const char *const mtx[] = { "jgl009", "pores_1", "lund_a" };
	int P = o->threads[o->nthreads - 1], failed = 0;
	struct spmat mats[5] = { 0 };
	const char *mnames[5] = { "jgl009", "pores_1", "lund_a", "lund_a x pores_1",
				  "lund_a x pores_1, shuffled" };
	static const uint64_t quick_edges[] = { 4000, 40000 }, edges[] = { 4000, 40000, 400000 };
	struct xs_runtime *rt;
	char label[96];
	int nm = 0;

	if (aff_check_list(o))
		return 1;
	for (int i = 0; i < 3; i++)
		if (load_mtx(mtx[i], &mats[i]) == 0)
			nm = i + 1;
		else
			failed = 1;
	if (nm == 3 && !spmat_kron(&mats[2], &mats[1], &mats[3]) &&
	    !spmat_shuffle_rows(&mats[3], &mats[4]))
		nm = 5;
	rt = xs_runtime_create((unsigned)P);
	if (!rt) {
		fprintf(stderr, PROG ": --affinity: cannot create a runtime of %d workers\n", P);
		return 1;
	}
	if (!o->json) {
		printf("xsched-bench --affinity: %u workers (%s); min of %ld runs, seconds per run "
		       "of `sweeps` loops;\n  affinity: the plan's schedule (plan: metis, or "
		       "static where it chose the static split) after the replay's trial\n"
		       "  (XSCHED_AFFINITY_TRIAL=%lld); partition: METIS's partition replayed "
		       "always;\n  kept: what the trial kept (its loops run before the timed "
		       "rounds); a/s: affinity / static,\n  the median of the rounds' ratios "
		       "(each round runs the schedules side by side), q1-q3 its quartiles,\n"
		       "  3%%: ok where the median is at most 1.03;\n  x: static / affinity, "
		       "hybrid / affinity, static / partition (> 1: faster than static); rec: slowdown of the recorded serial "
		       "run,\n  us/acc: its microseconds per access seen "
		       "(XSCHED_AFFINITY_SAMPLE=%lld); cut: METIS's edge weight\n  between "
		       "workers\n", xs_runtime_workers(rt), rt->topo->source, o->repeat,
		       (long long)rt->opt.affinity_trial, (long long)rt->opt.affinity_sample);
		printf("  %-30s %7s %4s %9s %9s %9s %-6s %-6s %5s %11s %-4s %9s %7s %7s %7s %9s %6s "
		       "%-4s %6s %6s\n",
		       "kernel", "n", "swp", "static", "hybrid", "affinity", "plan", "kept", "a/s",
		       "a/s q1-q3", "3%", "partition",
		       "x stat", "x hyb", "x part", "rec", "us/acc", "mode", "cut", "plan_s");
	}
	for (int m = 0; m < nm; m++) {
		void (*bodies[3])(struct kstate *, uint64_t, uint64_t) = { spmv_crs, spmv_ccs,
									    spmm_row };
		const char *const *bn = aff_kernels;

		for (int b = 0; b < 3; b++) {
			struct kstate k = { 0 };

			if (!aff_selected(o, bn[b]))
				continue;
			snprintf(label, sizeof(label), "%s %s", bn[b], mnames[m]);
			if (spmat_setup(&k, &mats[m], bodies[b], (unsigned)P)) {
				fprintf(stderr, PROG ": --affinity: %s: out of memory\n", label);
				failed = 1;
			} else {
				failed |= aff_kernel(rt, o, &k, label);
			}
			kfree(&k);
		}
	}
	for (int e = 0; e < (o->quick ? 2 : 3) && aff_selected(o, "irreg"); e++) {
		struct kstate k = { 0 };
		uint64_t E = o->quick ? quick_edges[e] : edges[e];

		snprintf(label, sizeof(label), "irreg %lluk edges", (unsigned long long)E / 1000);
		if (irreg_setup(&k, E))
			failed = 1;
		else
			failed |= aff_kernel(rt, o, &k, label);
		kfree(&k);
	}
	if (aff_selected(o, "radix")) {
		struct kstate k = { 0 };
		uint64_t nkeys = o->quick ? 1u << 20 : 1u << 23;

		snprintf(label, sizeof(label), "radix 2^%d keys", o->quick ? 20 : 23);
		if (radix_setup(&k, nkeys))
			failed = 1;
		else
			failed |= aff_kernel(rt, o, &k, label);
		kfree(&k);
	}
	xs_runtime_destroy(rt);
	for (int m = 0; m < 5; m++)
		spmat_free(&mats[m]);
	return failed;
}
