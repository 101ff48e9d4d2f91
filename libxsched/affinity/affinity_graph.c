// SPDX-License-Identifier: MIT
/*
 * affinity_graph.c - the weighted affinity graph of a recorded hypergraph.
 *
 * Edge (i, j) weighs the number of addresses both logical threads touched
 * (the seed's definition). An address touched by more than DenseRatio x T
 * threads is skipped (the seed's Figure 4): it would connect nearly every
 * pair and tells a partitioner nothing. The graph is H H^T without the
 * diagonal, computed row by row with a dense accumulator (as sparse
 * matrix products are), so its cost is the sum of squares of the kept
 * hyperedges' sizes and nothing is quadratic in T.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity/affinity.h"

void xs_aff_hgraph_free(struct xs_aff_hgraph *h)
{
	free(h->vweight);
	free(h->eoff);
	free(h->ethreads);
	h->vweight = NULL;
	h->eoff = NULL;
	h->ethreads = NULL;
}

void xs_aff_graph_free(struct xs_aff_graph *g)
{
	free(g->xadj);
	free(g->adj);
	free(g->w);
	free(g->vw);
	memset(g, 0, sizeof(*g));
}

static int xs_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int xs_graph_grow(struct xs_aff_graph *g, uint64_t *cap, uint64_t need)
{
	uint64_t c = *cap ? *cap : 1024;
	uint32_t *a, *w;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	a = realloc(g->adj, c * sizeof(*a));
	if (!a)
		return -ENOMEM;
	g->adj = a;
	w = realloc(g->w, c * sizeof(*w));
	if (!w)
		return -ENOMEM;
	g->w = w;
	*cap = c;
	return 0;
}

int xs_aff_graph_build(const struct xs_aff_hgraph *h, double dense_ratio, uint64_t max_edges,
		       struct xs_aff_graph *g)
{
	uint32_t T = h->nthreads, *acc = NULL, *touched = NULL;
	uint64_t *toff = NULL, *tedge = NULL, cap = 0, limit;
	int ret = -ENOMEM;

	memset(g, 0, sizeof(*g));
	if (!(dense_ratio >= 0 && dense_ratio <= 1) || !T)
		return -EINVAL;
	limit = (uint64_t)(dense_ratio * T);
	/* Thread -> kept hyperedges (the transpose of H). */
	toff = calloc((size_t)T + 1, sizeof(*toff));
	g->xadj = calloc((size_t)T + 1, sizeof(*g->xadj));
	g->vw = malloc((size_t)T * sizeof(*g->vw));
	acc = calloc(T, sizeof(*acc));
	touched = malloc((size_t)T * sizeof(*touched));
	if (!toff || !g->xadj || !g->vw || !acc || !touched)
		goto out;
	for (uint64_t e = 0; e < h->nedges; e++) {
		uint64_t m = h->eoff[e + 1] - h->eoff[e];

		if (m > limit) {
			g->pruned++;
			continue;
		}
		for (uint64_t i = h->eoff[e]; i < h->eoff[e + 1]; i++) {
			if (h->ethreads[i] >= T) {
				ret = -EINVAL;
				goto out;
			}
			toff[h->ethreads[i] + 1]++;
		}
	}
	for (uint32_t t = 0; t < T; t++)
		toff[t + 1] += toff[t];
	tedge = malloc((toff[T] ? toff[T] : 1) * sizeof(*tedge));
	if (!tedge)
		goto out;
	{
		uint64_t *fill = calloc(T, sizeof(*fill));

		if (!fill)
			goto out;
		for (uint64_t e = 0; e < h->nedges; e++) {
			if (h->eoff[e + 1] - h->eoff[e] > limit)
				continue;
			for (uint64_t i = h->eoff[e]; i < h->eoff[e + 1]; i++) {
				uint32_t t = h->ethreads[i];

				tedge[toff[t] + fill[t]++] = e;
			}
		}
		free(fill);
	}
	for (uint32_t u = 0; u < T; u++) {
		uint32_t nt = 0;

		for (uint64_t k = toff[u]; k < toff[u + 1]; k++) {
			uint64_t e = tedge[k];

			for (uint64_t i = h->eoff[e]; i < h->eoff[e + 1]; i++) {
				uint32_t v = h->ethreads[i];

				if (v == u)
					continue;
				if (!acc[v]++)
					touched[nt++] = v;
			}
		}
		if (g->ne + nt > max_edges) {
			fprintf(stderr, "xsched: affinity: the graph has more than %llu entries at "
				"DenseRatio %g; choose a smaller ratio\n",
				(unsigned long long)max_edges, dense_ratio);
			ret = -E2BIG;
			goto out;
		}
		if (xs_graph_grow(g, &cap, g->ne + nt))
			goto out;
		qsort(touched, nt, sizeof(*touched), xs_cmp_u32);
		for (uint32_t i = 0; i < nt; i++) {
			g->adj[g->ne] = touched[i];
			g->w[g->ne++] = acc[touched[i]];
			acc[touched[i]] = 0;
		}
		g->xadj[u + 1] = g->ne;
		g->vw[u] = h->vweight && h->vweight[u] ? h->vweight[u] : 1;
	}
	g->nv = T;
	ret = 0;
out:
	free(toff);
	free(tedge);
	free(acc);
	free(touched);
	if (ret) {
		uint64_t pruned = g->pruned;

		xs_aff_graph_free(g);
		g->pruned = pruned;
	}
	return ret;
}
