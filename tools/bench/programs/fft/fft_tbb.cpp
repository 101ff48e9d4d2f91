// SPDX-License-Identifier: MIT
// fft_tbb.cpp - fft on oneTBB: both halves in a task_group, wait, then the
// butterflies, split in two task_group tasks per level above the cut-off.
#include <tbb/task_group.h>
#include "fft.h"

static void combine_par(struct fft_cplx *out, long m, const struct fft_cplx *w,
			long ws, long lo, long hi)
{
	long mid = lo + (hi - lo) / 2;
	tbb::task_group g;

	if (hi - lo <= FFT_TWIDDLE_LEAF) {
		fft_combine(out, m, w, ws, lo, hi);
		return;
	}
	g.run([=] { combine_par(out, m, w, ws, lo, mid); });
	g.run([=] { combine_par(out, m, w, ws, mid, hi); });
	g.wait();
}

static void fft_par(const struct fft_cplx *in, long stride, struct fft_cplx *out,
		    long m, const struct fft_cplx *w, long ws)
{
	tbb::task_group g;

	if (m <= FFT_LEAF) {
		fft_seq(in, stride, out, m, w, ws);
		return;
	}
	g.run([=] { fft_par(in, 2 * stride, out, m / 2, w, 2 * ws); });
	g.run([=] { fft_par(in + stride, 2 * stride, out + m / 2, m / 2, w, 2 * ws); });
	g.wait();
	combine_par(out, m, w, ws, 0, m / 2);
}

extern "C" void fft_tbb(void *p)
{
	struct fft_state *st = static_cast<struct fft_state *>(p);

	fft_par(st->in, 1, st->out, st->n, st->w, 1);
}
