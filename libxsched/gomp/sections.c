// SPDX-License-Identifier: MIT
/*
 * sections.c - the sections construct: section numbers 1..count handed out
 * by a relaxed fetch_add on the construct's `next` (numbers only; what a
 * section writes is ordered by the closing barrier).
 */
#include "gomp.h"
#include "ompt.h"

static unsigned xg_section_take(void)
{
	struct xg_ws *ws = xg_task_self()->implicit->ws;
	/* Relaxed: hands out numbers only (see above). */
	uint64_t i = xs_fetch_add_relaxed(&ws->next, 1);

	return i < ws->sections ? (unsigned)i + 1 : 0;
}

static void xg_sections_init(struct xg_ws *ws, const void *arg)
{
	ws->sections = *(const unsigned *)arg;
	xs_store_relaxed(&ws->next, 0); /* published by the ready release */
	ws->loop.ordered = false;
}

XG_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
	bool first;
	struct xg_ws *ws;

	XG_OMPT(work_begin(XG_OMPT_WORK_SECTIONS, count));
	ws = xg_ws_enter(&first);
	if (first)
		xg_sections_init(ws, &count);
	if (reductions)
		xg_ws_task_reduction(ws, first, reductions);
	xg_ws_mem(ws, first, mem);
	if (first)
		xg_ws_ready(ws);
	return xg_section_take();
}

XG_EXPORT unsigned GOMP_sections_start(unsigned count)
{
	return GOMP_sections2_start(count, NULL, NULL);
}

XG_EXPORT unsigned GOMP_sections_next(void)
{
	return xg_section_take();
}

XG_EXPORT void GOMP_sections_end(void)
{
	XG_OMPT(work_end(XG_OMPT_WORK_SECTIONS));
	xg_ws_leave();
	xg_barrier();
}

XG_EXPORT void GOMP_sections_end_nowait(void)
{
	XG_OMPT(work_end(XG_OMPT_WORK_SECTIONS));
	xg_ws_leave();
}

XG_EXPORT bool GOMP_sections_end_cancel(void)
{
	GOMP_sections_end();
	return false; /* cancellation is not supported: never cancelled */
}

XG_EXPORT void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned nthreads,
				      unsigned count, unsigned flags)
{
	XG_OMPT(preset(XG_OMPT_WORK_SECTIONS));
	xg_parallel_ws(fn, data, nthreads, flags, xg_sections_init, &count);
}

XG_EXPORT void GOMP_parallel_sections_start(void (*fn)(void *), void *data, unsigned nthreads,
					    unsigned count)
{
	XG_OMPT(preset(XG_OMPT_WORK_SECTIONS));
	xg_parallel_start(fn, data, nthreads, xg_sections_init, &count);
}
