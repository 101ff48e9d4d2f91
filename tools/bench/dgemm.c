// SPDX-License-Identifier: MIT
/*
 * dgemm.c - xsched-bench --dgemm: the DGEMM of dgemm.h under the static,
 * dynamic and hybrid schedules of xsched's loop module, side by side in
 * one run with multithreaded OpenBLAS (libopenblas0-pthread) and BLIS
 * (libblis4-pthread) dgemm, for n = 1024..4096 (--quick: 256, 512), each
 * quiet and with a noisy neighbour (noise.h: a hog at 50% duty on the last
 * CPU we may use). Columns: GFLOP/s (best of --repeat), efficiency against
 * P x one core's measured peak (the serial kernel at n = 1024), and the
 * seed's two waits, T_c and T_r, as a percentage of P x wall time.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "driver.h"
#include "dgemm.h"
#include "noise.h"

#define OPENBLAS_PTHREAD "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"
#define BLIS_PTHREAD "/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4"

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

int dgemm_run(const struct options *o)
{
	static const int sizes[] = { 1024, 2048, 3072, 4096 }, quick[] = { 256, 512 };
	const int *ns = o->quick ? quick : sizes;
	int nsizes = o->quick ? 2 : 4, P = 1, failed = 0, hog_cpu;
	const char *why = "";
	dg_dgemm_fn kernel = dg_kernel_load(&why);
	struct blas_lib libs[2];
	struct xs_loop_sched scheds[3] = {
		{ .kind = XS_LOOP_STATIC },
		{ .kind = XS_LOOP_DYNAMIC, .chunk = 1 },
		{ .kind = XS_LOOP_DEFAULT },
	};
	static const char *const sched_names[] = { "xsched static", "xsched dynamic",
						   "xsched hybrid" };
	struct xs_runtime *rt;
	double peak;

	for (int i = 0; i < o->nthreads; i++)
		if (o->threads[i] > P)
			P = o->threads[i];
	if (!kernel) {
		fprintf(stderr, PROG ": --dgemm: %s\n", why);
		return 1;
	}
	blas_open(&libs[0], "OpenBLAS", OPENBLAS_PTHREAD, "openblas_set_num_threads");
	blas_open(&libs[1], "BLIS", BLIS_PTHREAD, "bli_thread_set_num_threads");
	rt = xs_runtime_create((unsigned)P);
	if (!rt)
		return 1;
	xs_loop_sched_default(rt, &scheds[2]);
	hog_cpu = P - 1;
	{
		/* One core's peak: the kernel, square, in this thread. */
		int pn = o->quick ? 512 : 1024;
		double *A = malloc(sizeof(double) * pn * pn * 3), one = 1.0, zero = 0.0, best = 1e30;

		if (!A)
			return 1;
		for (long i = 0; i < (long)pn * pn * 2; i++)
			A[i] = (double)(bench_mix64((uint64_t)i) % 1000) / 500.0 - 1.0;
		for (int r = 0; r < 3; r++) {
			double t0 = dg_now();

			kernel("N", "N", &pn, &pn, &pn, &one, A, &pn, A + (long)pn * pn, &pn, &zero,
			       A + 2L * pn * pn, &pn);
			if (dg_now() - t0 < best)
				best = dg_now() - t0;
		}
		peak = 2.0 * pn * pn * pn / best * 1e-9;
		free(A);
	}
	printf("DGEMM C = A B, %d threads; one core's peak (serial kernel): %.2f GFLOP/s\n"
	       "hybrid: Ns=%u Nd=%u g=%u per mille; noisy: a hog at 50%% duty on CPU %d\n"
	       "%6s %-6s %-16s %9s %7s %7s %7s\n",
	       P, peak, scheds[2].ns, scheds[2].nd, scheds[2].grain, hog_cpu, "n", "load",
	       "dgemm", "GFLOP/s", "eff", "T_c", "T_r");
	for (int si = 0; si < nsizes; si++) {
		int n = ns[si];
		size_t len = (size_t)n * n;
		double *A = malloc(sizeof(double) * len), *B = malloc(sizeof(double) * len);
		double *C = malloc(sizeof(double) * len), *R = malloc(sizeof(double) * len);
		double flops = 2.0 * n * n * n;

		if (!A || !B || !C || !R) {
			fprintf(stderr, PROG ": --dgemm: out of memory at n = %d\n", n);
			failed = 1;
			break;
		}
		for (size_t i = 0; i < len; i++) {
			A[i] = (double)(bench_mix64(i) % 2001) / 1000.0 - 1.0;
			B[i] = (double)(bench_mix64(i + len) % 2001) / 1000.0 - 1.0;
		}
		for (int noisy = 0; noisy < 2; noisy++) {
			if (noisy && noise_start(hog_cpu, 50) < 0) {
				fprintf(stderr, PROG ": --dgemm: cannot start the hog\n");
				break;
			}
			for (int s = 0; s < 3; s++) {
				struct dgemm g = { .n = n, .k = n, .m = n, .A = A, .B = B, .C = C,
						   .kernel = kernel };
				double best = 1e30, tc = 0, tr = 0;

				dg_kernel_load(&why); /* OpenBLAS back to one thread */
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
				if (s == 0) {
					/* The reference: the serial kernel on the whole. */
					double one = 1.0, zero = 0.0;

					kernel("N", "N", &n, &n, &n, &one, A, &n, B, &n, &zero, R, &n);
				}
				if (max_diff(C, R, len) > 1e-9 * n) {
					fprintf(stderr, PROG ": --dgemm: %s n=%d: wrong result\n",
						sched_names[s], n);
					failed = 1;
				}
				printf("%6d %-6s %-16s %9.2f %6.1f%% %6.1f%% %6.1f%%\n", n,
				       noisy ? "noisy" : "quiet", sched_names[s], flops / best * 1e-9,
				       100.0 * flops / best * 1e-9 / (P * peak), 100 * tc, 100 * tr);
				fflush(stdout);
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
				printf("%6d %-6s %-16s %9.2f %6.1f%% %7s %7s\n", n,
				       noisy ? "noisy" : "quiet", libs[l].name, flops / best * 1e-9,
				       100.0 * flops / best * 1e-9 / (P * peak), "-", "-");
				fflush(stdout);
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
