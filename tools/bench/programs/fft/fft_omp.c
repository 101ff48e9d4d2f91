/* SPDX-License-Identifier: MIT */
/* fft_omp.c - fft as OpenMP tasks: task each half, taskwait, then the
 * butterflies, split in two tasks per level above the cut-off (BOTS). */
#include "fft.h"

static void combine_par(struct fft_cplx *out, long m, const struct fft_cplx *w,
			long ws, long lo, long hi)
{
	long mid = lo + (hi - lo) / 2;

	if (hi - lo <= FFT_TWIDDLE_LEAF) {
		fft_combine(out, m, w, ws, lo, hi);
		return;
	}
#pragma omp task
	combine_par(out, m, w, ws, lo, mid);
#pragma omp task
	combine_par(out, m, w, ws, mid, hi);
#pragma omp taskwait
}

static void fft_par(const struct fft_cplx *in, long stride, struct fft_cplx *out,
		    long m, const struct fft_cplx *w, long ws)
{
	if (m <= FFT_LEAF) {
		fft_seq(in, stride, out, m, w, ws);
		return;
	}
#pragma omp task
	fft_par(in, 2 * stride, out, m / 2, w, 2 * ws);
#pragma omp task
	fft_par(in + stride, 2 * stride, out + m / 2, m / 2, w, 2 * ws);
#pragma omp taskwait
	combine_par(out, m, w, ws, 0, m / 2);
}

static void fft_omp(void *p)
{
	struct fft_state *st = (struct fft_state *)p;

#pragma omp parallel
#pragma omp single
	fft_par(st->in, 1, st->out, st->n, st->w, 1);
}

const struct bench_omp bench_omp_fft = {
	.problem = &fft_problem,
	.omp = fft_omp,
};
