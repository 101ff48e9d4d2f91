// SPDX-License-Identifier: MIT
/*
 * victim_view.c - a topology victim table (rows by CPU) turned into victim
 * lists by worker id for the runtime's placement.
 *
 * Worker w sits on CPU c(w). Its victims are, in order: the other workers
 * on c(w) itself (more workers than CPUs), then, for each CPU in the table
 * row of c(w) (nearest first), the workers placed there. The row lists
 * same-node CPUs before remote ones, so the list splits into a local and a
 * remote part at the first worker of another node.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/runtime.h"
#include "topo/topology.h"

void xs_victim_view_free(struct xs_victim_view *view)
{
	if (!view)
		return;
	free(view->first);
	free(view->nlocal);
	free(view->nremote);
	free(view->ids);
	free(view->weight);
	free(view);
}

static void xs_view_append(struct xs_victim_view *view, const struct xs_runtime *rt,
			   uint32_t w, uint32_t *pos, uint32_t v, uint16_t weight)
{
	view->ids[*pos] = v;
	view->weight[*pos] = weight ? weight : 1;
	(*pos)++;
	if (rt->workers[v]->node == rt->workers[w]->node)
		view->nlocal[w]++;
	else
		view->nremote[w]++;
}

struct xs_victim_view *xs_victim_view_build(const struct xs_runtime *rt,
					   const struct xs_victim_table *vt)
{
	uint32_t n = rt->nworkers, ncpus = vt->ncpus, pos = 0;
	struct xs_victim_view *view = calloc(1, sizeof(*view));
	uint32_t *head = NULL, *next = NULL;

	if (!view)
		return NULL;
	view->nworkers = n;
	view->first = calloc(n, sizeof(*view->first));
	view->nlocal = calloc(n, sizeof(*view->nlocal));
	view->nremote = calloc(n, sizeof(*view->nremote));
	view->ids = calloc((size_t)n * n, sizeof(*view->ids));
	view->weight = calloc((size_t)n * n, sizeof(*view->weight));
	/* Workers by CPU: head[c] is the first worker on CPU index c, next[w]
	 * the following one; UINT32_MAX ends a list. */
	head = malloc(ncpus * sizeof(*head));
	next = malloc(n * sizeof(*next));
	if (!view->first || !view->nlocal || !view->nremote || !view->ids || !view->weight ||
	    !head || !next)
		goto fail;
	for (uint32_t c = 0; c < ncpus; c++)
		head[c] = UINT32_MAX;
	for (uint32_t w = n; w-- > 0;) {
		next[w] = head[rt->workers[w]->cpu_index];
		head[rt->workers[w]->cpu_index] = w;
	}

	for (uint32_t w = 0; w < n; w++) {
		uint32_t cpu = rt->workers[w]->cpu_index;
		const struct xs_victim *row = xs_victim_row(vt, cpu);

		view->first[w] = pos;
		for (uint32_t v = head[cpu]; v != UINT32_MAX; v = next[v])
			if (v != w)
				xs_view_append(view, rt, w, &pos, v, UINT16_MAX);
		for (uint32_t i = 0; i < vt->row_len; i++)
			for (uint32_t v = head[row[i].cpu_index]; v != UINT32_MAX; v = next[v])
				xs_view_append(view, rt, w, &pos, v, row[i].weight);
	}
	free(head);
	free(next);
	return view;

fail:
	free(head);
	free(next);
	xs_victim_view_free(view);
	errno = ENOMEM;
	return NULL;
}
