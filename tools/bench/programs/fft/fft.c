/* SPDX-License-Identifier: MIT */
/* fft.c - fft on xsched: spawn both halves, wait, combine (BOTS style). */
#include "../../harness/spawn.h"
#include "fft.h"

struct fft_arg {
	const struct fft_cplx *in;
	struct fft_cplx *out;
	const struct fft_cplx *w;
	long stride, m, ws;
};

struct fft_combine_arg {
	struct fft_cplx *out;
	const struct fft_cplx *w;
	long m, ws, lo, hi;
};

_Static_assert(sizeof(struct fft_arg) <= XS_TASK_ARG_MAX, "inline argument");
_Static_assert(sizeof(struct fft_combine_arg) <= XS_TASK_ARG_MAX,
	       "inline argument");

static void combine_task(void *p)
{
	const struct fft_combine_arg *a = (const struct fft_combine_arg *)p;
	long mid = a->lo + (a->hi - a->lo) / 2;

	if (a->hi - a->lo <= FFT_TWIDDLE_LEAF) {
		fft_combine(a->out, a->m, a->w, a->ws, a->lo, a->hi);
		return;
	}
	struct fft_combine_arg l = *a, r = *a;

	l.hi = mid;
	r.lo = mid;
	bench_spawn(combine_task, &l, sizeof(l));
	bench_spawn(combine_task, &r, sizeof(r));
	bench_wait();
}

static void fft_task(void *p)
{
	const struct fft_arg *a = (const struct fft_arg *)p;

	if (a->m <= FFT_LEAF) {
		fft_seq(a->in, a->stride, a->out, a->m, a->w, a->ws);
		return;
	}
	struct fft_arg even = { a->in, a->out, a->w, 2 * a->stride, a->m / 2,
				2 * a->ws };
	struct fft_arg odd = { a->in + a->stride, a->out + a->m / 2, a->w,
			       2 * a->stride, a->m / 2, 2 * a->ws };
	struct fft_combine_arg c = { a->out, a->w, a->m, a->ws, 0, a->m / 2 };

	bench_spawn(fft_task, &even, sizeof(even));
	bench_spawn(fft_task, &odd, sizeof(odd));
	bench_wait();
	combine_task(&c);
}

static void fft_xsched(void *p)
{
	struct fft_state *st = (struct fft_state *)p;
	struct fft_arg root = { st->in, st->out, st->w, 1, st->n, 1 };

	fft_task(&root);
}

const struct bench bench_fft = {
	.problem = &fft_problem,
	.xsched = fft_xsched,
	.tbb = fft_tbb,
};
