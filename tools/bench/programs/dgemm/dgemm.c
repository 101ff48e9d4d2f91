// SPDX-License-Identifier: MIT
/*
 * dgemm.c - xsched-bench --dgemm: the DGEMM of dgemm.h under the static,
 * dynamic and hybrid schedules of xsched's loop module, side by side in
 * one run with multithreaded OpenBLAS (libopenblas0-pthread) and BLIS
 * (libblis4-pthread) dgemm, for n = 1024..4096 (--quick: 512, 1024), each
 * quiet and with a noisy neighbour (noise.h: a hog at 50% duty on the last
 * CPU we may use). The header names the micro-kernel (dgemm.h) and gives
 * one core's measured peak (a tight FMA loop of the kernel's vector width),
 * the micro-kernel's own rate on L1-resident panels and the blocked DGEMM's
 * on one worker. Columns: GFLOP/s (best of --repeat), efficiency against P
 * x that peak, and the seed's two waits, T_c and T_r, as a percentage of P
 * x wall time. Every result is checked against the first BLAS found (or,
 * without one, against xsched static).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../harness/bench.h"
#include "../../harness/driver.h"
#include "dgemm.h"
#include "../../harness/noise.h"

#define OPENBLAS_PTHREAD "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"
#define BLIS_PTHREAD "/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4"

typedef void (*dg_dgemm_fn)(const char *ta, const char *tb, const int *m, const int *n,
			    const int *k, const double *alpha, const double *a, const int *lda,
			    const double *b, const int *ldb, const double *beta, double *c,
			    const int *ldc);

struct blas_lib {
	const char *name;
	dg_dgemm_fn dgemm;
	void (*set_threads)(int);
};

static void blas_open(struct blas_lib *b, const char *name, const char *path,
		      const char *threads_sym)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	b->name = name;
	b->dgemm = NULL;
	if (!h) {
		fprintf(stderr, PROG ": --dgemm: %s not measured: %s\n", name, dlerror());
		return;
	}
	b->dgemm = (dg_dgemm_fn)dlsym(h, "dgemm_");
	*(void **)&b->set_threads = dlsym(h, threads_sym);
	if (!b->dgemm || !b->set_threads) {
		fprintf(stderr, PROG ": --dgemm: %s not measured: no dgemm_ or %s\n", name,
			threads_sym);
		b->dgemm = NULL;
	}
}

static double blas_run(const struct blas_lib *b, int n, const double *A, const double *B,
		       double *C)
{
	double one = 1.0, zero = 0.0, t0 = dg_now();

	b->dgemm("N", "N", &n, &n, &n, &one, A, &n, B, &n, &zero, C, &n);
	return dg_now() - t0;
}

static double max_diff(const double *x, const double *y, size_t len)
{
	double d = 0;

	for (size_t i = 0; i < len; i++) {
		double e = x[i] > y[i] ? x[i] - y[i] : y[i] - x[i];

		if (e > d)
			d = e;
	}
	return d;
}

/* The micro-kernel alone on packed panels that stay in L1: GFLOP/s. */
static double ukr_in_cache(dg_ukr_fn ukr)
{
	static double a[DG_KC * DG_MR], b[DG_KC * DG_NR], c[DG_MR * DG_NR];
	double best = 0;

	for (int i = 0; i < DG_KC * DG_MR; i++)
		a[i] = (double)(bench_mix64((uint64_t)i) % 1000) / 500.0 - 1.0;
	for (int i = 0; i < DG_KC * DG_NR; i++)
		b[i] = (double)(bench_mix64((uint64_t)i + 7777) % 1000) / 500.0 - 1.0;
	for (int r = 0; r < 5; r++) {
		double t0 = dg_now(), t;

		for (int it = 0; it < 20000; it++)
			ukr(DG_KC, 1.0, a, b, 0.5, c, DG_MR);
		t = dg_now() - t0;
		if (2.0 * DG_MR * DG_NR * DG_KC * 20000 / t > best)
			best = 2.0 * DG_MR * DG_NR * DG_KC * 20000 / t;
	}
	return best * 1e-9;
}

/* The blocked DGEMM on one worker: the serial kernel with its packing. */
static double serial_dgemm(dg_ukr_fn ukr, int n)
{
	struct xs_loop_sched st = { .kind = XS_LOOP_STATIC };
	struct xs_runtime *rt1 = xs_runtime_create(1);
	double *A = malloc(sizeof(double) * n * n * 3), best = 1e30;

	if (!rt1 || !A) {
		free(A);
		if (rt1)
			xs_runtime_destroy(rt1);
		return 0;
	}
	for (long i = 0; i < (long)n * n * 2; i++)
		A[i] = (double)(bench_mix64((uint64_t)i) % 1000) / 500.0 - 1.0;
	for (int r = 0; r < 3; r++) {
		struct dgemm g = { .n = n, .k = n, .m = n, .alpha = 1, .beta = 0, .A = A,
				   .B = A + (long)n * n, .C = A + 2L * n * n, .ukr = ukr };

		if (dgemm_xsched(rt1, &st, &g) == 0 && g.wall < best)
			best = g.wall;
	}
	free(A);
	xs_runtime_destroy(rt1);
	return 2.0 * n * n * n / best * 1e-9;
}

/*
 * One row of the table, or under --json one object per line (nothing else
 * on stdout): bench "dgemm", threads, n, load, impl, gflops, eff (of P
 * cores' peak), t_c and t_r (xsched's shares of waiting; null for a BLAS).
 */
static void dgemm_row(const struct options *o, int P, int n, bool noisy, const char *impl,
		      double gflops, double eff, bool xs, double tc, double tr)
{
	if (o->json) {
		printf("{\"bench\":\"dgemm\",\"threads\":%d,\"n\":%d,\"load\":\"%s\",\"impl\":", P,
		       n, noisy ? "noisy" : "quiet");
		json_put_string(stdout, impl);
		printf(",\"gflops\":%.6g,\"eff\":%.6g", gflops, eff);
		if (xs)
			printf(",\"t_c\":%.6g,\"t_r\":%.6g}\n", tc, tr);
		else
			printf(",\"t_c\":null,\"t_r\":null}\n");
	} else if (xs) {
		printf("%6d %-6s %-16s %9.2f %6.1f%% %6.1f%% %6.1f%%\n", n,
		       noisy ? "noisy" : "quiet", impl, gflops, 100 * eff, 100 * tc, 100 * tr);
	} else {
		printf("%6d %-6s %-16s %9.2f %6.1f%% %7s %7s\n", n, noisy ? "noisy" : "quiet",
		       impl, gflops, 100 * eff, "-", "-");
	}
	fflush(stdout);
}

int dgemm_run(const struct options *o)
{
	static const int sizes[] = { 1024, 2048, 3072, 4096 }, quick[] = { 512, 1024 };
	const int *ns = o->quick ? quick : sizes;
	int nsizes = o->quick ? 2 : 4, P = 1, failed = 0, hog_cpu;
	const char *kname = "";
	dg_ukr_fn ukr = dg_ukr_select(&kname);
	struct blas_lib libs[2];
	struct xs_loop_sched scheds[3] = {
		{ .kind = XS_LOOP_STATIC },
		{ .kind = XS_LOOP_DYNAMIC, .chunk = 1 },
		{ .kind = XS_LOOP_DEFAULT },
	};
	static const char *const sched_names[] = { "xsched static", "xsched dynamic",
						   "xsched hybrid" };
	struct xs_runtime *rt;
	double peak, ukr_peak, serial;

	for (int i = 0; i < o->nthreads; i++)
		if (o->threads[i] > P)
			P = o->threads[i];
	blas_open(&libs[0], "OpenBLAS", OPENBLAS_PTHREAD, "openblas_set_num_threads");
	blas_open(&libs[1], "BLIS", BLIS_PTHREAD, "bli_thread_set_num_threads");
	peak = dg_core_peak(ukr);
	ukr_peak = ukr_in_cache(ukr);
	serial = serial_dgemm(ukr, ns[0]);
	rt = xs_runtime_create((unsigned)P);
	if (!rt)
		return 1;
	xs_loop_sched_default(rt, &scheds[2]);
	hog_cpu = P - 1;
	if (!o->json)
		printf("DGEMM C = A B, %d threads; micro-kernel %s\n"
		       "one core's peak (a tight FMA loop of that width): %.2f GFLOP/s; micro-kernel "
		       "in L1: %.2f (%.1f%%); serial blocked DGEMM n=%d: %.2f (%.1f%%)\n"
		       "hybrid: Ns=%u Nd=%u g=%u per mille; noisy: a hog at 50%% duty on CPU %d\n"
		       "%6s %-6s %-16s %9s %7s %7s %7s\n",
		       P, kname, peak, ukr_peak, 100 * ukr_peak / peak, ns[0], serial,
		       100 * serial / peak, scheds[2].ns, scheds[2].nd, scheds[2].grain, hog_cpu, "n",
		       "load", "dgemm", "GFLOP/s", "eff", "T_c", "T_r");
	for (int si = 0; si < nsizes; si++) {
		int n = ns[si];
		size_t len = (size_t)n * n;
		double *A = malloc(sizeof(double) * len), *B = malloc(sizeof(double) * len);
		double *C = malloc(sizeof(double) * len), *R = malloc(sizeof(double) * len);
		double flops = 2.0 * n * n * n;
		int have_ref = 0;

		if (!A || !B || !C || !R) {
			fprintf(stderr, PROG ": --dgemm: out of memory at n = %d\n", n);
			failed = 1;
			free(A), free(B), free(C), free(R);
			break;
		}
		for (size_t i = 0; i < len; i++) {
			A[i] = (double)(bench_mix64(i) % 2001) / 1000.0 - 1.0;
			B[i] = (double)(bench_mix64(i + len) % 2001) / 1000.0 - 1.0;
		}
		/* The reference: a BLAS, or else xsched static's result. */
		for (int l = 0; l < 2 && !have_ref; l++) {
			if (!libs[l].dgemm)
				continue;
			libs[l].set_threads(P);
			blas_run(&libs[l], n, A, B, R);
			have_ref = 1;
		}
		for (int noisy = 0; noisy < 2; noisy++) {
			if (noisy && noise_start(hog_cpu, 50) < 0) {
				fprintf(stderr, PROG ": --dgemm: cannot start the hog\n");
				break;
			}
			for (int s = 0; s < 3; s++) {
				struct dgemm g = { .n = n, .k = n, .m = n, .alpha = 1, .beta = 0,
						   .A = A, .B = B, .C = C, .ukr = ukr };
				double best = 1e30, tc = 0, tr = 0;

				for (long r = 0; r < o->repeat; r++) {
					if (dgemm_xsched(rt, &scheds[s], &g) < 0) {
						failed = 1;
						break;
					}
					if (g.wall < best) {
						best = g.wall;
						tc = g.wait[0] / (P * g.wall);
						tr = g.wait[1] / (P * g.wall);
					}
				}
				if (!have_ref) {
					memcpy(R, C, sizeof(double) * len);
					have_ref = 1;
				}
				if (max_diff(C, R, len) > 1e-9 * n) {
					fprintf(stderr, PROG ": --dgemm: %s n=%d: wrong result\n",
						sched_names[s], n);
					failed = 1;
				}
				dgemm_row(o, P, n, noisy, sched_names[s], flops / best * 1e-9,
					  flops / best * 1e-9 / (P * peak), true, tc, tr);
			}
			for (int l = 0; l < 2; l++) {
				double best = 1e30;

				if (!libs[l].dgemm)
					continue;
				libs[l].set_threads(P);
				for (long r = 0; r < o->repeat; r++) {
					double t = blas_run(&libs[l], n, A, B, C);

					if (t < best)
						best = t;
				}
				if (max_diff(C, R, len) > 1e-9 * n) {
					fprintf(stderr, PROG ": --dgemm: %s n=%d: wrong result\n",
						libs[l].name, n);
					failed = 1;
				}
				dgemm_row(o, P, n, noisy, libs[l].name, flops / best * 1e-9,
					  flops / best * 1e-9 / (P * peak), false, 0, 0);
			}
			if (noisy)
				noise_stop();
		}
		free(A);
		free(B);
		free(C);
		free(R);
	}
	noise_stop();
	xs_runtime_destroy(rt);
	return failed;
}
