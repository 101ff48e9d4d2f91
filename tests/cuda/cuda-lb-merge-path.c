// SPDX-License-Identifier: MIT
/*
 * cuda-lb-merge-path: merge-path split points are monotone and lie on the
 * path; walking every worker's piece as the kernels do visits each atom
 * once, ends each tile once, and a tile ended as complete had all its atoms
 * in that worker. An SpMV emulated with the kernel's complete-tile store /
 * partial-tile add equals the serial result.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../../libxsched/cuda/lb.h"
#include "cuda-lb-helpers.h"

struct seen {
	int *atom;	/* visits per atom */
	int *atom_w;	/* worker that visited it */
	int *end;	/* tile end events */
	double *y;	/* emulated SpMV of "value 1 + atom % 5" */
};

static double val(int32_t a)
{
	return 1 + a % 5;
}

static int walk(const int32_t *off, int32_t ntiles, int32_t nw,
		struct seen *s)
{
	int32_t natoms = off[ntiles] - off[0], w, x, y, a, t;
	struct xs_mp_coord prev_b = { 0, off[0] };

	memset(s->atom, 0, sizeof(int) * ((size_t)natoms + 1));
	memset(s->end, 0, sizeof(int) * ((size_t)ntiles + 1));
	for (t = 0; t < ntiles; t++)
		s->y[t] = 0;
	for (w = 0; w < nw; w++) {
		struct xs_mp_coord b, e;

		xs_mp_range(w, nw, off, ntiles, natoms, &b, &e);
		/* Monotone and on the path. */
		if (b.x < prev_b.x || b.y < prev_b.y || e.x < b.x || e.y < b.y)
			return -1;
		if (b.x > ntiles || b.y < off[b.x] ||
		    (b.x < ntiles && b.y > off[b.x + 1]))
			return -2;
		prev_b = b;
		y = b.y;
		for (x = b.x; x < e.x; x++) {
			double sum = 0;
			int complete = xs_mp_complete(x, &b, off);

			for (; y < off[x + 1]; y++) {
				s->atom[y - off[0]]++;
				s->atom_w[y - off[0]] = w;
				sum += val(y);
			}
			s->end[x]++;
			if (complete) {
				for (a = off[x]; a < off[x + 1]; a++)
					if (s->atom_w[a - off[0]] != w)
						return -3;
				s->y[x] = sum;		/* plain store */
			} else {
				s->y[x] += sum;		/* atomicAdd */
			}
		}
		if (y < e.y) {
			double sum = 0;

			for (; y < e.y; y++) {
				s->atom[y - off[0]]++;
				s->atom_w[y - off[0]] = w;
				sum += val(y);
			}
			s->y[e.x] += sum;		/* partial tail */
		}
		if (y != e.y)
			return -4;
	}
	for (a = 0; a < natoms; a++)
		if (s->atom[a] != 1)
			return -5;
	for (t = 0; t < ntiles; t++) {
		double ref = 0;

		if (s->end[t] != 1)
			return -6;
		for (a = off[t]; a < off[t + 1]; a++)
			ref += val(a);
		if (ref != s->y[t])
			return -7;
	}
	return 0;
}

TEST(atoms_once_tiles_complete_splits_monotone)
{
	struct lb_gen gen = { 0 };
	size_t cap = 400 * (XS_LB_MAX_TILES + 1);
	struct seen s = {
		.atom = malloc(sizeof(int) * cap),
		.atom_w = malloc(sizeof(int) * cap),
		.end = malloc(sizeof(int) * (XS_LB_MAX_TILES + 1)),
		.y = malloc(sizeof(double) * (XS_LB_MAX_TILES + 1)),
	};
	long sets = 0;

	ASSERT_NE(NULL, s.atom);
	ASSERT_NE(NULL, s.atom_w);
	ASSERT_NE(NULL, s.end);
	ASSERT_NE(NULL, s.y);
	while (lb_next(&gen)) {
		int32_t nw;

		for (nw = 1; nw <= 70; nw++) {
			int ret = walk(gen.offsets, gen.ntiles, nw, &s);

			ASSERT_EQ(0, ret)
				TH_LOG("set %ld ntiles %d natoms %d workers "
				       "%d: failure %d", gen.index, gen.ntiles,
				       gen.natoms, nw, ret);
		}
		sets++;
	}
	ASSERT_GT(sets, 1000);
	free(s.atom);
	free(s.atom_w);
	free(s.end);
	free(s.y);
}

TEST(search_hits_every_diagonal)
{
	/* Tiles of 3, 0, 1 atoms: path E? no - A = {3, 3, 4}, B = 0..3. */
	const int32_t off[] = { 0, 3, 3, 4 };
	int64_t d;

	for (d = 0; d <= 7; d++) {
		struct xs_mp_coord c = xs_mp_search(d, off, 3, 4);

		ASSERT_EQ(d, c.x + c.y);
		ASSERT_LE(off[c.x], c.y);
	}
	/* Ties end the tile first: diagonal 4 is after row 0 ends. */
	ASSERT_EQ(1, xs_mp_search(4, off, 3, 4).x);
}

TEST_HARNESS_MAIN
