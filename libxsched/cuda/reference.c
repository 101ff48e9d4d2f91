// SPDX-License-Identifier: MIT
/*
 * reference.c - CPU references for every GPU operation. Simple, serial and
 * obviously right: the GPU tests compare against these.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xsched/cuda.h"

void xs_ref_spmv(const struct xs_csr *a, const float *x, float *y)
{
	int32_t r, k;

	for (r = 0; r < a->rows; r++) {
		double s = 0;

		for (k = a->offsets[r]; k < a->offsets[r + 1]; k++)
			s += (double)a->values[k] * x[a->indices[k]];
		y[r] = (float)s;
	}
}

void xs_ref_spmm(const struct xs_csr *a, const float *b, int32_t n, float *c)
{
	int32_t r, k, j;

	for (r = 0; r < a->rows; r++)
		for (j = 0; j < n; j++) {
			double s = 0;

			for (k = a->offsets[r]; k < a->offsets[r + 1]; k++)
				s += (double)a->values[k] *
				     b[(size_t)a->indices[k] * n + j];
			c[(size_t)r * n + j] = (float)s;
		}
}

int32_t xs_ref_bfs(const struct xs_csr *g, int32_t source, int32_t *depth)
{
	int32_t *queue, head = 0, tail = 0, i, k;

	for (i = 0; i < g->rows; i++)
		depth[i] = -1;
	if (source < 0 || source >= g->rows)
		return -EINVAL;
	queue = malloc(((size_t)g->rows + 1) * sizeof(*queue));
	if (!queue)
		return -ENOMEM;
	depth[source] = 0;
	queue[tail++] = source;
	while (head < tail) {
		int32_t u = queue[head++];

		for (k = g->offsets[u]; k < g->offsets[u + 1]; k++) {
			int32_t v = g->indices[k];

			if (v < g->rows && depth[v] < 0) {
				depth[v] = depth[u] + 1;
				queue[tail++] = v;
			}
		}
	}
	free(queue);
	return tail;
}

/* Dijkstra with a binary heap of (dist, vertex), lazy deletion. */
struct heap_item {
	float d;
	int32_t v;
};

static void heap_push(struct heap_item *h, int64_t *n, struct heap_item it)
{
	int64_t i = (*n)++;

	while (i > 0) {
		int64_t p = (i - 1) / 2;

		if (h[p].d <= it.d)
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = it;
}

static struct heap_item heap_pop(struct heap_item *h, int64_t *n)
{
	struct heap_item top = h[0], last = h[--(*n)];
	int64_t i = 0;

	for (;;) {
		int64_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1].d < h[c].d)
			c++;
		if (last.d <= h[c].d)
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
	return top;
}

int32_t xs_ref_sssp(const struct xs_csr *g, int32_t source, float *dist)
{
	struct heap_item *h;
	int64_t n = 0;
	int32_t i, k, reached = 0;

	for (i = 0; i < g->rows; i++)
		dist[i] = INFINITY;
	if (source < 0 || source >= g->rows)
		return -EINVAL;
	for (k = 0; k < g->nnz; k++)
		if (!(g->values[k] >= 0))
			return -EINVAL;
	h = malloc(((size_t)g->nnz + 2) * sizeof(*h));
	if (!h)
		return -ENOMEM;
	dist[source] = 0;
	heap_push(h, &n, (struct heap_item){ 0, source });
	while (n) {
		struct heap_item it = heap_pop(h, &n);

		if (it.d > dist[it.v])
			continue;	/* stale */
		reached++;
		for (k = g->offsets[it.v]; k < g->offsets[it.v + 1]; k++) {
			int32_t v = g->indices[k];
			float nd = it.d + g->values[k];

			if (v < g->rows && nd < dist[v]) {
				dist[v] = nd;
				heap_push(h, &n, (struct heap_item){ nd, v });
			}
		}
	}
	free(h);
	return reached;
}

struct kv {
	uint32_t k;
	int32_t d;
};

static int kv_cmp(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;

	return (x->k > y->k) - (x->k < y->k);
}

int xs_ref_hash_upsert(const uint32_t *keys, const int32_t *deltas,
		       int32_t n, uint32_t *out_keys, int64_t *out_vals,
		       int32_t room)
{
	struct kv *s;
	int32_t i, m = 0;

	if (n < 0)
		return -EINVAL;
	s = malloc(((size_t)n + 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		s[i] = (struct kv){ keys[i], deltas[i] };
	qsort(s, (size_t)n, sizeof(*s), kv_cmp);
	for (i = 0; i < n; i++) {
		if (m == 0 || out_keys[m - 1] != s[i].k) {
			if (m == room) {
				free(s);
				return -ENOSPC;
			}
			out_keys[m] = s[i].k;
			out_vals[m++] = 0;
		}
		out_vals[m - 1] += s[i].d;
	}
	free(s);
	return m;
}

void xs_ref_bank_transfer(int64_t *balances, const int32_t *from,
			  const int32_t *to, const int32_t *amounts,
			  int32_t n)
{
	int32_t i;

	for (i = 0; i < n; i++) {
		balances[from[i]] -= amounts[i];
		balances[to[i]] += amounts[i];
	}
}
