// SPDX-License-Identifier: MIT
/*
 * csr.c - host CSR/COO containers: allocation, construction from
 * triplets (sorted by row then column, duplicates summed), row statistics.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xsched/cuda.h"

int xs_csr_alloc(struct xs_csr *m, int32_t rows, int32_t cols, int32_t nnz)
{
	memset(m, 0, sizeof(*m));
	if (rows < 0 || cols < 0 || nnz < 0)
		return -EINVAL;
	m->offsets = calloc((size_t)rows + 1, sizeof(*m->offsets));
	m->indices = malloc(((size_t)nnz + 1) * sizeof(*m->indices));
	m->values = malloc(((size_t)nnz + 1) * sizeof(*m->values));
	if (!m->offsets || !m->indices || !m->values) {
		xs_csr_free(m);
		return -ENOMEM;
	}
	m->rows = rows;
	m->cols = cols;
	m->nnz = nnz;
	return 0;
}

void xs_csr_free(struct xs_csr *m)
{
	free(m->offsets);
	free(m->indices);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

void xs_coo_free(struct xs_coo *m)
{
	free(m->row_idx);
	free(m->col_idx);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

/*
 * Counting sort by row into the CSR arrays, then an insertion sort of each
 * row by column (rows are short on average; RMAT hubs are sorted with
 * qsort), then duplicates are merged in place.
 */
struct colval {
	int32_t col;
	float val;
};

static int colval_cmp(const void *a, const void *b)
{
	const struct colval *x = a, *y = b;

	return (x->col > y->col) - (x->col < y->col);
}

int xs_csr_from_triplets(struct xs_csr *m, int32_t rows, int32_t cols,
			 int64_t n, const int32_t *ri, const int32_t *ci,
			 const float *v)
{
	struct colval *cv = NULL;
	int32_t *fill = NULL;
	int64_t i;
	int32_t r, w;
	int ret;

	memset(m, 0, sizeof(*m));
	if (n < 0 || n >= INT32_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (ri[i] < 0 || ri[i] >= rows || ci[i] < 0 || ci[i] >= cols)
			return -EINVAL;
	ret = xs_csr_alloc(m, rows, cols, (int32_t)n);
	if (ret)
		return ret;
	cv = malloc(((size_t)n + 1) * sizeof(*cv));
	fill = calloc((size_t)rows + 1, sizeof(*fill));
	if (!cv || !fill) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		m->offsets[ri[i] + 1]++;
	for (r = 0; r < rows; r++)
		m->offsets[r + 1] += m->offsets[r];
	for (i = 0; i < n; i++) {
		int64_t at = m->offsets[ri[i]] + fill[ri[i]]++;

		cv[at].col = ci[i];
		cv[at].val = v ? v[i] : 1.0f;
	}
	/* Sort each row, merge duplicates, compact. */
	w = 0;
	for (r = 0; r < rows; r++) {
		int32_t b = m->offsets[r], e = m->offsets[r + 1], k;

		qsort(cv + b, (size_t)(e - b), sizeof(*cv), colval_cmp);
		m->offsets[r] = w;
		for (k = b; k < e; k++) {
			if (w > m->offsets[r] && m->indices[w - 1] == cv[k].col) {
				m->values[w - 1] += cv[k].val;
				continue;
			}
			m->indices[w] = cv[k].col;
			m->values[w] = cv[k].val;
			w++;
		}
	}
	m->offsets[rows] = w;
	m->nnz = w;
	ret = 0;
out:
	free(cv);
	free(fill);
	if (ret)
		xs_csr_free(m);
	return ret;
}

int xs_csr_to_coo(const struct xs_csr *m, struct xs_coo *out)
{
	int32_t r, k;

	memset(out, 0, sizeof(*out));
	out->row_idx = malloc(((size_t)m->nnz + 1) * sizeof(int32_t));
	out->col_idx = malloc(((size_t)m->nnz + 1) * sizeof(int32_t));
	out->values = malloc(((size_t)m->nnz + 1) * sizeof(float));
	if (!out->row_idx || !out->col_idx || !out->values) {
		xs_coo_free(out);
		return -ENOMEM;
	}
	for (r = 0; r < m->rows; r++)
		for (k = m->offsets[r]; k < m->offsets[r + 1]; k++)
			out->row_idx[k] = r;
	memcpy(out->col_idx, m->indices, (size_t)m->nnz * sizeof(int32_t));
	memcpy(out->values, m->values, (size_t)m->nnz * sizeof(float));
	out->rows = m->rows;
	out->cols = m->cols;
	out->nnz = m->nnz;
	return 0;
}

void xs_csr_row_stats(const struct xs_csr *m, double *mean, double *cv)
{
	double mu, var = 0;
	int32_t r;

	if (m->rows <= 0) {
		*mean = 0;
		*cv = 0;
		return;
	}
	mu = (double)m->nnz / m->rows;
	for (r = 0; r < m->rows; r++) {
		double d = (m->offsets[r + 1] - m->offsets[r]) - mu;

		var += d * d;
	}
	var /= m->rows;
	*mean = mu;
	*cv = mu > 0 ? sqrt(var) / mu : 0;
}
