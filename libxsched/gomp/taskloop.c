// SPDX-License-Identifier: MIT
/*
 * taskloop.c - GOMP_taskloop and GOMP_taskloop_ull: the iterations split
 * into tasks (task.c), each task's first two words of its argument block
 * being its [start, end) bounds, as gcc's outlined body expects.
 *
 * Splitting: grainsize g gives max(1, n / g) tasks (each at least g
 * iterations, the remainder spread one by one), grainsize(strict: g)
 * tasks of g iterations but the last; num_tasks k gives min(k, n)
 * tasks; neither gives min(n, 4 x team size). Unless nogroup, the
 * construct waits for its tasks (an implicit taskgroup).
 */
#include "gomp.h"
#include "ext.h"
#include "ompt.h"

void xg_task_create(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long size,
		    long align, bool if_clause, bool final, void (*patch)(void *, const void *),
		    const void *patch_arg);

struct xg_bounds {
	uint64_t start, end;
};

static void xg_patch_bounds(void *data, const void *arg)
{
	const struct xg_bounds *b = arg;
	uint64_t *words = data;

	words[0] = b->start;
	words[1] = b->end;
}

static void xg_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
			long size, long align, unsigned flags, unsigned long num,
			uint64_t start, uint64_t end, uint64_t step, bool up, bool is_signed)
{
	uint64_t n = xg_trip_count(start, end, up ? step : -step, up, is_signed);
	uint64_t ntasks, per, extra, at = 0;
	/* grainsize(strict: g): tasks of exactly g iterations, the last one
	 * of what remains. */
	bool strict = (flags & XG_TASK_GRAINSIZE) && (flags & XG_TASK_STRICT) && num;

	if (size < (long)(2 * sizeof(uint64_t)))
		xg_unsupported("a taskloop whose argument block has no room for its bounds");
	/* reduction: the block starts with the bounds and the registration
	 * array, which gcc's code unregisters after the construct. */
	if ((flags & XG_TASK_REDUCTION) && !(flags & XG_TASK_NOGROUP))
		GOMP_taskgroup_reduction_register(((uintptr_t **)data)[2]);
	if (!n)
		return;
	XG_OMPT(taskloop_begin(n, !(flags & XG_TASK_NOGROUP)));
	if (strict) {
		ntasks = n / num + (n % num != 0);
	} else if (flags & XG_TASK_GRAINSIZE) {
		ntasks = num ? n / num : n;
		if (!ntasks)
			ntasks = 1;
	} else if (num) {
		ntasks = num < n ? num : n;
	} else {
		ntasks = 4ull * xg_team_size();
		if (ntasks > n)
			ntasks = n;
	}
	per = n / ntasks;
	extra = n % ntasks;
	for (uint64_t t = 0; t < ntasks; t++) {
		uint64_t len = strict ? (t + 1 < ntasks ? num : n - at) : per + (t < extra);
		struct xg_bounds b = { start + at * step, start + (at + len) * step };

		at += len;
		if (at == n)
			b.end = end; /* the last task ends where the loop does */
		xg_task_create(fn, data, cpyfn, size, align, (flags & XG_TASK_IF) != 0,
			       (flags & XG_TASK_FINAL) != 0, xg_patch_bounds, &b);
	}
	if (!(flags & XG_TASK_NOGROUP))
		xg_task_join();
	XG_OMPT(taskloop_end(!(flags & XG_TASK_NOGROUP)));
}

XG_EXPORT void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
			     long arg_size, long arg_align, unsigned flags,
			     unsigned long num_tasks, int priority, long start, long end,
			     long step)
{
	(void)priority;
	xg_taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, (uint64_t)start,
		    (uint64_t)end, (uint64_t)step, step > 0, true);
}

XG_EXPORT void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
				 long arg_size, long arg_align, unsigned flags,
				 unsigned long num_tasks, int priority, unsigned long long start,
				 unsigned long long end, unsigned long long step)
{
	(void)priority;
	xg_taskloop(fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, start, end, step,
		    (flags & XG_TASK_UP) != 0, false);
}
