/* SPDX-License-Identifier: MIT */
/*
 * lb.h - load-balancing partition logic shared by the host and the device.
 *
 * The vocabulary is that of Osama, Porumbescu and Owens, "A Programming
 * Model for GPU Load Balancing" (PPoPP '23):
 *
 *   work atom   one unit of equal-cost work (a nonzero, an edge)
 *   work tile   a set of consecutive atoms (a row, a vertex's edge list)
 *   tile set    all tiles of a problem; tile t owns atoms
 *               [offsets[t], offsets[t + 1])
 *
 * A tile set is nothing but an offsets array (CSR row offsets, a scanned
 * frontier degree list, or offsets derived from a sorted COO row array with
 * xs_coo_tile_begin()). Everything here is a pure function of that array
 * and of a worker's id, so the very same code decides the partition inside
 * the kernels (lb_kernels.cuh) and inside the exhaustive host tests
 * (tests/cuda/cuda-lb-*.c, built with gcc, no nvcc needed).
 *
 * Invariants every schedule guarantees (checked by the host tests):
 *   - each atom is given to exactly one worker;
 *   - each tile is finished ("tile end") exactly once, and a tile finished
 *     as *complete* had all of its atoms processed by the finishing worker;
 *   - merge-path split points are monotone in both coordinates.
 *
 * Plain C99 + CUDA: no C++ types, so gcc -Wall -Wextra -Werror accepts it.
 */
#ifndef XSCHED_CUDA_LB_H
#define XSCHED_CUDA_LB_H

#include <stdint.h>

#include "xsched/cuda.h"

#ifdef __CUDACC__
#define XS_HD static __host__ __device__ __forceinline__
#else
#define XS_HD static inline
#endif

/* ------------------------------------------------------------------------ */
/* Tile sets                                                                */
/* ------------------------------------------------------------------------ */

struct xs_tileset {
	const int32_t *offsets;	/* ntiles + 1 entries, nondecreasing */
	int32_t ntiles;
	int32_t natoms;		/* == offsets[ntiles] - offsets[0] */
};

XS_HD int32_t xs_tile_atoms(const int32_t *offsets, int32_t tile)
{
	return offsets[tile + 1] - offsets[tile];
}

/*
 * COO tile set: atoms are the nonzeros of a COO matrix sorted by row; tile
 * t begins at the first nonzero whose row is >= t (lower bound), so the
 * atoms of tile t are [xs_coo_tile_begin(t), xs_coo_tile_begin(t + 1)).
 * This is the "atoms per tile from offsets" view of COO without building
 * the offsets array.
 */
XS_HD int32_t xs_coo_tile_begin(const int32_t *row_idx, int32_t nnz,
				int32_t tile)
{
	int32_t lo = 0, hi = nnz;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;

		if (row_idx[mid] < tile)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Largest k in [0, n) with prefix[k] <= key, for a nondecreasing prefix
 * whose prefix[0] <= key (upper bound minus one). With empty tiles the
 * prefix holds runs of equal values; the last of a run is the only tile
 * that can own atom key, which is why this is an upper bound.
 */
XS_HD int32_t xs_tile_of_atom(const int32_t *prefix, int32_t n, int32_t key)
{
	int32_t lo = 0, hi = n;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;

		if (prefix[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

/* ------------------------------------------------------------------------ */
/* Thread-, warp- and block-mapped: tile per worker, grid stride            */
/* ------------------------------------------------------------------------ */

/*
 * Worker w of nworkers (a thread, a warp or a block) takes tiles w,
 * w + nworkers, ... Inside a tile of a warp- or block-mapped schedule, rank
 * r of a group of g threads takes atoms begin + r, begin + r + g, ...
 */
XS_HD int32_t xs_tpw_first_tile(int32_t worker)
{
	return worker;
}

XS_HD int32_t xs_tpw_tile_stride(int32_t nworkers)
{
	return nworkers;
}

/* ------------------------------------------------------------------------ */
/* Group-mapped: g tiles per group per round, prefix sum, binary search     */
/* ------------------------------------------------------------------------ */

/*
 * Group-mapped schedule (section 5.2.3). A block of b threads holds b / g
 * groups of g threads (g a power of two, g <= b). In round r, group q of
 * ngroups (grid-wide) takes the g tiles starting at
 *     (r * ngroups + q) * g,
 * one per rank; rank k loads the atom count of its tile (0 past the end)
 * into shared memory, the group scans it (xs_scan_step, log2 g steps) into
 * an exclusive prefix pre[0..g], and then the group's pre[g] atoms are
 * strided over its g ranks. Atom i of the group belongs to local tile
 * xs_tile_of_atom(pre, g, i), and is atom
 *     offsets[tile] + i - pre[local]
 * of the tile set. Every group runs the same number of rounds
 * (xs_gm_rounds), so block-wide barriers inside a round are safe for any g.
 */
XS_HD int32_t xs_gm_rounds(int32_t ntiles, int32_t ngroups, int32_t g)
{
	int64_t per_round = (int64_t)ngroups * g;

	return (int32_t)(((int64_t)ntiles + per_round - 1) / per_round);
}

XS_HD int32_t xs_gm_first_tile(int32_t round, int32_t ngroups, int32_t group,
			       int32_t g)
{
	return (int32_t)(((int64_t)round * ngroups + group) * g);
}

/*
 * One Hillis-Steele step of an inclusive scan with distance d: every rank
 * k computes out[k] = in[k] + in[k - d] (k >= d). The device runs the
 * steps d = 1, 2, 4, ... < g with a group barrier between reading and
 * writing; the host tests run the same function rank by rank.
 */
XS_HD int32_t xs_scan_step(const int32_t *in, int32_t k, int32_t d)
{
	return k >= d ? in[k] + in[k - d] : in[k];
}

/* ------------------------------------------------------------------------ */
/* Merge-path                                                               */
/* ------------------------------------------------------------------------ */

/*
 * Merge-path (Merrill and Garland, SC '16). Merging the list of tile ends
 * A = offsets[1..ntiles] with the atom indices B = 0..natoms-1 gives a path
 * of ntiles + natoms steps; a step along B consumes an atom, a step along A
 * ends a tile. The path is cut into nworkers equal pieces; worker w starts
 * at diagonal w * items, where a 2-D binary search finds the coordinate
 * (x = tile, y = atom) with x + y == diagonal. Atoms are counted from
 * offsets[0] (usually 0): coordinates y are absolute atom indices.
 */
struct xs_mp_coord {
	int32_t x;	/* tiles ended before this point */
	int32_t y;	/* absolute index of the next atom */
};

XS_HD int32_t xs_mp_items(int32_t ntiles, int32_t natoms, int32_t nworkers)
{
	int64_t total = (int64_t)ntiles + natoms;

	return (int32_t)((total + nworkers - 1) / nworkers);
}

/*
 * The coordinate on the merge path at @diag (0 <= diag <= ntiles + natoms).
 * Invariant: the result (x, y) satisfies x + (y - offsets[0]) == diag,
 * offsets[x] <= y, and (x == ntiles or y <= offsets[x + 1]); ties go to
 * ending the tile first (A before B), so a tile end precedes the atoms of
 * the next tile.
 */
XS_HD struct xs_mp_coord xs_mp_search(int64_t diag, const int32_t *offsets,
				      int32_t ntiles, int32_t natoms)
{
	int64_t lo = diag > natoms ? diag - natoms : 0;
	int64_t hi = diag < ntiles ? diag : ntiles;
	int32_t base = offsets[0];
	struct xs_mp_coord c;

	while (lo < hi) {
		int64_t pivot = lo + (hi - lo) / 2;

		/* A[pivot] = offsets[pivot + 1] (relative) vs B[diag-pivot-1]. */
		if ((int64_t)offsets[pivot + 1] - base <= diag - pivot - 1)
			lo = pivot + 1;
		else
			hi = pivot;
	}
	c.x = (int32_t)lo;
	c.y = (int32_t)(diag - lo) + base;
	return c;
}

/* The [begin, end) coordinates of worker @w. */
XS_HD void xs_mp_range(int32_t w, int32_t nworkers, const int32_t *offsets,
		       int32_t ntiles, int32_t natoms,
		       struct xs_mp_coord *begin, struct xs_mp_coord *end)
{
	int64_t items = xs_mp_items(ntiles, natoms, nworkers);
	int64_t total = (int64_t)ntiles + natoms;
	int64_t d0 = (int64_t)w * items, d1 = d0 + items;

	if (d0 > total)
		d0 = total;
	if (d1 > total)
		d1 = total;
	*begin = xs_mp_search(d0, offsets, ntiles, natoms);
	*end = xs_mp_search(d1, offsets, ntiles, natoms);
}

/*
 * How a worker walks its piece (the device kernels and the host tests both
 * follow this shape):
 *
 *   y = begin.y;
 *   for (x = begin.x; x < end.x; x++) {          // complete or head tiles
 *       for (; y < offsets[x + 1]; y++) atom(x, y);
 *       tile_end(x, xs_mp_complete(x, &begin, offsets));
 *   }
 *   if (y < end.y) {                              // partial tail tile end.x
 *       for (; y < end.y; y++) atom(end.x, y);
 *       tile_partial(end.x);
 *   }
 *
 * A tile is *complete* for the worker that ends it unless that worker began
 * inside it (begin.y > offsets[begin.x]): then an earlier worker holds its
 * first atoms as a partial tail, and both must combine (e.g. atomicAdd).
 */
XS_HD int xs_mp_complete(int32_t x, const struct xs_mp_coord *begin,
			 const int32_t *offsets)
{
	return x != begin->x || begin->y <= offsets[x];
}

/* ------------------------------------------------------------------------ */
/* Grid sizes                                                               */
/* ------------------------------------------------------------------------ */

/*
 * Threads schedule @s would like for a tile set (every one grid-strides, so
 * this is a size that covers the work once, not a requirement): a thread
 * per tile, a warp per tile, a block of @block per tile, whole groups of
 * @g per g tiles, or about 8 merge items per thread as in CUB's SpMV.
 * 0 for an unknown schedule.
 */
XS_HD int64_t xs_schedule_threads(int s, int32_t ntiles, int32_t natoms,
				  int32_t block, int32_t g)
{
	switch (s) {
	case XS_CUDA_SCHED_THREAD_MAPPED:
		return ntiles;
	case XS_CUDA_SCHED_WARP_MAPPED:
		return (int64_t)ntiles * 32;
	case XS_CUDA_SCHED_BLOCK_MAPPED:
		return (int64_t)ntiles * block;
	case XS_CUDA_SCHED_GROUP_MAPPED:
		return ((int64_t)ntiles + g - 1) / g * g;
	case XS_CUDA_SCHED_MERGE_PATH:
		return ((int64_t)ntiles + natoms + 7) / 8;
	default:
		return 0;
	}
}

/* Blocks of @block for @threads threads, at least 1 and capped at 32 per
 * SM of a device with @sm_count SMs (beyond that the grid strides). */
XS_HD uint32_t xs_grid_size(int32_t sm_count, int64_t threads, int32_t block)
{
	int64_t g = (threads + block - 1) / block;
	int64_t cap = (int64_t)sm_count * 32;

	if (g > cap)
		g = cap;
	return g < 1 ? 1 : (uint32_t)g;
}

#endif /* XSCHED_CUDA_LB_H */
