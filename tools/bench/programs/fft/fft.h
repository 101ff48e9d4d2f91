/* SPDX-License-Identifier: MIT */
/*
 * fft.h - a radix-2 Cooley-Tukey FFT of 2^n complex doubles, recursive and
 * out of place, in the spirit of BOTS fft (which has a radix-8 kernel; the
 * task structure is what matters here).
 *
 * fft(in, stride, out, m): the even and the odd half of the input (stride
 * doubled) each transformed into one half of out, then m/2 butterflies
 * combine them with the twiddles w[k] = exp(-2 pi i k / N), k < N / 2,
 * tabled once at setup (a sub-transform of size m uses every (N/m)-th).
 *
 * Tasks, BOTS style: a transform above FFT_LEAF points spawns both halves
 * and waits, then combines them; a combine of more than FFT_TWIDDLE_LEAF
 * butterflies splits its range in two tasks and waits, recursively. Below
 * the cut-offs it is the serial code. Every output is computed by the same
 * operations in the same order whatever the schedule, so every runtime
 * gives the same bits (exact checksum). The serial result is checked
 * against a direct DFT at 16 outputs.
 */
#ifndef XSCHED_BENCH_FFT_H
#define XSCHED_BENCH_FFT_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../harness/bench.h"

#define FFT_LEAF 1024		/* points: below, no task */
#define FFT_TWIDDLE_LEAF 2048	/* butterflies: below, no task */
#define FFT_SEED 0x5eedfffull

struct fft_cplx {
	double re, im;
};

struct fft_state {
	int logn;
	long n;
	struct fft_cplx *in, *out;
	struct fft_cplx *w;	/* n / 2 twiddles */
};

BENCH_C_LINKAGE void fft_tbb(void *st);

/* Butterflies lo..hi-1 of a transform of size @m at @out, whose halves
 * are done; twiddle k is w[k * ws]. */
static inline void fft_combine(struct fft_cplx *out, long m,
			       const struct fft_cplx *w, long ws, long lo,
			       long hi)
{
	struct fft_cplx *odd = out + m / 2;

	for (long k = lo; k < hi; k++) {
		struct fft_cplx t, e = out[k], o = odd[k], wk = w[k * ws];

		t.re = wk.re * o.re - wk.im * o.im;
		t.im = wk.re * o.im + wk.im * o.re;
		out[k].re = e.re + t.re;
		out[k].im = e.im + t.im;
		odd[k].re = e.re - t.re;
		odd[k].im = e.im - t.im;
	}
}

/* The transform of the @m points in[0], in[stride], ... into out[0..m). */
static inline void fft_seq(const struct fft_cplx *in, long stride,
			   struct fft_cplx *out, long m,
			   const struct fft_cplx *w, long ws)
{
	if (m == 1) {
		out[0] = in[0];
		return;
	}
	fft_seq(in, 2 * stride, out, m / 2, w, 2 * ws);
	fft_seq(in + stride, 2 * stride, out + m / 2, m / 2, w, 2 * ws);
	fft_combine(out, m, w, ws, 0, m / 2);
}

/* Tasks of a combine of @len butterflies, and of a transform of @m. */
static inline uint64_t fft_combine_tasks(long len)
{
	return len <= FFT_TWIDDLE_LEAF ? 0 : 2 + 2 * fft_combine_tasks(len / 2);
}

static inline uint64_t fft_tasks_of(long m)
{
	if (m <= FFT_LEAF)
		return 0;
	return 2 + 2 * fft_tasks_of(m / 2) + fft_combine_tasks(m / 2);
}

static inline void fft_teardown(void *p)
{
	struct fft_state *st = (struct fft_state *)p;

	if (!st)
		return;
	free(st->in);
	free(st->out);
	free(st->w);
	free(st);
}

static inline double fft_unit(uint64_t x)	/* [-1, 1) */
{
	return (double)(bench_mix64(x) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static inline void *fft_setup(long logn)
{
	struct fft_state *st = (struct fft_state *)calloc(1, sizeof(*st));
	long n = 1L << logn;

	if (!st)
		return NULL;
	st->logn = (int)logn;
	st->n = n;
	st->in = (struct fft_cplx *)malloc((size_t)n * sizeof(*st->in));
	st->out = (struct fft_cplx *)malloc((size_t)n * sizeof(*st->out));
	st->w = (struct fft_cplx *)malloc((size_t)(n / 2 + 1) * sizeof(*st->w));
	if (!st->in || !st->out || !st->w) {
		fft_teardown(st);
		errno = ENOMEM;
		return NULL;
	}
	for (long i = 0; i < n; i++) {
		st->in[i].re = fft_unit(FFT_SEED + 2 * (uint64_t)i);
		st->in[i].im = fft_unit(FFT_SEED + 2 * (uint64_t)i + 1);
	}
	for (long k = 0; k < n / 2; k++) {
		double a = -2.0 * M_PI * (double)k / (double)n;

		st->w[k].re = cos(a);
		st->w[k].im = sin(a);
	}
	return st;
}

static inline void fft_reset(void *p)
{
	struct fft_state *st = (struct fft_state *)p;

	memset(st->out, 0xff, (size_t)st->n * sizeof(*st->out));	/* NaN */
}

static inline void fft_serial(void *p)
{
	struct fft_state *st = (struct fft_state *)p;

	fft_seq(st->in, 1, st->out, st->n, st->w, 1);
}

static inline uint64_t fft_checksum(const void *p)
{
	const struct fft_state *st = (const struct fft_state *)p;
	uint64_t h = 0;

	for (long i = 0; i < st->n; i++) {
		uint64_t re, im;

		memcpy(&re, &st->out[i].re, sizeof(re));
		memcpy(&im, &st->out[i].im, sizeof(im));
		h = bench_mix64(h ^ re) ^ im;
	}
	return bench_mix64(h);
}

/* 16 outputs against the direct sum X_j = sum_t x_t exp(-2 pi i j t / N),
 * with exp(-2 pi i q / N) = w[q] for q < N/2 and -w[q - N/2] above. */
static inline int fft_verify(const void *p, char *why, int len)
{
	const struct fft_state *st = (const struct fft_state *)p;
	double tol = 1e-9 * sqrt((double)st->n) * (st->logn + 1);

	for (int s = 0; s < 16 && s < st->n; s++) {
		long j = (long)(bench_mix64(FFT_SEED ^ (uint64_t)s) % (uint64_t)st->n);
		double re = 0, im = 0, err;

		if (st->n == 1)
			re = st->in[0].re, im = st->in[0].im;
		for (long t = 0; st->n > 1 && t < st->n; t++) {
			long q = (long)(((unsigned long)j * (unsigned long)t) &
					(unsigned long)(st->n - 1));
			struct fft_cplx wq = q < st->n / 2 ? st->w[q] :
				(struct fft_cplx){ -st->w[q - st->n / 2].re,
						   -st->w[q - st->n / 2].im };

			re += wq.re * st->in[t].re - wq.im * st->in[t].im;
			im += wq.re * st->in[t].im + wq.im * st->in[t].re;
		}
		err = hypot(re - st->out[j].re, im - st->out[j].im);
		if (!(err <= tol)) {
			snprintf(why, (size_t)len,
				 "X[%ld] = %g%+gi, the direct DFT gives %g%+gi",
				 j, st->out[j].re, st->out[j].im, re, im);
			return -EINVAL;
		}
	}
	return 0;
}

static inline uint64_t fft_tasks(const void *p)
{
	return fft_tasks_of(((const struct fft_state *)p)->n);
}

#ifndef __cplusplus
static const struct bench_problem fft_problem = {
	.name = "fft",
	.doc = "radix-2 FFT of 2^n complex doubles, tasks for both halves and the butterflies",
	.n_default = 23,
	.n_quick = 16,
	.n_min = 0,
	.n_max = 28,
	.setup = fft_setup,
	.teardown = fft_teardown,
	.reset = fft_reset,
	.serial = fft_serial,
	.checksum = fft_checksum,
	.verify = fft_verify,
	.tasks = fft_tasks,
};
#endif

#endif /* XSCHED_BENCH_FFT_H */
