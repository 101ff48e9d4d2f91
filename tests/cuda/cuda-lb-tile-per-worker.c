// SPDX-License-Identifier: MIT
/*
 * cuda-lb-tile-per-worker: the thread-, warp- and block-mapped schedules
 * (one tile per worker, grid stride; atoms of a tile strided over the
 * worker's g ranks) give every atom to exactly one (worker, rank) and end
 * every tile exactly once, for every small tile set and many worker counts.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../../libxsched/cuda/lb.h"
#include "cuda-lb-helpers.h"

static int check(const int32_t *off, int32_t ntiles, int32_t nworkers,
		 int32_t g, int *atom_seen, int *tile_seen)
{
	int32_t natoms = off[ntiles] - off[0], w, t, r, a;

	memset(atom_seen, 0, sizeof(int) * ((size_t)natoms + 1));
	memset(tile_seen, 0, sizeof(int) * ((size_t)ntiles + 1));
	for (w = 0; w < nworkers; w++)
		for (t = xs_tpw_first_tile(w); t < ntiles;
		     t += xs_tpw_tile_stride(nworkers)) {
			tile_seen[t]++;
			for (r = 0; r < g; r++)
				for (a = off[t] + r; a < off[t + 1]; a += g)
					atom_seen[a - off[0]]++;
		}
	for (a = 0; a < natoms; a++)
		if (atom_seen[a] != 1)
			return -1;
	for (t = 0; t < ntiles; t++)
		if (tile_seen[t] != 1)
			return -2;
	return 0;
}

TEST(each_atom_once_every_tile_once)
{
	static const int32_t groups[] = { 1, 2, 32, 64, 256 };
	struct lb_gen gen = { 0 };
	int *atom_seen = malloc(sizeof(int) * 400 * (XS_LB_MAX_TILES + 1));
	int *tile_seen = malloc(sizeof(int) * (XS_LB_MAX_TILES + 1));
	long sets = 0;

	ASSERT_NE(NULL, atom_seen);
	ASSERT_NE(NULL, tile_seen);
	while (lb_next(&gen)) {
		int32_t nw;
		size_t gi;

		for (nw = 1; nw <= 40; nw++)
			for (gi = 0; gi < sizeof(groups) / sizeof(groups[0]); gi++) {
				ASSERT_EQ(0, check(gen.offsets, gen.ntiles, nw,
						   groups[gi], atom_seen,
						   tile_seen))
					TH_LOG("set %ld ntiles %d workers %d "
					       "g %d", gen.index, gen.ntiles,
					       nw, groups[gi]);
			}
		sets++;
	}
	ASSERT_GT(sets, 1000);
	free(atom_seen);
	free(tile_seen);
}

TEST_HARNESS_MAIN
