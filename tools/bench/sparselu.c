/* SPDX-License-Identifier: MIT */
/*
 * sparselu.c - sparselu on xsched: xsched has no task dependences, so each
 * step runs in phases (BOTS's sparselu_single): the lu0 task, wait; the
 * fwd and bdiv tasks, wait; the bmod tasks, wait.
 */
#include "spawn.h"
#include "sparselu.h"

enum slu_op { SLU_LU0, SLU_FWD, SLU_BDIV, SLU_BMOD };

struct slu_arg {
	const double *x, *y;	/* the blocks read */
	double *out;		/* the block written */
	int op;
};

_Static_assert(sizeof(struct slu_arg) <= XS_TASK_ARG_MAX, "inline argument");

static void slu_task(void *p)
{
	const struct slu_arg *t = (const struct slu_arg *)p;

	switch (t->op) {
	case SLU_LU0:
		slu_lu0(t->out);
		break;
	case SLU_FWD:
		slu_fwd(t->x, t->out);
		break;
	case SLU_BDIV:
		slu_bdiv(t->x, t->out);
		break;
	default:
		slu_bmod(t->x, t->y, t->out);
		break;
	}
}

static void spawn_op(int op, const double *x, const double *y, double *out)
{
	struct slu_arg t = { x, y, out, op };

	bench_spawn(slu_task, &t, sizeof(t));
}

static void sparselu_xsched(void *p)
{
	struct sparselu_state *st = (struct sparselu_state *)p;
	double **a = st->a;
	int nb = st->nb;

	for (int k = 0; k < nb; k++) {
		double *d = a[k * nb + k];

		spawn_op(SLU_LU0, NULL, NULL, d);
		bench_wait();
		for (int j = k + 1; j < nb; j++)
			if (a[k * nb + j])
				spawn_op(SLU_FWD, d, NULL, a[k * nb + j]);
		for (int i = k + 1; i < nb; i++)
			if (a[i * nb + k])
				spawn_op(SLU_BDIV, d, NULL, a[i * nb + k]);
		bench_wait();
		for (int i = k + 1; i < nb; i++) {
			if (!a[i * nb + k])
				continue;
			for (int j = k + 1; j < nb; j++)
				if (a[k * nb + j])
					spawn_op(SLU_BMOD, a[i * nb + k],
						 a[k * nb + j], a[i * nb + j]);
		}
		bench_wait();
	}
}

const struct bench bench_sparselu = {
	.problem = &sparselu_problem,
	.xsched = sparselu_xsched,
	.tbb = sparselu_tbb,
};
