// SPDX-License-Identifier: MIT
/*
 * task_reduction.c - task reductions: taskgroup task_reduction, the task
 * modifier of reduction on parallel and worksharing constructs, taskloop
 * reduction, and in_reduction on tasks.
 *
 * gcc describes the reduction variables of a construct in an array it
 * owns (libgomp's layout, which this file keeps):
 *   d[0] count of variables          d[4] next array of the same construct,
 *   d[1] bytes of one thread's copies       then the enclosing registration
 *   d[2] alignment; here: the copies  d[5] here: 1 on the first array of a
 *   d[3] allocator (-1: malloc)              registration, else 0
 *   d[6] here: the end of the copies
 * then per variable: its address, its offset in a thread's copies, and a
 * word this file sets to the array (d) that holds it.
 *
 * Registration allocates one block of copies per thread of the team
 * (zeroed; gcc's code initialises them) and makes the array the current
 * task's innermost registration (struct xg_task.reductions), linked to the
 * enclosing one. A task sees the registrations of the task that created it
 * (task.c copies the pointer), and GOMP_task_reduction_remap() maps an
 * original variable (or any copy of it) to the executing thread's copy.
 * Worksharing constructs register once per thread: the first thread
 * allocates, the others share its blocks (struct xg_ws.task_red).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gomp.h"

#define XG_RED_HEAD 1 /* d[5] of a registration's first array */

void xg_reduction_register(uintptr_t *data, uintptr_t *old, const uintptr_t *orig,
			   uint32_t nthreads)
{
	uintptr_t *d = data;

	for (;;) {
		if (orig) {
			/* A later thread of a worksharing construct. */
			d[2] = orig[2];
			d[6] = orig[6];
			orig = (const uintptr_t *)orig[4];
		} else {
			size_t align = d[2] < sizeof(void *) ? sizeof(void *) : d[2];
			size_t size = d[1] * nthreads;
			void *p;

			if (posix_memalign(&p, align, size ? size : 1)) {
				xg_warn("out of memory for %zu bytes of task reduction copies",
					size);
				abort();
			}
			memset(p, 0, size);
			d[2] = (uintptr_t)p;
			d[6] = d[2] + size;
		}
		d[5] = 0;
		for (size_t j = 0; j < d[0]; j++)
			d[7 + 3 * j + 2] = (uintptr_t)d;
		if (!d[4]) {
			d[4] = (uintptr_t)old;
			break;
		}
		d = (uintptr_t *)d[4];
	}
	data[5] = XG_RED_HEAD;
}

/* The registration that encloses @data's. */
static uintptr_t *xg_reduction_outer(uintptr_t *data)
{
	uintptr_t *d = (uintptr_t *)data[4];

	while (d && d[5] != XG_RED_HEAD)
		d = (uintptr_t *)d[4];
	return d;
}

/* Free @data's copies (the thread that allocated them). */
static void xg_reduction_free(uintptr_t *data)
{
	uintptr_t *d = data;

	do {
		free((void *)d[2]);
		d = (uintptr_t *)d[4];
	} while (d && d[5] != XG_RED_HEAD);
}

XG_EXPORT void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
	struct xg_task *t = xg_task_self();

	xg_reduction_register(data, t->reductions, NULL, t->team->nthreads);
	t->reductions = data;
}

XG_EXPORT void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
	struct xg_task *t = xg_task_self();

	if (t->reductions == data)
		t->reductions = xg_reduction_outer(data);
	xg_reduction_free(data);
}

/* Worksharing constructs (loop.c, sections.c, scope): after the construct
 * was entered, the first thread with @first. */
void xg_ws_task_reduction(struct xg_ws *ws, bool first, uintptr_t *data)
{
	struct xg_task *t = xg_task_self();

	if (first) {
		xg_reduction_register(data, t->reductions, NULL, t->team->nthreads);
		ws->task_red = data;
	} else {
		xg_reduction_register(data, t->reductions, ws->task_red, t->team->nthreads);
	}
	t->reductions = data;
}

XG_EXPORT void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
	struct xg_task *t = xg_task_self();
	uintptr_t *data = t->reductions;

	/* The construct's tasks (a taskgroup around it). */
	xg_task_join();
	if (data) {
		t->reductions = xg_reduction_outer(data);
		if (t->tid == 0)
			xg_reduction_free(data);
	}
	if (!cancelled)
		xg_barrier();
}

static __attribute__((noreturn)) void xg_reduction_missing(const void *p)
{
	xg_warn("no task_reduction or reduction with the task modifier matches %p", p);
	abort();
}

XG_EXPORT void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
	struct xg_task *t = xg_task_self();
	uintptr_t id = t->tid;

	for (size_t i = 0; i < cnt; i++) {
		uintptr_t p = (uintptr_t)ptrs[i], off;
		uintptr_t *d;
		bool found = false;

		/* An original variable, in any enclosing registration. */
		for (d = t->reductions; d && !found; d = (uintptr_t *)d[4]) {
			for (size_t j = 0; j < d[0]; j++) {
				if (d[7 + 3 * j] != p)
					continue;
				ptrs[i] = (void *)(d[2] + id * d[1] + d[7 + 3 * j + 1]);
				if (i < cntorig)
					ptrs[cnt + i] = (void *)p;
				found = true;
				break;
			}
		}
		if (found)
			continue;
		/* Or a thread's copy of one. */
		for (d = t->reductions; d; d = (uintptr_t *)d[4])
			if (p >= d[2] && p < d[6])
				break;
		if (!d)
			xg_reduction_missing(ptrs[i]);
		off = (p - d[2]) % d[1];
		ptrs[i] = (void *)(d[2] + id * d[1] + off);
		if (i < cntorig) {
			size_t j;

			for (j = 0; j < d[0] && d[7 + 3 * j + 1] != off; j++)
				;
			if (j == d[0])
				xg_reduction_missing((void *)p);
			ptrs[cnt + i] = (void *)d[7 + 3 * j];
		}
	}
}

XG_EXPORT unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads,
					    unsigned flags)
{
	/* The block starts with the registration array. */
	return xg_parallel_reductions(fn, data, num_threads, flags, *(uintptr_t **)data);
}

/* scope with task reductions: a worksharing construct only to choose the
 * thread that allocates; gcc emits the barrier and
 * GOMP_workshare_task_reduction_unregister() at its end. */
XG_EXPORT void GOMP_scope_start(uintptr_t *reductions)
{
	bool first;
	struct xg_ws *ws = xg_ws_enter(&first);

	xg_ws_task_reduction(ws, first, reductions);
	if (first)
		xg_ws_ready(ws);
	xg_ws_leave();
}
