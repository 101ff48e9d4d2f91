// SPDX-License-Identifier: MIT
/*
 * place.c - which CPU each worker is pinned to (OMP_PROC_BIND-like).
 *
 * Both orders start from the compact order: CPU indexes sorted by
 * (package, node, LLC, core, cpu), so every group at every level is one
 * contiguous run. Scatter then interleaves the runs level by level: the
 * scatter order of a run is a round-robin over its sub-runs (packages, then
 * nodes, then LLCs, then cores), each sub-run contributing its own scatter
 * order, so the first workers land on distinct packages, then distinct
 * nodes, and so on down to SMT threads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topology.h"

enum { LVL_PACKAGE, LVL_NODE, LVL_LLC, LVL_CORE, NLEVELS };

static uint32_t level_key(const struct xs_cpu_info *c, int level)
{
	switch (level) {
	case LVL_PACKAGE:
		return c->package;
	case LVL_NODE:
		return c->node;
	case LVL_LLC:
		return c->llc;
	default:
		return c->core_group;
	}
}

static int cmp_compact(const void *a, const void *b, void *arg)
{
	const struct xs_topology *topo = arg;
	const struct xs_cpu_info *x = &topo->cpus[*(const uint32_t *)a];
	const struct xs_cpu_info *y = &topo->cpus[*(const uint32_t *)b];

	for (int l = 0; l < NLEVELS; l++) {
		uint32_t kx = level_key(x, l), ky = level_key(y, l);

		if (kx != ky)
			return kx < ky ? -1 : 1;
	}
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/*
 * Reorder idx[0..n) (compact order: runs of equal key at @level are
 * contiguous) into scatter order, using tmp[0..n) and starts[0..n].
 */
static void scatter(const struct xs_topology *topo, uint32_t *idx, uint32_t n, int level,
		    uint32_t *tmp, uint32_t *starts)
{
	uint32_t nruns = 0, out = 0;

	if (n <= 1 || level == NLEVELS)
		return;
	for (uint32_t i = 0; i < n; i++)
		if (!i || level_key(&topo->cpus[idx[i]], level) !=
			  level_key(&topo->cpus[idx[i - 1]], level))
			starts[nruns++] = i;
	starts[nruns] = n;
	/* each run is scattered by the next level; starts[] is reused below it */
	for (uint32_t r = 0; r < nruns; r++) {
		uint32_t lo = starts[r], hi = starts[r + 1];

		scatter(topo, idx + lo, hi - lo, level + 1, tmp + lo, starts + nruns + 1);
	}
	for (uint32_t k = 0; out < n; k++)
		for (uint32_t r = 0; r < nruns; r++)
			if (starts[r] + k < starts[r + 1])
				tmp[out++] = idx[starts[r] + k];
	memcpy(idx, tmp, n * sizeof(*idx));
}

int xs_topology_place(const struct xs_topology *topo, enum xs_bind_policy policy,
		      uint32_t nworkers, uint32_t *out)
{
	uint32_t n = topo->ncpus, *order = NULL, *tmp = NULL, *starts = NULL;
	int ret = -EINVAL;

	if (policy != XS_BIND_NONE && policy != XS_BIND_COMPACT && policy != XS_BIND_SCATTER)
		goto out;
	if (!nworkers)
		return 0;
	if (!out || !n)
		goto out;
	ret = -ENOMEM;
	order = malloc(n * sizeof(*order));
	tmp = malloc(n * sizeof(*tmp));
	/* one run start per CPU per level, plus one sentinel per level */
	starts = malloc((size_t)NLEVELS * (n + 1) * sizeof(*starts));
	if (!order || !tmp || !starts)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	if (policy != XS_BIND_NONE)
		qsort_r(order, n, sizeof(*order), cmp_compact, (void *)topo);
	if (policy == XS_BIND_SCATTER)
		scatter(topo, order, n, LVL_PACKAGE, tmp, starts);
	for (uint32_t w = 0; w < nworkers; w++)
		out[w] = order[w % n];
	ret = 0;
out:
	free(order);
	free(tmp);
	free(starts);
	return ret;
}
