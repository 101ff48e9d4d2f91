// SPDX-License-Identifier: MIT
/*
 * loop.c - worksharing loops: the entry points for `long` loops (loop_ull.c
 * has the unsigned long long ones) on libxsched's loop dispenser.
 *
 * A loop is dispensed over its iteration numbers [0, n), whatever its type,
 * bounds and direction: iteration i is start + i * step (mod 2^64). The
 * dispensing itself - static block and cyclic, dynamic, guided and hybrid -
 * is libxsched/loops/loop.c's, the same code as xs_parallel_for(); here a
 * construct's slot holds the dispenser and each thread's implicit task its
 * cursor. Dynamic and guided are monotonic, which also satisfies
 * nonmonotonic; hybrid is monotonic when the loop asks for it (the
 * monotonic modifier, or `ordered`): thieves then take only increasing
 * chunks. Ordered turns pass from chunk to chunk in increasing order
 * (ordered.c): every thread takes its own chunks in increasing order.
 *
 * schedule(runtime) runs what XSCHED_LOOP_SCHEDULE names when it is set
 * (not auto), whatever OMP_SCHEDULE says: that is how OpenMP programs reach
 * the hybrid schedule (env.c), with XSCHED_LOOP_HYBRID_NS/ND/GRAIN, and
 * the affinity schedule of XSCHED_AFFINITY_FILE (libxsched/affinity/affinity.h;
 * loops it does not fit, ordered and monotonic ones run hybrid).
 */
#include <stdlib.h>

#include "ext.h"
#include "gomp.h"
#include "ompt.h"

uint32_t xg_sched_resolve(uint32_t sched, int64_t *chunk)
{
	sched &= ~XG_SCHED_MONOTONIC;
	if (sched == XG_SCHED_RUNTIME) {
		const struct xg_icv *icv = xg_task_self()->icv;

		sched = icv->run_sched & ~XG_SCHED_MONOTONIC;
		*chunk = icv->run_chunk;
	}
	if (sched == XG_SCHED_AUTO) {
		sched = XG_SCHED_STATIC;
		*chunk = 0;
	}
	if (sched != XG_SCHED_STATIC && sched != XG_SCHED_DYNAMIC && sched != XG_SCHED_GUIDED &&
	    sched != XG_SCHED_HYBRID && sched != XG_SCHED_AFFINITY)
		xg_unsupported("a loop schedule kind other than static, dynamic, guided, auto, runtime");
	if (*chunk < 0 || (sched != XG_SCHED_STATIC && *chunk < 1))
		*chunk = sched == XG_SCHED_STATIC ? 0 : 1;
	return sched;
}

void xg_loop_init(struct xg_ws *ws, uint64_t n, uint64_t start, uint64_t step, uint64_t end,
		  uint32_t sched, int64_t chunk, bool ordered)
{
	struct xg_loop *l = &ws->loop;
	struct xg_team *team = ws->team;
	uint32_t nt = team->nthreads;
	bool monotonic = ordered || (sched & XG_SCHED_MONOTONIC);
	uint32_t kind = xg_sched_resolve(sched, &chunk);
	struct xs_loop_sched s = xg_env.loop;
	const struct xs_victim_view *victims = NULL;
	const struct xs_affinity_map *amap = NULL;

	/* enum xg_sched's STATIC..GUIDED are XS_LOOP_STATIC..GUIDED. */
	s.kind = kind == XG_SCHED_HYBRID ? XS_LOOP_HYBRID : kind;
	s.chunk = (uint64_t)chunk;
	if (kind == XG_SCHED_AFFINITY) {
		/* The schedule of XSCHED_AFFINITY_FILE when it fits this loop
		 * and team; ordered and monotonic loops keep their order. */
		if (!monotonic && nt > 1 && team->rt)
			amap = xs_affinity_lookup(team->rt, n, nt);
		s.kind = XS_LOOP_HYBRID;
	}
	if (s.kind == XS_LOOP_HYBRID && nt == 1) {
		/* Nobody to balance with: one block (and no claim words to
		 * allocate for serialized and orphaned loops). */
		s.kind = XS_LOOP_STATIC;
		s.chunk = 0;
	}
	if (s.kind == XS_LOOP_HYBRID) {
		if (!ws->hslots) {
			/* Kept for the slot's next hybrid loop; freed with the
			 * region's team memory (team.c). */
			ws->hslots = xs_alloc_cache_aligned(nt * sizeof(*ws->hslots));
			if (!ws->hslots) {
				xg_warn("out of memory for a hybrid loop of %u threads", nt);
				abort();
			}
		}
		/* Acquire pairs with the release that published the view; it
		 * lives at least until the region (one job) ends. */
		if (team->rt)
			victims = xs_load_acquire(&team->rt->victims);
	}
	l->n = n;
	l->start = start;
	l->step = step;
	l->end = end;
	l->ordered = ordered;
	/* Relaxed stores: published by xg_ws_ready()'s release (or the team
	 * start for a combined construct). */
	if (amap)
		xs_loop_disp_init_affinity(&ws->disp, n, nt, &s, ws->hslots, victims, amap);
	else
		xs_loop_disp_init(&ws->disp, n, nt, &s, monotonic,
				  s.kind == XS_LOOP_HYBRID ? ws->hslots : NULL, victims);
	xs_store_relaxed(&ws->ordered_pos, 0);
}

const struct xg_loop *xg_loop_next(uint64_t *lo, uint64_t *hi)
{
	struct xg_task *it = xg_task_self()->implicit;
	struct xg_ws *ws = it->ws;
	const struct xg_loop *l = &ws->loop;
	uint64_t a, b;

	if (l->ordered && !it->ordered_done)
		xg_ordered_pass(it);
	if (!xs_loop_disp_next(&ws->disp, &it->cur, &a, &b))
		return NULL;
	it->chunk_lo = a;
	it->chunk_hi = b;
	it->ordered_done = false;
	*lo = a;
	*hi = b;
	return l;
}

void xg_loop_end(bool wait)
{
	struct xg_task *it = xg_task_self()->implicit;

	if (it && it->ws && it->ws->loop.ordered && !it->ordered_done)
		xg_ordered_pass(it);
	XG_OMPT(work_end(XG_OMPT_WORK_LOOP));
	xg_ws_leave();
	if (wait)
		xg_barrier();
}

/* ---------------------------------------------------------------- */
/* long entry points */

static uint64_t xg_count_long(long start, long end, long incr)
{
	if (incr > 0)
		return xg_trip_count((uint64_t)start, (uint64_t)end, (uint64_t)incr, true, true);
	return xg_trip_count((uint64_t)start, (uint64_t)end, -(uint64_t)incr, false, true);
}

static bool xg_next_long(long *istart, long *iend)
{
	uint64_t lo, hi;
	const struct xg_loop *l = xg_loop_next(&lo, &hi);

	if (!l)
		return false;
	*istart = (long)xg_loop_value(l, lo);
	*iend = (long)xg_loop_value(l, hi);
	return true;
}

static void xg_init_long(struct xg_ws *ws, long start, long end, long incr, uint32_t sched,
			 long chunk, bool ordered)
{
	xg_loop_init(ws, xg_count_long(start, end, incr), (uint64_t)start, (uint64_t)incr,
		     (uint64_t)end, sched, chunk, ordered);
}

struct xg_ws *xg_loop_enter(const struct xg_loop_spec *spec, uintptr_t *reductions, void **mem,
			    const char *who)
{
	bool first;
	struct xg_ws *ws;

	(void)who;
	XG_OMPT(work_begin(XG_OMPT_WORK_LOOP, spec->n));
	ws = xg_ws_enter(&first);
	if (first) {
		xg_loop_init(ws, spec->n, spec->start, spec->step, spec->end, spec->sched,
			     spec->chunk, spec->ordered);
		if (spec->ncounts)
			xg_doacross_init(ws, spec->ncounts, spec->counts);
	}
	if (reductions)
		xg_ws_task_reduction(ws, first, reductions);
	xg_ws_mem(ws, first, mem);
	if (first)
		xg_ws_ready(ws);
	return ws;
}

static bool xg_start_long_mem(long start, long end, long incr, long sched, long chunk,
			      bool ordered, long *istart, long *iend, uintptr_t *reductions,
			      void **mem)
{
	struct xg_loop_spec spec = {
		.n = xg_count_long(start, end, incr), .start = (uint64_t)start,
		.step = (uint64_t)incr, .end = (uint64_t)end, .sched = (uint32_t)sched,
		.chunk = chunk, .ordered = ordered,
	};

	xg_loop_enter(&spec, reductions, mem,
		      "a task reduction on a worksharing loop (GOMP_loop_start)");
	return !istart || xg_next_long(istart, iend);
}

static bool xg_start_long(long start, long end, long incr, uint32_t sched, long chunk,
			  bool ordered, long *istart, long *iend)
{
	return xg_start_long_mem(start, end, incr, sched, chunk, ordered, istart, iend, NULL,
				 NULL);
}

/* GOMP_loop_start()'s team memory (lastprivate(conditional), scan). */
void xg_ws_mem(struct xg_ws *ws, bool first, void **mem)
{
	if (!mem)
		return;
	if (first) {
		free(ws->mem);
		ws->mem = calloc(1, (uintptr_t)*mem ? (uintptr_t)*mem : 1);
		if (!ws->mem) {
			xg_warn("out of memory for %zu bytes of worksharing memory",
				(size_t)(uintptr_t)*mem);
			abort();
		}
	}
	*mem = ws->mem;
}

XG_EXPORT bool GOMP_loop_static_start(long start, long end, long incr, long chunk, long *istart,
				      long *iend)
{
	return xg_start_long(start, end, incr, XG_SCHED_STATIC, chunk, false, istart, iend);
}

XG_EXPORT bool GOMP_loop_dynamic_start(long start, long end, long incr, long chunk, long *istart,
				       long *iend)
{
	return xg_start_long(start, end, incr, XG_SCHED_DYNAMIC, chunk, false, istart, iend);
}

XG_EXPORT bool GOMP_loop_guided_start(long start, long end, long incr, long chunk, long *istart,
				      long *iend)
{
	return xg_start_long(start, end, incr, XG_SCHED_GUIDED, chunk, false, istart, iend);
}

XG_EXPORT bool GOMP_loop_runtime_start(long start, long end, long incr, long *istart, long *iend)
{
	return xg_start_long(start, end, incr, XG_SCHED_RUNTIME, 0, false, istart, iend);
}

XG_EXPORT bool GOMP_loop_nonmonotonic_dynamic_start(long, long, long, long, long *, long *)
	__attribute__((alias("GOMP_loop_dynamic_start")));
XG_EXPORT bool GOMP_loop_nonmonotonic_guided_start(long, long, long, long, long *, long *)
	__attribute__((alias("GOMP_loop_guided_start")));
XG_EXPORT bool GOMP_loop_nonmonotonic_runtime_start(long, long, long, long *, long *)
	__attribute__((alias("GOMP_loop_runtime_start")));
XG_EXPORT bool GOMP_loop_maybe_nonmonotonic_runtime_start(long, long, long, long *, long *)
	__attribute__((alias("GOMP_loop_runtime_start")));

XG_EXPORT bool GOMP_loop_ordered_static_start(long start, long end, long incr, long chunk,
					      long *istart, long *iend)
{
	return xg_start_long(start, end, incr, XG_SCHED_STATIC, chunk, true, istart, iend);
}

XG_EXPORT bool GOMP_loop_ordered_dynamic_start(long start, long end, long incr, long chunk,
					       long *istart, long *iend)
{
	return xg_start_long(start, end, incr, XG_SCHED_DYNAMIC, chunk, true, istart, iend);
}

XG_EXPORT bool GOMP_loop_ordered_guided_start(long start, long end, long incr, long chunk,
					      long *istart, long *iend)
{
	return xg_start_long(start, end, incr, XG_SCHED_GUIDED, chunk, true, istart, iend);
}

XG_EXPORT bool GOMP_loop_ordered_runtime_start(long start, long end, long incr, long *istart,
					       long *iend)
{
	return xg_start_long(start, end, incr, XG_SCHED_RUNTIME, 0, true, istart, iend);
}

XG_EXPORT bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk,
			       long *istart, long *iend, uintptr_t *reductions, void **mem)
{
	return xg_start_long_mem(start, end, incr, sched, chunk, false, istart, iend, reductions,
				 mem);
}

XG_EXPORT bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk,
				       long *istart, long *iend, uintptr_t *reductions, void **mem)
{
	return xg_start_long_mem(start, end, incr, sched, chunk, true, istart, iend, reductions,
				 mem);
}

XG_EXPORT bool GOMP_loop_static_next(long *istart, long *iend)
{
	return xg_next_long(istart, iend);
}

XG_EXPORT bool GOMP_loop_dynamic_next(long *, long *) __attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_guided_next(long *, long *) __attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_runtime_next(long *, long *) __attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_nonmonotonic_dynamic_next(long *, long *)
	__attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_nonmonotonic_guided_next(long *, long *)
	__attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_nonmonotonic_runtime_next(long *, long *)
	__attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_maybe_nonmonotonic_runtime_next(long *, long *)
	__attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_ordered_static_next(long *, long *)
	__attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_ordered_dynamic_next(long *, long *)
	__attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_ordered_guided_next(long *, long *)
	__attribute__((alias("GOMP_loop_static_next")));
XG_EXPORT bool GOMP_loop_ordered_runtime_next(long *, long *)
	__attribute__((alias("GOMP_loop_static_next")));

XG_EXPORT void GOMP_loop_end(void)
{
	xg_loop_end(true);
}

XG_EXPORT void GOMP_loop_end_nowait(void)
{
	xg_loop_end(false);
}

XG_EXPORT bool GOMP_loop_end_cancel(void)
{
	xg_loop_end(true);
	return false; /* cancellation is not supported: never cancelled */
}

/* Combined parallel loops: construct 0 is set up before the team starts. */
struct xg_loop_preset {
	long start, end, incr, chunk;
	uint32_t sched;
};

static void xg_preset_long(struct xg_ws *ws, const void *arg)
{
	const struct xg_loop_preset *p = arg;

	xg_init_long(ws, p->start, p->end, p->incr, p->sched, p->chunk, false);
}

static void xg_parallel_loop(void (*fn)(void *), void *data, unsigned nthreads, long start,
			     long end, long incr, uint32_t sched, long chunk, unsigned flags)
{
	struct xg_loop_preset p = { start, end, incr, chunk, sched };

	xg_parallel_ws(fn, data, nthreads, flags, xg_preset_long, &p);
}

XG_EXPORT void GOMP_parallel_loop_static(void (*fn)(void *), void *data, unsigned nthreads,
					 long start, long end, long incr, long chunk, unsigned flags)
{
	xg_parallel_loop(fn, data, nthreads, start, end, incr, XG_SCHED_STATIC, chunk, flags);
}

XG_EXPORT void GOMP_parallel_loop_dynamic(void (*fn)(void *), void *data, unsigned nthreads,
					  long start, long end, long incr, long chunk, unsigned flags)
{
	xg_parallel_loop(fn, data, nthreads, start, end, incr, XG_SCHED_DYNAMIC, chunk, flags);
}

XG_EXPORT void GOMP_parallel_loop_guided(void (*fn)(void *), void *data, unsigned nthreads,
					 long start, long end, long incr, long chunk, unsigned flags)
{
	xg_parallel_loop(fn, data, nthreads, start, end, incr, XG_SCHED_GUIDED, chunk, flags);
}

XG_EXPORT void GOMP_parallel_loop_runtime(void (*fn)(void *), void *data, unsigned nthreads,
					  long start, long end, long incr, unsigned flags)
{
	xg_parallel_loop(fn, data, nthreads, start, end, incr, XG_SCHED_RUNTIME, 0, flags);
}

XG_EXPORT void GOMP_parallel_loop_nonmonotonic_dynamic(void (*)(void *), void *, unsigned, long,
						       long, long, long, unsigned)
	__attribute__((alias("GOMP_parallel_loop_dynamic")));
XG_EXPORT void GOMP_parallel_loop_nonmonotonic_guided(void (*)(void *), void *, unsigned, long,
						      long, long, long, unsigned)
	__attribute__((alias("GOMP_parallel_loop_guided")));
XG_EXPORT void GOMP_parallel_loop_nonmonotonic_runtime(void (*)(void *), void *, unsigned, long,
						       long, long, unsigned)
	__attribute__((alias("GOMP_parallel_loop_runtime")));
XG_EXPORT void GOMP_parallel_loop_maybe_nonmonotonic_runtime(void (*)(void *), void *, unsigned,
							     long, long, long, unsigned)
	__attribute__((alias("GOMP_parallel_loop_runtime")));

/* The GOMP_1.0 combined forms: the caller runs the body itself, then
 * GOMP_parallel_end(). */
static void xg_parallel_loop_start(void (*fn)(void *), void *data, unsigned nthreads, long start,
				   long end, long incr, uint32_t sched, long chunk)
{
	struct xg_loop_preset p = { start, end, incr, chunk, sched };

	xg_parallel_start(fn, data, nthreads, xg_preset_long, &p);
}

XG_EXPORT void GOMP_parallel_loop_static_start(void (*fn)(void *), void *data, unsigned nthreads,
					       long start, long end, long incr, long chunk)
{
	xg_parallel_loop_start(fn, data, nthreads, start, end, incr, XG_SCHED_STATIC, chunk);
}

XG_EXPORT void GOMP_parallel_loop_dynamic_start(void (*fn)(void *), void *data,
						unsigned nthreads, long start, long end, long incr,
						long chunk)
{
	xg_parallel_loop_start(fn, data, nthreads, start, end, incr, XG_SCHED_DYNAMIC, chunk);
}

XG_EXPORT void GOMP_parallel_loop_guided_start(void (*fn)(void *), void *data, unsigned nthreads,
					       long start, long end, long incr, long chunk)
{
	xg_parallel_loop_start(fn, data, nthreads, start, end, incr, XG_SCHED_GUIDED, chunk);
}

XG_EXPORT void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data,
						unsigned nthreads, long start, long end, long incr)
{
	xg_parallel_loop_start(fn, data, nthreads, start, end, incr, XG_SCHED_RUNTIME, 0);
}
