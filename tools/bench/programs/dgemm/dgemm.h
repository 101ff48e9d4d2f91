/* SPDX-License-Identifier: MIT */
/*
 * dgemm.h - a blocked Goto/BLIS-style DGEMM, C = alpha A B + beta C
 * (column-major, C n x m, A n x k, B k x m), whose parallel versions differ
 * only in how xsched's loop module schedules its packing and C-tile tasks
 * (static, dynamic, hybrid). Header-only so that
 * tests/tools/dgemm-residual-every-schedule.c runs exactly this code.
 *
 * The loops of the seed's Listing 1: for each nc-block of the columns (jc)
 * and each kc-block of k (pc):
 *   pack B    B(pc, jc) into a kc x nc panel of DG_NR-column micro-panels
 *             (row p of a micro-panel: DG_NR contiguous doubles; the last
 *             one zero-padded), DG_NB columns per task           (loop 1)
 *   compute   C(ic, jr) for tiles of DG_MC rows x DG_NB columns; a task
 *             packs its A block into DG_MR-row micro-panels in its
 *             worker's buffer (kept while the next tile has the same ic)
 *             and runs the micro-kernel over its DG_MR x DG_NR tiles,
 *             B micro-panel outer (it stays in L1), A inner    (loop 2)
 * Between the two loops and before the next pc the threads wait: the
 * seed's two synchronisation overheads, T_c (consumers waiting for the
 * packed panel) and T_r (the panel's release), measured per loop as
 * P x wall minus the time threads spent in task bodies.
 *
 * The micro-kernel (the innermost loop of Listing 1) is ours, single-
 * threaded, on the packed panels: C(8 x 6) = alpha sum_p a_p b_p^T +
 * beta C. For column-major C the 8 rows are two 4-double vectors loaded
 * from A and each of the 6 columns a broadcast of B: 12 accumulators, 2 A
 * registers and a broadcast in the 16 ymm registers, 12 FMAs per 2 loads
 * and 6 broadcasts. dg_ukr_avx2() is compiled with target("avx2,fma") (the
 * rest of the tree stays portable) and chosen at run time when the CPU has
 * both; dg_ukr_c() is the portable fallback. Edge tiles run the kernel into
 * a DG_MR x DG_NR buffer and add it to C with scalar code. beta == 0 never
 * reads C (NaN or garbage there is overwritten).
 */
#ifndef XSCHED_BENCH_DGEMM_H
#define XSCHED_BENCH_DGEMM_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <immintrin.h>
#define DG_HAVE_AVX2_PATH 1
#else
#define DG_HAVE_AVX2_PATH 0
#endif

#include "xsched.h"

#define DG_MR 8     /* micro-tile rows: two ymm of doubles */
#define DG_NR 6     /* micro-tile columns: broadcasts of B */
#define DG_KC 256   /* A micro-panel 16 KiB + B micro-panel 12 KiB: L1 */
#define DG_MC 128   /* A block 256 KiB: L2; a multiple of DG_MR */
#define DG_NB 192   /* columns per task; a multiple of DG_NR */
#define DG_NC 4224  /* B panel 8.25 MiB: L3; a multiple of DG_NB */
#define DG_MAX_WORKERS 1024

_Static_assert(DG_MC % DG_MR == 0, "A blocks are whole micro-panels");
_Static_assert(DG_NB % DG_NR == 0 && DG_NC % DG_NB == 0, "B tasks are whole micro-panels");

/* C(DG_MR x DG_NR, column stride ldc) = alpha a b^T + beta C over kc
 * packed steps; beta == 0: C is written, never read. */
typedef void (*dg_ukr_fn)(int kc, double alpha, const double *a, const double *b, double beta,
			  double *c, long ldc);

static inline void dg_ukr_c(int kc, double alpha, const double *a, const double *b,
			    double beta, double *c, long ldc)
{
	double acc[DG_NR][DG_MR];

	memset(acc, 0, sizeof(acc));
	for (int p = 0; p < kc; p++, a += DG_MR, b += DG_NR)
		for (int j = 0; j < DG_NR; j++)
			for (int i = 0; i < DG_MR; i++)
				acc[j][i] += a[i] * b[j];
	for (int j = 0; j < DG_NR; j++)
		for (int i = 0; i < DG_MR; i++)
			c[j * ldc + i] = beta == 0 ? alpha * acc[j][i]
						   : alpha * acc[j][i] + beta * c[j * ldc + i];
}

#if DG_HAVE_AVX2_PATH
/* One k step: two A vectors times six B broadcasts. */
#define DG_AVX2_STEP(ap, bp)                                                           \
	do {                                                                           \
		__m256d a0 = _mm256_loadu_pd(ap), a1 = _mm256_loadu_pd((ap) + 4), bj; \
		bj = _mm256_broadcast_sd((bp) + 0);                                    \
		c00 = _mm256_fmadd_pd(a0, bj, c00);                                    \
		c10 = _mm256_fmadd_pd(a1, bj, c10);                                    \
		bj = _mm256_broadcast_sd((bp) + 1);                                    \
		c01 = _mm256_fmadd_pd(a0, bj, c01);                                    \
		c11 = _mm256_fmadd_pd(a1, bj, c11);                                    \
		bj = _mm256_broadcast_sd((bp) + 2);                                    \
		c02 = _mm256_fmadd_pd(a0, bj, c02);                                    \
		c12 = _mm256_fmadd_pd(a1, bj, c12);                                    \
		bj = _mm256_broadcast_sd((bp) + 3);                                    \
		c03 = _mm256_fmadd_pd(a0, bj, c03);                                    \
		c13 = _mm256_fmadd_pd(a1, bj, c13);                                    \
		bj = _mm256_broadcast_sd((bp) + 4);                                    \
		c04 = _mm256_fmadd_pd(a0, bj, c04);                                    \
		c14 = _mm256_fmadd_pd(a1, bj, c14);                                    \
		bj = _mm256_broadcast_sd((bp) + 5);                                    \
		c05 = _mm256_fmadd_pd(a0, bj, c05);                                    \
		c15 = _mm256_fmadd_pd(a1, bj, c15);                                    \
	} while (0)

/* Column j of the tile: acc * alpha (+ beta C). */
#define DG_AVX2_STORE(j, lo, hi)                                                         \
	do {                                                                             \
		double *cj = c + (long)(j) * ldc;                                        \
		__m256d x = _mm256_mul_pd(lo, va), y = _mm256_mul_pd(hi, va);            \
		if (beta != 0) {                                                         \
			x = _mm256_fmadd_pd(_mm256_loadu_pd(cj), vb, x);                 \
			y = _mm256_fmadd_pd(_mm256_loadu_pd(cj + 4), vb, y);             \
		}                                                                        \
		_mm256_storeu_pd(cj, x);                                                 \
		_mm256_storeu_pd(cj + 4, y);                                             \
	} while (0)

__attribute__((target("avx2,fma"))) static inline void
dg_ukr_avx2(int kc, double alpha, const double *a, const double *b, double beta, double *c,
	    long ldc)
{
	__m256d c00 = _mm256_setzero_pd(), c01 = c00, c02 = c00, c03 = c00, c04 = c00, c05 = c00;
	__m256d c10 = c00, c11 = c00, c12 = c00, c13 = c00, c14 = c00, c15 = c00;
	__m256d va = _mm256_set1_pd(alpha), vb = _mm256_set1_pd(beta);
	int p = 0;

	/* The C tile is written at the end: ask for its lines now. */
	for (int j = 0; j < DG_NR; j++)
		_mm_prefetch((const char *)(c + (long)j * ldc), _MM_HINT_T0);
	for (; p + 4 <= kc; p += 4, a += 4 * DG_MR, b += 4 * DG_NR) {
		_mm_prefetch((const char *)(a + 8 * DG_MR), _MM_HINT_T0);
		DG_AVX2_STEP(a, b);
		DG_AVX2_STEP(a + DG_MR, b + DG_NR);
		_mm_prefetch((const char *)(a + 10 * DG_MR), _MM_HINT_T0);
		DG_AVX2_STEP(a + 2 * DG_MR, b + 2 * DG_NR);
		DG_AVX2_STEP(a + 3 * DG_MR, b + 3 * DG_NR);
	}
	for (; p < kc; p++, a += DG_MR, b += DG_NR)
		DG_AVX2_STEP(a, b);
	DG_AVX2_STORE(0, c00, c10);
	DG_AVX2_STORE(1, c01, c11);
	DG_AVX2_STORE(2, c02, c12);
	DG_AVX2_STORE(3, c03, c13);
	DG_AVX2_STORE(4, c04, c14);
	DG_AVX2_STORE(5, c05, c15);
}
#undef DG_AVX2_STEP
#undef DG_AVX2_STORE

/* One core's peak: 12 independent chains of 4-wide FMAs in registers
 * (latency x throughput is 8 on current x86 cores). Returns the flops. */
__attribute__((target("avx2,fma"))) static inline double dg_fma_loop_avx2(long iters,
									   double *sink)
{
	__m256d x = _mm256_set1_pd(1.0 - 1e-12), y = _mm256_set1_pd(1e-12);
	__m256d r0 = _mm256_set1_pd(0), r1 = _mm256_set1_pd(1), r2 = _mm256_set1_pd(2);
	__m256d r3 = _mm256_set1_pd(3), r4 = _mm256_set1_pd(4), r5 = _mm256_set1_pd(5);
	__m256d r6 = _mm256_set1_pd(6), r7 = _mm256_set1_pd(7), r8 = _mm256_set1_pd(8);
	__m256d r9 = _mm256_set1_pd(9), r10 = _mm256_set1_pd(10), r11 = _mm256_set1_pd(11);

	for (long it = 0; it < iters; it++) {
		r0 = _mm256_fmadd_pd(r0, x, y);
		r1 = _mm256_fmadd_pd(r1, x, y);
		r2 = _mm256_fmadd_pd(r2, x, y);
		r3 = _mm256_fmadd_pd(r3, x, y);
		r4 = _mm256_fmadd_pd(r4, x, y);
		r5 = _mm256_fmadd_pd(r5, x, y);
		r6 = _mm256_fmadd_pd(r6, x, y);
		r7 = _mm256_fmadd_pd(r7, x, y);
		r8 = _mm256_fmadd_pd(r8, x, y);
		r9 = _mm256_fmadd_pd(r9, x, y);
		r10 = _mm256_fmadd_pd(r10, x, y);
		r11 = _mm256_fmadd_pd(r11, x, y);
	}
	r0 = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(r0, r1), _mm256_add_pd(r2, r3)),
			   _mm256_add_pd(_mm256_add_pd(r4, r5), _mm256_add_pd(r6, r7)));
	r0 = _mm256_add_pd(r0, _mm256_add_pd(_mm256_add_pd(r8, r9), _mm256_add_pd(r10, r11)));
	*sink = _mm256_cvtsd_f64(r0);
	return 2.0 * 4 * 12 * (double)iters;
}
#endif /* DG_HAVE_AVX2_PATH */

/* The same with plain C doubles (what the fallback kernel can reach). */
static inline double dg_fma_loop_c(long iters, double *sink)
{
	double r[16], x = 1.0 - 1e-12, y = 1e-12;

	for (int i = 0; i < 16; i++)
		r[i] = i;
	for (long it = 0; it < iters; it++)
		for (int i = 0; i < 16; i++)
			r[i] = r[i] * x + y;
	for (int i = 1; i < 16; i++)
		r[0] += r[i];
	*sink = r[0];
	return 2.0 * 16 * (double)iters;
}

static inline int dg_cpu_has_avx2_fma(void)
{
#if DG_HAVE_AVX2_PATH
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
	return 0;
#endif
}

/* The micro-kernel for this CPU, and its name in @name. */
static inline dg_ukr_fn dg_ukr_select(const char **name)
{
#if DG_HAVE_AVX2_PATH
	if (dg_cpu_has_avx2_fma()) {
		if (name)
			*name = "avx2+fma 8x6";
		return dg_ukr_avx2;
	}
#endif
	if (name)
		*name = "portable C 8x6";
	return dg_ukr_c;
}

static inline double dg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One core's measured peak in GFLOP/s, for kernel @ukr (its FMA width). */
static inline double dg_core_peak(dg_ukr_fn ukr)
{
	double best = 0, sink = 0;
	volatile double keep; /* the loops' result is used: they run */

	for (int r = 0; r < 5; r++) {
		double t0 = dg_now(), flops;

#if DG_HAVE_AVX2_PATH
		if (ukr == dg_ukr_avx2)
			flops = dg_fma_loop_avx2(4000000, &sink);
		else
#endif
			flops = dg_fma_loop_c(4000000, &sink);
		double t = dg_now() - t0;

		keep = sink;
		if (flops / t > best)
			best = flops / t;
	}
	(void)ukr;
	(void)keep;
	return best * 1e-9;
}

/* Per-worker state, one cache line apart from the others' counters. */
struct dg_worker {
	_Alignas(64) double *apack; /* DG_MC x DG_KC in DG_MR-row micro-panels */
	int64_t a_ic, a_pc;     /* the A block apack holds, or -1 */
	double busy[2];         /* seconds in task bodies: pack, compute */
};

struct dgemm {
	int n, k, m;            /* C is n x m, A n x k, B k x m */
	double alpha, beta;     /* C = alpha A B + beta C */
	const double *A, *B;
	double *C;
	dg_ukr_fn ukr;          /* NULL: dg_ukr_select() */
	double *bpack;          /* DG_KC x DG_NC in DG_NR-column micro-panels */
	int pc, kc, jc, nc;     /* the current blocks */
	unsigned nworkers;
	struct dg_worker *w;
	double wait[2];         /* T_c, T_r: thread-seconds waiting */
	double wall;
};

static inline void dg_pack_b(void *arg, int64_t first, uint64_t count)
{
	struct dgemm *g = arg;
	struct dg_worker *w = &g->w[xs_worker_id()];
	double t0 = dg_now();
	int kc = g->kc;

	for (uint64_t s = 0; s < count; s++) {
		int j0 = (int)(first + (int64_t)s) * DG_NB;
		int j1 = j0 + DG_NB < g->nc ? j0 + DG_NB : g->nc;
		/* The last task pads the last micro-panel with zero columns. */
		int jpad = j1 == g->nc ? (j1 + DG_NR - 1) / DG_NR * DG_NR : j1;

		for (int j = j0; j < jpad; j++) {
			double *dst = g->bpack + (size_t)(j / DG_NR) * kc * DG_NR + j % DG_NR;
			const double *src = g->B + (size_t)(g->jc + j) * g->k + g->pc;

			if (j < j1)
				for (int p = 0; p < kc; p++)
					dst[p * DG_NR] = src[p];
			else
				for (int p = 0; p < kc; p++)
					dst[p * DG_NR] = 0;
		}
	}
	w->busy[0] += dg_now() - t0;
}

/* A(r0:r0+mc, pc:pc+kc) into DG_MR-row micro-panels, zero-padded rows. */
static inline void dg_pack_a(const struct dgemm *g, double *dst, int64_t r0, int mc)
{
	for (int i0 = 0; i0 < mc; i0 += DG_MR, dst += (size_t)g->kc * DG_MR) {
		int mr = mc - i0 < DG_MR ? mc - i0 : DG_MR;
		const double *src = g->A + (size_t)g->pc * g->n + r0 + i0;

		for (int p = 0; p < g->kc; p++, src += g->n) {
			int i = 0;

			for (; i < mr; i++)
				dst[p * DG_MR + i] = src[i];
			for (; i < DG_MR; i++)
				dst[p * DG_MR + i] = 0;
		}
	}
}

static inline void dg_tile(void *arg, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
	struct dgemm *g = arg;
	struct dg_worker *w = &g->w[xs_worker_id()];
	double t0 = dg_now(), beta = g->pc ? 1.0 : g->beta, edge[DG_MR * DG_NR];
	int mc = (int)(r1 - r0), kc = g->kc;
	long ldc = g->n;

	if (w->a_ic != r0 || w->a_pc != g->pc) {
		dg_pack_a(g, w->apack, r0, mc);
		w->a_ic = r0;
		w->a_pc = g->pc;
	}
	for (int64_t j = c0; j < c1; j += DG_NR) {
		const double *bp = g->bpack + (size_t)(j / DG_NR) * kc * DG_NR;
		int nr = c1 - j < DG_NR ? (int)(c1 - j) : DG_NR;
		double *cj = g->C + (size_t)(g->jc + j) * ldc + r0;

		for (int i = 0; i < mc; i += DG_MR) {
			const double *ap = w->apack + (size_t)(i / DG_MR) * kc * DG_MR;
			int mr = mc - i < DG_MR ? mc - i : DG_MR;

			if (mr == DG_MR && nr == DG_NR) {
				g->ukr(kc, g->alpha, ap, bp, beta, cj + i, ldc);
				continue;
			}
			g->ukr(kc, g->alpha, ap, bp, 0.0, edge, DG_MR);
			for (int jj = 0; jj < nr; jj++)
				for (int ii = 0; ii < mr; ii++) {
					double *cij = cj + i + jj * ldc + ii;

					*cij = beta == 0 ? edge[jj * DG_MR + ii]
							 : edge[jj * DG_MR + ii] + beta * *cij;
				}
		}
	}
	w->busy[1] += dg_now() - t0;
}

/*
 * C = alpha A B + beta C on @rt with schedule @s (NULL: XSCHED_LOOP_*).
 * Returns 0 or -errno. g->wait[] and g->wall are filled in.
 */
static inline int dgemm_xsched(struct xs_runtime *rt, const struct xs_loop_sched *s,
			       struct dgemm *g)
{
	unsigned P = xs_runtime_workers(rt);
	int ret = 0;
	double t0;

	if (g->n < 0 || g->k < 0 || g->m < 0)
		return -EINVAL;
	if (!g->ukr)
		g->ukr = dg_ukr_select(NULL);
	g->nworkers = P;
	g->w = aligned_alloc(64, sizeof(*g->w) * P);
	g->bpack = aligned_alloc(64, sizeof(double) * DG_KC * DG_NC);
	if (!g->w || !g->bpack) {
		ret = -ENOMEM;
		goto out;
	}
	memset(g->w, 0, sizeof(*g->w) * P);
	for (unsigned i = 0; i < P; i++) {
		g->w[i].apack = aligned_alloc(64, sizeof(double) * DG_MC * DG_KC);
		g->w[i].a_ic = g->w[i].a_pc = -1;
		if (!g->w[i].apack) {
			ret = -ENOMEM;
			goto out;
		}
	}
	g->wait[0] = g->wait[1] = 0;
	t0 = dg_now();
	if (!g->k) /* no product: C = beta C */
		for (size_t i = 0; i < (size_t)g->n * (size_t)g->m; i++)
			g->C[i] = g->beta == 0 ? 0 : g->beta * g->C[i];
	for (g->jc = 0; g->jc < g->m && g->k; g->jc += DG_NC) {
		g->nc = g->m - g->jc < DG_NC ? g->m - g->jc : DG_NC;
		for (g->pc = 0; g->pc < g->k; g->pc += DG_KC) {
			double a = dg_now(), b;

			g->kc = g->k - g->pc < DG_KC ? g->k - g->pc : DG_KC;
			ret = xs_parallel_for(rt, 0, (g->nc + DG_NB - 1) / DG_NB, 1, s, dg_pack_b, g);
			b = dg_now();
			if (ret < 0)
				goto out;
			g->wait[0] += (b - a) * P;
			ret = xs_parallel_for_2d(rt, 0, g->n, 0, g->nc, DG_MC, DG_NB, s, dg_tile, g);
			if (ret < 0)
				goto out;
			g->wait[1] += (dg_now() - b) * P;
		}
	}
	g->wall = dg_now() - t0;
	for (unsigned i = 0; i < P; i++) {
		g->wait[0] -= g->w[i].busy[0];
		g->wait[1] -= g->w[i].busy[1];
	}
out:
	for (unsigned i = 0; g->w && i < P; i++)
		free(g->w[i].apack);
	free(g->w);
	free(g->bpack);
	g->w = NULL;
	g->bpack = NULL;
	return ret;
}

#endif /* XSCHED_BENCH_DGEMM_H */
