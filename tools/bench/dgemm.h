/* SPDX-License-Identifier: MIT */
/*
 * dgemm.h - a blocked Goto/BLIS-style DGEMM, C = A B (column-major, n x k
 * times k x m), whose parallel versions differ only in how xsched's loop
 * module schedules its packing and C-tile tasks (static, dynamic, hybrid).
 * Header-only so that tests/dgemm-residual-every-schedule.c runs exactly
 * this code.
 *
 * The loops of the seed's Listing 1: for each kc-block of k (pc) and each
 * nc-block of the columns (jc):
 *   pack B    B(pc, jc) into a contiguous kc x nc panel, in column
 *             slivers of DG_NR columns, one task each         (loop 1)
 *   compute   C(ic, jr) += A(ic, pc) Bpanel(:, jr) for tiles of DG_MC rows
 *             x DG_NR columns; a task packs its A block into its worker's
 *             buffer (kept while the next tile has the same ic) and runs
 *             the kernel                                      (loop 2)
 * Between the two loops and before the next pc the threads wait: the
 * seed's two synchronisation overheads, T_c (consumers waiting for the
 * packed panel) and T_r (the panel's release), measured per loop as
 * P x wall minus the time threads spent in task bodies.
 *
 * The kernel is OpenBLAS's dgemm run single-threaded on the packed,
 * contiguous blocks: libopenblas0-pthread with openblas_set_num_threads(1)
 * (loaded with dlopen, so that BLIS can live in the same process). Its
 * serial build (libopenblas0-serial) is not used: built without
 * USE_LOCKING, concurrent calls from several threads share its buffers
 * (wrong results were seen).
 */
#ifndef XSCHED_BENCH_DGEMM_H
#define XSCHED_BENCH_DGEMM_H

#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xsched.h"

#define DG_KC 256
#define DG_NC 2048
#define DG_MC 128
#define DG_NR 256
#define DG_MAX_WORKERS 1024

#define DG_OPENBLAS "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"

typedef void (*dg_dgemm_fn)(const char *ta, const char *tb, const int *m, const int *n,
			    const int *k, const double *alpha, const double *a, const int *lda,
			    const double *b, const int *ldb, const double *beta, double *c,
			    const int *ldc);

/* The kernel, OpenBLAS set to one thread (call again after OpenBLAS was
 * used threaded). NULL and a reason in @why when it cannot be loaded. */
static inline dg_dgemm_fn dg_kernel_load(const char **why)
{
	static dg_dgemm_fn fn;
	static void (*set_threads)(int);
	void *h;

	if (!fn) {
		h = dlopen(DG_OPENBLAS, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			*why = "no " DG_OPENBLAS " (Debian package libopenblas0-pthread)";
			return NULL;
		}
		*(void **)&set_threads = dlsym(h, "openblas_set_num_threads");
		fn = (dg_dgemm_fn)dlsym(h, "dgemm_");
		if (!fn || !set_threads) {
			*why = "no dgemm_ or openblas_set_num_threads in " DG_OPENBLAS;
			fn = NULL;
			return NULL;
		}
	}
	set_threads(1);
	return fn;
}

static inline double dg_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Per-worker state, one cache line apart from the others' counters. */
struct dg_worker {
	double *apack;          /* DG_MC x DG_KC */
	int64_t a_ic, a_pc;     /* the A block apack holds, or -1 */
	double busy[2];         /* seconds in task bodies: pack, compute */
	char pad[64];
};

struct dgemm {
	int n, k, m;            /* C is n x m, A n x k, B k x m */
	const double *A, *B;
	double *C;
	double *bpack;          /* DG_KC x DG_NC */
	dg_dgemm_fn kernel;
	int pc, kc, jc, nc;     /* the current blocks */
	unsigned nworkers;
	struct dg_worker *w;
	double wait[2];         /* T_c, T_r: thread-seconds waiting */
	double wall;
};

static void dg_pack_b(void *arg, int64_t first, uint64_t count)
{
	struct dgemm *g = arg;
	struct dg_worker *w = &g->w[xs_worker_id()];
	double t0 = dg_now();

	for (uint64_t s = 0; s < count; s++) {
		int j0 = (int)(first + (int64_t)s) * DG_NR;
		int j1 = j0 + DG_NR < g->nc ? j0 + DG_NR : g->nc;

		for (int j = j0; j < j1; j++)
			memcpy(g->bpack + (size_t)j * g->kc,
			       g->B + (size_t)(g->jc + j) * g->k + g->pc, sizeof(double) * g->kc);
	}
	w->busy[0] += dg_now() - t0;
}

static void dg_tile(void *arg, int64_t r0, int64_t r1, int64_t c0, int64_t c1)
{
	struct dgemm *g = arg;
	struct dg_worker *w = &g->w[xs_worker_id()];
	double t0 = dg_now(), one = 1.0;
	int mc = (int)(r1 - r0), nr = (int)(c1 - c0), kc = g->kc, ldc = g->n;

	if (w->a_ic != r0 || w->a_pc != g->pc) {
		/* Pack A(ic, pc): mc x kc, contiguous. */
		for (int p = 0; p < kc; p++)
			memcpy(w->apack + (size_t)p * mc, g->A + (size_t)(g->pc + p) * g->n + r0,
			       sizeof(double) * mc);
		w->a_ic = r0;
		w->a_pc = g->pc;
	}
	g->kernel("N", "N", &mc, &nr, &kc, &one, w->apack, &mc, g->bpack + (size_t)c0 * kc, &kc,
		  &one, g->C + (size_t)(g->jc + c0) * ldc + r0, &ldc);
	w->busy[1] += dg_now() - t0;
}

/*
 * C = A B on @rt with schedule @s (NULL: XSCHED_LOOP_*). Returns 0 or
 * -errno. g->wait[] and g->wall are filled in.
 */
static inline int dgemm_xsched(struct xs_runtime *rt, const struct xs_loop_sched *s,
			       struct dgemm *g)
{
	unsigned P = xs_runtime_workers(rt);
	int ret = 0;
	double t0;

	g->nworkers = P;
	g->w = aligned_alloc(64, sizeof(*g->w) * P);
	g->bpack = malloc(sizeof(double) * DG_KC * DG_NC);
	if (!g->w || !g->bpack) {
		ret = -ENOMEM;
		goto out;
	}
	memset(g->w, 0, sizeof(*g->w) * P);
	for (unsigned i = 0; i < P; i++) {
		g->w[i].apack = malloc(sizeof(double) * DG_MC * DG_KC);
		g->w[i].a_ic = g->w[i].a_pc = -1;
		if (!g->w[i].apack) {
			ret = -ENOMEM;
			goto out;
		}
	}
	memset(g->C, 0, sizeof(double) * (size_t)g->n * (size_t)g->m);
	g->wait[0] = g->wait[1] = 0;
	t0 = dg_now();
	for (g->jc = 0; g->jc < g->m; g->jc += DG_NC) {
		g->nc = g->m - g->jc < DG_NC ? g->m - g->jc : DG_NC;
		for (g->pc = 0; g->pc < g->k; g->pc += DG_KC) {
			double a = dg_now(), b;

			g->kc = g->k - g->pc < DG_KC ? g->k - g->pc : DG_KC;
			ret = xs_parallel_for(rt, 0, (g->nc + DG_NR - 1) / DG_NR, 1, s, dg_pack_b, g);
			b = dg_now();
			if (ret < 0)
				goto out;
			g->wait[0] += (b - a) * P;
			ret = xs_parallel_for_2d(rt, 0, g->n, 0, g->nc, DG_MC, DG_NR, s, dg_tile, g);
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
