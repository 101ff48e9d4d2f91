/* SPDX-License-Identifier: MIT */
/*
 * cuda-lb-helpers.h - tile-set generators for the exhaustive host tests of
 * libxsched/cuda/lb.h: every tile set with up to XS_LB_SMALL_TILES tiles of
 * 0..XS_LB_SMALL_ATOMS atoms, then seeded random skewed ones.
 */
#ifndef XSCHED_TESTS_CUDA_LB_HELPERS_H
#define XSCHED_TESTS_CUDA_LB_HELPERS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XS_LB_SMALL_TILES 5
#define XS_LB_SMALL_ATOMS 3
#define XS_LB_RANDOM_SETS 60
#define XS_LB_MAX_TILES 300

struct lb_gen {
	int32_t offsets[XS_LB_MAX_TILES + 1];
	int32_t ntiles;
	int32_t natoms;
	long index;	/* which set: small ones first, then random */
	uint64_t rng;
};

static inline uint64_t lb_rand(struct lb_gen *g)
{
	g->rng ^= g->rng << 13;
	g->rng ^= g->rng >> 7;
	g->rng ^= g->rng << 17;
	return g->rng;
}

/* How many small sets come first (index 0 .. this - 1). */
static inline long lb_small_sets(void)
{
	long total = 0, n = 1;
	int t;

	for (t = 0; t <= XS_LB_SMALL_TILES; t++) {
		total += n;
		n *= XS_LB_SMALL_ATOMS + 1;
	}
	return total;
}

/* Fill the next tile set; 0 when done. Offsets may start above 0 (a tile
 * set can be a slice of a larger one) for odd random sets. */
static inline int lb_next(struct lb_gen *g)
{
	long small_total = lb_small_sets(), n, i;
	int32_t t;

	if (g->index < small_total) {
		long rest = g->index;

		/* Decode index -> (ntiles, sizes in base ATOMS+1). */
		n = 1;
		for (t = 0; rest >= n; t++) {
			rest -= n;
			n *= XS_LB_SMALL_ATOMS + 1;
		}
		g->ntiles = t;
		g->offsets[0] = 0;
		for (i = 0; i < t; i++) {
			g->offsets[i + 1] = g->offsets[i] +
					    (int32_t)(rest % (XS_LB_SMALL_ATOMS + 1));
			rest /= XS_LB_SMALL_ATOMS + 1;
		}
	} else if (g->index < small_total + XS_LB_RANDOM_SETS) {
		long k = g->index - small_total;

		if (!g->rng)
			g->rng = 0x9e3779b97f4a7c15ULL;
		g->ntiles = 1 + (int32_t)(lb_rand(g) % XS_LB_MAX_TILES);
		g->offsets[0] = (k & 1) ? (int32_t)(lb_rand(g) % 50) : 0;
		for (i = 0; i < g->ntiles; i++) {
			uint64_t r = lb_rand(g);
			int32_t len;

			/* Mostly short rows, some empty, a few hubs. */
			if (r % 10 == 0)
				len = (int32_t)((r >> 8) % 400);
			else if (r % 10 < 3)
				len = 0;
			else
				len = (int32_t)((r >> 8) % 8);
			g->offsets[i + 1] = g->offsets[i] + len;
		}
	} else {
		return 0;
	}
	g->natoms = g->offsets[g->ntiles] - g->offsets[0];
	g->index++;
	return 1;
}

#endif
