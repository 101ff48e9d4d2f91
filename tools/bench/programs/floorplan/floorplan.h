/* SPDX-License-Identifier: MIT */
/*
 * floorplan.h - BOTS floorplan: branch and bound over the placements of n
 * cells on a FP_ROWS x FP_COLS board, minimising the area of the bounding
 * box (the footprint) of the whole layout.
 *
 * Cells:  cell i (1..n) has 2 to 4 shapes of the same area (rows x cols)
 *         and is placed either to the right of cell i-1 (any row where the
 *         two touch) or, at the start of a row of FP_ROW_CELLS cells,
 *         under the first cell of the row above (any column where they
 *         touch), as BOTS's inputs do with their `left` / `above` fields.
 *         The input is made from splitmix64(i), so it is the same
 *         everywhere. Cell 0 is BOTS's sentinel at row 0, column -1.
 * Search: a node places cell id; it tries every shape and every start
 *         corner (BOTS's starts()), one task per (shape, corner) that stays
 *         on the board, on free squares, with a footprint still below the
 *         best area (BOTS spawns the task first and checks in it: here the
 *         checks cost a few ns, a task ten times that). A child checks the
 *         bound again, copies the layout of its parent (boxes and the 4 KiB
 *         board), lays its cell down and recurses on cell id + 1.
 * Bound:  the footprint only grows as cells are added, so a child whose
 *         footprint area is not below the best complete layout found so
 *         far cannot lead to a better one and is pruned. The best area is
 *         shared (read relaxed, lowered with a CAS loop): how much is
 *         pruned depends on the order of the search, the best area never
 *         does, so the checksum is the best area alone. The number of
 *         tasks differs from run to run; `tasks` is the serial search's.
 * Verify: the serial run also keeps its best layout; verify checks that it
 *         places every cell with one of its shapes, without overlap, and
 *         that its footprint has the best area.
 */
#ifndef XSCHED_BENCH_FLOORPLAN_H
#define XSCHED_BENCH_FLOORPLAN_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../harness/bench.h"

#define FP_ROWS 64
#define FP_COLS 64
#define FP_MAX_CELLS 40
#define FP_MAX_SHAPES 4
#define FP_ROW_CELLS 5		/* cells per row of the input */

struct fp_cell {		/* the input, read only during a run */
	int nshapes;
	int shape[FP_MAX_SHAPES][2];	/* rows, cols */
	int left, above;		/* the neighbour it touches, or -1 */
};

struct fp_box {
	short top, bot, lhs, rhs;
};

/* A partial layout: cells 0..id placed. Every search node owns one. */
struct fp_layout {
	struct fp_box box[FP_MAX_CELLS + 1];
	short fp[2];				/* footprint: rows, cols */
	unsigned char board[FP_ROWS][FP_COLS];	/* cell id, 0: free */
};

/* Where a child places its cell: shape @shape with its NW corner at
 * (@top, @lhs). */
struct fp_move {
	short id, shape, top, lhs;
};

/* The cut-off versions (cutoff_omp.c) create tasks for cells id < FP_CUTOFF
 * only (BOTS's default cut-off depth). */
#define FP_CUTOFF 5

struct floorplan_state {
	int ncells;
	struct fp_cell cell[FP_MAX_CELLS + 1];
	int best_area;			/* shared: see fp_offer() */
	struct fp_layout root;
	struct fp_layout best;		/* the serial run's best layout */
	uint64_t spawns;		/* counted by the serial run */
	uint64_t spawns_cut;		/* ... of them by cells id < FP_CUTOFF */
};

BENCH_C_LINKAGE void floorplan_tbb(void *st);

static inline int fp_max(int a, int b)
{
	return a > b ? a : b;
}

static inline int fp_min(int a, int b)
{
	return a < b ? a : b;
}

/* The best area so far. Relaxed: a stale value only prunes less. */
static inline int fp_best(struct floorplan_state *st)
{
	return __atomic_load_n(&st->best_area, __ATOMIC_RELAXED);
}

/* Lower the best area to @area; true if this call lowered it. Relaxed:
 * the value is all that is shared, and the driver reads it after the run
 * has joined every task. */
static inline bool fp_offer(struct floorplan_state *st, int area)
{
	int cur = fp_best(st);

	while (area < cur)
		if (__atomic_compare_exchange_n(&st->best_area, &cur, area, true,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

/*
 * Where cell @m->id goes and the footprint it makes: the area, or 0 when
 * it would leave the board.
 */
static inline int fp_area(const struct floorplan_state *st,
			  const struct fp_layout *l, const struct fp_move *m)
{
	const struct fp_cell *c = &st->cell[m->id];
	int bot = m->top + c->shape[m->shape][0] - 1;
	int rhs = m->lhs + c->shape[m->shape][1] - 1;

	if (bot >= FP_ROWS || rhs >= FP_COLS)
		return 0;
	return fp_max(l->fp[0], bot + 1) * fp_max(l->fp[1], rhs + 1);
}

/* Whether the cell of @m lands on free squares only (it is on the board). */
static inline bool fp_free(const struct floorplan_state *st,
			   const struct fp_layout *l, const struct fp_move *m)
{
	const struct fp_cell *c = &st->cell[m->id];
	int bot = m->top + c->shape[m->shape][0] - 1;
	int rhs = m->lhs + c->shape[m->shape][1] - 1;

	for (int r = m->top; r <= bot; r++)
		for (int k = m->lhs; k <= rhs; k++)
			if (l->board[r][k])
				return false;
	return true;
}

/*
 * The moves of node @l that place cell @id with shape @s (BOTS starts()),
 * less those that leave the board, overlap a placed cell, or make a
 * footprint that is already not below the best area: writes up to FP_ROWS
 * of them to @mv and returns how many.
 */
static inline int fp_moves(struct floorplan_state *st,
			   const struct fp_layout *l, int id, int s,
			   struct fp_move *mv)
{
	const struct fp_cell *c = &st->cell[id];
	int rows = c->shape[s][0], cols = c->shape[s][1], n = 0;
	int best = fp_best(st), first, last;
	bool right = c->left >= 0;
	const struct fp_box *b = &l->box[right ? c->left : c->above];

	if (right) {	/* to the right of b, rows where they touch */
		first = fp_max(b->top - rows + 1, 0);
		last = fp_min(b->bot, FP_ROWS - 1);
	} else {	/* under b, columns where they touch */
		first = fp_max(b->lhs - cols + 1, 0);
		last = fp_min(b->rhs, FP_COLS - 1);
	}
	for (int k = first; k <= last; k++) {
		struct fp_move m = { (short)id, (short)s,
				     (short)(right ? k : b->bot + 1),
				     (short)(right ? b->rhs + 1 : k) };
		int area = fp_area(st, l, &m);

		if (area && area < best && fp_free(st, l, &m))
			mv[n++] = m;
	}
	return n;
}

enum fp_result { FP_PRUNED, FP_IMPROVED, FP_LEAF, FP_INNER };

/*
 * A search step: cell @m->id goes where @m (one of fp_moves()) says on a
 * copy (@out) of the parent's layout @in. FP_INNER: @out is a partial
 * layout to extend with cell id + 1; FP_IMPROVED: @out is complete and
 * the best so far; FP_LEAF: complete, not better; FP_PRUNED: its
 * footprint is no longer below the best area.
 */
static inline enum fp_result fp_step(struct floorplan_state *st,
				     const struct fp_layout *in,
				     const struct fp_move *m,
				     struct fp_layout *out)
{
	const struct fp_cell *c = &st->cell[m->id];
	int bot = m->top + c->shape[m->shape][0] - 1;
	int rhs = m->lhs + c->shape[m->shape][1] - 1;
	int area = fp_area(st, in, m);

	if (area >= fp_best(st))	/* the best may have improved */
		return FP_PRUNED;
	memcpy(out, in, sizeof(*out));
	for (int r = m->top; r <= bot; r++)
		memset(&out->board[r][m->lhs], m->id, (size_t)(rhs - m->lhs + 1));
	out->box[m->id] = (struct fp_box){ m->top, (short)bot, m->lhs, (short)rhs };
	out->fp[0] = (short)fp_max(in->fp[0], bot + 1);
	out->fp[1] = (short)fp_max(in->fp[1], rhs + 1);
	if (m->id < st->ncells)
		return FP_INNER;
	return fp_offer(st, area) ? FP_IMPROVED : FP_LEAF;
}

static inline void fp_serial_node(struct floorplan_state *st,
				  const struct fp_layout *l, int id)
{
	struct fp_move mv[FP_ROWS];
	struct fp_layout child;

	for (int s = 0; s < st->cell[id].nshapes; s++) {
		int n = fp_moves(st, l, id, s, mv);

		st->spawns += (uint64_t)n;
		if (id < FP_CUTOFF)
			st->spawns_cut += (uint64_t)n;
		for (int j = 0; j < n; j++) {
			enum fp_result r = fp_step(st, l, &mv[j], &child);

			if (r == FP_INNER)
				fp_serial_node(st, &child, id + 1);
			else if (r == FP_IMPROVED)
				st->best = child;
		}
	}
}

static inline void fp_teardown(void *st)
{
	free(st);
}

static inline void *fp_setup(long n)
{
	struct floorplan_state *st =
		(struct floorplan_state *)calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->ncells = (int)n;
	st->cell[0] = (struct fp_cell){ 0, { { 0, 0 } }, -1, -1 };
	st->root.box[0] = (struct fp_box){ 0, 0, -1, -1 };
	for (int i = 1; i <= st->ncells; i++) {
		static const int areas[] = { 4, 6, 8, 9, 12, 16 };
		uint64_t h = bench_mix64((uint64_t)i);
		int area = areas[h % 6], k = 0;
		struct fp_cell *c = &st->cell[i];

		for (int r = 1; r <= area && k < FP_MAX_SHAPES; r++)
			if (area % r == 0 && area / r <= 8 && r <= 8) {
				c->shape[k][0] = r;
				c->shape[k][1] = area / r;
				k++;
			}
		c->nshapes = k;
		if ((i - 1) % FP_ROW_CELLS || i == 1) {
			c->left = i - 1;
			c->above = -1;
		} else {
			c->left = -1;
			c->above = i - FP_ROW_CELLS;
		}
	}
	return st;
}

static inline void fp_reset(void *p)
{
	struct floorplan_state *st = (struct floorplan_state *)p;

	st->best_area = FP_ROWS * FP_COLS + 1;	/* the board is the bound */
	memset(&st->best, 0, sizeof(st->best));
	st->spawns = 0;
	st->spawns_cut = 0;
}

static inline void fp_serial(void *p)
{
	struct floorplan_state *st = (struct floorplan_state *)p;

	fp_serial_node(st, &st->root, 1);
}

static inline uint64_t fp_checksum(const void *p)
{
	return (uint64_t)((const struct floorplan_state *)p)->best_area;
}

/* The serial run's best layout is a layout of the input with that area. */
static inline int fp_verify(const void *p, char *why, int len)
{
	const struct floorplan_state *st = (const struct floorplan_state *)p;
	unsigned char owner[FP_ROWS][FP_COLS] = { { 0 } };
	int rows = 0, cols = 0;

	for (int i = 1; i <= st->ncells; i++) {
		const struct fp_box *b = &st->best.box[i];
		int h = b->bot - b->top + 1, w = b->rhs - b->lhs + 1, s;

		for (s = 0; s < st->cell[i].nshapes; s++)
			if (st->cell[i].shape[s][0] == h && st->cell[i].shape[s][1] == w)
				break;
		if (s == st->cell[i].nshapes || b->top < 0 || b->lhs < 0 ||
		    b->bot >= FP_ROWS || b->rhs >= FP_COLS) {
			snprintf(why, (size_t)len, "cell %d: %dx%d at (%d,%d) is not "
				 "one of its shapes on the board", i, h, w,
				 b->top, b->lhs);
			return -EINVAL;
		}
		for (int r = b->top; r <= b->bot; r++)
			for (int k = b->lhs; k <= b->rhs; k++) {
				if (owner[r][k]) {
					snprintf(why, (size_t)len,
						 "cells %d and %d overlap at (%d,%d)",
						 owner[r][k], i, r, k);
					return -EINVAL;
				}
				owner[r][k] = (unsigned char)i;
			}
		rows = fp_max(rows, b->bot + 1);
		cols = fp_max(cols, b->rhs + 1);
	}
	if (rows * cols != st->best_area) {
		snprintf(why, (size_t)len, "best area %d, but its layout is %dx%d",
			 st->best_area, rows, cols);
		return -EINVAL;
	}
	return 0;
}

static inline uint64_t fp_tasks(const void *p)
{
	return ((const struct floorplan_state *)p)->spawns;
}

#ifndef __cplusplus
/* The fields every version of the program shares (cutoff.h), all but
 * the tasks it creates. */
#define FLOORPLAN_PROBLEM_FIELDS \
	.n_default = 14, \
	.n_quick = 9, \
	.n_min = 1, \
	.n_max = FP_MAX_CELLS, \
	.setup = fp_setup, \
	.teardown = fp_teardown, \
	.reset = fp_reset, \
	.serial = fp_serial, \
	.checksum = fp_checksum, \
	.verify = fp_verify,

static const struct bench_problem floorplan_problem = {
	.name = "floorplan",
	.doc = "BOTS floorplan: branch and bound placement of n cells, a task per move",
	FLOORPLAN_PROBLEM_FIELDS
	.tasks = fp_tasks,
};
#endif

#endif /* XSCHED_BENCH_FLOORPLAN_H */
