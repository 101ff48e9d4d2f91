/* SPDX-License-Identifier: MIT */
/*
 * sparselu.c - sparselu on xsched: xsched has no task dependences, so each
 * step runs in phases (BOTS's sparselu_single): lu0 (called, as the OpenMP
 * version does: a lone task and its wait would run it here); the fwd and
 * bdiv tasks, wait; the bmod tasks, wait.
 *
 * The tasks are typed and each phase joins them newest first while
 * thieves take the oldest (as oneTBB's task_group): the owner pops its
 * private frames with a store of its own top, and only a thief's take
 * writes the deque's shared word. Joined oldest first (xs_sync()), owner
 * and thief took every frame from the same end, by CASes on that word.
 */
#include "../../harness/spawn.h"
#include "sparselu.h"

enum slu_op { SLU_FWD, SLU_BDIV, SLU_BMOD };

XS_VOID_TASK_4(slu_op_task, int, op, const double *, x, const double *, y, double *, out)
{
	switch (op) {
	case SLU_FWD:
		slu_fwd(x, out);
		break;
	case SLU_BDIV:
		slu_bdiv(x, out);
		break;
	default:
		slu_bmod(x, y, out);
		break;
	}
}

/* Join the @n children of this phase, newest first. */
static void join_phase(int n)
{
	while (n-- > 0)
		slu_op_task_join();
}

static void sparselu_xsched(void *p)
{
	struct sparselu_state *st = (struct sparselu_state *)p;
	double **a = st->a;
	int nb = st->nb;

	for (int k = 0; k < nb; k++) {
		double *d = a[k * nb + k];
		int n = 0;

		slu_lu0(d);
		for (int j = k + 1; j < nb; j++)
			if (a[k * nb + j]) {
				slu_op_task_spawn(SLU_FWD, d, NULL, a[k * nb + j]);
				n++;
			}
		for (int i = k + 1; i < nb; i++)
			if (a[i * nb + k]) {
				slu_op_task_spawn(SLU_BDIV, d, NULL, a[i * nb + k]);
				n++;
			}
		join_phase(n);
		n = 0;
		for (int i = k + 1; i < nb; i++) {
			if (!a[i * nb + k])
				continue;
			for (int j = k + 1; j < nb; j++)
				if (a[k * nb + j]) {
					slu_op_task_spawn(SLU_BMOD, a[i * nb + k],
							  a[k * nb + j], a[i * nb + j]);
					n++;
				}
		}
		join_phase(n);
	}
}

const struct bench bench_sparselu = {
	.problem = &sparselu_problem,
	.xsched = sparselu_xsched,
	.tbb = sparselu_tbb,
};
