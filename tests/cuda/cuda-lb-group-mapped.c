// SPDX-License-Identifier: MIT
/*
 * cuda-lb-group-mapped: the group-mapped schedule, simulated rank by rank
 * exactly as the kernel runs it (atom counts into "shared memory",
 * Hillis-Steele scan steps with a barrier between read and write, tile
 * lookup by binary search), gives every atom to exactly one rank of one
 * group and maps it to the tile that owns it, for every power-of-two group
 * size up to the block and many grid sizes.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "../../libxsched/cuda/lb.h"
#include "cuda-lb-helpers.h"

#define MAX_G 256

/* One round of one group; returns -1 on a wrong tile lookup. */
static int group_round(const int32_t *off, int32_t ntiles, int32_t first,
		       int32_t g, int *atom_seen)
{
	int32_t buf[2][MAX_G], pre[MAX_G + 1], k, d, i, cur = 0;

	for (k = 0; k < g; k++)
		buf[0][k] = first + k < ntiles ? xs_tile_atoms(off, first + k) : 0;
	/* Inclusive scan: every rank reads buf[cur], barrier, writes. */
	for (d = 1; d < g; d <<= 1) {
		for (k = 0; k < g; k++)
			buf[cur ^ 1][k] = xs_scan_step(buf[cur], k, d);
		cur ^= 1;
	}
	pre[0] = 0;
	for (k = 0; k < g; k++)
		pre[k + 1] = buf[cur][k];
	for (k = 0; k < g; k++) {		/* rank */
		for (i = k; i < pre[g]; i += g) {
			int32_t tl = xs_tile_of_atom(pre, g, i);
			int32_t atom = off[first + tl] + i - pre[tl];

			if (tl < 0 || tl >= g || first + tl >= ntiles)
				return -1;
			if (atom < off[first + tl] || atom >= off[first + tl + 1])
				return -1;
			atom_seen[atom - off[0]]++;
		}
	}
	return 0;
}

static int check(const int32_t *off, int32_t ntiles, int32_t nblocks,
		 int32_t block, int32_t g, int *atom_seen)
{
	int32_t natoms = off[ntiles] - off[0];
	int32_t ngroups = nblocks * (block / g);
	int32_t rounds = xs_gm_rounds(ntiles, ngroups, g), r, q, a;

	memset(atom_seen, 0, sizeof(int) * ((size_t)natoms + 1));
	for (r = 0; r < rounds; r++)
		for (q = 0; q < ngroups; q++)
			if (group_round(off, ntiles,
					xs_gm_first_tile(r, ngroups, q, g), g,
					atom_seen))
				return -1;
	/* Every tile is covered by some round. */
	if ((int64_t)rounds * ngroups * g < ntiles)
		return -3;
	for (a = 0; a < natoms; a++)
		if (atom_seen[a] != 1)
			return -2;
	return 0;
}

TEST(each_atom_once_right_tile)
{
	struct lb_gen gen = { 0 };
	int *atom_seen = malloc(sizeof(int) * 400 * (XS_LB_MAX_TILES + 1));
	long sets = 0;

	ASSERT_NE(NULL, atom_seen);
	while (lb_next(&gen)) {
		int32_t g, nb;

		for (g = 1; g <= MAX_G; g <<= 1)
			for (nb = 1; nb <= 3; nb++) {
				ASSERT_EQ(0, check(gen.offsets, gen.ntiles, nb,
						   MAX_G, g, atom_seen))
					TH_LOG("set %ld ntiles %d g %d "
					       "blocks %d", gen.index,
					       gen.ntiles, g, nb);
			}
		sets++;
	}
	ASSERT_GT(sets, 1000);
	free(atom_seen);
}

TEST(tile_of_atom_skips_empty_tiles)
{
	/* Tiles of 2, 0, 0, 3, 0, 1 atoms. */
	const int32_t pre[] = { 0, 2, 2, 2, 5, 5, 6 };

	ASSERT_EQ(0, xs_tile_of_atom(pre, 6, 0));
	ASSERT_EQ(0, xs_tile_of_atom(pre, 6, 1));
	ASSERT_EQ(3, xs_tile_of_atom(pre, 6, 2));
	ASSERT_EQ(3, xs_tile_of_atom(pre, 6, 4));
	ASSERT_EQ(5, xs_tile_of_atom(pre, 6, 5));
}

TEST_HARNESS_MAIN
