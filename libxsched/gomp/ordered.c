// SPDX-License-Identifier: MIT
/*
 * ordered.c - `ordered` regions and doacross loops (ordered(n) with
 * depend(sink)/depend(source)).
 *
 * ordered: chunks are dispensed in increasing iteration order, so the turn
 * to run ordered regions passes from chunk to chunk: the thread holding
 * chunk [lo, hi) may enter an ordered region once ordered_pos == lo, and
 * when it is done with the chunk (next chunk or loop end) it waits for its
 * turn if it never took it and stores ordered_pos = hi (release; ordered
 * regions read what earlier ones wrote: acquire).
 *
 * doacross: one bit per iteration of the collapsed iteration space, set by
 * GOMP_doacross_post (release) and waited for by GOMP_doacross_wait
 * (acquire): a sink waits exactly for the iteration it names.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "gomp.h"

struct xg_pos_wait {
	struct xg_ws *ws;
	uint64_t pos;
};

static bool xg_turn_reached(void *arg)
{
	struct xg_pos_wait *p = arg;

	/* Acquire pairs with the release in xg_ordered_pass(): the previous
	 * ordered regions' writes are visible. */
	return xs_load_acquire(&p->ws->ordered_pos) == p->pos;
}

static void xg_wait_turn(struct xg_task *it)
{
	struct xg_pos_wait p = { it->ws, it->chunk_lo };

	xg_wait_until(xg_turn_reached, &p);
}

void xg_ordered_pass(struct xg_task *it)
{
	xg_wait_turn(it);
	/* Release: this chunk's ordered regions happen-before the next
	 * chunk's, whose owner acquires ordered_pos (xg_turn_reached()). */
	xs_store_release(&it->ws->ordered_pos, it->chunk_hi);
	it->ordered_done = true;
	xg_team_notify(it->team);
}

XG_EXPORT void GOMP_ordered_start(void)
{
	struct xg_task *it = xg_task_self()->implicit;

	/* An ordered region outside an ordered loop (or in a team of one
	 * thread's leftover) has nobody to wait for. */
	if (!it || !it->ws || !it->ws->loop.ordered || it->ordered_done)
		return;
	xg_wait_turn(it);
}

XG_EXPORT void GOMP_ordered_end(void)
{
	/* The turn passes with the chunk (xg_ordered_pass()). */
}

/* ---------------------------------------------------------------- */
/* doacross */

#define XG_DOACROSS_MAX_BITS (1ull << 33) /* 1 GiB of flags */

struct xg_doacross {
	uint32_t ncounts;
	uint64_t total;
	_Atomic uint64_t *bits;
	uint64_t counts[];
};

void xg_doacross_free(struct xg_ws *ws)
{
	if (!ws->doacross)
		return;
	free(ws->doacross->bits);
	free(ws->doacross);
	ws->doacross = NULL;
}

void xg_doacross_init(struct xg_ws *ws, unsigned ncounts, const uint64_t *counts)
{
	struct xg_doacross *d = malloc(sizeof(*d) + ncounts * sizeof(d->counts[0]));
	uint64_t total = 1;

	if (!d)
		goto oom;
	d->ncounts = ncounts;
	for (unsigned i = 0; i < ncounts; i++) {
		d->counts[i] = counts[i];
		if (counts[i] && total > XG_DOACROSS_MAX_BITS / counts[i])
			xg_unsupported("a doacross loop nest of more than 2^33 iterations");
		total *= counts[i];
	}
	d->total = total;
	d->bits = calloc(total / 64 + 1, sizeof(uint64_t));
	if (!d->bits)
		goto oom;
	ws->doacross = d;
	return;
oom:
	xg_warn("out of memory for a doacross loop of %u dimensions", ncounts);
	abort();
}

static struct xg_doacross *xg_doacross_self(void)
{
	struct xg_task *it = xg_task_self()->implicit;

	if (!it || !it->ws || !it->ws->doacross)
		xg_unsupported("depend(source/sink) outside a doacross loop (non-conforming)");
	return it->ws->doacross;
}

/* Flattened index of iteration @v of @d, or UINT64_MAX when out of range. */
static uint64_t xg_doacross_index(const struct xg_doacross *d, const uint64_t *v)
{
	uint64_t f = 0;

	for (uint32_t i = 0; i < d->ncounts; i++) {
		if (v[i] >= d->counts[i])
			return UINT64_MAX;
		f = f * d->counts[i] + v[i];
	}
	return f;
}

static void xg_doacross_post(const uint64_t *v)
{
	struct xg_doacross *d = xg_doacross_self();
	uint64_t f = xg_doacross_index(d, v);

	if (f == UINT64_MAX)
		return;
	/* Release: the iteration's writes before the post are visible to the
	 * sink that acquires the bit. */
	xs_fetch_or_release(&d->bits[f / 64], 1ull << (f % 64));
	xg_team_notify(xg_task_self()->team);
}

struct xg_bit_wait {
	_Atomic uint64_t *word;
	uint64_t mask;
};

static bool xg_bit_set(void *arg)
{
	struct xg_bit_wait *b = arg;

	/* Acquire pairs with the release fetch_or of the post. */
	return xs_load_acquire(b->word) & b->mask;
}

static void xg_doacross_wait(const uint64_t *v)
{
	struct xg_doacross *d = xg_doacross_self();
	uint64_t f = xg_doacross_index(d, v);
	struct xg_bit_wait b;

	if (f == UINT64_MAX) /* a sink outside the iteration space */
		return;
	b.word = &d->bits[f / 64];
	b.mask = 1ull << (f % 64);
	xg_wait_until(xg_bit_set, &b);
}

XG_EXPORT void GOMP_doacross_post(long *counts)
{
	struct xg_doacross *d = xg_doacross_self();
	uint64_t v[d->ncounts];

	for (uint32_t i = 0; i < d->ncounts; i++)
		v[i] = (uint64_t)counts[i];
	xg_doacross_post(v);
}

XG_EXPORT void GOMP_doacross_ull_post(unsigned long long *counts)
{
	struct xg_doacross *d = xg_doacross_self();
	uint64_t v[d->ncounts];

	for (uint32_t i = 0; i < d->ncounts; i++)
		v[i] = counts[i];
	xg_doacross_post(v);
}

XG_EXPORT void GOMP_doacross_wait(long first, ...)
{
	struct xg_doacross *d = xg_doacross_self();
	uint64_t v[d->ncounts];
	va_list ap;

	v[0] = (uint64_t)first;
	va_start(ap, first);
	for (uint32_t i = 1; i < d->ncounts; i++)
		v[i] = (uint64_t)va_arg(ap, long);
	va_end(ap);
	xg_doacross_wait(v);
}

XG_EXPORT void GOMP_doacross_ull_wait(unsigned long long first, ...)
{
	struct xg_doacross *d = xg_doacross_self();
	uint64_t v[d->ncounts];
	va_list ap;

	v[0] = first;
	va_start(ap, first);
	for (uint32_t i = 1; i < d->ncounts; i++)
		v[i] = va_arg(ap, unsigned long long);
	va_end(ap);
	xg_doacross_wait(v);
}

/* A doacross loop: the first dimension, 0 .. counts[0] - 1, is dispensed;
 * the sinks and sources of all of them are tracked. */
static bool xg_doacross_start(unsigned ncounts, const uint64_t *counts, uint32_t sched,
			      int64_t chunk, uint64_t *lo, uint64_t *hi, uintptr_t *reductions,
			      void **mem)
{
	struct xg_loop_spec spec = {
		.n = ncounts ? counts[0] : 0, .start = 0, .step = 1,
		.end = ncounts ? counts[0] : 0, .sched = sched, .chunk = chunk,
		.ncounts = ncounts, .counts = counts,
	};

	if (!ncounts)
		xg_unsupported("a doacross loop without dimensions");
	xg_loop_enter(&spec, reductions, mem, "a task reduction on a doacross loop");
	return !lo || xg_loop_next(lo, hi) != NULL;
}

/* The entry points' counts and bounds, as 64-bit patterns. */
static bool xg_doacross_start_conv(unsigned ncounts, const void *counts, bool is_long,
				   uint32_t sched, uint64_t chunk, void *istart, void *iend,
				   uintptr_t *reductions, void **mem)
{
	uint64_t c[ncounts ? ncounts : 1], lo, hi;
	bool more;

	for (unsigned i = 0; i < ncounts; i++) {
		if (is_long) {
			long v = ((const long *)counts)[i];

			c[i] = v > 0 ? (uint64_t)v : 0;
		} else {
			c[i] = ((const unsigned long long *)counts)[i];
		}
	}
	more = xg_doacross_start(ncounts, c, sched, chunk > INT64_MAX ? INT64_MAX : (int64_t)chunk,
				 istart ? &lo : NULL, &hi, reductions, mem);
	if (istart && more) {
		if (is_long) {
			*(long *)istart = (long)lo;
			*(long *)iend = (long)hi;
		} else {
			*(unsigned long long *)istart = lo;
			*(unsigned long long *)iend = hi;
		}
	}
	return more;
}

static bool xg_doacross_start_long(unsigned ncounts, const long *counts, uint32_t sched,
				   long chunk, long *istart, long *iend, uintptr_t *reductions,
				   void **mem)
{
	return xg_doacross_start_conv(ncounts, counts, true, sched,
				      chunk > 0 ? (uint64_t)chunk : 0, istart, iend, reductions,
				      mem);
}

XG_EXPORT bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk,
					       long *istart, long *iend)
{
	return xg_doacross_start_long(ncounts, counts, XG_SCHED_STATIC, chunk, istart, iend, NULL,
				      NULL);
}

XG_EXPORT bool GOMP_loop_doacross_dynamic_start(unsigned ncounts, long *counts, long chunk,
						long *istart, long *iend)
{
	return xg_doacross_start_long(ncounts, counts, XG_SCHED_DYNAMIC, chunk, istart, iend,
				      NULL, NULL);
}

XG_EXPORT bool GOMP_loop_doacross_guided_start(unsigned ncounts, long *counts, long chunk,
					       long *istart, long *iend)
{
	return xg_doacross_start_long(ncounts, counts, XG_SCHED_GUIDED, chunk, istart, iend, NULL,
				      NULL);
}

XG_EXPORT bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart,
						long *iend)
{
	return xg_doacross_start_long(ncounts, counts, XG_SCHED_RUNTIME, 0, istart, iend, NULL,
				      NULL);
}

XG_EXPORT bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk,
					long *istart, long *iend, uintptr_t *reductions,
					void **mem)
{
	return xg_doacross_start_long(ncounts, counts, (uint32_t)sched, chunk, istart, iend,
				      reductions, mem);
}

static bool xg_doacross_start_ull(unsigned ncounts, const unsigned long long *counts,
				  uint32_t sched, unsigned long long chunk,
				  unsigned long long *istart, unsigned long long *iend,
				  uintptr_t *reductions, void **mem)
{
	return xg_doacross_start_conv(ncounts, counts, false, sched, chunk, istart, iend,
				      reductions, mem);
}

XG_EXPORT bool GOMP_loop_ull_doacross_static_start(unsigned ncounts, unsigned long long *counts,
						   unsigned long long chunk,
						   unsigned long long *istart,
						   unsigned long long *iend)
{
	return xg_doacross_start_ull(ncounts, counts, XG_SCHED_STATIC, chunk, istart, iend, NULL,
				     NULL);
}

XG_EXPORT bool GOMP_loop_ull_doacross_dynamic_start(unsigned ncounts, unsigned long long *counts,
						    unsigned long long chunk,
						    unsigned long long *istart,
						    unsigned long long *iend)
{
	return xg_doacross_start_ull(ncounts, counts, XG_SCHED_DYNAMIC, chunk, istart, iend, NULL,
				     NULL);
}

XG_EXPORT bool GOMP_loop_ull_doacross_guided_start(unsigned ncounts, unsigned long long *counts,
						   unsigned long long chunk,
						   unsigned long long *istart,
						   unsigned long long *iend)
{
	return xg_doacross_start_ull(ncounts, counts, XG_SCHED_GUIDED, chunk, istart, iend, NULL,
				     NULL);
}

XG_EXPORT bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, unsigned long long *counts,
						    unsigned long long *istart,
						    unsigned long long *iend)
{
	return xg_doacross_start_ull(ncounts, counts, XG_SCHED_RUNTIME, 0, istart, iend, NULL,
				     NULL);
}

XG_EXPORT bool GOMP_loop_ull_doacross_start(unsigned ncounts, unsigned long long *counts,
					    long sched, unsigned long long chunk,
					    unsigned long long *istart, unsigned long long *iend,
					    uintptr_t *reductions, void **mem)
{
	return xg_doacross_start_ull(ncounts, counts, (uint32_t)sched, chunk, istart, iend,
				     reductions, mem);
}
