// SPDX-License-Identifier: MIT
/*
 * loop_ull.c - entry points of unsigned long long worksharing loops, on
 * the dispenser of loop.c. gcc passes the direction in `up`; a loop that
 * counts down has its step as a negative number in two's complement.
 */
#include "gomp.h"

typedef unsigned long long ull;

static uint64_t xg_count_ull(bool up, ull start, ull end, ull incr)
{
	return xg_trip_count(start, end, up ? incr : -incr, up, false);
}

static bool xg_next_ull(ull *istart, ull *iend)
{
	uint64_t lo, hi;
	const struct xg_loop *l = xg_loop_next(&lo, &hi);

	if (!l)
		return false;
	*istart = xg_loop_value(l, lo);
	*iend = xg_loop_value(l, hi);
	return true;
}

static bool xg_start_ull(bool up, ull start, ull end, ull incr, uint32_t sched, ull chunk,
			 bool ordered, ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
	struct xg_loop_spec spec = {
		.n = xg_count_ull(up, start, end, incr), .start = start, .step = incr, .end = end,
		.sched = sched, .chunk = chunk > INT64_MAX ? INT64_MAX : (int64_t)chunk,
		.ordered = ordered,
	};

	xg_loop_enter(&spec, reductions, mem,
		      "a task reduction on a worksharing loop (GOMP_loop_ull_start)");
	return !istart || xg_next_ull(istart, iend);
}

XG_EXPORT bool GOMP_loop_ull_static_start(bool up, ull start, ull end, ull incr, ull chunk,
					  ull *istart, ull *iend)
{
	return xg_start_ull(up, start, end, incr, XG_SCHED_STATIC, chunk, false, istart, iend,
			    NULL, NULL);
}

XG_EXPORT bool GOMP_loop_ull_dynamic_start(bool up, ull start, ull end, ull incr, ull chunk,
					   ull *istart, ull *iend)
{
	return xg_start_ull(up, start, end, incr, XG_SCHED_DYNAMIC, chunk, false, istart, iend,
			    NULL, NULL);
}

XG_EXPORT bool GOMP_loop_ull_guided_start(bool up, ull start, ull end, ull incr, ull chunk,
					  ull *istart, ull *iend)
{
	return xg_start_ull(up, start, end, incr, XG_SCHED_GUIDED, chunk, false, istart, iend,
			    NULL, NULL);
}

XG_EXPORT bool GOMP_loop_ull_runtime_start(bool up, ull start, ull end, ull incr, ull *istart,
					   ull *iend)
{
	return xg_start_ull(up, start, end, incr, XG_SCHED_RUNTIME, 0, false, istart, iend, NULL,
			    NULL);
}

XG_EXPORT bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool, ull, ull, ull, ull, ull *, ull *)
	__attribute__((alias("GOMP_loop_ull_dynamic_start")));
XG_EXPORT bool GOMP_loop_ull_nonmonotonic_guided_start(bool, ull, ull, ull, ull, ull *, ull *)
	__attribute__((alias("GOMP_loop_ull_guided_start")));
XG_EXPORT bool GOMP_loop_ull_nonmonotonic_runtime_start(bool, ull, ull, ull, ull *, ull *)
	__attribute__((alias("GOMP_loop_ull_runtime_start")));
XG_EXPORT bool GOMP_loop_ull_maybe_nonmonotonic_runtime_start(bool, ull, ull, ull, ull *, ull *)
	__attribute__((alias("GOMP_loop_ull_runtime_start")));

XG_EXPORT bool GOMP_loop_ull_ordered_static_start(bool up, ull start, ull end, ull incr,
						  ull chunk, ull *istart, ull *iend)
{
	return xg_start_ull(up, start, end, incr, XG_SCHED_STATIC, chunk, true, istart, iend,
			    NULL, NULL);
}

XG_EXPORT bool GOMP_loop_ull_ordered_dynamic_start(bool up, ull start, ull end, ull incr,
						   ull chunk, ull *istart, ull *iend)
{
	return xg_start_ull(up, start, end, incr, XG_SCHED_DYNAMIC, chunk, true, istart, iend,
			    NULL, NULL);
}

XG_EXPORT bool GOMP_loop_ull_ordered_guided_start(bool up, ull start, ull end, ull incr,
						  ull chunk, ull *istart, ull *iend)
{
	return xg_start_ull(up, start, end, incr, XG_SCHED_GUIDED, chunk, true, istart, iend,
			    NULL, NULL);
}

XG_EXPORT bool GOMP_loop_ull_ordered_runtime_start(bool up, ull start, ull end, ull incr,
						   ull *istart, ull *iend)
{
	return xg_start_ull(up, start, end, incr, XG_SCHED_RUNTIME, 0, true, istart, iend, NULL,
			    NULL);
}

XG_EXPORT bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
				   ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
	return xg_start_ull(up, start, end, incr, (uint32_t)sched, chunk, false, istart, iend,
			    reductions, mem);
}

XG_EXPORT bool GOMP_loop_ull_ordered_start(bool up, ull start, ull end, ull incr, long sched,
					   ull chunk, ull *istart, ull *iend, uintptr_t *reductions,
					   void **mem)
{
	return xg_start_ull(up, start, end, incr, (uint32_t)sched, chunk, true, istart, iend,
			    reductions, mem);
}

XG_EXPORT bool GOMP_loop_ull_static_next(ull *istart, ull *iend)
{
	return xg_next_ull(istart, iend);
}

#define XG_ULL_NEXT_ALIAS(name)                                                                  \
	XG_EXPORT bool name(ull *, ull *) __attribute__((alias("GOMP_loop_ull_static_next")))
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_dynamic_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_guided_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_runtime_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_nonmonotonic_dynamic_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_nonmonotonic_guided_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_nonmonotonic_runtime_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_maybe_nonmonotonic_runtime_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_ordered_static_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_ordered_dynamic_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_ordered_guided_next);
XG_ULL_NEXT_ALIAS(GOMP_loop_ull_ordered_runtime_next);
