// SPDX-License-Identifier: MIT
/*
 * rmat.c - seeded RMAT generator (Chakrabarti, Zhan, Faloutsos, SDM '04).
 * Each edge descends @scale levels of the adjacency matrix, choosing one
 * of four quadrants with probabilities a, b, c, d. The generator is
 * splitmix64 so that a seed names one matrix on every platform.
 */
#include <errno.h>
#include <stdlib.h>

#include "xsched/cuda.h"

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double uniform(uint64_t *s)
{
	return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

int xs_rmat_generate(struct xs_csr *out, int scale, int edge_factor,
		     double a, double b, double c, uint64_t seed)
{
	int64_t n, m, e;
	int32_t *ri, *ci;
	float *v;
	uint64_t s = seed;
	int ret;

	if (scale < 1 || scale > 28 || edge_factor < 1 || a < 0 || b < 0 ||
	    c < 0 || a + b + c > 1.0)
		return -EINVAL;
	n = (int64_t)1 << scale;
	m = n * edge_factor;
	if (m >= INT32_MAX)
		return -EINVAL;
	ri = malloc((size_t)m * sizeof(*ri));
	ci = malloc((size_t)m * sizeof(*ci));
	v = malloc((size_t)m * sizeof(*v));
	if (!ri || !ci || !v) {
		ret = -ENOMEM;
		goto out;
	}
	for (e = 0; e < m; e++) {
		int32_t r = 0, col = 0;
		int l;

		for (l = 0; l < scale; l++) {
			double u = uniform(&s);

			r <<= 1;
			col <<= 1;
			if (u < a)
				;
			else if (u < a + b)
				col |= 1;
			else if (u < a + b + c)
				r |= 1;
			else {
				r |= 1;
				col |= 1;
			}
		}
		ri[e] = r;
		ci[e] = col;
		v[e] = (float)(1 + (splitmix64(&s) & 15));
	}
	ret = xs_csr_from_triplets(out, (int32_t)n, (int32_t)n, m, ri, ci, v);
out:
	free(ri);
	free(ci);
	free(v);
	return ret;
}
